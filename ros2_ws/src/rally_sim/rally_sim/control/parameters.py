"""
Parameter specs, ROS-free: a parameter's default, range or choices and meaning, and its check.

The simulator node and the controllers' nodes declare their parameters from
specs (ros/parameters.py declares them on a node); the in-process engine and
the tests check values with the same words.
"""

from dataclasses import dataclass
import math
from typing import Any, Dict, List, Optional, Tuple


class ParameterError(ValueError):
    """A parameter value that cannot be used; the message names it."""


@dataclass(frozen=True)
class Spec:
    """One parameter: default, range or choices, meaning, and whether it may change live."""

    default: Any
    description: str
    low: Optional[float] = None
    high: Optional[float] = None
    choices: Tuple[str, ...] = ()
    live: bool = False
    also: Tuple[str, ...] = ()
    """Words a number parameter also takes (the seed: random)."""


def names(value) -> List[str]:
    """Return the names of a list parameter, without the empty entries (`['']`: none)."""
    return [name for name in value if name]


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check(name: str, value: Any, specs: Dict[str, Spec]) -> Optional[str]:
    """Return why `value` is not allowed for `name` in `specs`, or None."""
    spec = specs[name]
    if isinstance(spec.default, list):
        if value is None:
            return (f"parameter '{name}' has no type: rcl's YAML gives an empty list [] "
                    "none; write [''] for no names")
        if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, str) and (v.strip('/') or not v) for v in value):
            return (f"parameter '{name}' = {value!r} must be a list of node names "
                    "([''] for none)")
        return None
    if spec.choices and value not in spec.choices:
        return f"parameter '{name}' = {value!r} must be one of {list(spec.choices)}"
    if spec.also and value in spec.also:
        return None
    if is_integer(spec.default):
        if not is_integer(value):
            words = ''.join(f' or {word}' for word in spec.also)
            return f"parameter '{name}' = {value!r} must be an integer{words}"
        if spec.low is not None and not spec.low <= value <= spec.high:
            return (f"parameter '{name}' = {value!r} is out of range "
                    f'[{spec.low:g}, {spec.high:g}]: {spec.description}')
    if isinstance(spec.default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"parameter '{name}' = {value!r} must be a number"
        if not (math.isfinite(value) and spec.low <= value <= spec.high):
            return (f"parameter '{name}' = {value!r} is out of range "
                    f'[{spec.low:g}, {spec.high:g}]: {spec.description}')
    return None
