"""
Record ROS topics into a rosbag2 bag in MCAP storage, with full message definitions.

The bag is a folder holding `metadata.yaml` and `<name>_0.mcap`, the layout
`ros2 bag info/play` reads. Messages are stored exactly as they crossed DDS
(serialized CDR, taken raw from the subscription); each topic's schema holds
the complete `ros2msg` definition (the type and every type it uses), so other
tools can decode rally_sim's own message types without having them installed.
"""

import json
import os
import re
import time
from typing import Callable, Dict, List, Tuple

from ackermann_msgs.msg import AckermannDriveStamped
from ament_index_python.packages import get_package_share_directory
from geometry_msgs.msg import PolygonStamped
from mcap.writer import CompressionType, Writer
from nav_msgs.msg import OccupancyGrid, Odometry, Path
from rally_sim_msgs.msg import (
    Collision, DriverCommand, DrivetrainState, WheelSlip, WheelTorqueCommand)
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState, LaserScan, NavSatFix
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray
import yaml

RECORDED_TOPICS = {
    'odom': Odometry, '/tf': TFMessage, '/tf_static': TFMessage, 'wheel_slip': WheelSlip,
    'joint_states': JointState, 'imu': Imu, 'markers': MarkerArray, '/clock': Clock,
    'ackermann_cmd': AckermannDriveStamped, 'wheel_torque_cmd': WheelTorqueCommand,
    'driver_cmd': DriverCommand, 'drivetrain_state': DrivetrainState,
    'ground_truth/odom': Odometry, 'wheel_encoders': JointState, 'steering_angle': JointState,
    'gnss/fix': NavSatFix, 'stage/surface': MarkerArray, 'stage/path': Path, 'trail': Marker,
    'scan': LaserScan, 'map': OccupancyGrid, 'collision': Collision,
    'footprint': PolygonStamped, 'drive_assists': String,
}
"""What a run's bag holds: every topic the simulator, our controllers and the view publish."""

NODE_TOPICS = {'/tf', '/tf_static', '/clock', 'stage/surface', 'stage/path', 'map', 'collision'}
"""The simulator's own topics; the others are each car's (under its name, one of several)."""


def recorded_topics(cars) -> Dict[str, type]:
    """Return the topics a bag of these cars holds (names; [''] for a lone car)."""
    return {(topic if topic in NODE_TOPICS or not car else f'{car}/{topic}'): kind
            for car in cars for topic, kind in RECORDED_TOPICS.items()}


PRIMITIVES = {'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16',
              'uint16', 'int32', 'uint32', 'int64', 'uint64', 'string', 'wstring'}
SEPARATOR = '=' * 80
LATCHED_TOPICS = {'/tf_static', 'stage/surface', 'stage/path', 'map', 'footprint',
                  'drive_assists'}
"""Topics published once, transient local (relative names: in the recorder's namespace)."""
QUEUE_DEPTH = 10000
"""Messages held per topic until the recorder's node spins: a busy recorder loses none."""
QUIET_S = 0.5


def type_name(msg_class) -> str:
    """Return 'pkg/msg/Type' of a generated message class."""
    module = msg_class.__module__.split('.')
    return f'{module[0]}/msg/{msg_class.__name__}'


def _msg_file(package: str, name: str) -> str:
    return os.path.join(get_package_share_directory(package), 'msg', name + '.msg')


def _dependencies(package: str, text: str) -> List[Tuple[str, str]]:
    """Return the (package, type) of every non-primitive field of a .msg text."""
    found = []
    for raw in text.splitlines():
        tokens = raw.split('#', 1)[0].split()
        if len(tokens) < 2:
            continue
        base = re.sub(r'\[.*\]$', '', tokens[0]).split('<=')[0]   # arrays, bounded strings
        if base in PRIMITIVES:
            continue
        dep_package, _, dep_name = base.rpartition('/')
        found.append((dep_package.split('/')[0] if dep_package else package, dep_name))
    return found


def full_definition(name: str) -> str:
    """Return the ros2msg schema text of 'pkg/msg/Type': its .msg and all it uses."""
    package, _, short = name.split('/')
    with open(_msg_file(package, short), encoding='utf-8') as stream:
        main = stream.read()
    parts, seen, pending = [main.rstrip('\n')], set(), _dependencies(package, main)
    while pending:
        dep_package, dep_name = pending.pop(0)
        if (dep_package, dep_name) in seen:
            continue
        seen.add((dep_package, dep_name))
        with open(_msg_file(dep_package, dep_name), encoding='utf-8') as stream:
            text = stream.read()
        parts.append(f'{SEPARATOR}\nMSG: {dep_package}/{dep_name}\n{text.rstrip()}')
        pending.extend(_dependencies(dep_package, text))
    return '\n'.join(parts) + '\n'


def type_hash(name: str) -> str:
    """Return the RIHS01 hash of 'pkg/msg/Type' from its installed type description."""
    package, _, short = name.split('/')
    path = os.path.join(get_package_share_directory(package), 'msg', short + '.json')
    with open(path, encoding='utf-8') as stream:
        hashes = json.load(stream)['type_hashes']
    return next(h['hash_string'] for h in hashes if h['type_name'] == name)


class BagRecorder:
    """Subscribe to topics on `node` and write what arrives into a rosbag2 MCAP bag."""

    def __init__(self, node: Node, folder: str, topics: Dict[str, type],
                 custom_data: Dict[str, str] = None):
        """
        Create the bag folder (it must not exist) and start recording `topics`.

        custom_data (text keys and values: the seed, the sensor profile) goes
        into metadata.yaml's custom_data and an MCAP metadata record
        `rally_sim`.
        A topic enters the bag with its first message (as with ros2 bag
        record, which records the topics it discovers): one nobody
        publishes leaves no empty channel.
        """
        os.makedirs(folder)
        self.node = node
        self.folder = folder
        self.file_name = os.path.basename(os.path.normpath(folder)) + '_0.mcap'
        self._stream = open(os.path.join(folder, self.file_name), 'wb')
        self._writer = Writer(self._stream, compression=CompressionType.ZSTD)
        self._writer.start(profile='ros2', library='rally_sim')
        self.custom_data = dict(custom_data or {})
        if self.custom_data:
            self._writer.add_metadata('rally_sim', self.custom_data)
        self.topics = {}
        for topic, msg_class in topics.items():
            latched = topic in LATCHED_TOPICS or node.resolve_topic_name(topic) in \
                LATCHED_TOPICS or topic.split('/', 1)[-1] in LATCHED_TOPICS  # car1/footprint
            self.add_topic(topic, msg_class, latched)
        self.first_ns = None
        self.last_ns = None
        self._arrivals = 0

    def add_topic(self, topic: str, msg_class, latched: bool = False) -> str:
        """Record `topic` from now on (latched: transient local, as it is published); its name."""
        resolved = self.node.resolve_topic_name(topic)
        self.topics[resolved] = {'type': type_name(msg_class), 'channel': None, 'count': 0,
                                 'latched': latched}
        qos = QoSProfile(depth=QUEUE_DEPTH)
        if latched:
            qos.durability = DurabilityPolicy.TRANSIENT_LOCAL
        self.node.create_subscription(msg_class, topic,
                                      lambda data, key=resolved: self._write(key, data),
                                      qos, raw=True)
        return resolved

    def _write(self, topic: str, data: bytes) -> None:
        now = self.node.get_clock().now().nanoseconds
        entry = self.topics[topic]
        if entry['channel'] is None:
            schema = self._writer.register_schema(
                name=entry['type'], encoding='ros2msg',
                data=full_definition(entry['type']).encode())
            entry['channel'] = self._writer.register_channel(
                topic=topic, message_encoding='cdr', schema_id=schema,
                metadata={'durability': 'transient_local'} if entry['latched'] else {})
        self._writer.add_message(channel_id=entry['channel'], log_time=now, data=data,
                                 publish_time=now, sequence=entry['count'])
        entry['count'] += 1
        self._arrivals += 1
        self.first_ns = now if self.first_ns is None else min(self.first_ns, now)
        self.last_ns = now if self.last_ns is None else max(self.last_ns, now)

    def drain(self, spin_once: Callable[[], None], quiet_s: float = QUIET_S,
              limit_s: float = 30.0) -> None:
        """
        Take every message still queued or in flight; call once the publishers stopped.

        Spins (spin_once) until nothing has arrived for quiet_s wall seconds,
        or limit_s passed.
        """
        deadline = time.monotonic() + limit_s
        last, quiet_since = self._arrivals, time.monotonic()
        while time.monotonic() < deadline:
            spin_once()
            if self._arrivals != last:
                last, quiet_since = self._arrivals, time.monotonic()
            elif time.monotonic() - quiet_since >= quiet_s:
                return

    def close(self) -> Dict[str, int]:
        """Finish the MCAP file, write metadata.yaml; return message counts by topic recorded."""
        self._writer.finish()
        recorded = {topic: entry for topic, entry in self.topics.items() if entry['count']}
        self._stream.close()
        start = self.first_ns or 0
        duration = (self.last_ns or 0) - start
        total = sum(entry['count'] for entry in self.topics.values())
        metadata = {'rosbag2_bagfile_information': {
            'version': 9,
            'storage_identifier': 'mcap',
            'duration': {'nanoseconds': duration},
            'starting_time': {'nanoseconds_since_epoch': start},
            'message_count': total,
            'topics_with_message_count': [
                {'topic_metadata': {'name': topic, 'type': entry['type'],
                                    'serialization_format': 'cdr',
                                    'offered_qos_profiles': [],
                                    'type_description_hash': type_hash(entry['type'])},
                 'message_count': entry['count']}
                for topic, entry in recorded.items()],
            'compression_format': '',
            'compression_mode': '',
            'relative_file_paths': [self.file_name],
            'files': [{'path': self.file_name,
                       'starting_time': {'nanoseconds_since_epoch': start},
                       'duration': {'nanoseconds': duration},
                       'message_count': total}],
            'custom_data': self.custom_data,
            'ros_distro': 'kilted',
        }}
        with open(os.path.join(self.folder, 'metadata.yaml'), 'w', encoding='utf-8') as out:
            yaml.safe_dump(metadata, out, sort_keys=False)
        return {topic: entry['count'] for topic, entry in recorded.items()}
