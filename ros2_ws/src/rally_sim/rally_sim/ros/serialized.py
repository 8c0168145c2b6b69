"""
Messages published as serialized bytes: serialized once, numbers then written in place.

rclpy converts a Python message field by field on every publish, which costs
the simulator more than its physics (a TFMessage of seven transforms: about
90 us; the marker array: about 300 us). The outputs keep their layout from
one publish to the next (same frames, names and array lengths), so each is
serialized once by the middleware's own serializer, the byte offsets of the
fields that change are found, and each publish writes only those numbers and
hands the bytes to the middleware (about 10 us).

Offsets are found, not computed: every changing field is set to a sentinel
value that occurs exactly once in the serialized bytes, so the layout is the
middleware's, whatever CDR flavour and alignment it uses.
"""

import itertools
import struct
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from rclpy.serialization import deserialize_message, serialize_message

_SENTINEL_DOUBLE = 0x4F5AA5C300000000
"""Sentinel doubles: this bit pattern plus the field's index (finite, not a plausible value)."""
_SENTINEL_FLOAT = 0x7A5A0000
"""Sentinel float32s, likewise."""
_SENTINEL_STAMP = 0x3AA50000
"""Sentinel stamps (seconds, nanoseconds), likewise."""
_SALTS = itertools.count()
"""Varies the sentinels of each message (added above the index bits)."""


def _sentinel(kind: str, bits: int) -> float:
    """Return the float ('d': 64-bit, 'f': 32-bit) with these bits."""
    return struct.unpack('<' + kind, struct.pack('<Q' if kind == 'd' else '<I', bits))[0]


def byte_order(data: bytes) -> str:
    """
    Return the struct byte order ('<' or '>') of serialized CDR data.

    The encapsulation header's second byte is odd for little endian.
    """
    return '<' if data[1] & 1 else '>'


def exact(data: bytes, message) -> bytes:
    """
    Return serialized `message` without the bytes past its last field.

    The PyPI wheels' serializer returns a few bytes (not even zero) after a
    message that ends with an empty sequence of doubles (JointState's
    effort); strict readers such as rosbags reject that. The exact length
    is the shortest prefix the middleware still deserializes to `message`.
    """
    length = len(data)
    while length > 4:
        try:
            if deserialize_message(data[:length - 1], type(message)) != message:
                break
        except Exception:  # noqa: B902 -- the middleware's error: too short
            break
        length -= 1
    return data[:length]


def _occurrences(data: bytes, pattern: bytes) -> set:
    """Return every offset of `pattern` in `data`."""
    found, offset = set(), data.find(pattern)
    while offset >= 0:
        found.add(offset)
        offset = data.find(pattern, offset + 1)
    return found


def _walk(message, path: str):
    """Return (parent object, last key) of a dotted path; digits index sequences."""
    *parents, last = path.split('.')
    for part in parents:
        message = message[int(part)] if part.isdigit() else getattr(message, part)
    return message, last


def _set(message, path: str, value) -> None:
    try:
        parent, last = _walk(message, path)
        if last.isdigit():
            parent[int(last)] = value
        else:
            setattr(parent, last, value)
    except (AttributeError, IndexError, TypeError, AssertionError, ValueError) as error:
        raise ValueError(f'field {path}: cannot be set to {value!r} ({error})') from None


def _get(message, path: str):
    try:
        parent, last = _walk(message, path)
        return parent[int(last)] if last.isdigit() else getattr(parent, last)
    except (AttributeError, IndexError, TypeError) as error:
        raise ValueError(f'field {path}: not in the message ({error})') from None


class _Slots:
    """Where numbers of one type go in the bytes: views per alignment, and which value where."""

    def __init__(self, buffer: bytearray, offsets: List[int], dtype: np.dtype):
        self.groups = []    # (view, element indices in the view, value indices)
        size = dtype.itemsize
        residues: Dict[int, List[int]] = {}
        for index, offset in enumerate(offsets):
            residues.setdefault(offset % size, []).append(index)
        for residue, indices in residues.items():
            view = np.frombuffer(buffer, dtype=dtype, offset=residue,
                                 count=(len(buffer) - residue) // size)
            elements = np.array([(offsets[i] - residue) // size for i in indices], dtype=np.intp)
            self.groups.append((view, elements, np.array(indices, dtype=np.intp)))
        self.single = len(self.groups) == 1

    def write(self, values: np.ndarray) -> None:
        if self.single:
            view, elements, _ = self.groups[0]
            view[elements] = values
            return
        for view, elements, indices in self.groups:
            view[elements] = values[indices]


class SerializedMessage:
    """
    One message kept as serialized bytes, refilled in place.

    `doubles` and `floats` are dotted paths of the float64 and float32
    fields that change (digits index arrays: 'transforms.2.transform.rotation.w',
    'position.3'); `stamps` are paths of builtin_interfaces/Time fields, all
    set to the same time on each fill. Everything else keeps the prototype's
    value.
    """

    def __init__(self, prototype, doubles: Sequence[str], floats: Sequence[str] = (),
                 stamps: Sequence[str] = ('header.stamp',)):
        """Serialize `prototype` once and locate the changing fields (ValueError if ambiguous)."""
        doubles, floats = list(doubles), list(floats)
        kept = {path: _get(prototype, path) for path in doubles + floats}
        for path, value in kept.items():
            if not isinstance(value, (float, np.floating)):
                raise ValueError(f'field {path}: is {type(value).__name__}, not a float field')
        stamp_paths = [f'{p}.{part}' for p in stamps for part in ('sec', 'nanosec')]
        stamp_values = [_get(prototype, path) for path in stamp_paths]
        # Sentinels differ from one message to the next: the serializer can leave
        # bytes of an earlier message in alignment padding.
        data, found = self._sentinel_offsets(prototype, doubles, floats, stamp_paths,
                                             next(_SALTS) % 1024)
        offsets = []
        for path, where in zip(doubles + floats + stamp_paths, found):
            if len(where) != 1:
                raise ValueError(f'field {path}: not found exactly once in the serialized '
                                 'message')
            offsets.append(where.pop())
        for path, value in list(kept.items()) + list(zip(stamp_paths, stamp_values)):
            _set(prototype, path, value)        # the prototype as it was
        order = byte_order(data)
        self.buffer = bytearray(data)
        double_offsets = offsets[:len(doubles)]
        float_offsets = offsets[len(doubles):len(doubles) + len(floats)]
        stamp_offsets = offsets[len(doubles) + len(floats):]
        self._doubles = _Slots(self.buffer, double_offsets, np.dtype(order + 'f8'))
        self._floats = _Slots(self.buffer, float_offsets, np.dtype(order + 'f4'))
        self._stamps = _Slots(self.buffer, stamp_offsets, np.dtype(order + 'u4'))
        self._stamp_values = np.zeros(len(stamp_offsets), dtype=np.uint32)
        values = [float(kept[path]) for path in doubles]
        self.fill(values, 0, [float(kept[path]) for path in floats] if floats else None)

    @staticmethod
    def _sentinel_offsets(prototype, doubles, floats, stamp_paths, salt: int):
        """
        Serialize with sentinels (varied by salt); return the bytes and where each occurs.

        Offsets come as one set per field, fields in the order doubles, floats,
        stamps.
        """
        patterns = []
        for index, path in enumerate(doubles):
            bits = _SENTINEL_DOUBLE + (salt << 16) + index
            _set(prototype, path, _sentinel('d', bits))
            patterns.append(('Q', bits))
        for index, path in enumerate(floats):
            bits = _SENTINEL_FLOAT + (salt << 12) + index
            _set(prototype, path, _sentinel('f', bits))
            patterns.append(('I', bits))
        for index, path in enumerate(stamp_paths):
            bits = _SENTINEL_STAMP + (salt << 12) + index
            _set(prototype, path, bits)
            patterns.append(('I', bits))
        data = exact(serialize_message(prototype), prototype)
        order = byte_order(data)
        return data, [_occurrences(data, struct.pack(order + kind, bits))
                      for kind, bits in patterns]

    def fill(self, doubles, stamp_ns: int, floats=None) -> bytes:
        """Write the doubles, floats (each in their paths' order) and stamp; return the bytes."""
        self._doubles.write(np.asarray(doubles, dtype=np.float64))
        if floats is not None:
            self._floats.write(np.asarray(floats, dtype=np.float32))
        self._stamp_values[0::2] = stamp_ns // 1_000_000_000
        self._stamp_values[1::2] = stamp_ns % 1_000_000_000
        self._stamps.write(self._stamp_values)
        return bytes(self.buffer)


class FieldReader:
    """
    Float64 fields read from serialized messages of one type, without deserializing them.

    The scenario runner keeps two states a control period and reads a few
    numbers of each; rclpy deserializing them builds every nested message
    (about 40 us an Odometry). The offsets are found with sentinels in a
    message laid out as the first one read (its strings, so its alignment).
    A message whose length, or whose bytes between the stamp and the first
    field read, differ from that first one's is deserialized instead: a
    reading is always the message's own numbers.
    """

    def __init__(self, message_type, doubles: Sequence[str], stamp: str = 'header.stamp'):
        """Read the `doubles` paths of `message_type`, whose stamp is at `stamp`."""
        self.type, self.paths = message_type, list(doubles)
        self.stamp_paths = [f'{stamp}.sec', f'{stamp}.nanosec']
        self.size = None            # the layout's length; None: not learnt (yet)
        self.learnt = False
        self.prefix, self.prefix_at = b'', slice(0, 0)
        self.unpack, self.order = None, []

    def read(self, data: bytes) -> List[float]:
        """Return the fields' values in `data`, in the order of their paths."""
        if len(data) == self.size and data[self.prefix_at] == self.prefix:
            values = self.unpack(data)
            return [values[i] for i in self.order]
        message = deserialize_message(data, self.type)
        if not self.learnt:
            self.learnt = True
            self._learn(data, message)
        return [float(_get(message, path)) for path in self.paths]

    def _learn(self, data: bytes, message) -> None:
        """Find the fields' offsets in a message like `message`, if its layout allows."""
        prototype = deserialize_message(data, self.type)
        laid_out, found = SerializedMessage._sentinel_offsets(
            prototype, self.paths, [], self.stamp_paths, next(_SALTS) % 1024)
        if len(laid_out) != len(data) or byte_order(laid_out) != byte_order(data) or any(
                len(where) != 1 for where in found):
            return                  # deserialized every time: still right, only slower
        offsets = [where.pop() for where in found]
        fields, stamps = offsets[:len(self.paths)], offsets[len(self.paths):]
        start, stamp_end = min(fields), max(stamps) + 4
        if stamp_end > start:
            return
        self.prefix_at = slice(stamp_end, start)
        self.prefix = data[self.prefix_at]
        fmt, position = byte_order(data), 0
        for offset in sorted(fields):
            fmt += f'{offset - position}xd'
            position = offset + 8
        self.unpack = struct.Struct(fmt).unpack_from
        self.order = [sorted(fields).index(offset) for offset in fields]
        self.size = len(data)


POSE_DOUBLES = 7 + 36
"""An Odometry's pose and its covariance, in doubles: its twist follows them."""


def odometry_twist(data: bytes) -> Optional[Tuple[int, int, float, float, float]]:
    """
    Return an Odometry's stamp (sec, nanosec) and twist (vx, vy, yaw rate), read in place.

    Plain CDR (encapsulation 0 or 1: XCDR1, doubles aligned to 8 from the
    payload's start) is walked: the stamp, the two frame names' lengths, the
    pose; anything else gives None (deserialize it instead). About 2 us
    against rclpy's 40 us for the whole message, which a node answering every
    state of a car reads only for these five numbers.
    """
    if len(data) < 16 or data[0] != 0 or data[1] not in (0, 1):
        return None
    order = byte_order(data)
    sec, nanosec, length = struct.unpack_from(order + 'iII', data, 4)
    offset = 16 + length                            # past the frame_id (payload offset + 4)
    offset += -(offset - 4) % 4
    (length,) = struct.unpack_from(order + 'I', data, offset)
    offset += 4 + length                            # past the child_frame_id
    offset += -(offset - 4) % 8
    offset += 8 * POSE_DOUBLES
    if offset + 48 > len(data):
        return None
    vx, vy, _, _, _, yaw_rate = struct.unpack_from(order + '6d', data, offset)
    return sec, nanosec, vx, vy, yaw_rate
