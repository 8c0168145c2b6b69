"""
What the page may say to the view server, checked before anything acts on it.

Each WebSocket text message is one JSON object with a `type`. A message
that is not text, too long, not JSON, of an unknown type, or with a field
missing, of the wrong kind or out of its range is refused with a
ProtocolError naming the field and what it allows; nothing else happens
(the simulation never sees it). The server answers the page with the
reason, and closes a connection that keeps sending such messages.

Types (drive: only a page allowed to drive):
- input (drive): source keyboard|gamepad, steer -1..1, throttle, brake,
  handbrake 0..1; keydown_ms (optional): the page's clock when the key
  went down, for the latency benchmark;
- action (drive): name gear_up, gear_down, reset (back onto the path),
  pause (toggle);
- assists (drive): any of the assists by name (drive/assists.py);
- gamepad (drive): dead_zone 0..0.5, curve 0.5..3;
- replay: play, pause, or seek to t (s) in a bag replay;
- stats: what the page measures of itself (frames per second, latencies).
"""

import json
import math
from typing import Any, Dict, NamedTuple, Optional

from ..drive.inputs import InputError, Inputs, number

MAX_MESSAGE_BYTES = 4096
ACTIONS = ('gear_up', 'gear_down', 'reset', 'pause')
REPLAY_ACTIONS = ('play', 'pause', 'seek')
DRIVING = ('input', 'action', 'assists', 'gamepad')
"""The types only a page allowed to drive may send."""
MAX_STATS = 16
DEAD_ZONE = (0.0, 0.5)
CURVE = (0.5, 3.0)


class ProtocolError(ValueError):
    """A message from the page that is refused; the text says why."""


class Message(NamedTuple):
    """A checked message: its type and its fields, typed."""

    type: str              # noqa: A003  (the message's own word for it)
    fields: Dict[str, Any]


def parse(text: Any) -> Message:
    """Return the checked message in `text`; ProtocolError says what is wrong with it."""
    if not isinstance(text, str):
        raise ProtocolError('messages are JSON text, not binary')
    if len(text.encode('utf-8', 'replace')) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f'message longer than {MAX_MESSAGE_BYTES} bytes')
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise ProtocolError(f'not JSON: {error}') from None
    if not isinstance(raw, dict):
        raise ProtocolError('a message is a JSON object with a "type"')
    kind = raw.get('type')
    parser = PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ProtocolError(f"unknown message type {kind!r}; types: {', '.join(PARSERS)}")
    try:
        return Message(kind, parser(raw))
    except InputError as error:
        raise ProtocolError(f'{kind}: {error}') from None


def _no_constant(name: str):
    raise ValueError(f'{name} is not a number here')


def _input(raw: Dict[str, Any]) -> Dict[str, Any]:
    keydown = raw.get('keydown_ms')
    if keydown is not None:
        keydown = number(raw, 'keydown_ms', 0.0, 1e15)
    return {'inputs': Inputs.from_fields(raw), 'keydown_ms': keydown}


def _action(raw: Dict[str, Any]) -> Dict[str, Any]:
    name = raw.get('name')
    if name not in ACTIONS:
        raise InputError(f"field 'name' = {name!r}: one of {list(ACTIONS)}")
    return {'name': name}


def _assists(raw: Dict[str, Any]) -> Dict[str, Any]:
    values = {k: v for k, v in raw.items() if k != 'type'}
    if not values:
        raise InputError('no assist given')
    for name, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"field '{name}' = {value!r}: not a finite number")
    return {'values': values}       # names and ranges: Assists.changed, where they apply


def _gamepad(raw: Dict[str, Any]) -> Dict[str, Any]:
    return {'dead_zone': number(raw, 'dead_zone', *DEAD_ZONE, default=0.08),
            'curve': number(raw, 'curve', *CURVE, default=1.5)}


def _replay(raw: Dict[str, Any]) -> Dict[str, Any]:
    action = raw.get('action')
    if action not in REPLAY_ACTIONS:
        raise InputError(f"field 'action' = {action!r}: one of {list(REPLAY_ACTIONS)}")
    t: Optional[float] = number(raw, 't', 0.0, 1e9) if action == 'seek' else None
    return {'action': action, 't': t}


def _stats(raw: Dict[str, Any]) -> Dict[str, Any]:
    names = [name for name in raw if name != 'type']
    if len(names) > MAX_STATS:
        raise InputError(f'{len(names)} figures: at most {MAX_STATS}')
    return {name: number(raw, name, 0.0, 1e15) for name in names}


PARSERS = {'input': _input, 'action': _action, 'assists': _assists, 'gamepad': _gamepad,
           'replay': _replay, 'stats': _stats}
