"""Launch the rally_sim simulator, the car's description and, optionally, RViz."""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, Shutdown
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PythonExpression
from launch_ros.actions import Node


def generate_launch_description():
    """Return the launch description (arguments: see DeclareLaunchArgument below)."""
    share = get_package_share_directory('rally_sim')
    with open(os.path.join(share, 'urdf', 'rally_sim.urdf'), encoding='utf-8') as urdf:
        robot_description = urdf.read()
    vehicle = LaunchConfiguration('vehicle')
    surface = LaunchConfiguration('surface')
    namespace = LaunchConfiguration('namespace')
    use_sim_time = LaunchConfiguration('use_sim_time')
    frame_prefix = PythonExpression(["'", namespace, "/' if '", namespace, "' else ''"])
    return LaunchDescription([
        DeclareLaunchArgument('vehicle', default_value='volvo_v40',
                              description='vehicle preset name or vehicle file'),
        DeclareLaunchArgument('surface', default_value='tarmac_dry',
                              description='surface type or surface map YAML'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of this car (topics and frame prefix)'),
        DeclareLaunchArgument('rviz', default_value='true', description='start RViz'),
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
        # A simulator that cannot start (a bad parameter: exit 2, the reason on
        # screen) or dies ends the launch: nothing is left running without it.
        Node(package='rally_sim', executable='rally_sim_node', name='rally_sim',
             namespace=namespace, output='screen', on_exit=Shutdown(reason='rally_sim ended'),
             parameters=[LaunchConfiguration('params_file'),
                         {'vehicle': vehicle, 'surface': surface,
                          'publish_clock': LaunchConfiguration('publish_clock'),
                          'publish_stage': LaunchConfiguration('publish_stage'),
                          'trail_colour': LaunchConfiguration('trail_colour')}]),
        # Publishes robot_description only: the simulator publishes the wheel
        # TF itself, so this node's joint_states input is remapped away.
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             namespace=namespace,
             parameters=[{'robot_description': robot_description,
                          'use_sim_time': use_sim_time,
                          'frame_prefix': frame_prefix}],
             remappings=[('joint_states', 'robot_state_publisher/unused_joint_states')]),
        Node(package='rviz2', executable='rviz2', namespace=namespace,
             # Fixed frame: this car's odom (its frames carry the namespace prefix).
             arguments=['-d', LaunchConfiguration('rviz_config'),
                        '-f', [frame_prefix, 'odom']],
             parameters=[{'use_sim_time': use_sim_time}],
             condition=IfCondition(LaunchConfiguration('rviz'))),
    ])
