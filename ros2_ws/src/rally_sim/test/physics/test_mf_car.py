"""The four-wheel model on Magic Formula tyres: .tir files named in the vehicle file."""

import math
import os
import shutil

import numpy as np
import pytest
from rally_sim.physics import Command, ConfigError, load_vehicle, Surface, Vehicle
from rally_sim.physics import magic_formula as mf
from rally_sim.physics.config import from_mapping
from rally_sim.physics.equilibria import SteadyState
from rally_sim.physics.model import (
    MF_AXLE_SIZE, MF_HEAD, NORMAL_LOAD, P_MF_FRONT, P_MF_REAR, TYRE_MF, VX, VY, X, Y,
    YAW, YAW_RATE)
from rally_sim.physics.tir import read_tir
from support.slopes import assert_stops_and_holds
from support.vehicles import vehicle_file
import yaml

TYRES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                      'config', 'tyres'))
BOOK = os.path.join(TYRES, 'pacejka_2006_205_60r15.tir')
MF52 = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                     'support', 'tyres', 'mf52_test.tir'))


def mf_tree(preset='volvo_v40', tyre=BOOK, **axle_keys):
    """Return a preset's vehicle tree with a .tir tyre (and `axle_keys`) on both axles."""
    with open(vehicle_file(preset), encoding='utf-8') as stream:
        tree = yaml.safe_load(stream)
    for axle in ('front', 'rear'):
        tree['tyres'][axle] = {'tir': tyre, **axle_keys}
    return tree


def mf_car(tree=None, surface='tarmac_dry', **state) -> Vehicle:
    car = Vehicle(from_mapping(tree or mf_tree(), 'test car'), Surface.uniform(surface))
    car.reset(**state)
    return car


# ---- the vehicle file ------------------------------------------------------------

def test_a_vehicle_file_names_its_tyres_beside_it_or_by_a_shipped_name(tmp_path):
    (tmp_path / 'tyres').mkdir()
    shutil.copy(BOOK, tmp_path / 'tyres' / 'mine.tir')
    tree = mf_tree()
    tree['tyres']['front'] = {'tir': 'tyres/mine.tir', 'camber_rad': -0.02}
    tree['tyres']['rear'] = {'tir': 'pacejka_2006_205_60r15'}
    (tmp_path / 'car.yaml').write_text(yaml.safe_dump(tree))
    config = load_vehicle(str(tmp_path / 'car.yaml'))
    assert config['tyres.front.tir'] == str(tmp_path / 'tyres' / 'mine.tir')
    assert config['tyres.rear.tir'] == BOOK
    params = config.model_params()
    assert params.tyre_model == TYRE_MF
    p = params.flat()
    coefficients = np.array(read_tir(BOOK).coefficients())
    for base in (P_MF_FRONT, P_MF_REAR):
        np.testing.assert_array_equal(p[base + MF_HEAD:base + MF_AXLE_SIZE], coefficients)
    assert p[P_MF_FRONT:P_MF_FRONT + MF_HEAD].tolist() == [0.0, -0.02, 220000.0, 1.0]
    assert p[P_MF_REAR + 1] == 0.0
    assert config.tyre('mu').tolist() == [1.0] * 4        # the .tir has the friction


@pytest.mark.parametrize('change, message', [
    ({'rear': {'mu': 1.0, 'B': 10.0, 'C': 1.9, 'D': 1.0}},
     r"'tyres.front.tir' names a tyre file but 'tyres.rear.tir' does not"),
    ({'front': {'tir': BOOK, 'mu': 1.1}}, r'tyres.front.mu not used with the .tir tyre'),
    ({'front': {'tir': BOOK, 'camber_rad': 0.5}}, r"'tyres.front.camber_rad' = 0.5 is out of "
     r'range \[-0.2, 0.2\]'),
    ({'front': {'tir': 'no_such_tyre'}}, r"'tyres.front.tir' = 'no_such_tyre': no such tyre "
     r'file .*shipped: f1tenth_forzaeth_nuc2_front, .*pacejka_2006_205_60r15'),
    ({'front': {'tir': MF52, 'pressure_pa': float('nan')}}, r"'tyres.front.pressure_pa' = nan"),
])
def test_bad_tyre_keys_are_refused_naming_the_key(change, message):
    tree = mf_tree()
    tree['tyres'].update(change)
    with pytest.raises(ConfigError, match=message):
        from_mapping(tree, 'car.yaml')


def test_an_override_puts_a_car_on_tir_tyres(tmp_path):
    config = load_vehicle(vehicle_file('rwd_gravel'), [f'tyres.front.tir={MF52}',
                                                       'tyres.rear.tir=pacejka_2006_205_60r15',
                                                       'tyres.rear.camber_rad=-0.01'])
    assert config.model_params().tyre_model == TYRE_MF
    assert config['tyres.rear.tir'] == BOOK and config['tyres.front.mu'] == 1.0
    assert config.tyre_files()[0].version == '5.2'
    with pytest.raises(ConfigError, match=r"'tyres.front.tir' names a tyre file but "
                       r"'tyres.rear.tir' does not"):
        load_vehicle(vehicle_file('rwd_gravel'), [f'tyres.front.tir={MF52}'])


def test_a_camber_without_a_tir_tyre_and_a_tir_on_a_bicycle_are_refused():
    with open(vehicle_file('volvo_v40'), encoding='utf-8') as stream:
        tree = yaml.safe_load(stream)
    tree['tyres']['front']['camber_rad'] = -0.01
    with pytest.raises(ConfigError, match=r'tyres.front.camber_rad need a .tir tyre'):
        from_mapping(tree, 'car.yaml')
    with open(vehicle_file('volvo_v40_kinematic'), encoding='utf-8') as stream:
        tree = yaml.safe_load(stream)
    tree['tyres'] = {'front': {'tir': BOOK}, 'rear': {'tir': BOOK}}
    with pytest.raises(ConfigError, match=r'tyres.front.tir, tyres.rear.tir not used by model '
                       r"'kinematic_bicycle'"):
        from_mapping(tree, 'car.yaml')


@pytest.mark.parametrize('edit, message', [
    (('FITTYP                   = 61', 'FITTYP = 7'), r'\[MODEL\] FITTYP = 7: not a Magic '
     r'Formula'),
    (('PDY1                     = -0.990', 'PDY1 = nan'), r'\[LATERAL_COEFFICIENTS\] PDY1'),
    (('FNOMIN                   = 4000', 'FNOMIN = -4000'), r'\[VERTICAL\] FNOMIN = -4000: '
     r'must be positive'),
    (("LENGTH                   = 'meter'", "LENGTH = 'furlong'"), r"LENGTH = 'furlong': "
     r'unknown unit'),
])
def test_an_unusable_tir_file_is_refused_when_the_vehicle_loads(tmp_path, edit, message):
    text = open(BOOK, encoding='utf-8').read()
    assert edit[0] in text
    bad = tmp_path / 'bad.tir'
    bad.write_text(text.replace(edit[0], edit[1]))
    with pytest.raises(ConfigError, match=r"key 'tyres.front.tir': .*bad.tir.*" + message):
        from_mapping(mf_tree(tyre=str(bad)), 'car.yaml')
    with pytest.raises(ConfigError, match=r"key 'tyres.front.tir'.*cannot read"):
        from_mapping(mf_tree(tyre=str(tmp_path / 'gone.tir')), 'car.yaml')


# ---- the car on them -------------------------------------------------------------

def turn(car, steer, seconds=2.0, torque=150.0):
    car.set_command(Command(steer_rad=steer, drive_torque_n_m=(0.0, 0.0, torque, torque)))
    car.step(seconds)
    return car


@pytest.mark.parametrize('tyre', [BOOK, MF52])
def test_a_left_turn_pushes_left_and_mirrors_a_right_turn(tyre):
    # The file is fitted for one side; the other side's wheels are its mirror
    # image, so a symmetric car on asymmetric tyres (ply steer, conicity,
    # camber) goes straight and turns alike both ways.
    left = turn(mf_car(mf_tree(tyre=tyre, camber_rad=-0.02), vx=15.0), 0.05)
    right = turn(mf_car(mf_tree(tyre=tyre, camber_rad=-0.02), vx=15.0), -0.05)
    straight = turn(mf_car(mf_tree(tyre=tyre, camber_rad=-0.02), vx=15.0), 0.0)
    assert left.state[YAW_RATE] > 0.2
    assert right.state[YAW_RATE] == pytest.approx(-left.state[YAW_RATE], rel=1e-9)
    assert right.state[VY] == pytest.approx(-left.state[VY], rel=1e-9)
    assert abs(straight.state[YAW_RATE]) < 1e-12 and abs(straight.state[Y]) < 1e-12
    wheels = left.wheels()
    assert np.all(wheels.force_y_n[:2] > 500.0)            # REP-103: y left
    # ... with the contact patches sliding right (slip angle < 0), and a moment that turns
    # each front wheel back toward their velocity: clockwise, the slip angle's sign
    assert np.all(wheels.slip_angle_rad[:2] < -0.005)
    assert np.all(wheels.aligning_moment_n_m[:2] < -5.0)
    mirrored = right.wheels().aligning_moment_n_m
    np.testing.assert_allclose(mirrored[[1, 0, 3, 2]], -wheels.aligning_moment_n_m, rtol=1e-6)
    document = turn(Vehicle(load_vehicle(vehicle_file('volvo_v40'))), 0.05)
    assert np.all(document.wheels().aligning_moment_n_m == 0.0)     # it has no such moment


def test_loads_sum_to_the_weight_and_settle_on_the_exact_solve():
    car = turn(mf_car(vx=15.0), 0.06, seconds=4.0)
    loads = car.outputs[NORMAL_LOAD].copy()
    weight = car.config['mass_kg'] * car.config['gravity_m_s2']
    assert loads.sum() == pytest.approx(weight, rel=1e-12)
    assert loads[0] < 0.8 * loads[1]                        # the inner wheel lighter
    solver = SteadyState(car)                               # loads solved to convergence
    solver.step_once(car.state, car.command)
    exact = solver._outputs[NORMAL_LOAD]
    np.testing.assert_allclose(loads, exact, rtol=3e-5)     # one pass a step, still speeding up


def test_the_run_converges_as_dt_shrinks():
    ends = []
    for dt in (0.002, 0.001, 0.0005, 0.00025):
        tree = mf_tree()
        tree['dt'] = dt
        car = turn(mf_car(tree, vx=15.0), 0.08, seconds=2.0, torque=400.0)
        ends.append(car.state[[X, Y, YAW, VX, VY, YAW_RATE]].copy())
    errors = [np.max(np.abs(end - ends[-1])) for end in ends[:-1]]
    assert errors[0] > 1.6 * errors[1] > 1.6 * 1.6 * errors[2] > 0.0      # first order


def test_the_surface_grip_scales_the_tyres_peak():
    p = mf.coefficients(read_tir(BOOK))
    out = np.zeros(len(mf.OUTPUTS))
    alphas = np.linspace(-0.4, 0.4, 16001)

    def peak(grip):
        forces = []
        for alpha in alphas:
            mf.forces(p, False, 4000.0, 0.0, alpha, 0.0, 15.0, 220000.0, out, False, grip)
            forces.append(out[1])
        return max(np.abs(forces))
    assert peak(0.6) / peak(1.0) == pytest.approx(0.6, rel=1e-4)
    g = 9.81
    gravel = turn(mf_car(surface='gravel', vx=15.0), 0.15, seconds=4.0)
    tarmac = turn(mf_car(vx=15.0), 0.15, seconds=4.0)
    lateral = [car.state[VX] * car.state[YAW_RATE] for car in (gravel, tarmac)]
    assert 0.5 * g < lateral[0] < 0.62 * g < 0.7 * g < lateral[1]     # gravel: 0.6 of it


def test_it_stops_and_holds_at_rest_and_on_a_slope(tmp_path):
    free = assert_stops_and_holds(from_mapping(mf_tree(camber_rad=-0.02), 'car'), tmp_path)
    assert np.all(free.wheels().aligning_moment_n_m == 0.0)     # nor a camber moment at rest


@pytest.mark.parametrize('sideslip_deg', [-2.0, -15.0])
def test_steady_cornering_matches_the_equilibria_and_the_simulator_keeps_it(sideslip_deg):
    car = mf_car(mf_tree('rwd_gravel'))
    solver = SteadyState(car, 'torque')
    e = solver.solve(math.radians(sideslip_deg), radius_m=15.0)
    assert e.residual <= 1e-9
    assert e.speed_m_s > 5.0
    car.reset()
    car.state[:] = e.state
    car.set_command(Command(steer_rad=e.steer_rad, drive_torque_n_m=e.drive_torque_n_m))
    car.step(0.02)
    moved = np.abs(car.state[[VX, VY, YAW_RATE]] - e.state[[VX, VY, YAW_RATE]])
    assert np.max(moved) < 1e-6 * e.speed_m_s
    assert car.state[YAW] - e.state[YAW] == pytest.approx(0.02 * e.yaw_rate_rad_s, rel=1e-6)


@pytest.mark.parametrize('axle, b, c, d, e', [('front', 5.5405, 0.4182, 1.8635, 0.3722),
                                              ('rear', 6.6014, 0.5624, 1.7327, 1.0648)])
def test_the_f1tenth_tyres_are_forzaeths_identified_curves(axle, b, c, d, e):
    # ForzaETH's NUC2 identification: Fy = mu Fz D sin(C atan(B a - E (B a - atan(B a)))),
    # mu 1; the Magic Formula's E is at most 1 (the rear's 1.0648 is taken as 1)
    tyre = read_tir(os.path.join(TYRES, f'f1tenth_forzaeth_nuc2_{axle}.tir'))
    p, out = mf.coefficients(tyre), np.zeros(len(mf.OUTPUTS))
    e = min(e, 1.0)
    for load in (4.5, 9.0, 18.0):                     # half to twice the static wheel load
        for alpha in np.radians([0.5, 2.0, 5.0, 10.0, 20.0]):
            mf.forces(p, True, load, 0.0, alpha, 0.0, 3.0, 0.0, out, False)
            x = b * alpha
            identified = load * d * math.sin(c * math.atan(x - e * (x - math.atan(x))))
            assert -out[1] == pytest.approx(identified, rel=2e-3), (load, alpha)
    car = mf_car(mf_tree('f1tenth', tyre='f1tenth_forzaeth_nuc2_front'), vx=3.0)
    turn(car, 0.2, torque=0.05)
    assert car.state[YAW_RATE] > 0.5 and np.all(np.isfinite(car.state))
