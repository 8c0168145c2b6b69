"""
Every entry point answers --help with help, and starts nothing and writes nothing.

They run in the package's source tree, as a user in a checkout runs them:
nothing may appear there (a `--help` folder of stages once did).
"""

import pathlib
import re
import subprocess
import sys

from support import ros_process

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / 'rally_sim'
SETUP = PACKAGE.parent / 'setup.py'
SOURCE = PACKAGE.parent


def tree(root: pathlib.Path) -> set:
    """Return every path under root but Python's byte-code caches."""
    return {str(p.relative_to(root)) for p in root.rglob('*') if '__pycache__' not in p.parts}


def module_entries():
    """Return every `python -m` module of the package (a file with a __main__ block)."""
    found = []
    for path in sorted(PACKAGE.rglob('*.py')):
        if "__name__ == '__main__'" in path.read_text(encoding='utf-8'):
            parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
            found.append('.'.join(parts[:-1] if parts[-1] == '__main__' else parts))
    return found


def console_scripts():
    """Return the console scripts setup.py declares: (name, module as `python -m` names it)."""
    return [(name, module.removesuffix('.__main__')) for name, module in re.findall(
        r"'(\w+) = ([\w.]+):main'", SETUP.read_text(encoding='utf-8'))]


def test_every_entry_point_answers_help_and_starts_nothing(tmp_path):
    entries = module_entries()
    scripts = console_scripts()
    assert len(entries) >= 25 and 'rally_sim.ros.gap_follower' in entries
    assert {module for _, module in scripts} <= set(entries)      # each is a `python -m` too
    commands = {module: [sys.executable, '-m', module, '--help'] for module in entries}
    environment = ros_process.tagged_environment(str(tmp_path))
    before = tree(SOURCE)
    running = {module: subprocess.Popen(command, cwd=SOURCE, env=environment,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
               for module, command in commands.items()}
    said = {module: process.communicate(timeout=300)[0] for module, process in running.items()}
    failed = {module: (running[module].returncode, said[module][-300:]) for module in said
              if running[module].returncode != 0 or len(said[module]) < 40}
    assert failed == {}
    nodes = [module for module, _ in scripts if module.startswith('rally_sim.ros.')]
    for module in nodes:                        # a node's help: how to start it, parameters
        assert said[module].startswith('usage: ros2 run rally_sim'), said[module][:200]
        assert 'parameters (--ros-args -p NAME:=VALUE' in said[module]
        assert '[INFO]' not in said[module]     # no node started, nothing logged
    assert 'contact (default' in said['rally_sim.ros.node']
    assert tree(SOURCE) ^ before == set()      # nothing written (stages wrote into '--help')
    assert not ros_process.tagged_processes(str(tmp_path))
