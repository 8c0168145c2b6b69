"""Fixtures of the physics tests: the packaged vehicle files."""

import os

import pytest

from rally_sim.physics import load_vehicle

VEHICLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config',
                        'vehicles')


def vehicle_file(name: str) -> str:
    """Return the path of a packaged vehicle file."""
    return os.path.join(VEHICLES, name + '.yaml')


@pytest.fixture
def v40_document():
    """Return the V40 of document 002 in document mode."""
    return load_vehicle(vehicle_file('volvo_v40_document'))


@pytest.fixture
def v40():
    """Return the V40 with the default numerics."""
    return load_vehicle(vehicle_file('volvo_v40'))
