"""
Two rally_sim cars in one simulator, each in a namespace of its own, with one RViz.

The simulator steps both cars together (so contact between them is exact
and deterministic), each car's topics and frames under its name (the
simulator's `cars` parameter), both in one odom frame on one stage. RViz
(`rviz:=false` for a headless run) shows both: car2's trail in magenta
(rviz/two_cars.rviz). The arguments are listed in the README, which a test
compares with the DeclareLaunchArgument calls below.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from rally_sim.ros.launch_exit import simulator_ended
from rally_sim.ros.launch_record import RECORD_HELP, recorder


def nodes(context):
    """Return the simulator of both cars, each car's description, and RViz."""
    share = get_package_share_directory('rally_sim')
    with open(os.path.join(share, 'urdf', 'rally_sim.urdf'), encoding='utf-8') as urdf:
        description = urdf.read()
    config = context.launch_configurations
    cars = [config['car1_namespace'], config['car2_namespace']]
    use_sim_time = LaunchConfiguration('use_sim_time')
    simulator = Node(
        package='rally_sim', executable='rally_sim_node', name='rally_sim', output='screen',
        on_exit=simulator_ended,
        parameters=[LaunchConfiguration('params_file'), {
            'cars': cars, 'surface': LaunchConfiguration('surface'),
            f'{cars[0]}.vehicle': LaunchConfiguration('car1_vehicle'),
            f'{cars[1]}.vehicle': LaunchConfiguration('car2_vehicle')}])
    describers = [Node(package='robot_state_publisher', executable='robot_state_publisher',
                       namespace=car, parameters=[{'robot_description': description,
                                                   'use_sim_time': use_sim_time,
                                                   'frame_prefix': f'{car}/'}],
                       remappings=[('joint_states',
                                    'robot_state_publisher/unused_joint_states')])
                  for car in cars]
    rviz = Node(package='rviz2', executable='rviz2',
                arguments=['-d', os.path.join(share, 'rviz', 'two_cars.rviz'), '-f', 'odom'],
                parameters=[{'use_sim_time': use_sim_time}],
                condition=IfCondition(LaunchConfiguration('rviz')))
    view = Node(package='rally_sim', executable='view_server', name='view_server',
                output='screen', parameters=[{'port': LaunchConfiguration('view_port')}],
                condition=IfCondition(LaunchConfiguration('view')))
    return [simulator, *describers, rviz, view, recorder()]


def generate_launch_description():
    """Return the launch description: the arguments, then the nodes."""
    share = get_package_share_directory('rally_sim')
    return LaunchDescription([
        DeclareLaunchArgument('rviz', default_value='true', description='start RViz'),
        DeclareLaunchArgument('record', default_value='', description=RECORD_HELP),
        DeclareLaunchArgument('view', default_value='false',
                              description='serve the live view in a browser, the page of '
                              './rally watch: http://localhost:<view_port>/'),
        DeclareLaunchArgument('view_port', default_value='8765',
                              description='TCP port of the view, with view:=true'),
        DeclareLaunchArgument('use_sim_time', default_value='true',
                              description="other nodes follow the simulator's /clock"),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'rally_sim.yaml'),
                              description='parameters of the simulator node'),
        DeclareLaunchArgument('surface', default_value='gravel',
                              description='surface type or surface map YAML of both cars'),
        DeclareLaunchArgument('car1_namespace', default_value='car1',
                              description='name of car1: its namespace and frame prefix'),
        DeclareLaunchArgument('car1_vehicle', default_value='rwd_gravel',
                              description='vehicle preset name or vehicle file of car1'),
        DeclareLaunchArgument('car2_namespace', default_value='car2',
                              description='name of car2: its namespace and frame prefix'),
        DeclareLaunchArgument('car2_vehicle', default_value='volvo_v40',
                              description='vehicle preset name or vehicle file of car2'),
        OpaqueFunction(function=nodes),
    ])
