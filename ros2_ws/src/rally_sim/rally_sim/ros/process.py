"""
A node's process, from its light entry module (ros/node.py, ros/path_follower.py ...).

The entry modules import only this and the runtime (no rclpy): a signal is
handled from the process's first moment, and ROS starts after the node's
slow preparation (runtime/entry.py says how a stop is handled).
"""

import importlib
import sys

from ..runtime.entry import ignore_signals, StopRequest


def run_node_process(module: str, class_name: str, name: str, args=None) -> int:
    """
    Run a node's process: stop handler first, then the imports, then the node.

    The node module's `prepare()`, if it has one, runs before ROS starts
    (the simulator loads its compiled physics there, so a signal during the
    slow part of start-up needs no clean-up). Exits 0 on a signal at any
    moment, 2 on a bad parameter or without ROS.
    """
    stop = StopRequest()
    argv = sys.argv[1:] if args is None else list(args)
    own = argv[:argv.index('--ros-args')] if '--ros-args' in argv else argv
    try:
        node_module = importlib.import_module(module)
    except ModuleNotFoundError as error:    # the core pip-installed alone
        print(f'{name}: error: this is a ROS 2 node and ROS 2 is not available here '
              f'({error}); source your ROS 2 installation and workspace (the README says '
              'how). The physics, replay, batch and Gymnasium parts run without ROS.',
              file=sys.stderr)
        return 2
    if '-h' in own or '--help' in own:
        print(node_help(node_module, class_name, name))
        return 0
    prepare = getattr(node_module, 'prepare', None)
    if prepare is not None:
        prepare()
    from .spinning import run_node      # rclpy: after the preparation
    stop.hold()
    try:
        return run_node(getattr(node_module, class_name), name, args, stop)
    finally:
        ignore_signals()


def node_help(node_module, class_name: str, name: str) -> str:
    """Return a node's --help: how to start it, what it is, its parameters (starts nothing)."""
    import textwrap
    doc = (getattr(node_module, class_name).__doc__ or '').strip().split('\n\n')[0]
    lines = [f'usage: ros2 run rally_sim {name} [--ros-args -p NAME:=VALUE ... '
             '| --params-file FILE]']
    main_spec = getattr(sys.modules.get('__main__'), '__spec__', None)
    if main_spec is not None:
        lines.append(f'       python -m {main_spec.name} [the same]')
    lines += ['', ' '.join(doc.split()), '',
              'parameters (--ros-args -p NAME:=VALUE, or a params file):']
    for key, spec in getattr(node_module, 'SPECS', {}).items():
        facts = [f'default {spec.default!r}']
        if spec.low is not None or spec.high is not None:
            facts.append(f'{spec.low:g} to {spec.high:g}')
        if spec.choices:
            facts.append(f"one of {', '.join(spec.choices)}")
        if spec.live:
            facts.append('may change live')
        lines.append(f'  {key} ({"; ".join(facts)})')
        lines += textwrap.wrap(spec.description, 95, initial_indent=' ' * 6,
                               subsequent_indent=' ' * 6)
    return '\n'.join(lines)
