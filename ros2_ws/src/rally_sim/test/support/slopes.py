"""A 10 % plane to drive on: a surface map with a height map beside it, for tests."""

import math

import numpy as np
from PIL import Image
import yaml

G = 9.82
SLOPE = 0.1                                  # 10 %: rises 0.1 m per metre
SIN = SLOPE / math.sqrt(1.0 + SLOPE ** 2)
FLAT = {'resistance.drag_coefficient_kg_m': 0.0, 'resistance.rolling_resistance_n_s_m': 0.0}


def write_maps(folder, rise='x', height_spec=None, height_pixels=None):
    """Write a 256 m square gravel surface map and a 10 % plane height map beside it."""
    Image.fromarray(np.full((256, 256), 200, np.uint8)).save(folder / 'surface.png')
    cols, rows = np.meshgrid(np.arange(256), np.arange(256))
    plane = cols if rise == 'x' else 255 - rows            # image row 0 is the top
    pixels = plane.astype(np.uint8) if height_pixels is None else height_pixels
    Image.fromarray(pixels).save(folder / 'heights.png')
    spec = {'image': 'heights.png', 'resolution': 1.0, 'origin': [0.0, 0.0, 0.0],
            'min_height_m': 0.0, 'max_height_m': 25.5, 'max_slope': 0.2}
    spec.update(height_spec or {})
    (folder / 'heights.yaml').write_text(yaml.safe_dump(spec))
    (folder / 'surface.yaml').write_text(yaml.safe_dump({
        'image': 'surface.png', 'resolution': 1.0, 'origin': [0.0, 0.0, 0.0],
        'surfaces': [{'color': 200, 'surface': 'tarmac_dry'}], 'height_map': 'heights.yaml'}))
    return str(folder / 'surface.yaml')


def assert_stops_and_holds(config, folder):
    """
    Check a car brakes from 10 m/s to rest and holds there, creeps nowhere free, holds on 10 %.

    Returns the free car (at rest 5 s) for more checks; `folder` takes the slope's maps.
    """
    from rally_sim.physics import Command, Surface, Vehicle
    from rally_sim.physics.model import VX, VY, X, Y, YAW, YAW_RATE
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(vx=10.0)
    car.set_command(Command(brake_torque_n_m=[1500.0] * 4))
    car.step(3.0)
    assert car.state[VX] == 0.0
    held = car.state[[X, Y, YAW]].copy()
    car.step(5.0)
    assert np.all(car.state[[X, Y, YAW]] == held)
    free = Vehicle(config, Surface.uniform('tarmac_dry'))
    free.reset()
    free.step(5.0)
    assert np.all(free.state[[X, Y, YAW, VX, VY, YAW_RATE]] == 0.0)        # no creep at rest
    slope = Vehicle(config.with_overrides(FLAT), Surface.load(write_maps(folder)))
    slope.reset(x=128.0, y=128.0, yaw=0.3)
    slope.set_command(Command(brake_torque_n_m=[300.0] * 4))
    slope.step(0.5)
    held = slope.state[[X, Y, YAW]].copy()
    slope.step(5.0)
    assert np.all(slope.state[[X, Y, YAW]] == held)
    return free
