"""Build script of the rally_sim ament_python package."""

from glob import glob
import os

from setuptools import find_packages
from setuptools import setup

PACKAGE = 'rally_sim'


def share_tree(folder: str) -> list:
    """Install every file below `folder` into share/rally_sim/, keeping paths."""
    entries = {}
    for path in glob(os.path.join(folder, '**', '*'), recursive=True):
        if os.path.isfile(path):
            target = os.path.join('share', PACKAGE, os.path.dirname(path))
            entries.setdefault(target, []).append(path)
    return sorted(entries.items())


setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE]),
        ('share/' + PACKAGE, ['package.xml']),
    ] + share_tree('launch') + share_tree('config') + share_tree('urdf') + share_tree('rviz'),
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='rally_sim developers',
    maintainer_email='rally_sim@example.com',
    description='Four-wheel combined-slip vehicle-dynamics simulator for ROS 2.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'rally_sim_node = rally_sim.ros.node:main',
            'path_follower = rally_sim.ros.path_follower:main',
            'drift_controller = rally_sim.ros.drift_controller:main',
            'mppi_controller = rally_sim.ros.mppi_controller:main',
        ],
    },
)
