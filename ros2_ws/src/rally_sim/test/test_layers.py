"""
The layer contracts: which part of the package may import what (docs/architecture.md).

- each part imports only parts of its own rank or below (LAYERS), so no
  folder imports a higher one and the folders import each other in no circle;
- physics imports nothing of rally_sim above it (the package root's
  constants aside);
- physics, sensors, world, control, drive, sim, gym and view import no rclpy and no
  message package, nor does the in-process engine (campaign/inprocess.py,
  its laws, the scenarios' spec and metrics);
- every module in ros/ works with ROS: it imports rclpy or a message, or a
  module of ros/ that does;
- importing the ROS-free parts and the in-process engine, in a fresh
  interpreter, loads no rclpy and no message.

Imports at any depth of a module count (a function's too). A break names
the file, the line and the import.
"""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'rally_sim'
ROS_FREE = ('physics', 'sensors', 'world', 'control', 'drive', 'sim', 'gym', 'view')
IN_PROCESS = ('campaign/inprocess.py', 'campaign/compiled_loop.py', 'campaign/controllers.py',
              'scenarios/spec.py', 'scenarios/metrics.py')
"""The in-process engine's own modules (it drives the session, sim/, and the laws)."""
LAYERS = {
    'rally_sim': 0, 'physics': 0, 'runtime': 0,
    'resources': 1, 'sensors': 1, 'world': 1,
    'control': 2, 'drive': 2,
    'sim': 3,
    'gym': 4, 'view': 4, 'scenarios': 4, 'campaign.inprocess': 4, 'campaign.compiled_loop': 4,
    'campaign.controllers': 4,
    'ros': 5,
    'scenarios.runner': 6, 'campaign': 6, 'cli': 6,
    'bench': 7,
}
"""The rank of each part (a folder or module, the longest name that matches): a part may
import parts of its rank or below. The modules at the package's top (python -m paths kept
where users run them) rank with cli."""
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
    where = PACKAGE / layer
    for path in sorted(where.rglob('*.py') if where.is_dir() else [where]):
        for line, name in imported(path):
            if not allowed(name):
                found.append(f'{path.relative_to(PACKAGE.parent)}:{line} imports {name}')
    return found


def part_of(name: str) -> str:
    """Return the LAYERS entry a module of rally_sim belongs to (its longest match)."""
    parts = name.split('.')[1:]
    for count in range(len(parts), 0, -1):
        if '.'.join(parts[:count]) in LAYERS:
            return '.'.join(parts[:count])
    return 'rally_sim' if not parts or parts[0] == '__init__' else 'cli'


def folder_of(name: str) -> str:
    """Return the folder (or top-level module) of rally_sim that a module is in."""
    parts = name.split('.')
    return parts[1] if len(parts) > 1 and parts[1] != '__init__' else 'rally_sim'


def test_no_part_imports_a_higher_one_and_no_folders_import_in_a_circle():
    found, edges = [], set()
    for path in sorted(PACKAGE.rglob('*.py')):
        parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
        here = part_of('.'.join(parts))
        for line, name in imported(path):
            if not name or not (name == 'rally_sim' or name.startswith('rally_sim.')):
                continue
            there = part_of(name)
            if LAYERS[there] > LAYERS[here]:
                found.append(f'{path.relative_to(PACKAGE.parent)}:{line} imports {name} '
                             f'({here}, rank {LAYERS[here]}, may not import {there}, rank '
                             f'{LAYERS[there]})')
            edges.add((folder_of('.'.join(parts)), folder_of(name)))
    assert found == []
    folders = {a for a, b in edges if a != b} | {b for a, b in edges if a != b}
    graph = {f: {b for a, b in edges if a == f and b != f} for f in folders}
    assert circle(graph) is None


def circle(graph):
    """Return a circle of imports between folders as a list, or None."""
    state = {}

    def visit(node, trail):
        state[node] = 'open'
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 'open':
                return trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt]
            if nxt not in state:
                found = visit(nxt, trail + [nxt])
                if found:
                    return found
        state[node] = 'done'
        return None
    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_the_physics_imports_nothing_above_it():
    def allowed(name):
        return not is_ros(name) and (not name.startswith('rally_sim') or name == 'rally_sim'
                                     or name.startswith('rally_sim.physics'))
    assert breaks('physics', allowed) == []


def test_the_ros_free_layers_and_the_in_process_engine_import_no_rclpy_and_no_message():
    found = [b for layer in ROS_FREE + IN_PROCESS
             for b in breaks(layer, lambda name: not is_ros(name))]
    assert found == []


def test_every_module_in_ros_works_with_ros():
    imports = {}
    for path in sorted((PACKAGE / 'ros').rglob('*.py')):
        parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
        name = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)
        imports[name] = [n for _, n in imported(path) if n]
    ros_bound = {m for m, names in imports.items() if any(map(is_ros, names))}
    while True:     # or through a module of ros/ that is
        more = {m for m, names in imports.items() if m not in ros_bound and any(
            n in ros_bound or n.rsplit('.', 1)[0] in ros_bound for n in names)}
        if not more:
            break
        ros_bound |= more
    packages = {m for m in imports if (PACKAGE.parent / m.replace('.', '/')).is_dir()}
    assert sorted(set(imports) - ros_bound - packages) == []


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
              + 'import rally_sim.control.drift.figure_eight, rally_sim.gym.envs\n'
              'import rally_sim.campaign.inprocess, rally_sim.control.laws.mppi\n'
              'print(sorted(m for m in sys.modules if m.split(".")[0] in ROS_TOPS\n'
              '             or m.split(".")[0].endswith(("_msgs", "_srvs"))))\n')
    result = subprocess.run([sys.executable, '-c', f'ROS_TOPS = {ROS_TOPS!r}\n' + script],
                            capture_output=True, text=True, timeout=120,
                            cwd=str(PACKAGE.parent))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


def test_the_rank_check_names_an_upward_import_and_a_circle(tmp_path, monkeypatch):
    layer = tmp_path / 'rally_sim' / 'sim'
    layer.mkdir(parents=True)
    (layer / 'bad.py').write_text('def f():\n    from ..ros import node\n')
    monkeypatch.setattr(sys.modules[__name__], 'PACKAGE', tmp_path / 'rally_sim')
    with pytest.raises(AssertionError, match=r'bad.py:2 imports rally_sim.ros \(sim, rank 3, '
                                             r'may not import ros, rank 5\)'):
        test_no_part_imports_a_higher_one_and_no_folders_import_in_a_circle()
    assert circle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == ['a', 'b', 'c', 'a']
    assert circle({'a': {'b'}, 'b': set()}) is None


def test_the_architecture_diagram_has_the_imports_of_the_code():
    """
    docs/architecture.svg (./rally diagram) draws the arrows of the imports now.

    pydeps draws an arrow from each folder or top-level module (depth 2) to
    each that imports it, the package's root left out; the same arrows come
    from the imports read here (at any depth of a module, as modulefinder
    finds them), without running pydeps (half a minute).
    """
    def part(name: str):
        bits = name.split('.')
        if bits[0] != 'rally_sim' or len(bits) < 2 or bits[1] == '__init__':
            return None         # outside the package, or its root
        return '_'.join(bits[:2])
    now = set()
    for path in PACKAGE.rglob('*.py'):
        importer = part('.'.join(path.relative_to(PACKAGE.parent).with_suffix('').parts))
        for _, name in imported(path):
            source = part(name or '')
            if importer and source and source != importer:
                now.add((source, importer))
    svg = (PACKAGE.parent.parent.parent.parent / 'docs' / 'architecture.svg').read_text(
        encoding='utf-8')
    drawn = set(re.findall(r'<title>(\w+)&#45;&gt;(\w+)</title>', svg))
    assert len(now) > 20
    assert now == drawn, ('run ./rally diagram: the diagram is not of the imports now '
                          f'(missing {sorted(now - drawn)}, gone {sorted(drawn - now)})')
