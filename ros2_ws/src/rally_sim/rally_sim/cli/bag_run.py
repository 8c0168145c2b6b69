"""
`./rally bag`: record, describe and play rosbag2 bags (MCAP), as `ros2 bag` does.

    ./rally bag record (-a | TOPIC ...) -o DIR [--use-sim-time] [--duration S]
    ./rally bag info DIR
    ./rally bag play DIR [--rate R] [--clock [HZ]] [--delay S] [--topics T ...]

record: whatever runs on this ROS domain (a launch, your nodes, a
scenario): every topic it discovers (-a; hidden ones left out, as ros2 bag
does) or the ones named, each from its first message, until Ctrl-C or
--duration; messages as they crossed DDS, each topic with its full message
definition, latched topics subscribed transient local. The bag is what
`ros2 bag`, rosbags and the MCAP tools read. info: its files, size,
duration, start and end, and each topic's type and count, from its
metadata.yaml (or the MCAP file's summary). play: its messages on their
topics at their recorded pace (--rate scales it), latched topics latched,
and /clock at HZ (default 40) with --clock (in place of the bag's own),
for nodes with use_sim_time: the bag's times then are the clock's, so record
with --use-sim-time what a simulator's /clock drives.
"""

import argparse
import importlib
import os
import sys
import time
from typing import Dict

from ..runtime.entry import Stopped, StopRequest

DISCOVERY_S = 0.5
"""How often `record` looks for new topics."""
CLOCK_HZ = 40.0
"""ros2 bag play's /clock rate with a bare --clock."""


def parse_args(argv) -> argparse.Namespace:
    """Parse and check the command line."""
    parser = argparse.ArgumentParser(prog='./rally bag', description=__doc__.split('\n\n')[0])
    verbs = parser.add_subparsers(dest='verb', required=True, metavar='{record,info,play}')
    record = verbs.add_parser('record', help='record topics into a bag (a new folder)')
    record.add_argument('topics', nargs='*', metavar='TOPIC', help='topics to record')
    record.add_argument('-a', '--all', action='store_true',
                        help='every topic discovered (hidden ones left out)')
    record.add_argument('-o', '--output', required=True, metavar='DIR',
                        help='the bag folder to create (must not exist)')
    record.add_argument('--use-sim-time', action='store_true',
                        help="stamp each message with /clock's time when it arrived (default: "
                             'the wall clock, as ros2 bag record)')
    record.add_argument('--duration', type=float, default=0.0, metavar='S',
                        help='stop after S seconds of wall time (default: at Ctrl-C)')
    info = verbs.add_parser('info', help="a bag's files, duration, topics and counts")
    info.add_argument('bag', metavar='DIR')
    play = verbs.add_parser('play', help="publish a bag's messages at their recorded pace")
    play.add_argument('bag', metavar='DIR')
    play.add_argument('-r', '--rate', type=float, default=1.0, help='pace factor (default 1)')
    play.add_argument('--clock', type=float, nargs='?', const=CLOCK_HZ, default=0.0,
                      metavar='HZ', help=f'publish /clock at HZ (default {CLOCK_HZ:g})')
    play.add_argument('-d', '--delay', type=float, default=0.0, metavar='S',
                      help='wait S seconds of wall time before the first message')
    play.add_argument('--topics', nargs='+', default=None, metavar='TOPIC',
                      help='only these topics')
    args = parser.parse_args(argv)
    if args.verb == 'record':
        if bool(args.all) == bool(args.topics):
            parser.error('record: give either -a or the topics to record')
        if os.path.exists(args.output):
            parser.error(f'record: -o {args.output} exists: a bag goes into a new folder')
        if not args.duration >= 0.0:
            parser.error(f'record: --duration {args.duration}: must be 0 or more seconds')
    elif not os.path.isdir(args.bag):
        parser.error(f'{args.verb}: {args.bag}: no such folder (a rosbag2 bag is a folder)')
    if args.verb == 'play':
        if not 0.0 < args.rate < 1e6:
            parser.error(f'play: --rate {args.rate}: must be above 0')
        if not 0.0 <= args.clock <= 10000.0:
            parser.error(f'play: --clock {args.clock}: must be 0 to 10000 Hz')
        if not args.delay >= 0.0:
            parser.error(f'play: --delay {args.delay}: must be 0 or more seconds')
    return args


def message_class(type_name: str):
    """Return the message class of 'pkg/msg/Type' (None when it is not installed)."""
    package, _, name = type_name.partition('/msg/')
    try:
        return getattr(importlib.import_module(f'{package}.msg'), name)
    except (ImportError, AttributeError):
        return None


def main(argv=None, stop: StopRequest = None) -> int:
    """Run one verb; return the exit status."""
    stop = stop or StopRequest(tool=True)
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.verb != 'record':
        from .bag_info import describe, mcap_files
        try:
            if args.verb == 'info':
                print(describe(args.bag), end='')
                return 0
            mcap_files(args.bag)
        except (OSError, ValueError) as error:
            print(f'./rally bag {args.verb}: error: {args.bag}: {error}', file=sys.stderr)
            return 2
    import rclpy
    from rclpy.signals import SignalHandlerOptions
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)    # Ctrl-C is ours (stop)
    stop.hold()
    try:
        return record(args, stop) if args.verb == 'record' else play(args, stop)
    finally:
        rclpy.try_shutdown()


def wanted(args, node, discovered: str) -> bool:
    """Return whether `record` takes this discovered topic."""
    if args.all:
        return not any(part.startswith('_') for part in discovered.split('/'))
    return discovered in {node.resolve_topic_name(t) for t in args.topics}


def record(args, stop: StopRequest) -> int:
    """Record until Ctrl-C or --duration; print what was recorded."""
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy
    from ..ros.recording import BagRecorder
    node = Node('rally_bag_recorder', parameter_overrides=[
        Parameter('use_sim_time', value=bool(args.use_sim_time))])
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    recorder = BagRecorder(node, args.output, {})
    skipped = set()
    print(f'recording into {args.output} ({"every topic" if args.all else " ".join(args.topics)})'
          f'; Ctrl-C stops', flush=True)
    end = time.monotonic() + args.duration if args.duration else float('inf')
    looked = -float('inf')
    try:
        while not stop.requested and time.monotonic() < end:
            if time.monotonic() - looked >= DISCOVERY_S:
                looked = time.monotonic()
                discover(args, node, recorder, skipped, DurabilityPolicy.TRANSIENT_LOCAL)
            executor.spin_once(timeout_sec=0.05)
        # A last look: a latched topic found now still brings its message.
        discover(args, node, recorder, skipped, DurabilityPolicy.TRANSIENT_LOCAL)
        recorder.drain(lambda: executor.spin_once(timeout_sec=0.05), limit_s=5.0)
    finally:
        counts = recorder.close()
        node.destroy_node()
    for topic, count in sorted(counts.items()):
        print(f'  {topic}: {count} messages')
    print(f'wrote {args.output} ({sum(counts.values())} messages, {len(counts)} topics)')
    return 0                            # Ctrl-C is how a recording ends, as with ros2 bag


def discover(args, node, recorder, skipped: set, transient_local) -> None:
    """Subscribe to the topics that appeared since the last look (and are wanted)."""
    from ..ros.recording import full_definition, type_hash
    for topic, types in node.get_topic_names_and_types():
        if topic in recorder.topics or topic in skipped or not wanted(args, node, topic):
            continue
        kind = message_class(types[0]) if types else None
        try:
            full_definition(types[0])
            type_hash(types[0])
        except (OSError, StopIteration, KeyError, ValueError):
            kind = None
        if kind is None:
            skipped.add(topic)
            print(f'  {topic}: not recorded: its type {types} is not installed here',
                  file=sys.stderr)
            continue
        latched = any(info.qos_profile.durability == transient_local
                      for info in node.get_publishers_info_by_topic(topic))
        recorder.add_topic(topic, kind, latched)
        print(f'  recording {topic} ({types[0]}{", latched" if latched else ""})', flush=True)


def play(args, stop: StopRequest) -> int:
    """Publish the bag's messages at their pace, /clock beside them; return 0 at the end."""
    from mcap.reader import make_reader
    from rclpy.node import Node
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from rosgraph_msgs.msg import Clock
    from ..ros.conversions import stamp
    from .bag_info import mcap_files
    node = Node('rally_bag_player')
    publishers: Dict[str, object] = {}
    clock = node.create_publisher(Clock, '/clock', 10) if args.clock else None
    files = mcap_files(args.bag)
    time.sleep(args.delay)
    started = None
    next_clock = 0.0
    count = 0
    for path in files:
        with open(path, 'rb') as stream:
            reader = make_reader(stream)
            for schema, channel, message in reader.iter_messages(log_time_order=True):
                if args.topics and channel.topic not in args.topics or \
                        clock is not None and channel.topic == '/clock':   # ours replaces it
                    continue
                if stop.requested:
                    raise Stopped(stop.number)
                if started is None:
                    started = (time.monotonic(), message.log_time)
                publisher = publishers.get(channel.topic)
                if publisher is None:
                    kind = message_class(schema.name)
                    if kind is None:
                        print(f'  {channel.topic}: not played: its type {schema.name} is not '
                              'installed here', file=sys.stderr)
                        publishers[channel.topic] = False
                        continue
                    qos = QoSProfile(depth=100)
                    if channel.metadata.get('durability') == 'transient_local' or \
                            channel.topic == '/tf_static':
                        qos.durability = DurabilityPolicy.TRANSIENT_LOCAL
                    publisher = publishers[channel.topic] = node.create_publisher(
                        kind, channel.topic, qos)
                if publisher is False:
                    continue
                due = started[0] + (message.log_time - started[1]) * 1e-9 / args.rate
                next_clock = wait_until(due, clock, started, args, next_clock, stamp, stop)
                publisher.publish(message.data)
                count += 1
    print(f'played {count} messages of {args.bag}')
    node.destroy_node()
    return 0


def wait_until(due: float, clock, started, args, next_clock: float, stamp, stop) -> float:
    """Sleep until `due` (monotonic), publishing /clock on its beat meanwhile."""
    from rosgraph_msgs.msg import Clock
    while True:
        now = time.monotonic()
        if clock is not None and now >= next_clock:
            bag_ns = started[1] + round((now - started[0]) * args.rate * 1e9)
            clock.publish(Clock(clock=stamp(bag_ns)))
            next_clock = now + 1.0 / args.clock
        if now >= due or stop.requested:
            return next_clock
        time.sleep(max(0.0, min(due, next_clock if clock is not None else due) - now))
