"""Surface grip, uniform and from map_server-style maps, under each wheel."""

import math

import numpy as np
from PIL import Image
import pytest
from rally_sim.physics import Command, Surface, SURFACE_GRIP, SurfaceError, Vehicle
from rally_sim.physics.model import YAW_RATE
import yaml

GRAVEL, TARMAC, ICE = (200, 170, 110), (90, 90, 90), (230, 240, 255)
LEGEND = [{'color': list(GRAVEL), 'surface': 'gravel'},
          {'color': list(TARMAC), 'surface': 'tarmac_dry'},
          {'color': list(ICE), 'surface': 'ice'}]


def make_map(tmp_path, pixels, **spec):
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(tmp_path / 'stage.png')
    tree = {'image': 'stage.png', 'resolution': 1.0, 'origin': [0.0, 0.0, 0.0],
            'surfaces': LEGEND, **spec}
    (tmp_path / 'stage.yaml').write_text(yaml.safe_dump(tree))
    return str(tmp_path / 'stage.yaml')


def test_reference_000_grip_table():
    assert SURFACE_GRIP == {'tarmac_dry': 1.0, 'tarmac_wet': 0.7, 'gravel': 0.6, 'dirt': 0.55,
                            'mud': 0.35, 'grass': 0.4, 'snow': 0.3, 'ice': 0.15}
    assert Surface.uniform('snow').grip_at([0.0, 1e6], [0.0, -1e6]).tolist() == [0.3, 0.3]


def test_map_lookup_follows_map_server_conventions(tmp_path):
    # 2 rows x 3 columns; row 0 is the top of the image (the larger y).
    pixels = [[GRAVEL, TARMAC, ICE],
              [TARMAC, TARMAC, GRAVEL]]
    surface = Surface.load(make_map(tmp_path, pixels, origin=[-1.0, 10.0, 0.0],
                                    resolution=2.0, outside='snow'))
    grip = surface.grip_at([-0.5, 1.5, 3.5, -0.5, 4.9, -1.5, 5.1],
                           [12.5, 12.5, 13.9, 10.1, 11.0, 11.0, 11.0])
    assert grip.tolist() == [0.6, 1.0, 0.15, 1.0, 0.6, 0.3, 0.3]


def test_map_origin_yaw_rotates_the_grid(tmp_path):
    pixels = [[ICE, GRAVEL]]       # one row: ice at column 0, gravel at column 1
    surface = Surface.load(make_map(tmp_path, pixels, origin=[0.0, 0.0, math.pi / 2]))
    # Columns run along +y once the map is turned by 90 degrees.
    assert surface.grip_at([-0.5, -0.5], [0.5, 1.5]).tolist() == [0.15, 0.6]


@pytest.mark.parametrize('spec, pixels, message', [
    ({'resolution': 0.0}, [[GRAVEL]], r'resolution = 0.0 must be a number in \[0.001, 100\]'),
    ({'origin': [0.0, 0.0]}, [[GRAVEL]], r'origin = \[0.0, 0.0\] must be \[x, y, yaw\]'),
    ({'outside': 'lava'}, [[GRAVEL]], "outside: unknown surface type 'lava'"),
    ({'surfaces': [{'color': [1, 2, 3], 'surface': 'sand'}]}, [[GRAVEL]],
     r"surfaces\[0\].surface: unknown surface type 'sand'"),
    ({}, [[GRAVEL, (1, 2, 3)]], r'pixel \(row 0, column 1\) has colour \[1, 2, 3\]'),
    ({'friction': 2}, [[GRAVEL]], r"unknown key\(s\) \['friction'\]"),
    ({'image': 'missing.png'}, [[GRAVEL]], 'image: cannot read'),
])
def test_bad_maps_name_the_problem(tmp_path, spec, pixels, message):
    with pytest.raises(SurfaceError, match=message):
        Surface.load(make_map(tmp_path, pixels, **spec))


def test_split_mu_braking_yaws_toward_the_grippy_side(tmp_path, v40):
    # Left wheels on ice (y > 0), right wheels on tarmac: braking pulls right.
    pixels = [[ICE] * 200] * 10 + [[TARMAC] * 200] * 10
    surface = Surface.load(make_map(tmp_path, pixels, origin=[-20.0, -10.0, 0.0]))
    car = Vehicle(v40, surface)
    car.reset(vx=20.0)
    car.set_command(Command(brake_torque_n_m=[2000.0, 2000.0, 1000.0, 1000.0]))
    for _ in range(50):
        car.step(0.01)
    assert car.wheels().friction == pytest.approx([1.1 * 0.15, 1.1, 1.1 * 0.15, 1.1])
    assert car.state[YAW_RATE] < -0.05


def test_friction_follows_the_car_onto_ice(tmp_path, v40):
    pixels = [[TARMAC] * 30 + [ICE] * 70] * 20     # ice from x = 10 m
    surface = Surface.load(make_map(tmp_path, pixels, origin=[-20.0, -10.0, 0.0]))
    from rally_sim.physics.scenarios import document_scenario
    from rally_sim.physics.trajectory import simulate
    car = Vehicle(v40, surface)
    car.reset(vx=10.0)
    scenario = document_scenario('u_turn', duration_s=1.5)
    assert car.wheels().friction == pytest.approx([1.1] * 4)
    simulate(car, scenario.inputs)
    assert car.wheels().friction == pytest.approx([1.1 * 0.15] * 4)
