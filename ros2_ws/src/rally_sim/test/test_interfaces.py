"""
The foundation: our interfaces cross real DDS between two processes.

A separate process publishes AckermannDriveStamped, TFMessage,
WheelTorqueCommand and WheelSlip; this process receives each and checks that
every value arrived intact, and that the stand-ins for the apt-only packages
announce the official type hashes, so they interoperate with real ROS 2 nodes.
"""

import json
import os

from ament_index_python.packages import get_package_share_directory
import pytest
import rclpy

from support import ros_process
from support.interface_samples import SAMPLES, TOPICS

HERE = os.path.dirname(os.path.abspath(__file__))

# RIHS01 hashes of the official packages (ROS 2 Jazzy/Kilted), as real nodes
# announce them.
OFFICIAL_HASHES = {
    'ackermann_msgs/msg/AckermannDrive':
        'RIHS01_acf287a224a947dd1b0b87d6d76cdb73f497b0237b8fc73be2173b2ebbb82c99',
    'ackermann_msgs/msg/AckermannDriveStamped':
        'RIHS01_48ca7612a08d3bb72744fd98b71b7cf2ea24c6ad50fa4e1aa0bbad963c90d8cf',
    'tf2_msgs/msg/TFMessage':
        'RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087',
}


@pytest.fixture(scope='module')
def node():
    """Give a node in this process, and shut rclpy down afterwards."""
    context = rclpy.Context()
    rclpy.init(context=context)
    test_node = rclpy.create_node('interface_checker', context=context)
    yield test_node
    test_node.destroy_node()
    rclpy.shutdown(context=context)


@pytest.fixture(scope='module')
def publisher_process():
    """Start the sample publisher in its own process; stop it cleanly after."""
    process = ros_process.start_python(
        os.path.join(HERE, 'support', 'interface_publisher.py'))
    yield process
    ros_process.stop(process)


def test_messages_arrive_intact_from_another_process(node, publisher_process):
    received = {}
    for topic, msg_type in TOPICS.items():
        node.create_subscription(
            msg_type, topic, lambda msg, topic=topic: received.setdefault(topic, msg), 10)

    assert ros_process.spin_until(
        node, lambda: len(received) == len(TOPICS), processes=[publisher_process]), \
        f'received only {sorted(received)} within 15 s'

    for topic in TOPICS:
        assert received[topic] == SAMPLES[topic](), topic
    # A few values spelled out, so a broken __eq__ could not hide a loss.
    assert received['ackermann_cmd'].drive.speed == -3.75
    assert list(received['wheel_torque_cmd'].drive_torque) == [0.0, 0.0, 150.0, -150.5]
    assert received['wheel_torque_cmd'].handbrake == 0.5
    assert list(received['wheel_slip'].wheel_names) == ['fl', 'fr', 'rl', 'rr']
    assert received['wheel_slip'].normal_load[2] == 3800.5
    assert [t.child_frame_id for t in received['tf_sample'].transforms] == \
        ['base_link', 'wheel_fl']


def test_standins_announce_official_type_hashes(node, publisher_process):
    topics = {'ackermann_msgs/msg/AckermannDriveStamped': 'ackermann_cmd',
              'tf2_msgs/msg/TFMessage': 'tf_sample'}

    def announced(topic):
        infos = node.get_publishers_info_by_topic(topic)
        return str(infos[0].topic_type_hash) if infos else None

    assert ros_process.spin_until(
        node, lambda: all(announced(t) for t in topics.values()),
        processes=[publisher_process])
    for type_name, topic in topics.items():
        assert announced(topic) == OFFICIAL_HASHES[type_name], type_name


@pytest.mark.parametrize('type_name', sorted(OFFICIAL_HASHES))
def test_standin_type_descriptions_carry_official_hashes(type_name):
    package, _, name = type_name.split('/')
    path = os.path.join(get_package_share_directory(package), 'msg', name + '.json')
    with open(path, encoding='utf-8') as description:
        hashes = {h['type_name']: h['hash_string']
                  for h in json.load(description)['type_hashes']}
    assert hashes[type_name] == OFFICIAL_HASHES[type_name]
