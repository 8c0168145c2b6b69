"""
The ros-launch kit: the real `launch`, `launch_ros`, `ros2` command line and teleop.

They are pure Python but in no package registry, and fetched code is never
kept beside the project: a complete kit is a folder of the user's own
(../shared/ros-launch-kit/README.md says what it holds), found through the
environment variable RALLY_SIM_ROS_LAUNCH. The tests that run a launch file,
the `ros2` command line or the keyboard teleop skip without it, saying so.
"""

import os
from typing import Dict, Optional

import pytest

VARIABLE = 'RALLY_SIM_ROS_LAUNCH'
PARTS = ('run_launch.py', os.path.join('bin', 'ros2'), 'site',
         os.path.join('clients', 'teleop_twist_keyboard.py'))
"""What a complete kit holds (beside its stand-ins)."""


def folder() -> str:
    """Return the kit's folder as RALLY_SIM_ROS_LAUNCH names it ('' when unset)."""
    return os.environ.get(VARIABLE, '')


def absent() -> Optional[str]:
    """Return why the kit cannot be used (unset, or a part missing), or None."""
    kit = folder()
    if not kit:
        return (f'{VARIABLE} is not set: launch, launch_ros, ros2cli and teleop_twist_keyboard '
                'are in no package registry, so `ros2 launch`, the `ros2` command line and the '
                'teleop cannot exist in a pip install without a kit of your own '
                '(../shared/ros-launch-kit/README.md)')
    missing = [part for part in PARTS if not os.path.exists(os.path.join(kit, part))]
    if missing:
        return f'{VARIABLE}={kit} is not a complete ros-launch kit: {", ".join(missing)} missing'
    return None


def needed() -> pytest.MarkDecorator:
    """Return a pytest mark that skips, with the reason, when the kit is absent."""
    reason = absent()
    return pytest.mark.skipif(reason is not None, reason=reason or '')


def path(*parts: str) -> str:
    """Return a path inside the kit."""
    return os.path.join(folder(), *parts)


def environment(env: Dict[str, str]) -> Dict[str, str]:
    """Return `env` with the kit's packages and stand-ins importable and on the ament path."""
    env = dict(env)
    env['PYTHONPATH'] = os.pathsep.join(
        [path('site'), path('standins', 'python'), env.get('PYTHONPATH', '')])
    env['AMENT_PREFIX_PATH'] = os.pathsep.join(
        [path('standins', 'prefix'), env.get('AMENT_PREFIX_PATH', '')])
    return env
