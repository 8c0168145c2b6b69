"""
Benchmark of showing the stage: the latched stage messages, and the trail's cost at real time.

    python -m rally_sim.bench.stage [--seconds S]

Prints, per shipped stage, the stage/surface and stage/path messages' sizes
and the time to build and serialize them (once, when the stage is loaded:
nothing per step); the trail's own cost (keeping a point, building the
marker) at real-time rates; then the simulator node's CPU at real time
(rally_stage, physics 1000 Hz, markers 20 Hz, a client subscribed to the
trail) with the trail and the stage published, without the trail, and
without the stage: the differences are what they cost (within the noise of
a few per cent that a 2-core machine's CPU readings have). The issue's targets are printed beside
them; nothing is asserted.
"""

import argparse
import math
import sys
import time

import rclpy
from rclpy.experimental import EventsExecutor
from rclpy.serialization import serialize_message
from visualization_msgs.msg import Marker

from .node import cpu_seconds, start_node, stop_node
from ..resources import config_file, surface_from
from ..ros.stage_topics import path_message, surface_markers
from ..world.stages import read_path, STAGES


REPEATS = 3
"""Node CPU runs per case, interleaved."""


def stage_messages() -> None:
    """Print each shipped stage's message sizes and build time."""
    print('stage topics (published once, latched: when the stage is loaded, not per step):')
    for stage in sorted(STAGES):
        surface = surface_from(stage)
        start = time.perf_counter()
        array = surface_markers(surface, 'odom')
        markers = serialize_message(array)
        path = serialize_message(path_message(read_path(config_file(
            f'stages/{stage}_path.csv')), surface, 'odom'))
        elapsed = time.perf_counter() - start
        triangles = sum(len(m.points) for m in array.markers) // 3
        print(f'  {stage:<12} stage/surface {len(markers) / 1e3:7.1f} kB ({triangles:,} '
              f'triangles), stage/path {len(path) / 1e3:6.1f} kB; built and serialized in '
              f'{elapsed * 1e3:.0f} ms')


def trail_alone() -> float:
    """Print and return the trail's own cost [% of a core]: kept at 100 Hz, built at 20 Hz."""
    from ..physics import load_vehicle, Vehicle
    from ..resources import vehicle_path
    from ..ros.conversions import Frames
    from ..ros.trail import Trail
    car = Vehicle(load_vehicle(vehicle_path('volvo_v40')), surface_from('rally_stage'))
    trail = Trail(car, Frames('', 'odom', 'base_link'), 30.0, 'speed')
    for k in range(400):                    # full: 30 s of points
        trail.sample(k * 100_000_000)
    start = time.perf_counter()
    for k in range(2000):
        trail.sample(k * 10_000_000)        # every publishing instant (100 Hz)
    sample_s = (time.perf_counter() - start) / 2000
    start = time.perf_counter()
    for k in range(500):
        trail.message(k)
    message_s = (time.perf_counter() - start) / 500
    share = 100.0 * (100 * sample_s + 20 * message_s)
    print(f'the trail alone: kept {sample_s * 1e6:.1f} us a publishing instant (100 Hz), '
          f'built {message_s * 1e6:.0f} us a marker instant (20 Hz, {trail.capacity} points): '
          f'{share:.2f} % of a core at real time (target <= 1 %)')
    return share


SUBSCRIBER = """
import rclpy, sys
from visualization_msgs.msg import Marker
rclpy.init()
node = rclpy.create_node('trail_reader')
node.create_subscription(Marker, 'bench_trail', lambda m: None, 10)
print('ready', flush=True)
rclpy.spin(node)
"""


def trail_published(count: int = 400) -> float:
    """
    Print and return the trail's cost with its publishing [% of a core at real time].

    The marker built and handed to DDS at 20 Hz, with a reader in another
    process (its reception is that process's cost): the CPU time of this
    process over `count` markers, against the same loop without the publish.
    """
    import subprocess
    from ..physics import load_vehicle, Vehicle
    from ..resources import vehicle_path
    from ..ros.conversions import Frames
    from ..ros.trail import Trail
    from ..runtime.processes import die_with_parent
    reader = subprocess.Popen([sys.executable, '-c', SUBSCRIBER], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, preexec_fn=die_with_parent)
    rclpy.init()
    node = rclpy.create_node('rally_sim_bench_trail')
    publisher = node.create_publisher(Marker, 'bench_trail', 10)
    try:
        reader.stdout.readline()
        deadline = time.monotonic() + 30.0
        while publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        car = Vehicle(load_vehicle(vehicle_path('volvo_v40')), surface_from('rally_stage'))
        trail = Trail(car, Frames('', 'odom', 'base_link'), 30.0, 'speed')
        for k in range(400):
            trail.sample(k * 100_000_000)
        costs = {}
        for publish in (False, True, False, True):       # interleaved: the best of two each
            start = time.process_time()
            for k in range(count):
                data = trail.message(k)
                if publish:
                    publisher.publish(data)
                time.sleep(0.002)           # a reader that keeps up, as at 20 Hz
            costs[publish] = min(costs.get(publish, math.inf),
                                 (time.process_time() - start) / count)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
        reader.terminate()
        reader.wait(timeout=10)
    share = 100.0 * 20 * costs[True]
    print(f'the trail built and published (a reader in another process): '
          f'{costs[True] * 1e6:.0f} us a marker ({(costs[True] - costs[False]) * 1e6:.0f} us '
          f'of it the publish): {share:.2f} % of a core at 20 Hz (target <= 1 %)')
    return share


def node_cpu(seconds: float, *params: str) -> float:
    """Return the node's CPU share [% of a core] at real time, a client subscribed to trail."""
    rclpy.init()
    node = rclpy.create_node('rally_sim_bench_stage')
    trails = []
    node.create_subscription(Marker, 'trail', trails.append, 10)
    process = start_node('command_timeout_s:=0.0', 'initial_speed:=10.0', 'surface:=rally_stage',
                         *params)
    executor = EventsExecutor()
    executor.add_node(node)
    try:
        trail_on = 'trail_length_s:=0.0' not in params
        warm, deadline = time.monotonic() + 3.0, time.monotonic() + 30.0
        while time.monotonic() < deadline and (time.monotonic() < warm
                                               or trail_on and not trails):
            executor.spin_once(timeout_sec=0.05)
        cpu0, wall0 = cpu_seconds(process.pid), time.monotonic()
        while time.monotonic() - wall0 < seconds:
            executor.spin_once(timeout_sec=0.05)
        return 100.0 * (cpu_seconds(process.pid) - cpu0) / (time.monotonic() - wall0)
    finally:
        stop_node(process)
        executor.remove_node(node)
        node.destroy_node()
        rclpy.try_shutdown()


def main(argv=None) -> int:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.bench.stage',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=10.0, help='real-time window per case')
    args = parser.parse_args(argv)
    stage_messages()
    trail_alone()
    trail_published()
    cases = {'trail and stage': (), 'no trail': ('trail_length_s:=0.0',),
             'no stage': ('publish_stage:=false',)}
    runs = {name: [] for name in cases}
    for _ in range(REPEATS):        # interleaved: a drift of the machine hits each alike
        for name, params in cases.items():
            runs[name].append(node_cpu(args.seconds, *params))
    cpu = {name: sum(values) / len(values) for name, values in runs.items()}
    print(f'node CPU at real time on rally_stage (markers 20 Hz, trail subscribed), mean of '
          f'{REPEATS} x {args.seconds:g} s each: '
          + '; '.join(f'{n} {v:.1f} %' for n, v in cpu.items()))
    pairs = [a - b for a, b in zip(runs['trail and stage'], runs['no trail'])]
    print(f"  the trail costs {cpu['trail and stage'] - cpu['no trail']:+.1f} % of a core "
          f"(target <= 1 %; run by run {', '.join(f'{d:+.1f}' for d in pairs)}: the node's "
          "CPU readings scatter by more than that; the figure above is the trail's own); "
          f"the stage {cpu['trail and stage'] - cpu['no stage']:+.1f} % "
          '(target: nothing per step; the difference is noise)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
