"""Test-wide set-up: keep DDS on loopback and ROS logs out of the home folder."""

import os
import random
import tempfile

import pytest

# Every ROS process of the tests (this one and the ones it starts, which
# inherit the environment) discovers peers on localhost only, on a domain of
# its own unless the caller chose one, and logs into a temporary folder.
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('ROS_DOMAIN_ID', str(random.randint(1, 100)))
os.environ.setdefault('ROS_LOG_DIR', tempfile.mkdtemp(prefix='rally_sim_ros_log_'))
# Fast acknowledgements (see support/fast_acks.xml), read when DDS starts.
os.environ['FASTDDS_DEFAULT_PROFILES_FILE'] = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'support', 'fast_acks.xml')


@pytest.fixture(autouse=True)
def no_process_outlives_its_test(tmp_path):
    """
    Kill what a test left running under its tag (str(tmp_path)), pass or fail.

    A node left behind by a failed test answers the next tests' calls in the
    suite's domain: one warm-started simulator made 53 later tests fail.
    """
    yield
    from support import ros_process
    ros_process.kill_tagged(str(tmp_path))
