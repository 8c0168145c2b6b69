"""`./rally watch --bag`: a recorded run replayed in a real browser, with play, pause and seek."""

import subprocess
import sys
import time

from rally_sim.ros.recording import BagRecorder, recorded_topics
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from support import ros_process
from support.browser import Browser, free_port, served


def record(client, folder, seconds: float) -> None:
    """Record the simulator's topics (on simulated time) while it drives `seconds`."""
    node = client.node.__class__('bag_test_recorder', context=client.context,
                                 parameter_overrides=[Parameter('use_sim_time', value=True)])
    executor = SingleThreadedExecutor(context=client.context)
    executor.add_node(node)
    bag = BagRecorder(node, folder, recorded_topics(['']))
    recorded = lambda: bag.topics['/ground_truth/odom']['count']     # noqa: E731
    while recorded() == 0:                          # until the recorder hears the simulator
        client.step(10)
        executor.spin_once(timeout_sec=0.1)
    for _ in range(round(seconds * 100)):           # one publishing instant at a time: each
        count = recorded()                          # logged at its own simulated time
        client.step(10)
        deadline = time.monotonic() + 30.0
        while recorded() == count and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.05)
        for _ in range(20):
            executor.spin_once(timeout_sec=0.0)
    bag.drain(lambda: executor.spin_once(timeout_sec=0.05))
    bag.close()
    node.destroy_node()


def test_a_bag_replays_in_the_page(simulator, tmp_path):
    client = simulator(vehicle='rwd_gravel', surface='skid_pad', pacing='lockstep',
                       initial_speed=8.0, command_timeout_s=0.0)
    folder = str(tmp_path / 'bag')
    record(client, folder, 3.0)
    port = free_port()
    watch = subprocess.Popen([sys.executable, '-m', 'rally_sim.cli.watch', '--bag', folder,
                              '--port', str(port)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             env=ros_process.tagged_environment(str(tmp_path)))
    browser = Browser(str(tmp_path))
    try:
        url = f'http://localhost:{port}/'
        served(url, lambda: watch.poll() is None, 60.0)
        browser.open(url)
        replay = browser.wait('rallyView.controls.replay')
        assert 2.9 < replay['duration'] < 3.3
        first = browser.wait('rallyView.state && rallyView.state.t')
        later = browser.wait(f'rallyView.state && rallyView.state.t > {first + 1.0} '
                             '&& rallyView.state.t')
        assert later > first + 1.0                                   # it plays
        assert browser.value('rallyView.cars.length') == 1
        assert browser.value('rallyView.world.ground !== null')      # the stage came too
        browser.wait('rallyView.controls.replay.playing === false')  # to the end
        browser.driver.execute_script(
            "rallyView.send({type: 'replay', action: 'seek', t: 0.5});")
        assert browser.wait('rallyView.state.t < 0.6 && rallyView.state.t')
        browser.driver.find_element('id', 'play').click()
        assert browser.wait('rallyView.controls.replay.playing')
        assert browser.errors() == []
    finally:
        browser.close()
        watch.send_signal(2)
        watch.wait(timeout=30)
