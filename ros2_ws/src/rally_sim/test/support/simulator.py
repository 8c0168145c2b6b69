"""The simulator in its own process and a client node here: the `simulator` fixture."""

import time

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
        self.step_answered = False

    def spin_until(self, done, timeout_s=30.0):
        """Spin until done() or the timeout; fail early if the simulator exits."""
        return ros_process.spin_until(self.node, done, timeout_s, processes=[self.process])

    def call(self, client, request, timeout_s=30.0, again_s=None):
        """
        Call a service and return its response.

        again_s: send an idempotent request again every again_s seconds while
        it is unanswered. A service drops its answer ("failed to send response
        (timeout)") while it has not yet matched this client's response reader,
        though the client already matched its request reader (ROS 2 services
        are two topics, discovered each way on its own): seen under load on
        a first call, 1 in 5 runs.
        """
        assert client.wait_for_service(timeout_sec=15.0), 'service not available'
        deadline = time.monotonic() + timeout_s
        while True:
            future = client.call_async(request)
            wait_s = min(again_s or timeout_s, max(0.0, deadline - time.monotonic()))
            if self.spin_until(future.done, wait_s):
                return future.result()
            client.remove_pending_request(future)
            assert again_s and time.monotonic() < deadline, 'no response'

    def step(self, steps):
        """Advance the simulator by `steps` physics steps (lockstep)."""
        if not self.step_answered:      # a first step(0), sent again until answered
            self.call(self.step_client, Step.Request(steps=0), again_s=2.0)
            self.step_answered = True
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
        print(f'--- the simulator said ---\n{client.output}')     # shown when a test fails
