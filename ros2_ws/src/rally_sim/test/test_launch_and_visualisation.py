"""Launch files, URDF and RViz configuration, checked as files (run for real: test_launch.py)."""

import ast
import os
import py_compile
import re
import xml.etree.ElementTree as ElementTree

import pytest
from rally_sim.ros.conversions import joint_names
import yaml

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCH_FILES = ['rally_sim.launch.py', 'two_cars.launch.py']
ROS_PAGE = os.path.join(PACKAGE, '..', '..', '..', 'docs', 'ros.md')


@pytest.mark.parametrize('name', LAUNCH_FILES)
def test_launch_files_compile(name):
    py_compile.compile(os.path.join(PACKAGE, 'launch', name), doraise=True)


def test_urdf_matches_joint_states_and_tf():
    robot = ElementTree.parse(os.path.join(PACKAGE, 'urdf', 'rally_sim.urdf')).getroot()
    joints = {j.get('name'): j for j in robot.findall('joint')}
    links = {link.get('name') for link in robot.findall('link')}
    for name in joint_names(''):
        assert name in joints, name
        assert joints[name].get('type') in ('revolute', 'continuous')
    assert {'base_link', 'imu_link', 'wheel_fl_steer', 'wheel_fl', 'wheel_fr_steer',
            'wheel_fr', 'wheel_rl', 'wheel_rr'} <= links
    for joint in joints.values():      # a tree rooted at base_link
        assert joint.find('parent').get('link') in links
        assert joint.find('child').get('link') in links
    assert joints['wheel_fl_spin_joint'].find('parent').get('link') == 'wheel_fl_steer'


def test_rviz_config_parses_and_shows_our_topics():
    with open(os.path.join(PACKAGE, 'rviz', 'rally_sim.rviz'), encoding='utf-8') as stream:
        config = yaml.safe_load(stream)
    manager = config['Visualization Manager']
    assert manager['Global Options']['Fixed Frame'] == 'odom'
    displays = {d['Class']: d for d in manager['Displays']}
    odometry = {d['Topic']['Value'] for d in manager['Displays']
                if d['Class'] == 'rviz_default_plugins/Odometry'}
    assert odometry == {'odom', 'ground_truth/odom'}        # measured and true, side by side
    assert displays['rviz_default_plugins/Axes']['Reference Frame'] == 'base_link_ground_truth'
    assert displays['rviz_default_plugins/MarkerArray']['Topic']['Value'] == 'markers'
    assert 'rviz_default_plugins/RobotModel' in displays
    assert 'rviz_default_plugins/TF' in displays
    topics = {d['Topic']['Value']: d['Topic'] for d in manager['Displays'] if 'Topic' in d}
    for latched in ('stage/surface', 'stage/path'):     # RViz coming late still gets them
        assert topics[latched]['Durability Policy'] == 'Transient Local'
    assert 'trail' in topics
    with open(os.path.join(PACKAGE, 'rviz', 'two_cars.rviz'), encoding='utf-8') as stream:
        two = yaml.safe_load(stream)['Visualization Manager']['Displays']
    # RViz runs beside the one simulator of both cars: their topics by full name
    assert [d for d in two if d.get('Topic', {}).get('Value') == '/car2/trail']
    assert [d for d in two if d.get('Topic', {}).get('Value') == '/car1/trail']
    assert not [d for d in two if d.get('Topic', {}).get('Value', '/').split('/')[0] not in (
        '', 'stage')]


def test_parameter_file_declares_only_known_parameters():
    from rally_sim.ros.parameters import SPECS
    with open(os.path.join(PACKAGE, 'config', 'rally_sim.yaml'), encoding='utf-8') as stream:
        text = stream.read()
    params = yaml.safe_load(text)['/**/rally_sim']['ros__parameters']
    # the start pose is left out (said in a comment): on a stage the car starts on its path
    pose = {'initial_x', 'initial_y', 'initial_yaw'}
    assert set(params) == set(SPECS) - pose and all(name in text for name in pose)
    for name, value in params.items():
        assert type(value) is type(SPECS[name].default), name


def declared_arguments(name: str) -> dict:
    """Return {argument: default or None when not a literal} of a launch file, parsed."""
    with open(os.path.join(PACKAGE, 'launch', name), encoding='utf-8') as source:
        tree = ast.parse(source.read())
    declared = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, 'id', '') == 'DeclareLaunchArgument':
            default = next((k.value for k in call.keywords if k.arg == 'default_value'), None)
            assert isinstance(call.args[0], ast.Constant), ast.dump(call)
            declared[call.args[0].value] = (
                default.value if isinstance(default, ast.Constant) else None)
    return declared


def readme_arguments(name: str) -> dict:
    """Return {argument: default, None if in words} listed for a launch file in docs/ros.md."""
    with open(ROS_PAGE, encoding='utf-8') as stream:
        section = stream.read().split('### Launch files', 1)[1].split('\n## ', 1)[0]
    block = section.split(f'`{name}`:', 1)[1].split('\n\n`', 1)[0]
    listed = {}
    for line in block.splitlines():
        for argument, default in re.findall(r'`(\w+)` \(default ([^)]*)\)', line):
            listed[argument] = (default.strip('`') if default.startswith('`') else
                                '' if default == 'empty' else None)
    return listed


@pytest.mark.parametrize('name', LAUNCH_FILES)
def test_readme_lists_each_launch_file_argument_with_its_default(name):
    declared = declared_arguments(name)
    assert readme_arguments(name) == declared


def test_two_car_launch_takes_the_one_car_arguments_per_car():
    one_car = set(declared_arguments('rally_sim.launch.py'))
    two_cars = set(declared_arguments('two_cars.launch.py'))
    per_car = {'namespace', 'vehicle'}
    # one simulator: one clock, one stage, one RViz; a topic profile of one car's
    of_the_simulator = {'publish_clock', 'publish_stage', 'trail_colour', 'rviz_config',
                        'topic_profile', 'opponent', 'map', 'sx', 'sy', 'stheta', 'sx1', 'sy1',
                        'stheta1', 'scan_rate_hz', 'contact', 'command_timeout_s'}
    assert two_cars == (one_car - per_car - of_the_simulator) | {
        f'{car}_{argument}' for car in ('car1', 'car2') for argument in per_car}
