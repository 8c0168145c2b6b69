"""
The ROS-free core stands alone: pip-installed in a plain venv, run with no ROS at all.

`./rally setup` makes build/plain_venv (python -m venv, then `pip install
ros2_ws/src/rally_sim`, which brings the core's pinned dependencies); this
test installs the current source there again and runs a Gymnasium episode, a
batch rollout and the replay CLI in a scrubbed environment: no AMENT_*, no
ROS paths, rclpy not importable, and a cold kernel cache.
"""

import csv
import os
import re
import shutil
import subprocess

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAIN = os.path.normpath(os.path.join(PACKAGE, '..', '..', '..', 'build', 'plain_venv'))
PYTHON = os.path.join(PLAIN, 'bin', 'python')
SCRIPT = r"""
import importlib.util
import sys

import numpy as np

assert importlib.util.find_spec('rclpy') is None, 'rclpy is importable'
assert importlib.util.find_spec('ament_index_python') is None, 'ament is importable'
import gymnasium
import rally_sim.gym  # noqa: F401
from rally_sim.physics import load_vehicle, Vehicle
from rally_sim.physics.batch.rollouts import Batch
from rally_sim.resources import vehicle_path

env = gymnasium.make('rally_sim/RallyDrive-v0')
observation, info = env.reset(seed=3)
steps, done = 0, False
while not done:
    observation, reward, terminated, truncated, info = env.step([0.05, 0.4])
    steps, done = steps + 1, terminated or truncated
assert np.all(np.isfinite(observation))
print('episode', steps, 'steps')

config = load_vehicle(vehicle_path('volvo_v40'))
car = Vehicle(config)
car.reset(vx=10.0)
cars, horizon = 6, 40
states = np.repeat(car.state[None, :], cars, axis=0)
steer = np.full((cars, horizon), 0.05)
drive = np.zeros((cars, horizon, 4))
drive[:, :, 2:] = np.linspace(0.0, 300.0, cars)[:, None, None]
result = Batch(config, cars).rollout(states, steer, drive, np.zeros((cars, horizon, 4)),
                                     dt=0.02)
assert result.valid.all() and result.states.shape == (cars, horizon, car.state.size)
speeds = result.states[:, -1, 3]
assert np.all(np.diff(speeds) > 0.0), speeds        # more torque, more speed
print('batch', cars, 'cars, speeds', speeds.round(3).tolist())
"""


def scrubbed_environment(tmp_path) -> dict:
    """Return an environment with nothing of ROS: PATH to the plain venv, a cold cache."""
    return {'PATH': f'{PLAIN}/bin:/usr/bin:/bin', 'HOME': str(tmp_path),
            'XDG_CACHE_HOME': str(tmp_path / 'cache'), 'LANG': 'C.UTF-8',
            'MPLBACKEND': 'Agg'}


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    """Install this source tree into the plain venv (no dependencies: set-up has them)."""
    assert os.path.exists(PYTHON), f'{PLAIN} is missing: ./rally setup makes it'
    copy = tmp_path_factory.mktemp('source') / 'rally_sim'
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns(
        'test', 'build', '__pycache__', '*.egg-info', '.pytest_cache'))
    tmp = tmp_path_factory.mktemp('home')
    result = subprocess.run(
        [PYTHON, '-m', 'pip', 'install', '--no-deps', '--no-build-isolation',
         '--force-reinstall', '--disable-pip-version-check', str(copy)],
        capture_output=True, text=True, timeout=600, env=scrubbed_environment(tmp))
    assert result.returncode == 0, result.stdout + result.stderr
    return tmp


def test_gymnasium_and_batch_rollouts_run_without_ros(installed):
    environment = scrubbed_environment(installed)
    first = subprocess.run([PYTHON, '-c', SCRIPT], capture_output=True, text=True,
                           timeout=900, env=environment, cwd=str(installed))
    assert first.returncode == 0, first.stdout + first.stderr
    assert 'episode' in first.stdout and 'batch 6 cars' in first.stdout
    # A cold cache: said once on stderr as it starts, which and how long once at the end.
    assert first.stderr.count('rally_sim: compiling the physics kernels') == 1, first.stderr
    assert first.stderr.count('rally_sim: compiled ') == 1, first.stderr
    assert re.search(r'compiled \d+ kernels in \d+ s: \w', first.stderr), first.stderr
    second = subprocess.run([PYTHON, '-c', SCRIPT], capture_output=True, text=True,
                            timeout=900, env=environment, cwd=str(installed))
    assert second.returncode == 0, second.stdout + second.stderr
    assert 'compil' not in second.stderr
    assert second.stdout == first.stdout         # the same run, from the cache


def test_the_kernels_compiled_by_one_install_load_in_another(installed, tmp_path):
    """The same sources from another path (here the source tree) load the pip install's cache."""
    environment = scrubbed_environment(installed)
    where = 'import rally_sim; print(rally_sim.__file__)\n'
    pip = subprocess.run([PYTHON, '-c', where + SCRIPT], capture_output=True, text=True,
                         timeout=900, env=environment, cwd=str(tmp_path))
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert 'site-packages' in pip.stdout.splitlines()[0]
    run = subprocess.run([PYTHON, '-c', where + SCRIPT], capture_output=True, text=True,
                         timeout=900, env=dict(environment, PYTHONPATH=PACKAGE), cwd=str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith(os.path.join(PACKAGE, 'rally_sim', '__init__.py')), run.stdout
    assert 'compil' not in run.stderr, run.stderr


def test_replay_console_script_runs_without_ros(installed, tmp_path):
    inputs, output = tmp_path / 'in.csv', tmp_path / 'out.csv'
    with open(inputs, 'w', newline='', encoding='utf-8') as stream:
        writer = csv.writer(stream)
        writer.writerow(['t', 'steer', 'torque_fl', 'torque_fr', 'torque_rl', 'torque_rr'])
        for k in range(100):
            writer.writerow([k * 0.01, 0.02, 0.0, 0.0, 200.0, 200.0])
    result = subprocess.run(
        [os.path.join(PLAIN, 'bin', 'rally_sim_replay'), '--vehicle', 'rwd_gravel',
         '--surface', 'gravel', '--inputs', str(inputs), '--output', str(output),
         '--initial-speed', '5', '--sensors', 'rough', '--seed', '7', '--measurements',
         str(tmp_path / 'sensed')],
        capture_output=True, text=True, timeout=900, env=scrubbed_environment(installed),
        cwd=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    with open(output, newline='', encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == 101 and float(rows[-1]['t']) == pytest.approx(1.0)
    assert float(rows[-1]['vx']) > 5.0             # driven on
    with open(tmp_path / 'sensed' / 'odometry.csv', newline='', encoding='utf-8') as stream:
        measured = list(csv.DictReader(stream))      # the shipped profile, as package data
    assert len(measured) >= 15 and float(measured[0]['delivered_t']) == pytest.approx(0.1)


def test_the_ros_node_says_it_needs_ros_when_there_is_none(installed):
    result = subprocess.run([os.path.join(PLAIN, 'bin', 'rally_sim_node')], capture_output=True,
                            text=True, timeout=300, env=scrubbed_environment(installed))
    assert result.returncode == 2, result.stdout + result.stderr
    assert 'ROS 2 is not available here' in result.stderr and 'Traceback' not in result.stderr
