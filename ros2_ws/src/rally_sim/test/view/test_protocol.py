"""What the page may say: each message checked, each refusal naming the field and its range."""

import json

from hypothesis import given, settings, strategies as st
import pytest
from rally_sim.drive import Inputs
from rally_sim.view.protocol import MAX_MESSAGE_BYTES, parse, ProtocolError


def test_good_messages_are_typed():
    message = parse(json.dumps({'type': 'input', 'source': 'gamepad', 'steer': -0.5,
                                'throttle': 1, 'brake': 0.0, 'keydown_ms': 1.7e12}))
    assert message.type == 'input'
    assert message.fields == {'inputs': Inputs('gamepad', -0.5, 1.0, 0.0, 0.0),
                              'keydown_ms': 1.7e12}
    assert parse('{"type": "action", "name": "gear_up"}').fields == {'name': 'gear_up'}
    assert parse('{"type": "replay", "action": "seek", "t": 12.5}').fields == {
        'action': 'seek', 't': 12.5}
    assert parse('{"type": "gamepad", "dead_zone": 0.1, "curve": 2}').fields == {
        'dead_zone': 0.1, 'curve': 2.0}
    assert parse('{"type": "assists", "abs": true}').fields == {'values': {'abs': True}}


@pytest.mark.parametrize('text, words', [
    (b'\x00\x01', 'not binary'),
    ('x' * (MAX_MESSAGE_BYTES + 1), 'longer than'),
    ('{"type": "input", "steer": NaN}', 'not JSON'),
    ('{"type": "input", "steer": Infinity}', 'not JSON'),
    ('[1, 2]', 'JSON object'),
    ('{"type": "launch_missiles"}', "unknown message type 'launch_missiles'"),
    ('{"steer": 1}', 'unknown message type None'),
    ('{"type": "input", "steer": 1.5}', "field 'steer' = 1.5: a number in [-1, 1]"),
    ('{"type": "input", "throttle": -0.1}', "field 'throttle' = -0.1: a number in [0, 1]"),
    ('{"type": "input", "brake": "full"}', "field 'brake' = 'full'"),
    ('{"type": "input", "handbrake": true}', "field 'handbrake' = True"),
    ('{"type": "input", "source": "joystick"}', "field 'source' = 'joystick'"),
    ('{"type": "action", "name": "rm -rf"}', "field 'name' = 'rm -rf'"),
    ('{"type": "replay", "action": "seek", "t": -1}', "field 't' = -1"),
    ('{"type": "gamepad", "dead_zone": 0.9}', "field 'dead_zone' = 0.9: a number in [0, 0.5]"),
    ('{"type": "assists"}', 'no assist given'),
    ('[' * 100000 + ']' * 100000, 'longer than'),
])
def test_bad_messages_are_refused_with_the_reason(text, words):
    with pytest.raises(ProtocolError, match=None) as refused:
        parse(text)
    assert words in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300),
                 st.dictionaries(st.text(max_size=12), st.one_of(
                     st.none(), st.booleans(), st.floats(), st.integers(), st.text(max_size=20)),
                     max_size=8).map(json.dumps)))
def test_anything_is_either_a_checked_message_or_refused(text):
    try:
        message = parse(text)
    except ProtocolError:
        return
    if message.type == 'input':
        i = message.fields['inputs']
        assert -1.0 <= i.steer <= 1.0 and 0.0 <= i.throttle <= 1.0
