"""The simulator node in this process (real rclpy): what needs its insides to be seen."""

import time

from rally_sim.ros.simulator_node import SimulatorNode
import rclpy


def test_real_time_counts_from_the_first_tick_not_from_construction():
    context = rclpy.Context()
    rclpy.init(context=context)
    node = SimulatorNode(context=context)
    try:
        time.sleep(0.3)             # a slow start-up after construction
        node._tick()                # the first tick: nothing is due yet, nothing dropped
        assert node.sim_steps == 0 and node.counters['overrun_steps'] == 0
        time.sleep(0.06)
        node._tick()                # real time counts from the first tick (1 kHz physics)
        assert node.sim_steps >= 60
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)
