"""`./rally exec ros2 ...` without a ros-launch kit says what is missing and where to look."""

import os
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                     '..', '..', '..', '..'))


def rally_exec(*words: str, kit: str = None) -> subprocess.CompletedProcess:
    """Run `./rally exec WORDS` with RALLY_SIM_ROS_LAUNCH set to `kit` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != 'RALLY_SIM_ROS_LAUNCH'}
    # What the suite's process put first on PATH must not be taken for a `ros2`.
    env['PATH'] = os.pathsep.join(p for p in env['PATH'].split(os.pathsep)
                                  if not os.path.isfile(os.path.join(p, 'ros2')))
    if kit is not None:
        env['RALLY_SIM_ROS_LAUNCH'] = kit
    return subprocess.run([os.path.join(ROOT, 'rally'), 'exec', *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_ros2_without_the_kit_names_the_variable_and_the_docs():
    done = rally_exec('ros2', 'topic', 'list')
    assert done.returncode == 127
    assert 'no `ros2` command line' in done.stderr
    assert 'RALLY_SIM_ROS_LAUNCH' in done.stderr and 'docs/ros.md' in done.stderr


def test_ros2_with_an_incomplete_kit_says_so(tmp_path):
    done = rally_exec('ros2', 'node', 'list', kit=str(tmp_path))
    assert done.returncode == 127
    assert f'RALLY_SIM_ROS_LAUNCH={tmp_path} has no bin/ros2' in done.stderr


def test_other_commands_run_without_the_kit():
    done = rally_exec('python', '-c', 'import rclpy; print("rclpy here")')
    assert done.returncode == 0 and 'rclpy here' in done.stdout, done.stderr
