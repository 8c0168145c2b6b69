"""
The stage in RViz and the car's trail, from the real simulator node over DDS.

The stage topics are latched: a subscriber that comes after they were
published still gets them. Their content is checked against the stage
files: the surface type under seeded sample points, the relief's heights,
the path's points. The trail keeps its last 30 s and is cleared by a reset.
"""

import shutil

from nav_msgs.msg import Path
import numpy as np
import pytest
from rally_sim.physics.surfaces import Surface
from rally_sim.resources import config_file
from rally_sim.ros.stage_topics import LATCHED, PATH_ABOVE_GROUND_M
from rally_sim.ros.trail import PERIOD_S
from rally_sim.world.stage_view import colour_of
from rally_sim.world.stages import read_path
from std_srvs.srv import Trigger
from support import ros_process
from visualization_msgs.msg import Marker, MarkerArray


def late_stage(client, wait_path=True):
    """Subscribe now (after the node published) and return the stage messages received."""
    got = {}
    client.node.create_subscription(MarkerArray, 'stage/surface',
                                    lambda m: got.setdefault('surface', m), LATCHED)
    client.node.create_subscription(Path, 'stage/path', lambda m: got.setdefault('path', m),
                                    LATCHED)
    assert client.spin_until(lambda: 'surface' in got and ('path' in got or not wait_path),
                             60.0), f'latched stage not received: {list(got)}'
    return got


def type_under(surface, x, y):
    """Return the surface type of the map cell under odom (x, y)."""
    g = surface.grid
    col = int(np.floor((x - g.origin_x_m) / g.resolution_m))
    row = g.grip.shape[0] - 1 - int(np.floor((y - g.origin_y_m) / g.resolution_m))
    return surface.type_names[surface.types[row, col]]


@pytest.mark.parametrize('stage', ['rally_stage', 'hill_stage'])
def test_a_late_subscriber_gets_the_stage_as_its_files_have_it(simulator, stage):
    client = simulator(pacing='lockstep', surface=stage)
    client.step(10)         # the node is up and has published
    got = late_stage(client)
    surface = Surface.load(config_file(f'stages/{stage}.yaml'))
    markers = [m for m in got['surface'].markers if m.action == Marker.ADD]
    assert got['surface'].markers[0].action == Marker.DELETEALL
    assert sorted(m.text for m in markers) == sorted(surface.type_names)
    rng = np.random.default_rng(26)
    for marker in markers:
        assert marker.header.frame_id == 'odom' and marker.type == Marker.TRIANGLE_LIST
        assert (marker.color.r, marker.color.g, marker.color.b) == pytest.approx(
            colour_of(marker.text), abs=1e-6)
        corners = np.array([(p.x, p.y, p.z) for p in marker.points]).reshape(-1, 3, 3)
        for index in rng.choice(len(corners), size=min(60, len(corners)), replace=False):
            x, y, _ = corners[index].mean(axis=0)         # inside the triangle: its type
            assert type_under(surface, x, y) == marker.text
            # the relief: each corner stands on the height map (flat: at 0)
            heights = surface.height_at(corners[index, :, 0], corners[index, :, 1])
            assert corners[index, :, 2] == pytest.approx(heights, abs=1e-9)
    if stage == 'hill_stage':
        assert max(p.z for m in markers for p in m.points) > 3.0       # the hills show
    assert len(got['surface'].markers) < 10     # few, large primitives
    points = read_path(config_file(f'stages/{stage}_path.csv'))
    poses = got['path'].poses
    assert got['path'].header.frame_id == 'odom'
    assert np.array([(p.pose.position.x, p.pose.position.y) for p in poses]).tolist() == \
        points.tolist()
    assert [p.pose.position.z for p in poses] == pytest.approx(
        surface.height_at(points[:, 0], points[:, 1]) + PATH_ABOVE_GROUND_M)


def test_a_stage_without_a_path_publishes_none_and_says_so(simulator, tmp_path):
    for name in ('skid_pad.yaml', 'skid_pad.png'):
        shutil.copy(config_file(f'stages/{name}'), tmp_path / name)
    client = simulator(pacing='lockstep', surface=str(tmp_path / 'skid_pad.yaml'))
    client.step(10)
    got = late_stage(client, wait_path=False)
    client.spin_until(lambda: 'path' in got, 1.0)
    assert 'path' not in got and len(got['surface'].markers) == 3
    client.close()
    client.close = lambda: None
    from support import ros_process
    output = ros_process.stop(client.process)
    assert output.count('stage/path: none published') == 1, output


def test_the_trail_keeps_the_last_30_s_and_a_reset_clears_it(simulator):
    client = simulator(pacing='lockstep', initial_speed=8.0, command_timeout_s=0.0,
                       marker_rate_hz=10.0, publish_rate_hz=10.0)
    trails = []
    client.node.create_subscription(Marker, 'trail', trails.append, 100)
    assert client.spin_until(lambda: client.node.count_publishers('trail') > 0)
    client.step(40_000)         # 40 s coasting: more than the trail keeps
    assert client.spin_until(lambda: trails and trails[-1].header.stamp.sec == 40, 60.0)
    points = np.array([(p.x, p.y) for p in trails[-1].points])
    capacity = round(30.0 / PERIOD_S) + 1
    assert len(points) == capacity              # bounded: room for 30 s, no more
    steps = np.hypot(*np.diff(points, axis=0).T)
    assert np.all(steps > 0.0)                  # every point a distinct sample: 30 s of them
    assert steps.sum() == pytest.approx(30.0 * np.median(steps) / PERIOD_S, rel=0.2)
    reset = client.node.create_client(Trigger, 'reset')
    before = len(trails)
    assert client.call(reset, Trigger.Request(), again_s=2.0).success   # the state again
    assert client.spin_until(lambda: len(trails) > before, 60.0)
    after = np.array([(p.x, p.y) for p in trails[-1].points])
    assert np.all(after == after[0])            # cleared: one point, nothing drawn


def test_a_stage_starts_the_car_on_its_path_unless_a_pose_is_given(simulator):
    from nav_msgs.msg import Odometry
    from rally_sim.world.stages import start_pose
    path = read_path(config_file('stages/track_path.csv'))
    x, y, yaw = start_pose(path)
    for params, where in (({}, (x, y)), ({'initial_y': 2.0}, (0.0, 2.0))):
        client = simulator(pacing='lockstep', surface='track', vehicle='f1tenth',
                           publish_stage=False, **params)
        odom = []
        client.node.create_subscription(Odometry, 'odom', odom.append, 10)
        assert client.spin_until(lambda: client.node.count_publishers('odom') > 0, 60.0)
        client.step(0)
        assert client.spin_until(lambda: odom, 30.0)
        p, q = odom[-1].pose.pose.position, odom[-1].pose.pose.orientation
        assert (p.x, p.y) == pytest.approx(where, abs=1e-9)
        heading = 2.0 * np.arctan2(q.z, q.w)
        assert heading == pytest.approx(yaw if not params else 0.0, abs=1e-6)
        said = ros_process.stop(client.process)     # the next one alone on odom
        assert ("start: the stage's, at x = 16.50" in said) == (not params), said
