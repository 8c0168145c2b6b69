"""Fixtures of the node tests: the simulator in its own process, a client node here."""

import pytest
from rally_sim_msgs.srv import Step
import rclpy
from support import ros_process


class Client:
    """A node in the test process that talks to the simulator over DDS."""

    count = 0

    def __init__(self, process, name=None):
        """Create the node (named `name`, else numbered) and the simulator's service clients."""
        self.process = process
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        Client.count += 1
        self.node = rclpy.create_node(name or f'sim_test_client_{Client.count}',
                                      context=self.context)
        self.step_client = self.node.create_client(Step, 'step')

    def spin_until(self, done, timeout_s=30.0):
        """Spin until done() or the timeout; fail early if the simulator exits."""
        return ros_process.spin_until(self.node, done, timeout_s, processes=[self.process])

    def call(self, client, request, timeout_s=30.0):
        """Call a service and return its response."""
        assert client.wait_for_service(timeout_sec=15.0), 'service not available'
        future = client.call_async(request)
        assert self.spin_until(future.done, timeout_s), 'no response'
        return future.result()

    def step(self, steps):
        """Advance the simulator by `steps` physics steps (lockstep)."""
        return self.call(self.step_client, Step.Request(steps=steps))

    def publish_acked(self, publisher, msg):
        """Publish once the simulator subscribes, and wait until it has the message."""
        assert self.spin_until(lambda: publisher.get_subscription_count() > 0)
        publisher.publish(msg)
        assert publisher.wait_for_all_acked(rclpy.duration.Duration(seconds=10.0))

    def close(self):
        """Destroy the node and shut its context down."""
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


@pytest.fixture
def simulator():
    """Start the simulator with parameters (and ROS arguments); yield a Client; stop both."""
    started = []

    def start(client_name=None, extra_args=(), **params):
        args = ['--ros-args', *extra_args]
        for name, value in params.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            args += ['-p', f'{name}:={text}']
        process = ros_process.start_module('rally_sim.ros.node', *args)
        client = Client(process, client_name)
        started.append((process, client))
        return client

    yield start
    for process, client in started:
        client.close()
        client.output = ros_process.stop(process)
