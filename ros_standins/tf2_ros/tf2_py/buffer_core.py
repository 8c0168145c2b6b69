"""
A transform tree over time, as tf2's BufferCore keeps it, in plain Python.

Each frame holds its parent and its stamped samples (or one static sample);
a lookup walks both frames up to their common ancestor and composes the
samples there, interpolated at the requested time (translation linearly,
rotation by slerp). Time zero asks for the latest time every frame on the
way has data for. Errors raise the tf2 exceptions with tf2's wording.
"""

import bisect
import math
from typing import Dict, List, Optional, Tuple

from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import TransformStamped
import numpy as np
from transforms3d import quaternions

DEFAULT_CACHE_TIME_NS = 10 * 10 ** 9
"""How long samples are kept behind the newest one of their frame (tf2's default, 10 s)."""


class TransformException(Exception):
    """Base of every tf2 error."""


class LookupException(TransformException):
    """A frame that the buffer has never heard of."""


class ConnectivityException(TransformException):
    """Two frames in trees that do not join."""


class ExtrapolationException(TransformException):
    """A time outside the samples a frame holds."""


class InvalidArgumentException(TransformException):
    """An empty frame name, or one that starts with '/'."""


class TimeoutException(TransformException):
    """A wait that ran out (the action-based buffer client raises it)."""


def nanoseconds(time) -> int:
    """Return a time (rclpy Time, builtin_interfaces Time, or int ns) in nanoseconds."""
    if isinstance(time, int):
        return time
    if isinstance(time, TimeMsg):
        return time.sec * 10 ** 9 + time.nanosec
    if hasattr(time, 'nanoseconds'):
        return int(time.nanoseconds)
    raise TypeError(f'time must be rclpy.time.Time or builtin_interfaces.msg.Time, '
                    f'not {type(time).__name__}')


def _seconds(ns: int) -> str:
    return f'{ns * 1e-9:.6f}'


class _Pose:
    """A rigid transform: translation [m] and unit quaternion (w, x, y, z)."""

    __slots__ = ('t', 'q')

    def __init__(self, t: np.ndarray, q: np.ndarray):
        self.t, self.q = t, q

    def compose(self, other: '_Pose') -> '_Pose':
        """Return self * other (other's coordinates into self's parent)."""
        return _Pose(self.t + quaternions.rotate_vector(other.t, self.q),
                     quaternions.qmult(self.q, other.q))

    def inverse(self) -> '_Pose':
        q = quaternions.qconjugate(self.q)
        return _Pose(-quaternions.rotate_vector(self.t, q), q)


IDENTITY = _Pose(np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))


def _slerp(q0: np.ndarray, q1: np.ndarray, ratio: float) -> np.ndarray:
    if np.dot(q0, q1) < 0.0:
        q1 = -q1
    step = quaternions.qmult(quaternions.qconjugate(q0), q1)
    out = quaternions.qmult(q0, quaternions.qpow(step, ratio))
    return out / np.linalg.norm(out)


class _Frame:
    """One child frame: its parent and its samples, oldest first (or one static sample)."""

    def __init__(self):
        self.parent = ''
        self.static: Optional[_Pose] = None
        self.stamps: List[int] = []
        self.poses: List[_Pose] = []

    def latest(self) -> Optional[int]:
        """Return the newest stamp [ns], None when static (valid at every time) or empty."""
        return None if self.static is not None or not self.stamps else self.stamps[-1]

    def insert(self, stamp: int, pose: _Pose, keep_ns: int) -> None:
        at = bisect.bisect_left(self.stamps, stamp)
        if at < len(self.stamps) and self.stamps[at] == stamp:
            self.poses[at] = pose
        else:
            self.stamps.insert(at, stamp)
            self.poses.insert(at, pose)
        drop = bisect.bisect_left(self.stamps, self.stamps[-1] - keep_ns)
        del self.stamps[:drop], self.poses[:drop]

    def at(self, stamp: int, name: str, source: str, target: str) -> _Pose:
        """Return the sample at `stamp` (0: the newest), interpolated; raise beyond the data."""
        if self.static is not None:
            return self.static
        stamps = self.stamps
        where = f', when looking up transform from frame [{source}] to frame [{target}]'
        if not stamps:
            raise ExtrapolationException(f'Lookup would require data of frame [{name}], '
                                         f'but the buffer holds none{where}')
        if stamp == 0:
            return self.poses[-1]
        if len(stamps) == 1:
            if stamps[0] == stamp:
                return self.poses[0]
            raise ExtrapolationException(
                f'Lookup would require extrapolation at time {_seconds(stamp)}, but only time '
                f'{_seconds(stamps[0])} is in the buffer{where}')
        if stamp > stamps[-1]:
            raise ExtrapolationException(
                f'Lookup would require extrapolation into the future.  Requested time '
                f'{_seconds(stamp)} but the latest data is at time {_seconds(stamps[-1])}{where}')
        if stamp < stamps[0]:
            raise ExtrapolationException(
                f'Lookup would require extrapolation into the past.  Requested time '
                f'{_seconds(stamp)} but the earliest data is at time {_seconds(stamps[0])}{where}')
        k = bisect.bisect_left(stamps, stamp)
        if stamps[k] == stamp:
            return self.poses[k]
        before, after = self.poses[k - 1], self.poses[k]
        ratio = (stamp - stamps[k - 1]) / (stamps[k] - stamps[k - 1])
        return _Pose(before.t + ratio * (after.t - before.t), _slerp(before.q, after.q, ratio))


class BufferCore:
    """The frames and their samples; lookups without waiting (tf2_py.BufferCore)."""

    def __init__(self, cache_time=None):
        self._keep_ns = DEFAULT_CACHE_TIME_NS if cache_time is None else nanoseconds(cache_time)
        self._frames: Dict[str, _Frame] = {}

    def clear(self) -> None:
        """Forget every moving frame's samples (the frames and the static ones stay, as in tf2)."""
        for frame in self._frames.values():
            frame.stamps, frame.poses = [], []

    def set_transform(self, transform: TransformStamped, authority: str) -> bool:
        """Add a sample of a moving frame; a bad one is logged and dropped (False)."""
        return self._set(transform, authority, False)

    def set_transform_static(self, transform: TransformStamped, authority: str) -> bool:
        """Set a frame that does not move (valid at every time)."""
        return self._set(transform, authority, True)

    def _set(self, transform: TransformStamped, authority: str, static: bool) -> bool:
        problem = _invalid(transform)
        if problem:
            _log_error(f'{problem} (from authority "{authority}"): the transform is ignored')
            return False
        r, v = transform.transform.rotation, transform.transform.translation
        q = np.array([r.w, r.x, r.y, r.z])
        pose = _Pose(np.array([v.x, v.y, v.z]), q / np.linalg.norm(q))
        child = transform.child_frame_id
        frame = self._frames.setdefault(child, _Frame())
        frame.parent = transform.header.frame_id
        self._frames.setdefault(frame.parent, _Frame())
        if static:
            frame.static, frame.stamps, frame.poses = pose, [], []
        else:
            frame.static = None
            frame.insert(nanoseconds(transform.header.stamp), pose, self._keep_ns)
        return True

    def _check(self, name: str, role: str) -> None:
        if not name:
            raise InvalidArgumentException(
                f'Invalid argument passed to {role} in tf2 frame_ids cannot be empty')
        if name.startswith('/'):
            raise InvalidArgumentException(
                f'Invalid argument "{name}" passed to {role} in tf2 frame_ids cannot start '
                f"with a '/' like: ")
        if name not in self._frames:
            raise LookupException(f'"{name}" passed to {role} does not exist. ')

    def _chain(self, name: str) -> List[str]:
        """Return the frame and its ancestors up to its root."""
        chain = [name]
        while True:
            frame = self._frames.get(chain[-1])
            if frame is None or not frame.parent or frame.parent in chain:
                return chain
            chain.append(frame.parent)

    def _path(self, target: str, source: str) -> Tuple[List[str], List[str]]:
        """Return the frames from each end up to (not including) their common ancestor."""
        up_source, up_target = self._chain(source), self._chain(target)
        common = next((f for f in up_source if f in up_target), None)
        if common is None:
            raise ConnectivityException(
                f"Could not find a connection between '{target}' and '{source}' because they "
                'are not part of the same tree.Tf has two or more unconnected trees.')
        return up_source[:up_source.index(common)], up_target[:up_target.index(common)]

    def _common_time(self, target: str, source: str) -> int:
        if target == source:
            frame = self._frames[source]
            return frame.stamps[-1] if frame.stamps else 0
        from_source, from_target = self._path(target, source)
        latest = [self._frames[f].latest() for f in from_source + from_target]
        latest = [t for t in latest if t is not None]
        return min(latest) if latest else 0

    def get_latest_common_time(self, target_frame: str, source_frame: str):
        """Return the newest time both frames can be looked up at (rclpy Time)."""
        from rclpy.time import Time
        self._check(target_frame, 'getLatestCommonTime argument target_frame')
        self._check(source_frame, 'getLatestCommonTime argument source_frame')
        return Time(nanoseconds=self._common_time(target_frame, source_frame))

    def _pose(self, target: str, source: str, stamp: int) -> Tuple[_Pose, int]:
        """Return the pose of `source` in `target` at `stamp` (0: their latest common time)."""
        if stamp == 0:
            stamp = self._common_time(target, source)
        from_source, from_target = self._path(target, source)
        up = IDENTITY
        for name in from_source:        # source into the common ancestor
            up = self._frames[name].at(stamp, name, source, target).compose(up)
        down = IDENTITY
        for name in from_target:        # target into the common ancestor
            down = self._frames[name].at(stamp, name, source, target).compose(down)
        return down.inverse().compose(up), stamp

    def lookup_transform_core(self, target_frame: str, source_frame: str,
                              time) -> TransformStamped:
        """Return the transform that takes source_frame's coordinates into target_frame's."""
        self._check(target_frame, 'lookupTransform argument target_frame')
        self._check(source_frame, 'lookupTransform argument source_frame')
        pose, stamp = self._pose(target_frame, source_frame, nanoseconds(time))
        return _message(pose, target_frame, source_frame, stamp)

    def lookup_transform_full_core(self, target_frame: str, target_time, source_frame: str,
                                   source_time, fixed_frame: str) -> TransformStamped:
        """Return source_frame at source_time into target_frame at target_time, via fixed_frame."""
        self._check(target_frame, 'lookupTransform argument target_frame')
        self._check(source_frame, 'lookupTransform argument source_frame')
        self._check(fixed_frame, 'lookupTransform argument fixed_frame')
        into_fixed, _ = self._pose(fixed_frame, source_frame, nanoseconds(source_time))
        from_fixed, stamp = self._pose(target_frame, fixed_frame, nanoseconds(target_time))
        return _message(from_fixed.compose(into_fixed), target_frame, source_frame, stamp)

    def can_transform_core(self, target_frame: str, source_frame: str, time) -> tuple:
        """Return (True, '') when the lookup would succeed, else (False, why)."""
        try:
            self.lookup_transform_core(target_frame, source_frame, time)
        except TransformException as error:
            return False, str(error)
        return True, ''

    def can_transform_full_core(self, target_frame: str, target_time, source_frame: str,
                                source_time, fixed_frame: str) -> tuple:
        """Return (True, '') when the full lookup would succeed, else (False, why)."""
        try:
            self.lookup_transform_full_core(target_frame, target_time, source_frame,
                                            source_time, fixed_frame)
        except TransformException as error:
            return False, str(error)
        return True, ''

    def all_frames_as_yaml(self) -> str:
        """Return each frame's parent and its data's span, as tf2's view_frames reads it."""
        lines = []
        for name, frame in sorted(self._frames.items()):
            if not frame.parent:
                continue
            if frame.static is not None:
                oldest = newest = 0
            else:
                oldest, newest = frame.stamps[0], frame.stamps[-1]
            count = len(frame.stamps)
            span = (newest - oldest) * 1e-9
            lines += [f'{name}: ', f"  parent: '{frame.parent}'",
                      "  broadcaster: 'default_authority'",
                      f'  rate: {count / span if span > 0 else 10000.0:.3f}',
                      f'  most_recent_transform: {newest * 1e-9:.6f}',
                      f'  oldest_transform: {oldest * 1e-9:.6f}',
                      f'  buffer_length: {span:.3f}']
        return '\n'.join(lines) + ('\n' if lines else '')

    def all_frames_as_string(self) -> str:
        """Return one line per frame: 'Frame child exists with parent parent.'."""
        return ''.join(f'Frame {name} exists with parent {frame.parent}.\n'
                       for name, frame in sorted(self._frames.items()) if frame.parent)


def _invalid(transform: TransformStamped) -> str:
    """Return why tf2 would refuse this transform ('' when it is fine)."""
    child, parent = transform.child_frame_id, transform.header.frame_id
    if not child:
        return 'TF_NO_CHILD_FRAME_ID: the child_frame_id is empty'
    if not parent:
        return f'TF_NO_FRAME_ID: the frame_id of child "{child}" is empty'
    if child.lstrip('/') == parent.lstrip('/'):
        return f'TF_SELF_TRANSFORM: frame_id and child_frame_id are both "{child}"'
    v, r = transform.transform.translation, transform.transform.rotation
    values = (v.x, v.y, v.z, r.x, r.y, r.z, r.w)
    if not all(math.isfinite(x) for x in values):
        return f'TF_NAN_INPUT: the transform from "{parent}" to "{child}" has a NaN or infinity'
    norm = math.sqrt(r.x ** 2 + r.y ** 2 + r.z ** 2 + r.w ** 2)
    if abs(norm - 1.0) > 10e-3:
        return (f'TF_DENORMALIZED_QUATERNION: the rotation from "{parent}" to "{child}" has '
                f'norm {norm:.6f}, not 1')
    return ''


def _log_error(text: str) -> None:
    import rclpy.logging
    rclpy.logging.get_logger('tf2_buffer').error(text)


def _message(pose: _Pose, target: str, source: str, stamp: int) -> TransformStamped:
    out = TransformStamped()
    out.header.frame_id, out.child_frame_id = target, source
    out.header.stamp = TimeMsg(sec=stamp // 10 ** 9, nanosec=stamp % 10 ** 9)
    out.transform.translation.x, out.transform.translation.y, \
        out.transform.translation.z = (float(x) for x in pose.t)
    w, x, y, z = (float(c) for c in pose.q)
    r = out.transform.rotation
    r.x, r.y, r.z, r.w = x, y, z, w
    return out
