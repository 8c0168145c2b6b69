"""The vehicle files packaged with rally_sim, for tests."""

import os

from rally_sim.physics import load_vehicle

VEHICLES = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config', 'vehicles'))


PRESETS = sorted(name[:-len('.yaml')] for name in os.listdir(VEHICLES)
                 if name.endswith('.yaml'))
"""The names of every packaged vehicle file."""


def vehicle_file(name: str) -> str:
    """Return the path of a packaged vehicle file."""
    return os.path.join(VEHICLES, name + '.yaml')


def vehicle(name: str):
    """Load a packaged vehicle file."""
    return load_vehicle(vehicle_file(name))
