"""
What a person's hands do, as the view page reports it, checked field by field.

Steer is -1 (full right) .. +1 (full left), REP-103's sign: left turns are
positive. From the keyboard it is -1, 0 or +1 (which arrow is held); from a
gamepad, the raw stick axis (the dead zone and curve are applied here, in
steering.py, not in the page). Pedals and the handbrake are 0 .. 1.
"""

from dataclasses import dataclass
import math
from typing import Any, Mapping

SOURCES = ('keyboard', 'gamepad')


class InputError(ValueError):
    """An input that cannot be taken; the message names the field and its allowed range."""


@dataclass(frozen=True)
class Inputs:
    """One report of the person's controls."""

    source: str = 'keyboard'
    steer: float = 0.0
    throttle: float = 0.0
    brake: float = 0.0
    handbrake: float = 0.0

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> 'Inputs':
        """Return the inputs of a message's fields; InputError names a field out of range."""
        source = fields.get('source', 'keyboard')
        if source not in SOURCES:
            raise InputError(f"input field 'source' = {source!r}: one of {list(SOURCES)}")
        return cls(source, number(fields, 'steer', -1.0, 1.0),
                   number(fields, 'throttle', 0.0, 1.0), number(fields, 'brake', 0.0, 1.0),
                   number(fields, 'handbrake', 0.0, 1.0))


def number(fields: Mapping[str, Any], name: str, low: float, high: float,
           default: float = 0.0) -> float:
    """Return fields[name] (default when absent) if a finite number in [low, high]."""
    value = fields.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not low <= value <= high:
        raise InputError(f"field '{name}' = {value!r}: a number in [{low:g}, {high:g}]")
    return float(value)
