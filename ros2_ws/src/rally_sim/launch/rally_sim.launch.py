"""
Launch the rally_sim simulator, the car's description and, optionally, RViz.

topic_profile:=f1tenth runs the simulator as f1tenth_gym_ros does, so an
F1TENTH stack runs with no remapping: the F1TENTH car with its lidar on the
track, the car ego_racecar (and with opponent:=true opp_racecar), its
topics on f1tenth_gym_ros's names (F1TENTH_TOPICS), its frames under map,
/cmd_vel driving the ego car (keyboard teleop). Your own map and start pose
as f1tenth_gym_ros's sim.yaml names them: map:=FILE (a map_server YAML; the
ground under its walls one surface, surface:=, tarmac_dry by default),
sx:=, sy:=, stheta:= (and sx1:=, sy1:=, stheta1:= for the opponent); the
scan's rate scan_rate_hz:= (40 Hz, the Hokuyo's).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PythonExpression
from launch_ros.actions import Node
from rally_sim.ros.launch_exit import simulator_ended
from rally_sim.ros.launch_record import RECORD_HELP, recorder

F1TENTH_TOPICS = [
    ('/ego_racecar/ackermann_cmd', '/drive'), ('/ego_racecar/scan', '/scan'),
    ('/ego_racecar/cmd_vel', '/cmd_vel'),
    ('/opp_racecar/ackermann_cmd', '/opp_drive'), ('/opp_racecar/scan', '/opp_scan')]
"""Our topics renamed to f1tenth_gym_ros's (ego_racecar/odom, opp_racecar/odom, map and
/initialpose are theirs already; its keyboard teleop drives the ego car on /cmd_vel)."""
F1TENTH_STARTS = {'ego_racecar': ('sx', 'sy', 'stheta'), 'opp_racecar': ('sx1', 'sy1', 'stheta1')}
"""Each car's start pose arguments, f1tenth_gym_ros's sim.yaml names (x, y [m], yaw [rad])."""
F1TENTH_PARAMETERS = {'vehicle': 'f1tenth', 'surface': 'track', 'sensors': 'f1tenth',
                      'command_mode': 'speed', 'odom_frame': 'map', 'publish_rate_hz': 40.0}
"""The simulator as f1tenth_gym_ros: its car, a track, its lidar, speed and steering on drive,
the frames under map, the scan at the Hokuyo's 40 Hz."""


def f1tenth_simulator(context):
    """Return the simulator node of topic_profile f1tenth (opponent: a second car)."""
    given = context.launch_configurations
    cars = ['ego_racecar'] + (['opp_racecar'] if given['opponent'].lower() == 'true' else [])
    parameters = dict(F1TENTH_PARAMETERS, cars=cars,
                      publish_rate_hz=_number(given['scan_rate_hz']),
                      publish_clock=LaunchConfiguration('publish_clock'))
    if given['map']:        # the user's walls over one ground, not the track's surface map
        parameters.update(map=given['map'], surface=given['surface'])
    if given['contact']:
        parameters['contact'] = given['contact']
    parameters['command_timeout_s'] = _number(given['command_timeout_s'])
    names = ['map=map']
    for car in cars:
        for key, argument in zip(('initial_x', 'initial_y', 'initial_yaw'), F1TENTH_STARTS[car]):
            names.append(f'{car}.{key}={argument}')
            if given[argument]:
                parameters[f'{car}.{key}'] = _number(given[argument])
    parameters['argument_names'] = ' '.join(names)     # errors name sx, not the parameter
    return [Node(package='rally_sim', executable='rally_sim_node', name='rally_sim',
                 output='screen', on_exit=simulator_ended,
                 parameters=[LaunchConfiguration('params_file'), parameters],
                 remappings=F1TENTH_TOPICS)] + [
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             namespace=car, name='robot_state_publisher',
             parameters=[{'robot_description': _description(),
                          'use_sim_time': LaunchConfiguration('use_sim_time'),
                          'frame_prefix': f'{car}/'}],
             remappings=[('joint_states', 'robot_state_publisher/unused_joint_states')])
        for car in cars]


def _number(text: str):
    """Return a launch argument as the number it spells (else as given: the node names it)."""
    try:
        return float(text)
    except ValueError:
        return text


def _description() -> str:
    share = get_package_share_directory('rally_sim')
    with open(os.path.join(share, 'urdf', 'rally_sim.urdf'), encoding='utf-8') as urdf:
        return urdf.read()


def generate_launch_description():
    """Return the launch description (arguments: see DeclareLaunchArgument below)."""
    share = get_package_share_directory('rally_sim')
    robot_description = _description()
    vehicle = LaunchConfiguration('vehicle')
    surface = LaunchConfiguration('surface')
    namespace = LaunchConfiguration('namespace')
    use_sim_time = LaunchConfiguration('use_sim_time')
    frame_prefix = PythonExpression(["'", namespace, "/' if '", namespace, "' else ''"])
    ours = IfCondition(PythonExpression(["'", LaunchConfiguration('topic_profile'),
                                         "' == 'rally_sim'"]))
    f1tenth = PythonExpression(["'", LaunchConfiguration('topic_profile'), "' == 'f1tenth'"])
    return LaunchDescription([
        DeclareLaunchArgument('record', default_value='', description=RECORD_HELP),
        DeclareLaunchArgument('vehicle', default_value='volvo_v40',
                              description='vehicle preset name or vehicle file'),
        DeclareLaunchArgument('surface', default_value='tarmac_dry',
                              description='surface type or surface map YAML'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of this car (topics and frame prefix)'),
        DeclareLaunchArgument('rviz', default_value='true', description='start RViz'),
        *view_arguments(),
        DeclareLaunchArgument('publish_clock', default_value='true',
                              description='this simulator publishes /clock (one per system)'),
        DeclareLaunchArgument('use_sim_time', default_value='true',
                              description='other nodes follow the simulator /clock'),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'rally_sim.yaml'),
                              description='parameters of the simulator node'),
        DeclareLaunchArgument('publish_stage', default_value='true',
                              description='this simulator publishes the stage (one per stage)'),
        DeclareLaunchArgument('trail_colour', default_value='speed',
                              description='what colours the trail: speed, slip or one colour'),
        DeclareLaunchArgument('rviz_config',
                              default_value=os.path.join(share, 'rviz', 'rally_sim.rviz'),
                              description='the RViz configuration'),
        DeclareLaunchArgument('topic_profile', default_value='rally_sim',
                              choices=['rally_sim', 'f1tenth'],
                              description="topic names: rally_sim's, or f1tenth_gym_ros's (its "
                              'car, lidar and track; drive, scan, ego_racecar/odom, map)'),
        DeclareLaunchArgument('opponent', default_value='false',
                              description='topic_profile f1tenth: a second car, opp_racecar '
                              '(opp_drive, opp_scan, opp_racecar/odom)'),
        DeclareLaunchArgument('map', default_value='',
                              description='topic_profile f1tenth: your occupancy map (a '
                              "map_server YAML) over ground of one surface (surface:=); '': "
                              'the track'),
        DeclareLaunchArgument('sx', default_value='',
                              description="topic_profile f1tenth: the ego car's start "
                              "x [m]; '': the track's start, or 0"),
        DeclareLaunchArgument('sy', default_value='',
                              description="topic_profile f1tenth: the ego car's start "
                              "y [m]; '': the track's start, or 0"),
        DeclareLaunchArgument('stheta', default_value='',
                              description="topic_profile f1tenth: the ego car's start "
                              "yaw [rad]; '': the track's start, or 0"),
        DeclareLaunchArgument('sx1', default_value='',
                              description="topic_profile f1tenth: the opponent car's start "
                              "x [m]; '': the track's start, or 0"),
        DeclareLaunchArgument('sy1', default_value='',
                              description="topic_profile f1tenth: the opponent car's start "
                              "y [m]; '': the track's start, or 0"),
        DeclareLaunchArgument('stheta1', default_value='',
                              description="topic_profile f1tenth: the opponent car's start "
                              "yaw [rad]; '': the track's start, or 0"),
        DeclareLaunchArgument('contact', default_value='',
                              description='topic_profile f1tenth: a car that touches a wall or '
                              'the other car: stop (halts until /initialpose, as the '
                              'f1tenth_gym collision), bounce or off (drives through); empty: the '
                              "params_file's (stop)"),
        DeclareLaunchArgument('command_timeout_s', default_value='0.0',
                              description='topic_profile f1tenth: simulated seconds without a '
                              '/drive before the watchdog cuts drive and brakes; 0 (the '
                              "default): never, the last command holds, as f1tenth_gym_ros's"),
        DeclareLaunchArgument('scan_rate_hz', default_value='40.0',
                              description='topic_profile f1tenth: the rate of scans and '
                              "odometry [Hz] (40: the Hokuyo UST-10LX's)"),
        OpaqueFunction(function=f1tenth_simulator, condition=IfCondition(f1tenth)),
        # A simulator that cannot start (a bad parameter: exit 2, the reason on
        # screen) or dies ends the launch: nothing is left running without it.
        Node(package='rally_sim', executable='rally_sim_node', name='rally_sim',
             namespace=namespace, output='screen', on_exit=simulator_ended,
             condition=ours,
             parameters=[LaunchConfiguration('params_file'),
                         {'vehicle': vehicle, 'surface': surface,
                          'publish_clock': LaunchConfiguration('publish_clock'),
                          'publish_stage': LaunchConfiguration('publish_stage'),
                          'trail_colour': LaunchConfiguration('trail_colour')}]),
        # Publishes robot_description only: the simulator publishes the wheel
        # TF itself, so this node's joint_states input is remapped away.
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             namespace=namespace, condition=ours,
             parameters=[{'robot_description': robot_description,
                          'use_sim_time': use_sim_time,
                          'frame_prefix': frame_prefix}],
             remappings=[('joint_states', 'robot_state_publisher/unused_joint_states')]),
        Node(package='rviz2', executable='rviz2', namespace=namespace,
             # Fixed frame: this car's odom (its frames carry the namespace prefix).
             arguments=['-d', LaunchConfiguration('rviz_config'),
                        '-f', PythonExpression(["'map' if ", f1tenth, " else '", frame_prefix,
                                                "odom'"])],
             parameters=[{'use_sim_time': use_sim_time}],
             condition=IfCondition(LaunchConfiguration('rviz'))),
        view_server(namespace),
        recorder(),
    ])


def view_arguments():
    """Return the launch arguments of the view (a browser page: see docs/drive_and_watch.md)."""
    return [DeclareLaunchArgument('view', default_value='false',
                                  description='serve the live view in a browser, the page of '
                                  './rally watch: http://localhost:<view_port>/'),
            DeclareLaunchArgument('view_port', default_value='8765',
                                  description='TCP port of the view, with view:=true')]


def view_server(namespace=''):
    """Return the view server node (watching every car of the simulation), if view:=true."""
    return Node(package='rally_sim', executable='view_server', name='view_server',
                namespace=namespace, output='screen',
                parameters=[{'port': LaunchConfiguration('view_port')}],
                condition=IfCondition(LaunchConfiguration('view')))
