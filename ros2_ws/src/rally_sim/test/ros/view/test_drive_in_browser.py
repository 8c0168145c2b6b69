"""
Driving from the page in a real browser: keys and a gamepad become the simulator's commands.

The simulator runs in lockstep, stepped by the test, so every check waits on
an event (a command heard, a state drawn), never on the machine's speed.
The commands heard are those a scripted run of the same inputs gives
(drive/person.py fed the same states): the person drives the car a
controller drives, through the same intake.
"""

import math

import numpy as np
import pytest
from rally_sim.drive import CarFacts, Inputs, Person
from rally_sim.drive.person import DrivenState
from rally_sim.drive.steering import stick
from rally_sim.physics import load_vehicle
from rally_sim.resources import vehicle_path
from selenium.webdriver.common.keys import Keys
from support import ros_process
from support.browser import Browser
from viewing import Heard, stamp_ns, start_view

VEHICLE = 'rwd_gravel'
PAD = ('window.__pad = {connected: true, axes: [0, 0, 0, 0], buttons: Array.from({length: 17}, '
       '() => ({pressed: false, value: 0}))}; navigator.getGamepads = () => [window.__pad];')


@pytest.fixture
def drive(simulator, tmp_path):
    """Start a lockstep simulator, the view in drive mode and a browser on its page."""
    running = []

    def start(**params):
        client = simulator(vehicle=VEHICLE, pacing='lockstep', command_mode='driver',
                           command_timeout_s=0.0, **params)
        heard = Heard(client.node)
        client.step(10)
        view, url = start_view(str(tmp_path), mode='drive', vehicle=VEHICLE)
        browser = Browser(str(tmp_path))
        running.append((view, browser))
        return client, heard, browser, url
    yield start
    for view, browser in running:
        browser.close()
        print(ros_process.stop(view))


def advance(client, heard, steps: int) -> None:
    """Step the simulator, then wait until the view has answered its newest state."""
    for _ in range(steps // 20):
        client.step(20)
        assert client.spin_until(heard.answered, 30.0)


def shown(client, browser) -> None:
    """Step until the page drives and shows the car (its wheels come with the states)."""
    browser.wait("rallyView.role === 'drive' && rallyView.cars.length === 1 && rallyView.state",
                 every=lambda: client.step(10))


def replayed(heard, inputs) -> list:
    """Return the commands a Person gives for the states heard and the inputs in their order."""
    person = Person(CarFacts.of(load_vehicle(vehicle_path(VEHICLE))))
    pending, commands, last_t = list(inputs), [], None
    previous = None
    for steer in heard.steer:
        stamp = stamp_ns(steer)
        odom = heard.odom[stamp]
        v = odom.twist.twist
        state = DrivenState(v.linear.x, v.linear.y, v.angular.z, (0.0,) * 4)
        if stamp == previous:                               # an input's answer
            person.take(pending.pop(0))
            commands.append(person.command(state, 0.0))
        else:
            dt = 0.0 if last_t is None else (stamp - last_t) * 1e-9
            commands.append(person.command(state, dt))
            last_t = previous = stamp
    assert pending == [], 'every input was answered'
    return commands


def test_keys_drive_the_car_and_its_commands_are_a_scripted_run_s(drive):
    client, heard, browser, url = drive(surface='gravel')
    browser.open(url)
    shown(client, browser)
    advance(client, heard, 20)
    start = heard.last_odom().pose.pose.position
    script = [(Keys.ARROW_UP, True, Inputs('keyboard', 0.0, 1.0)),
              ('a', True, Inputs('keyboard', 1.0, 1.0)),
              ('a', False, Inputs('keyboard', 0.0, 1.0)),
              ('d', True, Inputs('keyboard', -1.0, 1.0)),
              (Keys.SPACE, True, Inputs('keyboard', -1.0, 1.0, 0.0, 1.0)),
              (Keys.SPACE, False, Inputs('keyboard', -1.0, 1.0)),
              ('d', False, Inputs('keyboard', 0.0, 1.0)),
              (Keys.ARROW_UP, False, Inputs('keyboard')),
              ('s', True, Inputs('keyboard', 0.0, 0.0, 1.0))]
    for key, down, _ in script:
        count = len(heard.steer)
        browser.key(key, down)
        assert client.spin_until(lambda: len(heard.steer) > count and heard.answered(), 30.0)
        advance(client, heard, 400)
    end = heard.last_odom()
    assert end.pose.pose.position.x - start.x > 2.0               # it drove off ...
    assert heard.steer[-1].drive.steering_angle == pytest.approx(0.0, abs=1e-6)
    turned = [m.drive.steering_angle for m in heard.steer]
    assert max(turned) > 0.5 and min(turned) < -0.5               # ... steered both ways
    assert any(p.handbrake == 1.0 for p in heard.pedals)
    expected = replayed(heard, [inputs for _, _, inputs in script])
    for steer, pedals, command in zip(heard.steer, heard.pedals, expected):
        assert steer.drive.steering_angle == np.float32(command.steer_rad)
        p = command.pedals
        assert (pedals.throttle, pedals.brake, pedals.handbrake, pedals.gear) == (
            p.throttle, p.brake, p.handbrake, p.gear)
    assert browser.errors() == []


def test_a_gamepad_drives_directly(drive):
    client, heard, browser, url = drive(surface='gravel')
    browser.open(url, before_load=PAD)
    shown(client, browser)
    advance(client, heard, 20)
    browser.driver.execute_script('window.__pad.axes[0] = -0.6; '
                                  'window.__pad.buttons[7] = {pressed: true, value: 0.8};')
    lock = load_vehicle(vehicle_path(VEHICLE))['steering.max_angle_rad']
    wanted = np.float32(stick(0.6, 0.08, 1.5) * lock)
    assert client.spin_until(lambda: heard.pedals and heard.pedals[-1].throttle == 0.8
                             and heard.steer[-1].drive.steering_angle == wanted, 30.0)
    yaw = 2.0 * math.atan2(heard.last_odom().pose.pose.orientation.z,
                           heard.last_odom().pose.pose.orientation.w)
    advance(client, heard, 1500)
    q = heard.last_odom().pose.pose.orientation
    assert 2.0 * math.atan2(q.z, q.w) - yaw > 0.2                  # turned left
    browser.driver.execute_script('window.__pad.buttons[5] = {pressed: true, value: 1};')
    assert browser.wait("rallyView.hud.drive && rallyView.hud.drive.gear === '2'")
    assert client.spin_until(lambda: heard.pedals[-1].gear == 2, 30.0)
    assert browser.errors() == []
