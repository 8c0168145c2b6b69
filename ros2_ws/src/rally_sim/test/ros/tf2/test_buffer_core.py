"""
The tf2_ros stand-in's buffer, equation by equation.

Composition along the tree, interpolation between samples, time zero, the
cache window, and tf2's errors.
"""

import math

from geometry_msgs.msg import TransformStamped
import numpy as np
import pytest
from rclpy.duration import Duration
from rclpy.time import Time
import tf2_ros
from transforms3d.euler import euler2quat, quat2euler


def sample(parent: str, child: str, seconds: float, x=0.0, y=0.0, z=0.0, yaw=0.0,
           roll=0.0) -> TransformStamped:
    """Return a TransformStamped of child in parent at `seconds`."""
    t = TransformStamped()
    t.header.frame_id, t.child_frame_id = parent, child
    t.header.stamp = Time(nanoseconds=round(seconds * 1e9)).to_msg()
    t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = x, y, z
    w, qx, qy, qz = euler2quat(roll, 0.0, yaw)
    r = t.transform.rotation
    r.w, r.x, r.y, r.z = w, qx, qy, qz
    return t


def pose(t: TransformStamped):
    """Return (x, y, z, roll, pitch, yaw) of a looked-up transform."""
    v, r = t.transform.translation, t.transform.rotation
    return (v.x, v.y, v.z) + quat2euler((r.w, r.x, r.y, r.z))


def at(seconds: float) -> Time:
    return Time(nanoseconds=round(seconds * 1e9))


@pytest.fixture
def tree():
    """Return a tree: base_link moving in odom (1 s, 2 s), a static laser on it, odom in map."""
    core = tf2_ros.BufferCore()
    core.set_transform(sample('odom', 'base_link', 1.0, x=1.0, yaw=0.0), 'test')
    core.set_transform(sample('odom', 'base_link', 2.0, x=3.0, y=2.0, yaw=math.pi / 2), 'test')
    core.set_transform_static(sample('base_link', 'laser', 0.0, x=0.5, z=0.2), 'test')
    core.set_transform_static(sample('map', 'odom', 0.0, x=10.0, yaw=math.pi), 'test')
    return core


def test_a_sample_at_its_own_time_is_returned_as_it_was_sent(tree):
    got = tree.lookup_transform_core('odom', 'base_link', at(2.0))
    assert pose(got) == pytest.approx((3.0, 2.0, 0.0, 0.0, 0.0, math.pi / 2), abs=1e-12)
    assert (got.header.frame_id, got.child_frame_id) == ('odom', 'base_link')
    assert (got.header.stamp.sec, got.header.stamp.nanosec) == (2, 0)


def test_between_samples_translation_is_linear_and_rotation_a_slerp(tree):
    got = pose(tree.lookup_transform_core('odom', 'base_link', at(1.25)))
    assert got[:3] == pytest.approx((1.5, 0.5, 0.0), abs=1e-12)
    assert got[5] == pytest.approx(0.25 * math.pi / 2, abs=1e-12)    # constant turn rate


def test_a_chain_composes_parent_by_child(tree):
    """Compose the laser into map as map<-odom * odom<-base * base<-laser, at 2 s."""
    x, y, z, _, _, yaw = pose(tree.lookup_transform_core('map', 'laser', at(2.0)))
    base_in_odom = np.array([3.0, 2.0]) + 0.5 * np.array([math.cos(math.pi / 2),
                                                          math.sin(math.pi / 2)])
    in_map = np.array([10.0, 0.0]) + np.array([[-1.0, 0.0], [0.0, -1.0]]) @ base_in_odom
    assert (x, y, z) == pytest.approx((in_map[0], in_map[1], 0.2), abs=1e-12)
    assert math.cos(yaw) == pytest.approx(math.cos(math.pi + math.pi / 2), abs=1e-12)
    assert math.sin(yaw) == pytest.approx(math.sin(math.pi + math.pi / 2), abs=1e-12)


def test_the_inverse_lookup_is_the_inverse_transform(tree):
    forward = tree.lookup_transform_core('map', 'laser', at(1.5))
    back = tree.lookup_transform_core('laser', 'map', at(1.5))
    f, b = pose(forward), pose(back)
    # Rotating back's translation by forward's rotation gives minus forward's translation.
    r = forward.transform.rotation
    from transforms3d.quaternions import rotate_vector
    moved = rotate_vector(b[:3], (r.w, r.x, r.y, r.z))
    assert moved == pytest.approx([-f[0], -f[1], -f[2]], abs=1e-12)


def test_time_zero_is_the_latest_common_time_and_stamps_the_result(tree):
    got = tree.lookup_transform_core('map', 'laser', Time())
    assert (got.header.stamp.sec, got.header.stamp.nanosec) == (2, 0)
    assert tree.get_latest_common_time('odom', 'base_link') == at(2.0)
    static_only = tree.lookup_transform_core('odom', 'map', Time())      # only static frames
    assert (static_only.header.stamp.sec, static_only.header.stamp.nanosec) == (0, 0)


def test_a_builtin_interfaces_time_is_taken_as_an_rclpy_time(tree):
    assert pose(tree.lookup_transform_core('odom', 'base_link', at(1.25).to_msg())) == \
        pose(tree.lookup_transform_core('odom', 'base_link', at(1.25)))


def test_extrapolation_into_the_future_and_the_past_is_refused_with_tf2_s_words(tree):
    with pytest.raises(tf2_ros.ExtrapolationException,
                       match=r'extrapolation into the future.  Requested time 2\.500000 but '
                             r'the latest data is at time 2\.000000'):
        tree.lookup_transform_core('odom', 'base_link', at(2.5))
    with pytest.raises(tf2_ros.ExtrapolationException, match='into the past'):
        tree.lookup_transform_core('map', 'laser', at(0.5))
    ok, why = tree.can_transform_core('odom', 'base_link', at(2.5))
    assert not ok and 'future' in why


def test_unknown_empty_slashed_and_unconnected_frames_raise_tf2_s_exceptions(tree):
    with pytest.raises(tf2_ros.LookupException, match='"nowhere" passed to lookupTransform '
                                                      'argument source_frame does not exist'):
        tree.lookup_transform_core('odom', 'nowhere', Time())
    with pytest.raises(tf2_ros.InvalidArgumentException, match='cannot be empty'):
        tree.lookup_transform_core('', 'odom', Time())
    with pytest.raises(tf2_ros.InvalidArgumentException, match="cannot start with a '/'"):
        tree.lookup_transform_core('/odom', 'base_link', Time())
    tree.set_transform_static(sample('elsewhere', 'island', 0.0), 'test')
    with pytest.raises(tf2_ros.ConnectivityException, match='not part of the same tree'):
        tree.lookup_transform_core('odom', 'island', Time())
    for error in (tf2_ros.LookupException, tf2_ros.ConnectivityException,
                  tf2_ros.ExtrapolationException, tf2_ros.InvalidArgumentException,
                  tf2_ros.TimeoutException):
        assert issubclass(error, tf2_ros.TransformException)


@pytest.mark.parametrize('field, value', [('x', math.nan), ('qw', 2.0), ('child', ''),
                                          ('child', 'odom')])
def test_a_bad_transform_is_refused_and_loses_nothing(tree, field, value):
    before = pose(tree.lookup_transform_core('odom', 'base_link', at(2.0)))
    bad = sample('odom', 'base_link', 2.0, x=5.0)
    if field == 'x':
        bad.transform.translation.x = value
    elif field == 'qw':
        bad.transform.rotation.w = value
    else:
        bad.child_frame_id = value
    assert tree.set_transform(bad, 'test') is False
    assert pose(tree.lookup_transform_core('odom', 'base_link', at(2.0))) == before


def test_samples_older_than_the_cache_time_are_dropped():
    core = tf2_ros.BufferCore(Duration(seconds=1.0))
    for k in range(31):
        core.set_transform(sample('odom', 'base_link', 0.1 * k, x=float(k)), 'test')
    assert pose(core.lookup_transform_core('odom', 'base_link', at(2.0)))[0] == \
        pytest.approx(20.0)
    with pytest.raises(tf2_ros.ExtrapolationException, match='into the past'):
        core.lookup_transform_core('odom', 'base_link', at(1.9))


def test_the_full_form_holds_the_fixed_frame_still_between_two_times(tree):
    """Where the base was at 1 s, seen from the base at 2 s, through odom held fixed."""
    got = pose(tree.lookup_transform_full_core('base_link', at(2.0), 'base_link', at(1.0),
                                               'odom'))
    # At 1 s the base is at (1, 0) facing +x; at 2 s at (3, 2) facing +y. The offset
    # (-2, -2) turned by -90 deg into the later base's axes is (-2, 2).
    assert got[:2] == pytest.approx((-2.0, 2.0), abs=1e-12)
    assert got[5] == pytest.approx(-math.pi / 2, abs=1e-12)


def test_the_frames_are_listed_as_tf2_lists_them(tree):
    text = tree.all_frames_as_string()
    assert 'Frame base_link exists with parent odom.' in text
    assert 'Frame laser exists with parent base_link.' in text
    assert "parent: 'odom'" in tree.all_frames_as_yaml()
