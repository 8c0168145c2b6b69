"""Parameter files reach the real node through rcl's own YAML parser (--params-file)."""

import glob
import os

from ament_index_python.packages import get_package_share_directory
import pytest
from rally_sim.ros.parameters import SPECS
from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient
from support import ros_process
import yaml

SHARE = get_package_share_directory('rally_sim')
SHIPPED = sorted(path for path in glob.glob(os.path.join(SHARE, 'config', '*.yaml'))
                 if 'ros__parameters' in open(path, encoding='utf-8').read())
"""Every parameter file the package installs (what ros2 launch users pass)."""
NON_DEFAULT = {
    'vehicle': 'rwd_gravel', 'surface': 'rally_stage', 'physics_rate_hz': 500,
    'publish_rate_hz': 50.0, 'marker_rate_hz': 0.0, 'pacing': 'fast',
    'sync_controllers': ['some_controller', '/elsewhere/other'], 'sync_paused': True,
    'sync_observers': ['recorder'],
    'sync_timeout_s': 12.5, 'real_time_factor': 2.0, 'max_catch_up_s': 0.25,
    'publish_clock': False, 'command_mode': 'driver', 'command_timeout_s': 0.0,
    'timeout_brake_torque_n_m': 250.0, 'shutdown_flush_s': 0.5, 'odom_frame': 'world_odom',
    'base_frame': 'chassis',
    'initial_x': 12.5, 'initial_y': -3.0, 'initial_yaw': 1.5, 'initial_speed': -2.0,
    'argument_names': 'initial_x=sx', 'initial_lateral_speed': 1.5, 'initial_yaw_rate': -0.25,
    'sensors': 'typical', 'seed': 4711, 'tf_source': 'none', 'publish_stage': False,
    'trail_length_s': 12.5, 'trail_colour': 'slip', 'map': 'none', 'contact': 'off',
    'cmd_vel_stamped': True, 'cars': ['solo']}    # one named car: initial_* place it
"""A value other than the default for every parameter, in rcl's YAML as a user writes it."""


def node_parameters(simulator_client, names):
    """Return {name: value} of the simulator's parameters, asked over its parameter service."""
    client = AsyncParameterClient(simulator_client.node, 'rally_sim')
    assert simulator_client.spin_until(client.services_are_ready, timeout_s=60.0), \
        'no parameter service'
    future = client.get_parameters(list(names))
    assert simulator_client.spin_until(future.done, timeout_s=30.0), 'no answer'
    return {n: parameter_value_to_python(v) for n, v in zip(names, future.result().values)}


def start_with_files(simulator, *files):
    """Start the simulator with these parameter files (lockstep: it stands still)."""
    args = []
    for path in files:
        args += ['--params-file', path]
    return simulator(extra_args=args)


@pytest.fixture
def with_files(simulator):
    """Return a starter of the simulator with parameter files."""
    return lambda *files: start_with_files(simulator, *files)


@pytest.mark.parametrize('path', SHIPPED, ids=os.path.basename)
def test_every_shipped_parameter_file_starts_the_node_with_its_values(with_files, path):
    with open(path, encoding='utf-8') as stream:
        written = yaml.safe_load(stream)['/**/rally_sim']['ros__parameters']
    client = with_files(path)
    got = node_parameters(client, list(written))
    for name, value in written.items():
        assert got[name] == (list(value) if isinstance(value, list) else value), name
    # the shipped file lists every parameter but the start pose (a stage's path gives it)
    assert set(written) == set(SPECS) - {'initial_x', 'initial_y', 'initial_yaw'}


def test_every_declared_parameter_round_trips_through_a_parameter_file(with_files, tmp_path):
    assert set(NON_DEFAULT) == set(SPECS)    # a new parameter gets a value here
    for name, value in NON_DEFAULT.items():
        assert value != SPECS[name].default, name
    path = tmp_path / 'params.yaml'
    path.write_text(yaml.safe_dump({'/**/rally_sim': {'ros__parameters': NON_DEFAULT}}))
    client = with_files(str(path))
    got = node_parameters(client, list(NON_DEFAULT))
    assert got == {name: (float(v) if isinstance(SPECS[name].default, float)
                          and name != 'physics_rate_hz' else v)
                   for name, v in NON_DEFAULT.items()}


BAD_FILES = {
    'unknown key': ('colour: red', "'colour'", 'is not a parameter of rally_sim'),
    'wrong type': ('pacing: 3', "'pacing'", "expecting type 'STRING'"),
    'out of range': ('physics_rate_hz: 20000.0', "'physics_rate_hz'", 'out of range'),
    'choice': ('command_mode: fly', "'command_mode'", "must be one of ['torque'"),
    'empty list': ('sync_controllers: []', "'sync_controllers'", "write ['']"),
    'no vehicle': ('vehicle: nosuchcar', "'nosuchcar'", 'presets: arcade_group2'),
    'no surface': ('surface: nosuch', "'nosuch'",
                   'a stage (figure_eight, hill_stage, jump_stage, rally_stage'),
    'no profile': ('sensors: perfect', "'perfect'", 'shipped: f1tenth, ideal, rough, typical'),
    'bad seed': ('seed: lucky', "'seed'", 'must be an integer or random'),
    'negative seed': ('seed: -4', "'seed'", 'out of range'),
    'no map': ('map: nowhere', "'map'", "no occupancy map 'nowhere': not a stage with one"),
}


def node_with_file(path):
    """Start the node with parameter file `path`; return its exit status and output."""
    process = ros_process.start_module('rally_sim.ros.node', '--ros-args',
                                       '--params-file', str(path))
    try:
        process.wait(timeout=120.0)
    finally:
        output = ros_process.stop(process)
    return process.returncode, output


def test_a_bad_parameter_file_exits_2_naming_the_key_and_the_file(tmp_path):
    for case, (line, key, reason) in BAD_FILES.items():
        path = tmp_path / f'{case.replace(" ", "_")}.yaml'
        path.write_text(f'/**/rally_sim:\n  ros__parameters:\n    {line}\n')
        returncode, output = node_with_file(path)
        assert returncode == 2, (case, output)
        assert key in output and reason in output, (case, output)
        assert 'Traceback' not in output, (case, output)
        if key.strip("'") in line.split(':')[0]:     # a key's fault names its file
            assert str(path) in output, (case, output)


def test_a_parameter_file_missing_or_not_yaml_exits_2_naming_it(tmp_path):
    broken = tmp_path / 'broken.yaml'
    broken.write_text('/**/rally_sim:\n  ros__parameters: [pacing: 3\n')
    for path in (tmp_path / 'missing.yaml', broken):
        returncode, output = node_with_file(path)
        assert returncode == 2, (path, output)
        assert 'Traceback' not in output, (path, output)
        assert f"rally_sim_node: error: failed to initialize rcl: Couldn't parse params file: " \
            f"'--params-file {path}'" in output, (path, output)
