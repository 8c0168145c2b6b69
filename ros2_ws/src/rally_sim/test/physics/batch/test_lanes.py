"""Batch rollouts in vector lanes: the single car's arithmetic, bad cars kept apart."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from rally_sim.physics import Vehicle
from rally_sim.physics.batch import lanes
from rally_sim.physics.batch.rollouts import Batch
from rally_sim.physics.scenarios import document_scenario
from rally_sim.physics.surfaces import Surface
from rally_sim.resources import config_file
from support.vehicles import vehicle

CARS = lanes.LANES + 3      # two blocks, the second partly filled
HORIZON = 40


def inputs(cars: int, horizon: int, seed: int) -> dict:
    """Return varied inputs: steer, rate limits, drive, brakes, handbrake, some clamped."""
    rng = np.random.default_rng(seed)
    drive = np.zeros((cars, horizon, 4))
    drive[:, :, 2:] = rng.uniform(-300.0, 900.0, (cars, horizon, 1))
    drive[0, 3, 2] = 1e6                                 # clamped to the drive limit
    brake = np.zeros((cars, horizon, 4))
    brake[:, horizon // 2:, :] = rng.uniform(0.0, 400.0, (cars, 1, 1))
    handbrake = np.zeros((cars, horizon))
    handbrake[1, 5:12] = 1.0
    handbrake[2, 5:12] = 3.0                             # clamped to 1
    rate = np.zeros((cars, horizon))
    rate[3] = 1.5
    steer = rng.uniform(-0.3, 0.3, (cars, horizon))
    steer[4, :10] = 2.0                                  # clamped to max_angle_rad
    return {'steer': steer, 'drive': drive, 'brake': brake, 'handbrake': handbrake,
            'steer_rate': rate}


def starts(config, cars: int) -> np.ndarray:
    """Return start states: moving at 8-22 m/s, turning, some wheels slipping."""
    car = Vehicle(config)
    rows = []
    for k in range(cars):
        car.reset(x=float(k), yaw=0.3 * k, vx=8.0 + 14.0 * k / cars, yaw_rate=0.02 * (k % 5))
        car.state[lanes.R_OMEGA + 2:lanes.R_OMEGA + 4] *= 1.0 + 0.01 * (k % 3)
        rows.append(car.state.copy())
    return np.array(rows)


CHILD = """
import json, math, sys
import numpy as np
from rally_sim.physics import jit
from rally_sim.physics.batch import lanes
from rally_sim.physics.batch.rollouts import Batch
from support.vehicles import vehicle
from test_lanes import inputs, starts, CARS
assert not jit.ENABLED
lanes.lane_atan = math.atan
lanes.lane_sin = math.sin
lanes.lane_sincos = lambda x: (math.sin(x), math.cos(x))
config = vehicle('volvo_v40_document')
batch = Batch(config, CARS, per_car={'mass_kg': np.linspace(1400.0, 1800.0, CARS)})
given = inputs(CARS, 12, seed=1)
states = starts(config, CARS)
for dt in (0.01, 0.02):
    fast = batch.rollout(states, **given, dt=dt, tyres=False, lanes=True)
    exact = batch.rollout(states, **given, dt=dt, tyres=False)
    print(json.dumps([bool(np.array_equal(fast.states, exact.states)),
                      bool(fast.valid.all() and exact.valid.all())]))
"""


def test_with_the_c_library_functions_the_lanes_are_the_single_car_bit_for_bit():
    # The lanes kernel run as plain Python (RALLY_SIM_NO_JIT) with math.atan,
    # math.sin and math.cos in place of lane_math's: then every operation is
    # the single car's, so every state of every car must be equal to the bit,
    # with sub-steps (dt 0.02), rate limits, brakes, handbrake, clamped
    # inputs and per-car masses, over two blocks of lanes.
    here = os.path.dirname(os.path.abspath(__file__))                     # test/physics/batch
    root = os.path.dirname(os.path.dirname(here))                           # test: support/
    env = dict(os.environ, RALLY_SIM_NO_JIT='1', PYTHONPATH=os.pathsep.join(
        [here, root, os.environ.get('PYTHONPATH', '')]))
    result = subprocess.run([sys.executable, '-c', CHILD], env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [[True, True]] * 2


CHILD_MF = """
import json, math, os, sys
import numpy as np
from rally_sim.physics import jit
from rally_sim.physics.batch import lane_tyres, lanes
from rally_sim.physics.batch.rollouts import Batch
from test_lanes import inputs, starts, CARS, tir_cars
assert not jit.ENABLED
for module in (lanes, lane_tyres):
    for name, function in (('lane_atan', math.atan), ('lane_sin', math.sin),
                           ('lane_cos', math.cos), ('lane_tan', math.tan),
                           ('lane_exp', math.exp)):
        if hasattr(module, name):
            setattr(module, name, function)
lanes.lane_sincos = lambda x: (math.sin(x), math.cos(x))
for config, per_car, sliding in tir_cars(sys.argv[1]):
    batch = Batch(config, CARS, per_car=per_car)
    given = inputs(CARS, 10, seed=1)
    states = starts(config, CARS)
    states[::3, lanes.R_VY] = sliding
    for dt in (0.01, 0.02):
        fast = batch.rollout(states, **given, dt=dt, tyres=False, lanes=True)
        exact = batch.rollout(states, **given, dt=dt, tyres=False)
        print(json.dumps([bool(np.array_equal(fast.states, exact.states)),
                          bool(fast.valid.all() and exact.valid.all())]))
"""


def tir_cars(folder: str) -> list:
    """
    Return (vehicle, per-car values, side speed of every third car) for lanes' checks.

    The document car on Pacejka 2006's MF 6.1 tyre, cambered, at another
    pressure; on a copy of it that has every optional term (LMUV's decay,
    PKY4 not 2, pressure terms) in front and on the MF 5.2 reading of it
    behind; with CG heights and side slips that lift wheels; and with tyre
    relaxation: the document tyre's, the .tir tyres' over the vehicle
    file's lengths, and over the files' own (PTX/PTY in front, the carcass
    stiffnesses behind).
    """
    with open(config_file('tyres/pacejka_2006_205_60r15.tir')) as f:
        text = f.read()
    every = text.replace('PKY4                     = 2.0', 'PKY4                     = 1.8')
    every += ('\n[SCALING_COEFFICIENTS]\nLMUV = 0.3\n[LONGITUDINAL_COEFFICIENTS]\n'
              'PPX1 = -0.3\nPPX2 = 0.2\nPPX3 = -0.1\nPPX4 = 0.05\n'
              '[LATERAL_COEFFICIENTS]\nPPY1 = -0.4\nPPY2 = 0.1\nPPY3 = -0.1\n'
              'PPY4 = 0.05\nPPY5 = 0.2\nPKY5 = 0.1\nPKY6 = -0.9\nPKY7 = -0.2\n'
              'PTY1 = 2.1\nPTY2 = 1.9\n[LONGITUDINAL_COEFFICIENTS]\nPTX1 = 2.3\n'
              'PTX2 = 1.4e-3\nPTX3 = 0.2\n')
    with open(os.path.join(folder, 'every.tir'), 'w') as f:
        f.write(every)
    with open(os.path.join(folder, 'five.tir'), 'w') as f:
        f.write(text.replace('FITTYP                   = 61', 'FITTYP                   = 52')
                + '\n[STRUCTURAL]\nLONGITUDINAL_STIFFNESS = 4.1e5\nLATERAL_STIFFNESS = 1.3e5\n'
                'PCFX1 = 0.1\nPCFX2 = 0.02\nPCFY1 = 0.15\nPCFY2 = 0.01\n')
    document = vehicle('volvo_v40_document')
    shipped = document.with_overrides({
        'tyres.front.tir': 'pacejka_2006_205_60r15', 'tyres.rear.tir': 'pacejka_2006_205_60r15',
        'tyres.front.camber_rad': -0.02, 'tyres.rear.camber_rad': 0.01,
        'tyres.front.pressure_pa': 250000.0})
    mixed = document.with_overrides({
        'tyres.front.tir': os.path.join(folder, 'every.tir'),
        'tyres.rear.tir': os.path.join(folder, 'five.tir'), 'tyres.front.camber_rad': -0.03,
        'tyres.front.pressure_pa': 200000.0, 'low_speed_m_s': 0.5})
    masses = {'mass_kg': np.linspace(1400.0, 1800.0, CARS)}
    heights = {'cg_height_m': np.linspace(0.5, 1.6, CARS)}
    lengths = {f'tyres.{axle}.relaxation_length_{xy}_m': length
               for axle in ('front', 'rear') for xy, length in (('x', 0.15), ('y', 0.4))}
    relaxed = dict(lengths, tyre_relaxation=True)
    return [(shipped, masses, 0.0), (mixed, masses, 0.0), (shipped, heights, 6.0),
            (document.with_overrides(relaxed), masses, 0.0),
            (shipped.with_overrides(relaxed), heights, 6.0),
            (mixed.with_overrides({'tyre_relaxation': True}), masses, 0.0)]


def test_on_tir_tyres_with_the_c_library_functions_the_lanes_are_the_single_car_bit_for_bit(
        tmp_path):
    # As above, for Magic Formula tyres (lane_tyres): MF 6.1 and 5.2 files,
    # every optional term, camber, pressure, low_speed_m_s, cars whose first
    # load solve lifts wheels (every third sliding sideways at 6 m/s, CG
    # heights up to 1.6 m), and tyre relaxation on either tyre model.
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    env = dict(os.environ, RALLY_SIM_NO_JIT='1', PYTHONPATH=os.pathsep.join(
        [here, root, os.environ.get('PYTHONPATH', '')]))
    result = subprocess.run([sys.executable, '-c', CHILD_MF, str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [[True, True]] * 12


@pytest.fixture(scope='module')
def document():
    return vehicle('volvo_v40_document')


def test_compiled_lanes_follow_the_single_car_to_its_last_bits_where_it_is_tame(document):
    # Document 002's U-turn (7 s at 10 m/s) and its drift's first 3 s (13 m/s),
    # each car with its inputs scaled. The functions' last-bit differences
    # grow where the explicit scheme is stiff (wheel spin: measured 1.1e-9
    # relative after 7 s of U-turn, 2e-11 in the chassis); after 3 s the
    # drift's spin-out amplifies any rounding difference without bound
    # (without lanes=True the batch is the single car's bits).
    for name, seconds, spins, chassis in (('u_turn', 7.0, 1e-8, 1e-10),
                                          ('drift', 3.0, 1e-10, 1e-10)):
        scenario = document_scenario(name, duration_s=seconds)
        scale = np.linspace(0.8, 1.2, CARS)
        car = Vehicle(document)
        car.reset(vx=scenario.initial_speed_m_s)
        states = np.repeat(car.state[None], CARS, axis=0)
        steer = scenario.inputs.steer[None] * scale[:, None]
        drive = scenario.inputs.drive[None] * scale[:, None, None]
        batch = Batch(document, CARS)
        fast = batch.rollout(states, steer, drive, dt=0.01, tyres=False, lanes=True)
        exact = batch.rollout(states, steer, drive, dt=0.01, tyres=False)
        assert fast.valid.all() and exact.valid.all()
        assert fast.states.shape == exact.states.shape == (CARS, len(scenario.inputs.t), 14)
        relative = np.abs(fast.states - exact.states) / np.maximum(np.abs(exact.states), 1.0)
        assert relative.max() < spins, name
        assert relative[:, :, :lanes.R_OMEGA].max() < chassis, name
        assert relative[:, :20].max() < 1e-12, name


def test_compiled_lanes_on_tir_tyres_follow_the_single_car_to_its_last_bits(tmp_path):
    # lane_math's functions in place of the C library's, on each car of
    # tir_cars: 0.5 s of the varied inputs at dt 0.01 (wheels lifted at the
    # start included). Measured: 5e-13 relative at most over the first 0.2 s;
    # after 0.5 s 1.1e-8 in a wheel's spin and 8e-10 in the chassis of the
    # car whose drive torque jumps to its limit, the explicit scheme's stiff
    # wheel spin amplifying the functions' last bits.
    for config, per_car, sliding in tir_cars(str(tmp_path)):
        batch = Batch(config, CARS, per_car=per_car)
        given = inputs(CARS, 50, seed=5)
        states = starts(config, CARS)
        states[::3, lanes.R_VY] = sliding
        fast = batch.rollout(states, **given, dt=0.01, tyres=False, lanes=True)
        exact = batch.rollout(states, **given, dt=0.01, tyres=False)
        assert fast.valid.all() and exact.valid.all()
        relative = np.abs(fast.states - exact.states) / np.maximum(np.abs(exact.states), 1.0)
        assert relative.max() < 1e-7
        assert relative[:, :, :lanes.R_OMEGA].max() < 1e-8
        assert relative[:, :20].max() < 1e-12


def test_a_car_with_a_non_finite_input_or_state_is_marked_and_the_others_are_untouched(
        document):
    given = inputs(CARS, HORIZON, seed=2)
    states = starts(document, CARS)
    batch = Batch(document, CARS)
    clean = batch.rollout(states, **given, dt=0.01, tyres=False, lanes=True)
    assert clean.valid.all()
    given['drive'][2, HORIZON - 1, 3] = np.nan      # the last row of car 2
    given['steer_rate'][5, 0] = -np.inf
    states[CARS - 1, lanes.R_OMEGA] = np.inf          # in the partly filled block
    result = batch.rollout(states, **given, dt=0.01, tyres=False, lanes=True)
    bad = [2, 5, CARS - 1]
    assert np.flatnonzero(~result.valid).tolist() == bad
    assert np.isnan(result.states[bad]).all()
    good = np.setdiff1d(np.arange(CARS), bad)
    np.testing.assert_array_equal(result.states[good], clean.states[good])


def test_a_car_that_blows_up_is_marked(document):
    states = starts(document, 3)
    states[1, lanes.R_VX] = 1e300
    result = Batch(document, 3).rollout(states, np.zeros((3, 5)), np.zeros((3, 5, 4)),
                                        dt=0.01, tyres=False, lanes=True)
    assert result.valid.tolist() == [True, False, True]


@pytest.mark.parametrize('argument, shape', [('brake', (CARS, HORIZON, 3)),
                                             ('states', (CARS, 11)),
                                             ('handbrake', (CARS, HORIZON + 1))])
def test_shapes_that_do_not_match_are_named(document, argument, shape):
    given = dict(inputs(CARS, HORIZON, seed=3), states=starts(document, CARS))
    given[argument] = np.zeros(shape)
    with pytest.raises(ValueError, match=argument):
        Batch(document, CARS).rollout(**given, dt=0.01, tyres=False, lanes=True)


def test_lanes_are_refused_naming_what_the_vehicle_lacks(document, tmp_path):
    given = inputs(CARS, 6, seed=4)
    with pytest.raises(ValueError, match='tyres=False'):
        Batch(document, CARS).rollout(starts(document, CARS), **given, lanes=True)
    default = vehicle('volvo_v40')
    with pytest.raises(ValueError, match="integrator 'euler'.*slip_model 'document'"):
        Batch(default, CARS).rollout(starts(default, CARS), **given, tyres=False, lanes=True)
    tir = vehicle('volvo_v40_mf')
    with pytest.raises(ValueError, match="integrator 'euler'"):
        Batch(tir, CARS).rollout(starts(tir, CARS), **given, tyres=False, lanes=True)
    own_lengths = tir_cars(str(tmp_path))[1][0]         # .tir files that give their lengths
    mixed = Batch(own_lengths, CARS, per_car={'tyre_relaxation': [True, False] * 5 + [True]})
    with pytest.raises(ValueError, match='one tyre_relaxation for all cars'):
        mixed.rollout(starts(own_lengths, CARS), **given, tyres=False, lanes=True)
    stage = Surface.load(config_file('stages/rally_stage.yaml'))
    with pytest.raises(ValueError, match='a uniform surface'):
        Batch(document, CARS, stage).rollout(starts(document, CARS), **given, tyres=False,
                                             lanes=True)
