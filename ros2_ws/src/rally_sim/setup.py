"""Build script of the rally_sim ament_python package."""

import atexit
from glob import glob
import os
import shutil
import sys
import tempfile

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


# The ROS-free core (physics, replay, batch, control, gym, the view's server and page) and
# what it needs, pinned
# as in requirements/venv.txt: `pip install ros2_ws/src/rally_sim` in a plain venv
# gives it without ROS. colcon does not install these (rosdep does, from package.xml).
CORE_REQUIRES = ['numpy==2.2.6', 'numba==0.68.1', 'PyYAML==6.0.3', 'gymnasium==1.4.0',
                 'matplotlib==3.11.2', 'pillow==13.0.0', 'transforms3d==0.4.2',
                 'aiohttp==3.14.5']
# The vehicle, stage and scenario files the core reads, as package data
# (rally_sim/data in a wheel; config/ in the source tree and the ament share folder).
DATA = {'rally_sim.data': ['vehicles/*.yaml', 'stages/*.yaml', 'stages/*.csv',
                           'stages/*.png', 'scenarios/*.yaml', 'sensors/*.yaml',
                           'campaigns/*.yaml', 'transitions/*.yaml', 'tyres/*.tir']}


def scratch_options() -> dict:
    """
    Put setuptools' build/ and egg-info in a temporary folder, not in the checkout.

    A pip install of this folder builds in place, and the leftovers made the next
    workspace build think the sources had changed. colcon's develop keeps its own
    (its egg-link points at the egg-info), and folders given on the command line win.
    """
    if 'develop' in sys.argv:
        return {}
    scratch = tempfile.mkdtemp(prefix='rally_sim-setup-')
    atexit.register(shutil.rmtree, scratch, True)
    return {'egg_info': {'egg_base': scratch},
            'build': {'build_base': os.path.join(scratch, 'build')}}


setup(
    name=PACKAGE,
    options=scratch_options(),
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']) + list(DATA),
    package_dir={'rally_sim.data': 'config'},
    package_data={**DATA, 'rally_sim.ros': ['*.xml'], 'rally_sim.view': ['page/*']},
    python_requires='>=3.10',
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE]),
        ('share/' + PACKAGE, ['package.xml']),
    ] + share_tree('launch') + share_tree('config') + share_tree('urdf') + share_tree('rviz'),
    install_requires=CORE_REQUIRES,
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
            'drift_lqr_controller = rally_sim.ros.drift_lqr_controller:main',
            'mppi_controller = rally_sim.ros.mppi_controller:main',
            'gap_follower = rally_sim.ros.gap_follower:main',
            'technique_driver = rally_sim.ros.technique_driver:main',
            'view_server = rally_sim.ros.view_server:main',
            'rally_sim_replay = rally_sim.replay:main',
            'rally_sim_campaign = rally_sim.campaign.__main__:main',
        ],
    },
)
