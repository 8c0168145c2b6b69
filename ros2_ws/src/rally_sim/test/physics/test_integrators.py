"""Document mode is document 002's step; default numerics hold physics and stay finite."""

import json
import math
import os
import subprocess
import sys

from hypothesis import given, settings, strategies as st
import numpy as np
import pytest

from rally_sim.physics import Command, Vehicle
from rally_sim.physics.model import OMEGA, VX, X, Y, YAW, YAW_RATE
from rally_sim.physics.scenarios import document_scenario
from rally_sim.physics.trajectory import simulate
from support.vehicles import vehicle

V40_DEFAULT = vehicle('volvo_v40')
V40 = {'m': 1600.0, 'iz': 2700.0, 'iw': 1.5, 'r': 0.327, 'lf': 1.15, 'lr': 1.497,
       'c': 0.776, 'h': 0.55, 'g': 9.82, 'mu': 1.1, 'b': 10.0, 'cc': 1.3, 'd': 1.0}


def guard(x):
    return x if abs(x) >= 1e-9 else (1e-9 if x >= 0 else -1e-9)


def document_step(z, pose, delta, t_rl, t_rr, dt, p=V40):
    """One step of document 002 (A.1-A.7 and B.3), transcribed independently."""
    vx, vy, r = z[:3]
    pos = [(p['lf'], p['c']), (p['lf'], -p['c']), (-p['lr'], p['c']), (-p['lr'], -p['c'])]
    unit = []
    for i, (px, py) in enumerate(pos):
        wvx, wvy = vx - r * py, vy + r * px
        d = delta if i < 2 else 0.0
        vxt = wvx * math.cos(d) + wvy * math.sin(d)
        vyt = -wvx * math.sin(d) + wvy * math.cos(d)
        wr = z[3 + i] * p['r']
        sx = (wr - vxt) / guard(vxt) if vxt >= wr else (wr - vxt) / guard(wr)
        sy = vyt / guard(wr)
        s = math.hypot(sx, sy)
        k = p['mu'] * p['d'] * math.sin(p['cc'] * math.atan(p['b'] * s)) if s > 1e-9 else 0.0
        fxt, fyt = (k * sx / s, -k * sy / s) if s > 1e-9 else (0.0, 0.0)
        unit.append((fxt, fyt, fxt * math.cos(d) - fyt * math.sin(d),
                     fxt * math.sin(d) + fyt * math.cos(d)))
    wb = p['lf'] + p['lr']
    fz = np.array([p['lr'], p['lr'], p['lf'], p['lf']]) * p['m'] * p['g'] / (2 * wb)
    for _ in range(100):   # the document's fixed-point iteration, run to convergence
        fx_tot = sum(u[2] * f for u, f in zip(unit, fz) if f > 0)   # no load, no force
        fy_tot = sum(u[3] * f for u, f in zip(unit, fz) if f > 0)
        base = 2 * p['c'] * p['g'] * p['m']
        lon, lat = 2 * p['c'] * p['h'] * fx_tot, p['h'] * wb * fy_tot
        fz = np.array([p['lr'] * base - lon - lat, p['lr'] * base - lon + lat,
                       p['lf'] * base + lon - lat, p['lf'] * base + lon + lat]) / (4 * p['c'] * wb)
    fz = np.maximum(fz, 0.0)        # the formula's load may be negative: that tyre has no force
    fx = [u[2] * f for u, f in zip(unit, fz)]
    fy = [u[3] * f for u, f in zip(unit, fz)]
    dz = np.array([
        vy * r + sum(fx) / p['m'], -vx * r + sum(fy) / p['m'],
        (p['lf'] * (fy[0] + fy[1]) - p['lr'] * (fy[2] + fy[3])
         + p['c'] * (fx[1] + fx[3] - fx[0] - fx[2])) / p['iz'],
        -unit[0][0] * fz[0] * p['r'] / p['iw'], -unit[1][0] * fz[1] * p['r'] / p['iw'],
        (t_rl - unit[2][0] * fz[2] * p['r']) / p['iw'],
        (t_rr - unit[3][0] * fz[3] * p['r']) / p['iw']])
    z = z + dt * dz
    x, y, yaw = pose
    x += (z[0] * math.cos(yaw) - z[1] * math.sin(yaw)) * dt
    y += (z[0] * math.sin(yaw) + z[1] * math.cos(yaw)) * dt
    return z, (x, y, yaw + z[2] * dt)


def converged_document_car(config, speed):
    """Return a document-mode car whose load iteration runs to convergence."""
    car = Vehicle(config.with_overrides({'load_transfer_iterations': 100}))
    car.reset(vx=speed)
    return car


def test_document_mode_follows_the_document_over_the_u_turn(v40_document):
    scenario = document_scenario('u_turn')
    speed = scenario.initial_speed_m_s
    car = converged_document_car(v40_document, speed)
    z = np.array([speed, 0.0, 0.0] + [speed / 0.327] * 4)
    pose = (0.0, 0.0, 0.0)
    for k in range(len(scenario.inputs.steer)):
        torque = scenario.inputs.drive[k, 2]
        z, pose = document_step(z, pose, scenario.inputs.steer[k], torque, torque, 0.01)
        car.set_command(Command(steer_rad=scenario.inputs.steer[k],
                                drive_torque_n_m=scenario.inputs.drive[k]))
        car.step(0.01)
        assert car.state[VX:OMEGA + 4] == pytest.approx(z, rel=1e-7, abs=1e-9), k
        assert car.state[[X, Y, YAW]] == pytest.approx(pose, rel=1e-7, abs=1e-9), k


def test_document_mode_takes_the_document_step_at_every_step_of_the_drift(v40_document):
    # The drift gives the rear-left wheel a negative load (the formula's) at
    # 19 steps: the document keeps it and zeroes that tyre's force. Along the
    # document's own trajectory, every one of the 700 steps is compared (the
    # trajectories themselves part after ~350 steps: the document's step is
    # chaotic there and amplifies a 1e-15 nudge to O(1) within 250 steps).
    scenario = document_scenario('drift')
    speed = scenario.initial_speed_m_s
    car = converged_document_car(v40_document, speed)
    z = np.array([speed, 0.0, 0.0] + [speed / 0.327] * 4)
    pose = (0.0, 0.0, 0.0)
    negative = 0
    for k in range(len(scenario.inputs.steer)):
        car.state[VX:OMEGA + 4] = z
        car.state[[X, Y, YAW]] = pose
        torque = scenario.inputs.drive[k, 2]
        z, pose = document_step(z, pose, scenario.inputs.steer[k], torque, torque, 0.01)
        car.set_command(Command(steer_rad=scenario.inputs.steer[k],
                                drive_torque_n_m=scenario.inputs.drive[k]))
        car.step(0.01)
        assert car.state[VX:OMEGA + 4] == pytest.approx(z, rel=1e-9, abs=1e-9), k
        assert car.state[[X, Y, YAW]] == pytest.approx(pose, rel=1e-9, abs=1e-9), k
        wheels = car.wheels()
        if np.any(wheels.normal_load_n < 0.0):
            negative += 1
            lifted = wheels.normal_load_n < 0.0
            assert np.all(wheels.force_x_n[lifted] == 0.0)
            assert np.all(wheels.force_y_n[lifted] == 0.0)
        assert np.sum(wheels.normal_load_n) == pytest.approx(1600.0 * 9.82, rel=1e-12)
    assert negative >= 10        # the steps this test is about were met


def test_steady_cornering_matches_single_track_theory(v40):
    # Tyre cornering stiffness is proportional to load (mu D C B Fz per radian
    # of slip), so the model's single-track equivalent is neutral steer: the
    # steady yaw rate is v delta / L. Linear range: small angle, no drag.
    config = v40.with_overrides({'resistance.drag_coefficient_kg_m': 0.0,
                                 'resistance.rolling_resistance_n_s_m': 0.0,
                                 'steering.ackermann': 0.0})
    car = Vehicle(config)
    car.reset(vx=15.0)
    car.set_command(Command(steer_rad=0.01))
    for _ in range(300):
        car.step(0.01)
    speed = math.hypot(car.state[VX], car.state[4])
    assert car.state[YAW_RATE] == pytest.approx(speed * 0.01 / 2.647, rel=0.01)
    lateral_acceleration = speed * car.state[YAW_RATE]
    assert lateral_acceleration < 0.1 * 9.82                     # linear range indeed


command = st.tuples(
    st.floats(-1.0, 1.0), st.floats(0.0, 10.0),
    st.lists(st.floats(-5000.0, 5000.0), min_size=4, max_size=4),
    st.lists(st.floats(0.0, 5000.0), min_size=4, max_size=4),
    st.floats(0.0, 1.0), st.floats(0.001, 0.1))


@settings(max_examples=60, deadline=None)
@given(st.floats(-40.0, 40.0), st.floats(-5.0, 5.0), st.floats(-2.0, 2.0),
       st.lists(command, min_size=1, max_size=8))
def test_no_finite_input_sequence_produces_a_non_finite_state(vx, vy, yaw_rate, commands):
    car = Vehicle(V40_DEFAULT)
    car.reset(vx=vx, vy=vy, yaw_rate=yaw_rate)
    for steer, rate, drive, brake, handbrake, dt in commands:
        car.set_command(Command(steer, rate, drive, brake, handbrake))
        car.step(dt)
        assert np.all(np.isfinite(car.state))
        assert np.all(car.wheels().normal_load_n >= 0.0)


def test_plain_python_and_compiled_kernels_agree():
    # One source of truth: the same functions run compiled (numba) in this
    # process and as plain Python in a child process with RALLY_SIM_NO_JIT=1.
    code = (
        'import json\n'
        'from rally_sim.physics import Vehicle\n'
        'from rally_sim.physics.scenarios import document_scenario\n'
        'from rally_sim.physics.trajectory import simulate\n'
        'from support.vehicles import vehicle\n'
        'from rally_sim.physics import jit\n'
        'assert not jit.ENABLED\n'
        "s = document_scenario('drift', duration_s=1.5)\n"
        "car = Vehicle(vehicle('volvo_v40'))\n"
        'car.reset(vx=s.initial_speed_m_s)\n'
        'simulate(car, s.inputs)\n'
        'print(json.dumps(car.state.tolist()))\n')
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, RALLY_SIM_NO_JIT='1',
               PYTHONPATH=here + os.pathsep + os.environ.get('PYTHONPATH', ''))
    result = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    scenario = document_scenario('drift', duration_s=1.5)
    car = Vehicle(V40_DEFAULT)
    car.reset(vx=scenario.initial_speed_m_s)
    simulate(car, scenario.inputs)
    assert car.state == pytest.approx(json.loads(result.stdout), rel=1e-9, abs=1e-12)
