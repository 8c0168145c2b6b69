"""The simulator node in this process (real rclpy): what needs its insides to be seen."""

import time

from rally_sim.ros.simulator_node import SimulatorNode
import rclpy


def test_real_time_runs_in_its_own_thread_never_ahead_of_the_wall_clock():
    context = rclpy.Context()
    rclpy.init(context=context)
    built = time.monotonic()
    node = SimulatorNode(context=context)       # pacing starts with the node, not spinning
    try:
        time.sleep(0.5)
        with node._lock:
            simulated, wall = node.stamp_s(), time.monotonic() - built
        assert node.counters['overrun_steps'] == 0
        assert 0.0 < simulated <= wall + 0.01, (simulated, wall)   # never early
    finally:
        node.destroy_node()                     # stops the pacing thread first
        rclpy.shutdown(context=context)
    steps = node.sim_steps
    time.sleep(0.1)
    assert node.sim_steps == steps
