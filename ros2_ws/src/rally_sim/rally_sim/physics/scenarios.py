"""The three 7 s open-loop scenarios of document 002, section B.3."""

from typing import Callable, Dict, NamedTuple, Tuple

import numpy as np

from .trajectory import deg, hold_times, InputTable


class Scenario(NamedTuple):
    """An open-loop test: initial forward speed and timed inputs."""

    name: str
    initial_speed_m_s: float
    inputs: InputTable


def _u_turn(t: float) -> Tuple[float, float]:
    return (0.0, 50.0) if t < 1.8 else (deg(11.0), 150.0)


def _spin_out(t: float) -> Tuple[float, float]:
    return (0.0, 0.0) if t < 0.2 else (deg(18.0), 1500.0)


def _drift(t: float) -> Tuple[float, float]:
    if t < 0.5:
        return 0.0, 0.0
    if t < 1.2:
        return deg(18.0), -250.0
    if t < 1.8:
        return deg(6.0), 1800.0
    if t < 4.8:
        return -deg(5.0), 900.0
    if t < 5.5:
        return -deg(2.0), 400.0
    return 0.0, 100.0


# name: (initial speed [m/s], schedule t -> (steer [rad], torque per rear wheel [N m]))
SCHEDULES: Dict[str, Tuple[float, Callable]] = {
    'u_turn': (10.0, _u_turn),
    'spin_out': (0.0, _spin_out),
    'drift': (13.0, _drift),
}


def document_scenario(name: str, dt: float = 0.01, duration_s: float = 7.0) -> Scenario:
    """
    Return a document 002 scenario sampled every dt (the document uses 0.01 s).

    The document's code runs the spin-out for 6 s although its text says every
    scenario lasts 7 s; all three last 7 s here (the first 6 s are the same).
    """
    speed, schedule = SCHEDULES[name]
    t = hold_times(duration_s, dt)
    steer, torque = np.array([schedule(ti) for ti in t]).T
    drive = np.zeros((len(t), 4))
    drive[:, 2] = drive[:, 3] = torque
    return Scenario(name, speed, InputTable(
        t=t, steer=steer, drive=drive, brake=np.zeros((len(t), 4)), handbrake=np.zeros(len(t))))
