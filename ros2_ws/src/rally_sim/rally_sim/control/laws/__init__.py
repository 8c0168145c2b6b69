"""
Our example controllers' laws: a state in, the commands their nodes publish out.

One law per controller, ROS-free, with its node's parameter specs. Its node
(ros/) converts odometry and wheel_slip to the states and the commands to
messages; the in-process campaign engine and the tests call it directly,
so all three answer alike. An ackermann command's fields are float32 on the
wire: the laws round them so, and an in-process run is the ROS run.
"""

from abc import ABC, abstractmethod
from array import array
from typing import Any, Dict, List, Optional

from ..interface import Ackermann, PlanarState, WheelState
from ..parameters import check, Spec


def steering(angle: float, speed: float = 0.0, acceleration: float = 0.0) -> Ackermann:
    """Return an ackermann command with its float32 fields rounded as on the wire."""
    angle, speed, acceleration = array('f', (angle, speed, acceleration)).tolist()
    return Ackermann(angle, 0.0, speed, acceleration, 0.0)


def parameters(specs: Dict[str, Spec], given: Dict[str, Any]) -> Dict[str, Any]:
    """Return the node's parameter values: its defaults, then `given`, checked as it does."""
    values = {name: spec.default for name, spec in specs.items()}
    values.update(given)
    for name, value in given.items():
        if name not in specs:
            raise ValueError(f"controller parameter '{name}' is not a parameter of the "
                             f"controller; its parameters: {', '.join(specs)}")
        reason = check(name, value, specs)
        if reason:
            raise ValueError(f'controller {reason}')
        if isinstance(specs[name].default, float):
            values[name] = float(value)
    return values


class Law(ABC):
    """A controller's law: answers a state with the commands its node publishes."""

    wants_wheels = False
    """Whether it answers a state only with its wheel state (wheel_slip) too."""
    SPECS: Dict[str, Spec] = {}
    """Its node's parameters."""

    @abstractmethod
    def answer(self, stamp_ns: int, state: PlanarState, wheels: Optional[WheelState]
               ) -> List[Any]:
        """Return the commands (control/interface.py) answering the state measured at stamp_ns."""
