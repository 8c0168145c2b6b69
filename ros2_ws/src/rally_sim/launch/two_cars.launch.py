"""
Two rally_sim cars side by side, each in a namespace of its own, with one RViz.

Takes the one-car launch's arguments, per car where they differ: car1 owns
/clock (exactly one simulator publishes it) and the stage (both cars are
on one stage), and RViz (`rviz:=false` for a headless run) shows car1, and
car2's trail in magenta (rviz/two_cars.rviz: car2 in namespace car2).
The arguments are listed in the README, which a test compares with the
DeclareLaunchArgument calls below.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration


def generate_launch_description():
    """Return the launch description: the arguments, then rally_sim.launch.py per car."""
    share = get_package_share_directory('rally_sim')
    launch_file = os.path.join(share, 'launch', 'rally_sim.launch.py')

    def car(name: str, first: bool) -> GroupAction:
        # Scoped: one car's arguments do not leak into the other car's include.
        return GroupAction(scoped=True, actions=[IncludeLaunchDescription(
            PythonLaunchDescriptionSource(launch_file),
            launch_arguments={
                'namespace': LaunchConfiguration(f'{name}_namespace'),
                'vehicle': LaunchConfiguration(f'{name}_vehicle'),
                'surface': LaunchConfiguration(f'{name}_surface'),
                'rviz': LaunchConfiguration('rviz') if first else 'false',
                'publish_clock': 'true' if first else 'false',
                'publish_stage': 'true' if first else 'false',
                'trail_colour': 'speed' if first else 'magenta',
                'rviz_config': os.path.join(share, 'rviz', 'two_cars.rviz'),
                'use_sim_time': LaunchConfiguration('use_sim_time'),
                'params_file': LaunchConfiguration('params_file')}.items())])

    return LaunchDescription([
        DeclareLaunchArgument('rviz', default_value='true', description="start RViz (car1's)"),
        DeclareLaunchArgument('use_sim_time', default_value='true',
                              description="other nodes follow car1's /clock"),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'rally_sim.yaml'),
                              description='parameters of both simulator nodes'),
        DeclareLaunchArgument('car1_namespace', default_value='car1',
                              description='namespace of car1 (topics and frame prefix)'),
        DeclareLaunchArgument('car1_vehicle', default_value='rwd_gravel',
                              description='vehicle preset name or vehicle file of car1'),
        DeclareLaunchArgument('car1_surface', default_value='gravel',
                              description='surface type or surface map YAML of car1'),
        DeclareLaunchArgument('car2_namespace', default_value='car2',
                              description='namespace of car2 (topics and frame prefix)'),
        DeclareLaunchArgument('car2_vehicle', default_value='volvo_v40',
                              description='vehicle preset name or vehicle file of car2'),
        DeclareLaunchArgument('car2_surface', default_value='gravel',
                              description='surface type or surface map YAML of car2'),
        car('car1', first=True),
        car('car2', first=False),
    ])
