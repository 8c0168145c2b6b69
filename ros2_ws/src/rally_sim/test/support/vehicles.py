"""The vehicle files packaged with rally_sim, for tests."""

import os

from rally_sim.physics import load_vehicle

VEHICLES = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config', 'vehicles'))


def vehicle_file(name: str) -> str:
    """Return the path of a packaged vehicle file."""
    return os.path.join(VEHICLES, name + '.yaml')


def vehicle(name: str):
    """Load a packaged vehicle file."""
    return load_vehicle(vehicle_file(name))
