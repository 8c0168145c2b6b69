"""
Driving from the page in a real browser: keys and a gamepad become the simulator's commands.

The simulator runs in lockstep, stepped by the test, so every check waits on
an event (a command heard, a state drawn), never on the machine's speed.
The commands heard are those a scripted run of the same inputs gives
(drive/person.py fed the same states): the person drives the car a
controller drives, through the same intake.
"""

import collections
import math

import numpy as np
import pytest
from rally_sim.control.path import ClosedPath
from rally_sim.drive import CarFacts, Inputs, Person
from rally_sim.drive.person import DrivenState
from rally_sim.drive.steering import stick
from rally_sim.physics import load_vehicle
from rally_sim.resources import config_file, vehicle_path
from rally_sim.ros.view.driving import KEEPALIVE_S, PERIOD_S
from rally_sim.world.stages import read_path
from rclpy.parameter_client import AsyncParameterClient
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

    def start(view_params=None, **params):
        client = simulator(vehicle=VEHICLE, pacing='lockstep', command_mode='driver',
                           command_timeout_s=0.0, **params)
        heard = Heard(client.node)
        client.step(10)
        view, url = start_view(str(tmp_path), mode='drive', vehicle=VEHICLE,
                               **(view_params or {}))
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


def whole(heard) -> tuple:
    """
    Return the stamps between which both command topics were heard whole; drop the rest.

    Each topic is matched on its own; before the inputs both parts of the commands go out
    together (their keepalives), so from the later first stamp both are whole; up to the
    earlier last one (what the view answered later may still be on its way).
    """
    start = max(stamp_ns(heard.steer[0]), stamp_ns(heard.pedals[0]))
    end = min(stamp_ns(heard.steer[-1]), stamp_ns(heard.pedals[-1]))
    heard.steer[:] = [m for m in heard.steer if start <= stamp_ns(m) <= end]
    heard.pedals[:] = [m for m in heard.pedals if start <= stamp_ns(m) <= end]
    return start, end


def replayed(heard, inputs) -> tuple:
    """
    Return the steering and pedal commands a Person gives for the states heard and the inputs.

    As the view sends them: a state's steering and its pedals each when they changed and
    PERIOD_S has passed since they were last sent, or KEEPALIVE_S after; an input's both,
    always (the inputs answered at a state: the steering messages of its stamp beyond the
    state's own). While both topics were heard whole.
    """
    person = Person(CarFacts.of(load_vehicle(vehicle_path(VEHICLE))))
    pending = list(inputs)
    start, end = whole(heard)
    at = collections.Counter(stamp_ns(m) for m in heard.steer)
    stamps = sorted(s for s in heard.odom if start <= s <= end)
    steers, pedals, sent, t_before = [], [], {}, None

    def due(part, value, t, always):
        since = t - sent[part][0] if part in sent else math.inf
        if always or since >= KEEPALIVE_S - 1e-9 or (
                value != sent[part][1] and since >= PERIOD_S - 1e-9):
            sent[part] = (t, value)
            return True
        return False
    for stamp in stamps:
        v = heard.odom[stamp].twist.twist
        state = DrivenState(v.linear.x, v.linear.y, v.angular.z, (0.0,) * 4)
        t = stamp * 1e-9
        c = person.command(state, 0.0 if t_before is None else t - t_before)
        t_before = t
        steered = due('steer', c.steer_rad, t, False)
        if steered:
            steers.append(c.steer_rad)
        if due('pedals', c.pedals, t, False):
            pedals.append(c.pedals)
        for _ in range(at[stamp] - steered):
            person.take(pending.pop(0))
            c = person.command(state, 0.0)
            due('steer', c.steer_rad, t, True)
            due('pedals', c.pedals, t, True)
            steers.append(c.steer_rad)
            pedals.append(c.pedals)
    assert pending == [], 'every input was answered (the last while both were heard)'
    return steers, pedals


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
    last = max(stamp_ns(m) for m in heard.steer + heard.pedals)
    assert client.spin_until(lambda: max(heard.odom) >= last, 30.0)    # a command can come
    steers, pedals = replayed(heard, [inputs for _, _, inputs in script])  # before its state
    assert [m.drive.steering_angle for m in heard.steer] == [np.float32(s) for s in steers]
    assert [(m.throttle, m.brake, m.handbrake, m.gear) for m in heard.pedals] == [
        (p.throttle, p.brake, p.handbrake, p.gear) for p in pedals]
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


def test_an_earlier_best_lap_is_raced_as_a_ghost(drive, tmp_path):
    t = np.linspace(0.0, 20.0, 201)
    line = np.column_stack([t, 54.0 + 2.0 * t, 0.5 * t, np.full_like(t, 0.1)])
    np.savetxt(tmp_path / 'best_lap.csv', line, delimiter=',', header='t,x,y,yaw', comments='')
    ghost_file = tmp_path / 'best_lap.csv'
    client, heard, browser, url = drive(view_params={'ghost_file': ghost_file},
                                        surface='rally_stage')
    browser.open(url)
    shown(client, browser)
    ghost = browser.wait('rallyView.world.ghost')
    assert ghost['car'] == '' and len(ghost['line']) == 201
    assert ghost['line'][100] == pytest.approx([10.0, 74.0, 5.0, 0.1])
    lap = browser.wait('rallyView.state.cars[0].lap_s', every=lambda: client.step(50))
    assert 0.0 < lap < 20.0                             # the ghost is on its line: drawn
    browser.wait('rallyView.stats.frames > 0')
    assert browser.errors() == []


def test_r_puts_the_car_back_on_the_path_and_p_pauses_the_simulator(drive):
    client, heard, browser, url = drive(surface='rally_stage', initial_x=60.0, initial_y=-4.0,
                                        initial_yaw=2.5)
    browser.open(url)
    shown(client, browser)
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    before = heard.last_odom().pose.pose.position
    assert abs(path.locate(before.x, before.y).cross_track_m) > 3.0      # off the line
    browser.key('r', True)
    browser.key('r', False)

    def on_the_line() -> bool:
        client.step(10)
        p = heard.last_odom().pose.pose.position
        return abs(path.locate(p.x, p.y).cross_track_m) < 1e-6
    assert client.spin_until(on_the_line, 30.0)
    p = heard.last_odom().pose
    q = p.pose.orientation
    assert 2.0 * math.atan2(q.z, q.w) == pytest.approx(path.locate(p.pose.position.x,
                                                                   p.pose.position.y).heading_rad)
    parameters = AsyncParameterClient(client.node, 'rally_sim')
    for wanted in (True, False):
        browser.key('p', True)
        browser.key('p', False)

        def paused() -> bool:
            future = parameters.get_parameters(['sync_paused'])
            client.spin_until(future.done, 10.0)
            return future.result().values[0].bool_value == wanted
        assert client.spin_until(paused, 30.0)
        assert browser.wait(f'rallyView.state.paused === {str(wanted).lower()}',
                            every=lambda: client.step(10))
    assert browser.errors() == []
