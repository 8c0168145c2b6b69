"""
The sprung body against analytic values: roll gradient, pitch in braking, frequencies, energy.

The analytic side is written here from the physical description (the
energy of springs, bars, tyres and weight; the moments about the roll axis),
not from the kernels' code.
"""

import math

import numpy as np
import pytest
from rally_sim.physics import Command, ConfigError, load_vehicle, Surface, Vehicle
from rally_sim.physics.body.layout import (
    HEAVE, PITCH, ROLL, SPRUNG_STATE_SIZE, WHEEL_Z)
from rally_sim.physics.model import (
    FORCE_X, FORCE_Y, NORMAL_LOAD, STATE_SIZE, STEER_ANGLE, VX, VY, YAW_RATE)
from support.suspension import AXLES, both, Figures, sprung
from support.vehicles import vehicle_file


def at_rest(config, surface=None):
    """Return a car at rest at static ride (placed by its first look at the ground)."""
    car = Vehicle(config, surface or Surface.uniform('tarmac_dry'))
    car.reset()
    return car


def test_a_car_on_springs_rests_at_its_static_ride_with_the_static_loads():
    config = sprung()
    figures = Figures(config)
    car = at_rest(config)
    assert car.state.shape == (SPRUNG_STATE_SIZE,)
    np.testing.assert_allclose(car.state[HEAVE:HEAVE + 7], figures.static_positions(),
                               atol=1e-12)
    car.step(2.0)
    np.testing.assert_allclose(car.state[HEAVE:HEAVE + 7], figures.static_positions(),
                               atol=1e-9)
    np.testing.assert_allclose(car.outputs[NORMAL_LOAD], figures.static, rtol=1e-9)


def _body_frame_lateral(car):
    """Return each wheel's lateral force in the body frame [N] (from its tyre frame)."""
    out = car.outputs
    delta = out[STEER_ANGLE]
    return out[FORCE_X] * np.sin(delta) + out[FORCE_Y] * np.cos(delta)


def _corner_steadily(config, seconds=8.0, steer=0.04, torque=180.0, speed=15.0):
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(vx=speed)
    car.set_command(Command(steer_rad=steer, drive_torque_n_m=(0.0, 0.0, torque, torque)))
    car.step(seconds)
    return car


def test_steady_roll_equals_the_roll_gradient_of_springs_bars_and_roll_centres():
    # Rigid tyres, so that the body's roll is the suspension's alone.
    config = sprung(**both('tyre_rate_n_m', 1e9))
    figures = Figures(config)
    car = _corner_steadily(config)
    s = car.state
    a_y = s[VX] * s[YAW_RATE]
    lateral = _body_frame_lateral(car)
    axle_links = [lateral[0] + lateral[1] - 2 * figures.mu[0] * a_y,
                  lateral[2] + lateral[3] - 2 * figures.mu[2] * a_y]
    roll_moment = figures.h_s * sum(axle_links) - (figures.h_rc * axle_links).sum()
    roll_stiffness = (2 * figures.k[[0, 2]] * figures.c ** 2).sum() + figures.bar.sum()
    lean = figures.m_s * figures.g * (figures.h_s - figures.h_ra)
    expected = roll_moment / (roll_stiffness - lean)
    assert a_y > 3.0 and s[ROLL] > 0.0             # a left turn: the left side rises
    assert s[ROLL] == pytest.approx(expected, rel=0.01)
    # the gradient in its textbook form: the lateral forces split by the yaw balance
    split = np.array([figures.lr, figures.lf]) / (figures.lf + figures.lr)
    links = figures.m * a_y * split - 2 * figures.mu[[0, 2]] * a_y
    gradient = (figures.h_s * links.sum() - (figures.h_rc * links).sum()) / a_y \
        / (roll_stiffness - lean)
    assert s[ROLL] / a_y == pytest.approx(gradient, rel=0.02)


def test_with_very_stiff_springs_the_loads_are_the_planar_exact_load_transfer():
    # Equal front and rear roll stiffness and unsprung masses, roll centres on the ground:
    # the planar exact solve shares the lateral transfer equally (no chassis warp).
    keys = {**both('spring_rate_n_m', 5e7), **both('tyre_rate_n_m', 1e9),
            **both('anti_roll_bar_n_m_rad', 0.0), **both('roll_centre_height_m', 0.0),
            **both('unsprung_mass_kg', 30.0), **both('bump_stop_rate_n_m', 1e9)}
    car = _corner_steadily(sprung(**keys))
    planar = Vehicle(load_vehicle(vehicle_file('volvo_v40')), Surface.uniform('tarmac_dry'))
    planar.restore(car.state[:STATE_SIZE])
    loads, exact = car.outputs[NORMAL_LOAD], planar.outputs[NORMAL_LOAD]
    transfer = exact - exact.mean()
    assert abs(transfer[1] - transfer[0]) > 1500.0       # a real transfer to compare
    np.testing.assert_allclose(loads, exact, rtol=0.01)
    assert loads.sum() == pytest.approx(1600.0 * 9.82, rel=1e-6)


def test_braking_pitches_the_nose_down_by_the_pitch_stiffness_and_moves_the_load():
    config = sprung(**both('tyre_rate_n_m', 1e9))      # rigid tyres: the springs' pitch
    figures = Figures(config)
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(vx=25.0)
    car.set_command(Command(brake_torque_n_m=(900.0, 900.0, 600.0, 600.0)))
    car.step(2.0)                       # its pitch oscillation has died out
    k, px, h = figures.k, figures.px, config['cg_height_m']
    # heave and pitch on the springs: [K] [heave, pitch] = [0, -h_s X], K with the body's
    # weight leaning as it pitches; X the tyres' forces less the wheels' inertia
    stiffness = np.array([[k.sum(), -(k * px).sum()],
                          [-(k * px).sum(), (k * px ** 2).sum()
                           - figures.m_s * figures.g * figures.h_s]])
    rows = []
    for _ in range(50):                 # 0.5 s of 10 ms samples: quasi-steady braking
        car.step(0.01)
        s = car.state
        tyres = car.outputs[FORCE_X].sum()
        drag = -(0.44 * s[VX] ** 2 + 13.2 * s[VX])
        a_x = (tyres + drag) / figures.m
        heave, pitch = np.linalg.solve(stiffness, [0.0, -figures.h_s * (
            tyres - figures.mu.sum() * a_x)])
        # the pitch balance about the ground: document 002's L dF = -h F_X, the drag's
        # moment (it acts at the body's centre of gravity), the body leaning forward
        moment = -tyres * h - drag * (h - figures.h_s) \
            + figures.m_s * figures.g * figures.h_s * pitch
        moved = car.outputs[NORMAL_LOAD][:2].sum() - figures.static[:2].sum()
        rows.append((a_x, s[PITCH], pitch, s[HEAVE] - figures.h_s, heave, moved,
                     moment / (figures.lf + figures.lr), -tyres * h / (figures.lf + figures.lr)))
    a_x, pitch, expected, heave, expected_heave, moved, balance, document = np.mean(rows, 0)
    assert a_x < -5.0
    assert pitch > 0.0                                 # nose down
    assert pitch == pytest.approx(expected, rel=0.005)
    assert heave == pytest.approx(expected_heave, abs=1e-4)
    assert moved == pytest.approx(balance, rel=0.005)
    assert moved == pytest.approx(document, rel=0.05)    # the lean adds 4 % to the rigid car's


def _undamped(preset='volvo_v40_suspension', dt=0.001):
    return sprung(preset, dt=dt, **both('bump_damping_n_s_m', 1e-3),
                  **both('rebound_damping_n_s_m', 1e-3), **both('tyre_damping_n_s_m', 0.0))


@pytest.mark.parametrize('preset', ['volvo_v40_suspension', 'rwd_gravel_suspension'])
def test_heave_pitch_and_roll_frequencies_are_those_of_the_springs_and_inertias(preset):
    config = _undamped(preset)
    figures = Figures(config)
    stiffness = figures.stiffness()
    mass = np.diag(figures.inertia)
    values, vectors = np.linalg.eig(np.linalg.solve(mass, stiffness))
    order = np.argsort(values.real)
    checked = 0
    for mode in order[:3]:        # the body's three (the four wheel hops are above)
        shape = vectors[:, mode].real
        omega = math.sqrt(values[mode].real)
        car = at_rest(config)
        state = car.state.copy()
        state[HEAVE:HEAVE + 7] += 0.01 * shape / np.abs(shape[:3]).max()
        car.restore(state)
        period = 2 * math.pi / omega
        steps = int(4 * period / 0.002)
        coordinate = []
        for _ in range(steps):
            car.step(0.002)
            offset = car.state[HEAVE:HEAVE + 7] - figures.static_positions()
            coordinate.append(shape @ mass @ offset)
        coordinate = np.array(coordinate)
        crossings = np.nonzero(np.diff(np.sign(coordinate)))[0]
        times = []
        for k in crossings:     # the zero between samples k and k + 1
            a, b = coordinate[k], coordinate[k + 1]
            times.append(0.002 * (k + 1 + a / (a - b)))
        measured = 2 * math.pi / (2 * np.mean(np.diff(times)))
        assert len(times) >= 6
        assert measured == pytest.approx(omega, rel=0.003), (mode, values[order].real)
        checked += 1
    assert checked == 3
    # the three are heave, pitch and roll (each mostly one of them)
    kinds = sorted(int(np.argmax(np.abs(vectors[:3, mode].real) * np.sqrt(
        figures.inertia[:3]))) for mode in order[:3])
    assert kinds == [0, 1, 2]


def body_modes(figures):
    """Return the body's three modes (heave, pitch, roll: the slowest), omega and shape."""
    values, vectors = np.linalg.eig(np.linalg.solve(np.diag(figures.inertia),
                                                    figures.stiffness()))
    order = np.argsort(values.real)[:3]
    return np.sqrt(values[order].real), vectors[:, order].real


def _energy_drift(dt):
    config = _undamped(dt=dt)
    figures = Figures(config)
    car = at_rest(config)
    state = car.state.copy()
    _, shapes = body_modes(figures)
    for shape, size in zip(shapes.T, (0.02, 0.01, 0.01)):   # the body's modes, not the hops
        state[HEAVE:HEAVE + 7] += size * shape / np.abs(shape[:3]).max()
    car.restore(state)
    start = figures.energy(car.state)
    rest = figures.potential(figures.static_positions())
    car.step(0.5)
    return (start - figures.energy(car.state)) / (start - rest)


def test_the_undamped_body_keeps_its_energy_to_the_integrators_first_order():
    # (implicit Euler takes a share (omega h)^2 of a mode's energy each step: the body's
    # modes, at 8-12 rad/s, are checked; the wheels' hop, at 100 rad/s, is damped so)
    drifts = [_energy_drift(dt) for dt in (0.001, 0.0005, 0.00025)]
    assert all(d > 0.0 for d in drifts)            # implicit Euler loses, never gains
    assert drifts[0] < 0.05
    for coarse, fine in zip(drifts, drifts[1:]):
        assert coarse / fine == pytest.approx(2.0, rel=0.2), drifts


def test_dropped_from_a_height_it_lands_without_sinking_in_and_settles_at_static_ride():
    config = sprung()
    figures = Figures(config)
    car = at_rest(config)
    state = car.state.copy()
    state[HEAVE] += 0.4
    state[WHEEL_Z:WHEEL_Z + 4] += 0.4
    car.restore(state)
    deepest, centres = 0.0, []
    for _ in range(1500):
        car.step(0.002)
        deflection = figures.radius + figures.static / figures.k_t - car.state[WHEEL_Z:
                                                                               WHEEL_Z + 4]
        deepest = max(deepest, deflection.max())
        centres.append(figures.centre(car.state))
    assert np.isfinite(car.state).all()
    airborne = int(math.sqrt(2 * 0.3 / figures.g) / 0.002)     # (the wheels drop 0.1 m)
    fall = np.diff(centres[:airborne], 2) / 0.002 ** 2
    np.testing.assert_allclose(fall, -figures.g, atol=1e-6)    # free fall till it lands
    # landing at 2.4 m/s: the tyres deflect (75 mm here), the wheel centres stay well up
    assert deepest < 0.3 * figures.radius.min()
    np.testing.assert_allclose(car.state[HEAVE:HEAVE + 7], figures.static_positions(),
                               atol=5e-4)
    np.testing.assert_allclose(car.outputs[NORMAL_LOAD], figures.static, rtol=0.005)


def crest(radius_m, half_length_m=6.0, at_m=40.0, resolution_m=0.05):
    """
    Return a straight road along x over a crest: h'' = -1 / radius_m for |x - at_m| < a.

    Hollows of h'' = +1 / radius_m, a long, lead in and out (the slope is
    continuous), so at the top (slope 0) the road's curvature is 1 / radius_m.
    """
    fine = 0.001
    xs = np.arange(0.0, 90.0, fine)
    d = np.abs(xs - at_m)
    a = half_length_m
    curvature = np.where(d < a, -1.0, np.where(d < 2 * a, 1.0, 0.0)) / radius_m
    slope = np.cumsum(curvature) * fine
    heights = np.cumsum(slope) * fine + 1.0
    centres = np.arange(0.0, 90.0, resolution_m) + 0.5 * resolution_m
    heights = np.interp(centres, xs, heights)
    rows = 40
    grid = np.tile(heights, (rows, 1))
    from rally_sim.physics.surfaces import GripGrid
    return Surface(GripGrid(np.ones_like(grid), resolution_m, 0.0, -rows * resolution_m / 2,
                            0.0, 1.0, grid), f'crest R {radius_m} m')


def _over_the_crest(config, surface, speed, seconds, at_m=40.0):
    car = Vehicle(config, surface)
    car.reset(x=5.0, vx=speed)
    resistance = 0.44 * speed ** 2 + 13.2 * speed
    torque = resistance * config['wheel_radius_m'] / 2
    car.set_command(Command(drive_torque_n_m=(0.0, 0.0, torque, torque)))
    rows, figures = [], Figures(config)
    while car.time_s < seconds:
        car.step(0.002)
        s = car.state
        rows.append((s[0] - at_m, s[VX], car.outputs[NORMAL_LOAD].sum(), figures.centre(s)))
    return np.array(rows)


def test_over_a_crest_the_load_falls_by_m_v2_over_r_and_beyond_g_r_the_car_flies():
    config = sprung()
    radius = 30.0
    surface = crest(radius)
    slow = _over_the_crest(config, surface, 10.0, 6.0)
    middle = np.abs(slow[:, 0]) < 2.0
    expected = config['mass_kg'] * (config['gravity_m_s2'] - slow[middle, 1] ** 2 / radius)
    assert middle.sum() > 50
    assert slow[middle, 2].mean() == pytest.approx(expected.mean(), rel=0.03)
    assert slow[middle, 2].min() > 0.0
    fast = _over_the_crest(config, surface, 19.0, 4.0)      # v^2 / R = 12 > g
    flying = fast[:, 2] == 0.0
    assert flying.sum() * 0.002 > 0.1                        # in the air for a while
    run = np.nonzero(flying)[0]
    inner = run[(run > run[0] + 2) & (run < run[-1] - 2)]
    inner = inner[np.isin(inner - 1, run) & np.isin(inner + 1, run)]
    fall = (fast[inner + 1, 3] - 2 * fast[inner, 3] + fast[inner - 1, 3]) / 0.002 ** 2
    np.testing.assert_allclose(fall, -config['gravity_m_s2'], atol=1e-6)
    assert np.isfinite(fast).all()
    landed = np.nonzero(~flying & (np.arange(len(fast)) > run[-1]))[0]
    assert len(landed) and (fast[landed[0]:, 2] > 0.0).mean() > 0.95    # and stays down
    assert fast[-1, 2] == pytest.approx(config['mass_kg'] * config['gravity_m_s2'], rel=0.05)


@pytest.mark.parametrize('key, value, words', [
    ('suspension.front.spring_rate_n_m', 0.0, 'out of range'),
    ('suspension.rear.bump_damping_n_s_m', -5.0, 'out of range'),
    ('suspension.roll_inertia_kg_m2', '.nan', 'out of range'),
    ('suspension.pitch_inertia_kg_m2', '.inf', 'out of range'),
    ('suspension.front.rebound_travel_m', -0.1, 'out of range'),
    ('suspension.front.bump_travel_m', 0.0, 'out of range'),
    ('suspension.rear.unsprung_mass_kg', 500.0, 'less than its corner'),
    ('suspension.front.roll_centre_height_m', 0.9, 'not below the sprung'),
    ('suspension.rear.tyre_rate_n_m', 5000.0, 'ride in the ground'),
])
def test_a_suspension_that_cannot_be_is_refused_naming_the_key_and_value(key, value, words):
    with pytest.raises(ConfigError) as error:
        sprung(**{key: value})
    message = str(error.value)
    assert key in message and words in message


def test_suspension_keys_need_the_sprung_body_and_the_sprung_body_needs_its_keys():
    with pytest.raises(ConfigError, match='need body: suspension'):
        load_vehicle(vehicle_file('volvo_v40'), ['suspension.front.spring_rate_n_m=30000'])
    with pytest.raises(ConfigError, match='missing key.*suspension.front.spring_rate_n_m'):
        load_vehicle(vehicle_file('volvo_v40'), ['body=suspension'])


def test_a_planar_state_given_to_a_car_on_springs_starts_its_body_at_static_ride():
    config = sprung()
    car = _corner_steadily(config, seconds=1.0)
    planar = car.state[:STATE_SIZE].copy()
    other = Vehicle(config, Surface.uniform('tarmac_dry'))
    other.restore(planar)
    np.testing.assert_array_equal(other.state[:STATE_SIZE], planar)
    np.testing.assert_allclose(other.state[HEAVE:HEAVE + 7], Figures(config).static_positions(),
                               atol=1e-12)
    assert other.state[VY] == planar[VY]


def test_base_link_tilts_with_the_body_and_the_accelerometer_reads_the_tilted_body():
    config = sprung()
    figures = Figures(config)
    car = at_rest(config)
    assert car.body_pose() == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)  # on the ground
    assert car.specific_force_body() == pytest.approx((0.0, 0.0, figures.g), abs=1e-9)
    car = _corner_steadily(config)
    s = car.state
    z, pitch, roll = car.body_pose()
    assert (pitch, roll) == (s[PITCH], s[ROLL])
    assert z == pytest.approx(s[HEAVE] - figures.h_s + figures.x_s * s[PITCH], abs=1e-12)
    a_y = s[VX] * s[YAW_RATE]
    fx, fy, fz = car.specific_force_body()
    assert fy == pytest.approx(a_y * math.cos(roll) + figures.g * math.sin(roll), rel=0.02)
    assert fz == pytest.approx(figures.g * math.cos(roll) - a_y * math.sin(roll), rel=0.01)
    assert car.angular_velocity()[2] == s[YAW_RATE]
    travel = car.suspension_travel()
    np.testing.assert_allclose(travel, figures.compression(s[HEAVE:HEAVE + 7]), atol=1e-15)
    assert travel[1] > 0.0 > travel[0]                 # the outside in bump, the inside out
    planar = _corner_steadily(load_vehicle(vehicle_file('volvo_v40')), seconds=0.1)
    assert not planar.suspension_travel().any() and planar.body_pose() == planar.ground()


def test_the_batch_runs_cars_on_springs_per_car_as_the_single_car_does():
    from rally_sim.physics.batch import Batch
    config = sprung()
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(vx=12.0)
    start = car.state.copy()
    steer = np.full((3, 40), 0.05)
    drive = np.zeros((3, 40, 4))
    drive[:, :, 2:] = 200.0
    batch = Batch(config, 3, Surface.uniform('tarmac_dry'))
    result = batch.rollout(np.tile(start[:STATE_SIZE], (3, 1)), steer, drive, dt=0.01)
    assert result.states.shape == (3, 40, SPRUNG_STATE_SIZE) and result.valid.all()
    car.set_command(Command(steer_rad=0.05, drive_torque_n_m=(0.0, 0.0, 200.0, 200.0)))
    for k in range(40):
        car.step(0.01)
        np.testing.assert_array_equal(result.states[1, k], car.state)
    with pytest.raises(ValueError, match="body 'planar'"):
        batch.rollout(np.tile(start, (3, 1)), steer, drive, dt=0.01, tyres=False, lanes=True)


def test_over_hill_stage_s_first_hill_at_speed_the_loads_fall_by_its_curvature():
    # hill_stage's first hill: 5 m high, exp(-d^2 / (2 22^2)): its top's radius 22^2 / 5 m
    from rally_sim.resources import config_file
    surface = Surface.load(config_file('stages/hill_stage.yaml'))
    config = sprung()
    car = Vehicle(config, surface)
    speed = 20.0
    car.reset(x=5.0, y=20.0, vx=speed)
    torque = (0.44 * speed ** 2 + 13.2 * speed) * config['wheel_radius_m'] / 2
    car.set_command(Command(drive_torque_n_m=(0.0, 0.0, torque, torque)))
    rows = []
    while car.state[0] < 47.0:
        car.step(0.002)
        if abs(car.state[0] - 45.0) < 2.0:
            rows.append((car.outputs[NORMAL_LOAD].sum(), car.state[VX]))
    loads, speeds = np.array(rows).T
    radius = 22.0 ** 2 / 5.0
    expected = config['mass_kg'] * (config['gravity_m_s2'] - speeds ** 2 / radius)
    assert loads.mean() == pytest.approx(expected.mean(), rel=0.03)
    assert loads.mean() < 0.7 * config['mass_kg'] * config['gravity_m_s2']


def test_the_drift_controller_designed_on_the_planar_twin_holds_the_car_on_springs():
    from rally_sim.control.drift.lqr import DriftDesign, DriftLqr
    from rally_sim.physics.vehicle import DriverCommand
    law = DriftLqr(load_vehicle(vehicle_file('rwd_gravel')), 'gravel',
                   DriftDesign(radius_m=15.0, sideslip_rad=math.radians(-25.0), gear=2))
    car = Vehicle(sprung('rwd_gravel_suspension'), Surface.uniform('gravel'))
    car.reset(x=15.0, yaw=math.pi / 2, vx=8.0)
    rows = []
    for k in range(1000):                       # 20 s: entry over 6 s, then held
        s = car.state
        steer, drive = law.command(0.02 * k, *s[:6], s[8:10])
        car.set_command(DriverCommand(steer_rad=steer, throttle=float(np.ravel(drive)[0]),
                                      gear=law.gear))
        car.step(0.02)
        s = car.state
        rows.append((math.degrees(math.atan2(s[VY], s[VX])), math.hypot(s[0], s[1]), s[ROLL]))
    beta, radius, roll = np.array(rows[-250:]).T       # the last 5 s
    assert np.sqrt(np.mean((beta + 25.0) ** 2)) < 0.1
    assert np.abs(radius - 15.0).max() < 0.1
    assert roll.min() > 0.02                        # leaning out of the left-hand circle


@pytest.mark.parametrize('speed', [0.3, 1.5, 6.0])
def test_landing_while_rolling_slowly_keeps_the_wheels_rolling_without_chatter(speed):
    # In the air the tyres pass no force; on landing their slip stiffness returns at once
    # (at walking pace a fraction of a millisecond's time constant), and the implicit
    # step's Jacobian, computed in the air, must follow the loads (loads_moved).
    config = sprung()
    car = Vehicle(config, Surface.uniform('tarmac_dry'))
    car.reset(vx=speed)
    state = car.state.copy()
    state[HEAVE] += 0.3
    state[WHEEL_Z:WHEEL_Z + 4] += 0.3
    car.restore(state)
    slips, loads = [], []
    for _ in range(1000):
        car.step(0.001)
        s = car.state
        slips.append(s[6:10] * config['wheel_radius_m'] - s[VX])
        loads.append(car.outputs[NORMAL_LOAD].sum())
    slips = np.array(slips)
    assert np.isfinite(car.state).all()
    assert min(loads[:150]) == 0.0 and loads[-1] > 0.0       # in the air, then down
    assert np.abs(slips).max() < 0.02                         # rolling throughout
    assert car.state[VX] == pytest.approx(speed, rel=0.02)


def test_a_replay_of_a_car_on_springs_has_its_body_s_columns():
    from rally_sim.physics.scenarios import document_scenario
    from rally_sim.physics.trajectory import simulate
    config = sprung()
    car = Vehicle(config)
    scenario = document_scenario('u_turn', duration_s=3.0)
    car.reset(vx=scenario.initial_speed_m_s)
    columns = simulate(car, scenario.inputs).columns
    assert columns['roll'][-1] == car.state[ROLL] and columns['heave'][0] == Figures(config).h_s
    travel = np.column_stack([columns[f'travel_{w}'] for w in ('fl', 'fr', 'rl', 'rr')])
    np.testing.assert_allclose(travel[-1], car.suspension_travel(), atol=1e-15)
    assert travel[-1, 1] > 0.0 > travel[-1, 0]           # turning left: the right side in bump


@pytest.mark.parametrize('relaxed', [False, True])
def test_a_tir_car_on_springs_takes_its_loads_from_the_tyres(relaxed):
    keys = {f'tyres.{axle}.tir': 'pacejka_2006_205_60r15' for axle in AXLES}
    if relaxed:
        keys['tyre_relaxation'] = 'true'
        for axle in AXLES:
            keys[f'tyres.{axle}.relaxation_length_x_m'] = 0.15
            keys[f'tyres.{axle}.relaxation_length_y_m'] = 0.4
    config = sprung(**keys)
    car = _corner_steadily(config)
    loads = car.outputs[NORMAL_LOAD]
    assert np.isfinite(car.state).all()
    assert loads.sum() == pytest.approx(1600.0 * 9.82, rel=1e-6)
    assert car.state[ROLL] > 0.01 and loads[1] > loads[0] and loads[3] > loads[2]
