"""Two rally_sim cars side by side, in namespaces car1 and car2, with one RViz."""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource


def generate_launch_description():
    """Include rally_sim.launch.py once per car."""
    launch_file = os.path.join(get_package_share_directory('rally_sim'), 'launch',
                               'rally_sim.launch.py')

    def car(namespace: str, vehicle: str, first: bool) -> IncludeLaunchDescription:
        flag = 'true' if first else 'false'     # one RViz and one /clock
        return IncludeLaunchDescription(
            PythonLaunchDescriptionSource(launch_file),
            launch_arguments={'namespace': namespace, 'vehicle': vehicle, 'rviz': flag,
                              'publish_clock': flag, 'surface': 'gravel'}.items())

    return LaunchDescription([
        car('car1', 'rwd_gravel', True),
        car('car2', 'volvo_v40', False),
    ])
