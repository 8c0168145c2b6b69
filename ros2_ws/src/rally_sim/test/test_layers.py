"""
The layer contracts: which part of the package may import what.

- physics imports nothing of rally_sim above it (the package root's
  constants aside);
- physics, control, sensors and gym import no rclpy and no message
  package, at any depth of a module (a function's import counts);
- importing them, in a fresh interpreter, loads no rclpy and no message.

A break names the file, the line and the import.
"""

import ast
import os
import pathlib
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'rally_sim'
ROS_FREE = ('physics', 'control', 'sensors', 'gym')
ROS_TOPS = ('rclpy', 'rosbag2_py', 'launch', 'launch_ros', 'builtin_interfaces',
            'rcl_interfaces', 'rosidl_runtime_py', 'rosgraph_msgs')
"""Top-level modules of ROS's middleware and messages (and every `*_msgs` package)."""


def imported(path: pathlib.Path):
    """Yield (line, absolute module name) of each import in a module, nested ones too."""
    parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
    if parts[-1] == '__init__':
        parts = parts[:-1] + ('__init__',)
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[:len(parts) - node.level]
                yield node.lineno, '.'.join(base + ((node.module,) if node.module else ()))
            else:
                yield node.lineno, node.module


def is_ros(name: str) -> bool:
    """Return whether a module name is ROS middleware or a message package."""
    top = name.split('.')[0]
    return top in ROS_TOPS or top.endswith('_msgs') or top.endswith('_srvs')


def breaks(layer: str, allowed) -> list:
    """Return 'file:line imports name' for each import of a layer's files that breaks it."""
    found = []
    for path in sorted((PACKAGE / layer).rglob('*.py')):
        for line, name in imported(path):
            if not allowed(name):
                found.append(f'{path.relative_to(PACKAGE.parent)}:{line} imports {name}')
    return found


def test_the_physics_imports_nothing_above_it():
    def allowed(name):
        return not is_ros(name) and (not name.startswith('rally_sim') or name == 'rally_sim'
                                     or name.startswith('rally_sim.physics'))
    assert breaks('physics', allowed) == []


def test_the_ros_free_layers_import_no_rclpy_and_no_message():
    found = [b for layer in ROS_FREE for b in breaks(layer, lambda name: not is_ros(name))]
    assert found == []


def test_the_checks_see_a_break(tmp_path, monkeypatch):
    """A module of the physics importing upwards and a message is named, with its line."""
    layer = tmp_path / 'rally_sim' / 'physics'
    layer.mkdir(parents=True)
    (layer / 'bad.py').write_text('import math\n\n\ndef f():\n'
                                  '    from ..control import path\n'
                                  '    from nav_msgs.msg import Odometry\n')
    monkeypatch.setattr(sys.modules[__name__], 'PACKAGE', tmp_path / 'rally_sim')
    assert breaks('physics', lambda name: not is_ros(name) and not name.startswith(
        'rally_sim.control')) == [
        os.path.join('rally_sim', 'physics', 'bad.py') + ':5 imports rally_sim.control',
        os.path.join('rally_sim', 'physics', 'bad.py') + ':6 imports nav_msgs.msg']


def test_importing_the_ros_free_layers_loads_no_ros():
    script = ('import sys\n'
              + ''.join(f'import rally_sim.{layer}\n' for layer in ROS_FREE)
              + 'import rally_sim.control.drift_figure_eight, rally_sim.gym.envs\n'
              'print(sorted(m for m in sys.modules if m.split(".")[0] in ROS_TOPS\n'
              '             or m.split(".")[0].endswith(("_msgs", "_srvs"))))\n')
    result = subprocess.run([sys.executable, '-c', f'ROS_TOPS = {ROS_TOPS!r}\n' + script],
                            capture_output=True, text=True, timeout=120,
                            cwd=str(PACKAGE.parent))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'
