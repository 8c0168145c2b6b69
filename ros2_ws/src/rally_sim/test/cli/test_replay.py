"""The offline replay CLI, run as users run it: python -m rally_sim.replay."""

import csv
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from rally_sim.cli.replay import read_inputs, write_inputs
from rally_sim.physics import Vehicle
from rally_sim.physics.drivetrain.equations import AUTOMATIC
from rally_sim.physics.scenarios import document_scenario
from rally_sim.physics.trajectory import simulate, STATE_COLUMNS
from support.vehicles import PRESETS, vehicle, vehicle_file


def replay(*args):
    return subprocess.run([sys.executable, '-m', 'rally_sim.replay', *args],
                          capture_output=True, text=True, timeout=120)


def read_output(path):
    with open(path, newline='') as stream:
        rows = list(csv.reader(stream))
    return rows[0], np.array(rows[1:], dtype=float)


def test_document_u_turn_replay_matches_the_library(tmp_path):
    scenario = document_scenario('u_turn')
    output, plot = tmp_path / 'out.csv', tmp_path / 'run.png'
    written = subprocess.run([sys.executable, '-m', 'rally_sim.document_scenarios',
                              str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert written.returncode == 0, written.stderr
    assert '--initial-speed 10 ' in written.stdout
    # as pasted from the repository's root, writing beside the inputs
    assert written.stdout.startswith('./rally exec python -m rally_sim.replay ')
    assert f"--output {tmp_path / 'u_turn'}_out.csv" in written.stdout
    inputs = tmp_path / 'u_turn.csv'
    result = replay('--vehicle', vehicle_file('volvo_v40_document'), '--inputs', str(inputs),
                    '--output', str(output), '--initial-speed', '10', '--plot', str(plot))
    assert result.returncode == 0, result.stderr
    header, data = read_output(output)
    assert tuple(header[:11]) == STATE_COLUMNS
    assert 'slip_ratio_rl' in header and 'load_fr' in header and 'force_y_fl' in header
    assert data.shape == (701, len(header))
    assert data[0, :7] == pytest.approx([0, 0, 0, 0, 10, 0, 0])
    car = Vehicle(vehicle('volvo_v40_document'))
    car.reset(vx=10.0)
    expected = simulate(car, scenario.inputs).columns
    for i, name in enumerate(header):
        assert np.array_equal(data[:, i], expected[name]), name    # full precision
    assert plot.stat().st_size > 20000


@pytest.mark.parametrize('preset', PRESETS)
def test_every_preset_replays(tmp_path, preset):
    inputs, output = tmp_path / 'in.csv', tmp_path / 'out.csv'
    write_inputs(inputs, document_scenario('u_turn', duration_s=2.0).inputs)
    result = replay('--vehicle', preset, '--inputs', str(inputs), '--output', str(output),
                    '--initial-speed', '8')
    assert result.returncode == 0, result.stderr
    header, data = read_output(output)
    assert data.shape == (201, len(header)) and np.all(np.isfinite(data))
    assert data[-1, header.index('yaw')] > 0.03            # it turned left, as steered


def test_preset_name_overrides_and_brake_columns(tmp_path):
    table = document_scenario('u_turn').inputs
    table.brake[:, :2] = 500.0
    table.handbrake[300:] = 0.5
    inputs, output = tmp_path / 'in.csv', tmp_path / 'out.csv'
    write_inputs(inputs, table)
    result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                    str(output), '--initial-speed', '-3', '--set', 'dt=0.002',
                    '--surface', 'gravel')
    assert result.returncode == 0, result.stderr
    header, data = read_output(output)
    assert data[0, header.index('vx')] == -3.0
    bad = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output', str(output),
                 '--surface', 'lava')
    assert bad.returncode == 2
    assert "no surface 'lava': not a surface type (tarmac_dry" in bad.stderr
    assert np.all(np.isfinite(data))
    assert np.array_equal(read_inputs(str(inputs)).handbrake, table.handbrake)   # round trip


def test_clamped_values_are_reported(tmp_path):
    inputs, output = tmp_path / 'in.csv', tmp_path / 'out.csv'
    rows = ['t,steer,torque_fl,torque_fr,torque_rl,torque_rr']
    rows += [f'{k * 0.01!r},0.9,0,0,100,100' for k in range(50)]      # limit: 0.6 rad
    inputs.write_text('\n'.join(rows) + '\n')
    result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                    str(output), '--initial-speed', '5')
    assert result.returncode == 0, result.stderr
    assert 'warning: t = 0 s: steer_rad = 0.9 clamped to 0.6' in result.stderr
    assert '... and 40 more clamped values' in result.stderr


@pytest.mark.parametrize('content, message', [
    ('t,steer,torque_fl,torque_fr,torque_rl\n0,0,0,0,0\n', "missing \\['torque_rr'\\]"),
    ('t,steer,torque_fl,torque_fr,torque_rl,torque_rr,boost\n', "unknown \\['boost'\\]"),
    ('t,steer,torque_fl,torque_fr,torque_rl,torque_rr\n0,0,0,0,0,0\n0.01,nan,0,0,0,0\n',
     'data row 2, column steer'),
    ('t,steer,torque_fl,torque_fr,torque_rl,torque_rr\n0,0,0,0,0,0\n0.01,0,x,0,0,0\n',
     "column torque_fl: 'x' is not a number"),
    ('t,steer,torque_fl,torque_fr,torque_rl,torque_rr\n0,0,0,0,0,0\n0,0,0,0,0,0\n',
     'strictly increasing'),
])
def test_bad_inputs_exit_2_naming_the_problem(tmp_path, content, message):
    inputs = tmp_path / 'in.csv'
    inputs.write_text(content)
    result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                    str(tmp_path / 'out.csv'))
    assert result.returncode == 2
    assert 'error:' in result.stderr
    assert re.search(message, result.stderr), result.stderr
    assert not os.path.exists(tmp_path / 'out.csv')


def test_bad_vehicle_override_exits_2(tmp_path):
    inputs = tmp_path / 'in.csv'
    write_inputs(inputs, document_scenario('u_turn').inputs)
    result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                    str(tmp_path / 'out.csv'), '--set', 'tyres.front.mu=-1')
    assert result.returncode == 2
    assert "'tyres.front.mu' = -1 is out of range" in result.stderr


def driver_inputs(path, seconds, dt=0.01, gear=''):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream)
        writer.writerow(['t', 'steer', 'throttle', 'brake', 'gear'])
        for k in range(int(round(seconds / dt))):
            writer.writerow([repr(k * dt), '0.0', '1.0', '0.0', gear])


def test_a_driver_replay_gives_the_corvettes_acceleration_and_top_speed(tmp_path):
    inputs, output = tmp_path / 'in.csv', tmp_path / 'out.csv'
    driver_inputs(inputs, 150.0)
    result = replay('--vehicle', 'corvette_c5', '--inputs', str(inputs), '--output',
                    str(output))
    assert result.returncode == 0, result.stderr
    header, data = read_output(output)
    vx, rpm, gear = (data[:, header.index(c)] for c in ('vx', 'engine_rpm', 'gear'))
    t = data[:, header.index('t')]
    zero_to_100 = t[np.argmax(vx >= 100 / 3.6)]
    assert 5.0 < zero_to_100 < 9.0                          # 0.7 efficiency, street tyres
    assert rpm[0] == pytest.approx(800.0) and gear[0] == 1.0
    assert sorted(set(gear)) == [1.0, 2.0, 3.0, 4.0, 5.0]   # up through the box
    assert rpm.max() <= 6000.0 + 1.0                        # never past the limiter
    assert 200.0 < vx[-1] * 3.6 < 240.0                     # drag-limited, in fifth


def test_driver_replay_bad_inputs_are_named(tmp_path):
    inputs, output = tmp_path / 'in.csv', tmp_path / 'out.csv'
    driver_inputs(inputs, 0.05, gear='9')
    result = replay('--vehicle', 'corvette_c5', '--inputs', str(inputs), '--output',
                    str(output))
    assert result.returncode == 2 and 'gear = 9 (row 0) does not exist' in result.stderr
    driver_inputs(inputs, 0.05)
    result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                    str(output))
    assert result.returncode == 2 and "'volvo_v40' has no drivetrain" in result.stderr
    table = read_inputs(inputs)
    assert table.driver and table.gear[0] == AUTOMATIC      # empty: automatic
    assert not os.path.exists(output)


def millisecond_inputs(path, rows, steer, rear_torque):
    """Write inputs of 1 ms rows: steer(k) [rad] and a rear drive torque per wheel [N m]."""
    lines = ['t,steer,torque_fl,torque_fr,torque_rl,torque_rr']
    lines += [f'{k * 0.001!r},{steer(k)},0,0,{rear_torque},{rear_torque}' for k in range(rows)]
    path.write_text('\n'.join(lines) + '\n')
    return path


def test_an_actuator_delay_set_on_the_command_line_delays_the_car(tmp_path):
    inputs = millisecond_inputs(tmp_path / 'in.csv', 600, lambda k: 0.1 if k >= 100 else 0.0,
                                0)
    runs = {}
    for delay in (None, '0.137'):
        output = tmp_path / f'out_{delay}.csv'
        extra = ['--set', f'actuation.steer.delay_s={delay}'] if delay else []
        result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                        str(output), '--initial-speed', '10', *extra)
        assert result.returncode == 0, result.stderr
        header, data = read_output(output)
        runs[delay] = data[:, header.index('yaw_rate')]
    # the same response, 137 rows (1 ms each) later (at a speed that coasting lowered a little)
    first = {delay: int(np.flatnonzero(np.abs(r) > 1e-9)[0]) for delay, r in runs.items()}
    assert first['0.137'] - first[None] == 137
    assert np.allclose(runs['0.137'][137:400], runs[None][:400 - 137], rtol=0.01, atol=1e-4)


def test_sensors_measure_a_replay_repeatably_by_seed(tmp_path):
    inputs = millisecond_inputs(tmp_path / 'in.csv', 1500, lambda k: 0.1, 300)
    out = {}
    for run, seed in (('a', '3'), ('b', '3'), ('c', '4')):
        result = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                        str(tmp_path / f'{run}.csv'), '--initial-speed', '8', '--surface',
                        'rally_stage', '--sensors', 'typical', '--seed', seed,
                        '--measurements', str(tmp_path / run))
        assert result.returncode == 0, result.stderr
        out[run] = {f.name: f.read_text() for f in sorted((tmp_path / run).iterdir())}
    assert sorted(out['a']) == ['gnss.csv', 'imu.csv', 'odometry.csv', 'steering.csv',
                                'wheel_speeds.csv']
    assert out['a'] == out['b'] and out['a']['imu.csv'] != out['c']['imu.csv']
    header, odometry = read_output(tmp_path / 'a' / 'odometry.csv')
    assert header[:4] == ['t', 'delivered_t', 'position_x', 'position_y']
    assert np.allclose(np.diff(odometry[:, 0]), 0.02)                       # 50 Hz
    assert np.allclose(odometry[:, 1] - odometry[:, 0], 0.02)               # 20 ms late
    _, truth = read_output(tmp_path / 'a.csv')
    error = odometry[:, 2] - np.interp(odometry[:, 0], truth[:, 0], truth[:, 1])
    assert 0.0 < np.max(np.abs(error)) < 0.3                                # centimetres
    lidar = tmp_path / 'lidar.yaml'
    lidar.write_text('lidar: {beams: 10, field_of_view_rad: 1.0, range_max_m: 5.0}\n')
    for args, said in ((['--sensors', 'typical'], '--sensors needs --measurements'),
                       (['--measurements', str(tmp_path / 'x')], 'needs --sensors'),
                       (['--sensors', 'perfect', '--measurements', str(tmp_path / 'x')],
                        "no sensor profile 'perfect'"),
                       (['--sensors', str(lidar), '--measurements', str(tmp_path / 'x')],
                        'has a lidar, which a replay cannot measure')):
        bad = replay('--vehicle', 'volvo_v40', '--inputs', str(inputs), '--output',
                     str(tmp_path / 'x.csv'), *args)
        assert bad.returncode == 2 and said in bad.stderr, bad.stderr
    uneven = tmp_path / 'uneven.csv'
    uneven.write_text('t,steer,torque_fl,torque_fr,torque_rl,torque_rr\n0,0,0,0,0,0\n'
                      '0.01,0,0,0,0,0\n0.03,0,0,0,0,0\n')
    bad = replay('--vehicle', 'volvo_v40', '--inputs', str(uneven), '--output',
                 str(tmp_path / 'x.csv'), '--sensors', 'typical', '--measurements',
                 str(tmp_path / 'x'))
    assert bad.returncode == 2 and 'evenly spaced rows' in bad.stderr
