"""
Torque mode's drive: commanded wheel torques through a motor's limits and axle differentials.

A car driven by wheel torques (command C_DRIVER = 0) with a `torque_mode:`
section gets, once per sub-step, before the integrator's update:

1. Each axle's torques: as commanded (independent: a motor per wheel), or
   their sum into the axle's differential, half to each wheel.
2. The motor's limits: no drive torque beyond the largest wheel speed (a
   2 % taper below it, so the limit is a speed, not a chatter), and the
   power into the wheels (sum of torque x speed over those the motor
   drives) at most max_power_w, likewise the power out of them: the
   torques of that sign scaled down together. An axle with a differential
   counts its mean speed for both wheels, as the differential's input turns.
3. The differentials other than open are couplings (equations.py): the
   impulse that brings the two wheels to one speed by the end of the
   sub-step, within the capacity of the axle's torque (driveline.axle_coupling).

A car without the section passes the commanded torques on unchanged, as
before (the kernels do not call this).
"""

import numpy as np

from .driveline import axle_coupling
from .equations import (
    D_TORQUE_MODE, DIFFERENTIAL_SIZE, INDEPENDENT, OPEN, T_FRONT, T_POWER, T_SPEED)
from ..jit import njit, njit_inline
from ..model import C_DRIVE, OMEGA, P_DRIVETRAIN, W_DRIVE, W_INVERSE, W_SPIN, W_TRANSFER

SPEED_TAPER = 0.02
"""The share of the largest wheel speed over which the drive torque fades to 0."""


@njit_inline
def torque_mode_active(p: np.ndarray) -> bool:
    """Return True if the car's torque mode does more than pass the commanded torques on."""
    return p[P_DRIVETRAIN + D_TORQUE_MODE] != 0.0


@njit_inline
def _axle_kind(p: np.ndarray, axle: int) -> float:
    """Return axle's (0 front, 1 rear) coupling code in torque mode."""
    return p[P_DRIVETRAIN + D_TORQUE_MODE + T_FRONT + axle * DIFFERENTIAL_SIZE]


def coupled_axles(p: np.ndarray) -> list:
    """Return the axles (0 front, 1 rear) whose torque-mode differential couples their wheels."""
    t = P_DRIVETRAIN + D_TORQUE_MODE
    if p[t] == 0.0:
        return []
    return [axle for axle in range(2)
            if p[t + T_FRONT + axle * DIFFERENTIAL_SIZE] not in (INDEPENDENT, OPEN)]


@njit_inline
def motor_speed(state: np.ndarray, p: np.ndarray, i: int) -> float:
    """Return the speed the motor sees for wheel i [rad/s]: its own, or its axle's mean."""
    if _axle_kind(p, i // 2) == INDEPENDENT:
        return state[OMEGA + i]
    first = i - i % 2
    return 0.5 * (state[OMEGA + first] + state[OMEGA + first + 1])


@njit_inline
def speed_factor(omega: float, torque: float, top: float) -> float:
    """Return the share of a drive torque the motor gives at wheel speed omega (top 0: all)."""
    if top <= 0.0 or torque * omega <= 0.0:
        return 1.0
    return min(max((top - abs(omega)) / (SPEED_TAPER * top), 0.0), 1.0)


@njit
def limited_torques(state: np.ndarray, command: np.ndarray, p: np.ndarray,
                    torques: np.ndarray) -> None:
    """Write the wheel torques of steps 1 and 2 (split, speed and power limits) into torques."""
    t = P_DRIVETRAIN + D_TORQUE_MODE
    for i in range(4):
        torques[i] = command[C_DRIVE + i]
    for axle in range(2):
        if _axle_kind(p, axle) != INDEPENDENT:
            half = 0.5 * (torques[2 * axle] + torques[2 * axle + 1])
            torques[2 * axle] = torques[2 * axle + 1] = half
    into, out_of = 0.0, 0.0
    for i in range(4):
        omega = motor_speed(state, p, i)
        torques[i] *= speed_factor(omega, torques[i], p[t + T_SPEED])
        power = torques[i] * omega
        if power > 0.0:
            into += power
        else:
            out_of -= power
    limit = p[t + T_POWER]
    if limit <= 0.0 or (into <= limit and out_of <= limit):
        return
    scale_into = min(limit / into, 1.0) if into > 0.0 else 1.0
    scale_out = min(limit / out_of, 1.0) if out_of > 0.0 else 1.0
    for i in range(4):
        power = torques[i] * motor_speed(state, p, i)
        torques[i] *= scale_into if power > 0.0 else (scale_out if power < 0.0 else 1.0)


@njit
def torque_drive(state: np.ndarray, command: np.ndarray, p: np.ndarray, h: float,
                 wheel: np.ndarray) -> None:
    """
    Set the drive torques of one torque-mode sub-step of h (wheel[W_DRIVE]).

    Reads wheel[W_SPIN], each wheel's speed after h without drive torque,
    and wheel[W_INVERSE], 1 / its inertia over h, as driveline.drive does;
    state[OMEGA] holds the wheels' speeds at the sub-step's start.
    """
    limited_torques(state, command, p, wheel[W_DRIVE])
    for i in range(4):
        impulse = wheel[W_DRIVE, i] * h
        wheel[W_SPIN, i] += impulse * wheel[W_INVERSE, i]
        wheel[W_DRIVE, i] = impulse
    base = P_DRIVETRAIN + D_TORQUE_MODE + T_FRONT
    for axle in range(2):
        wheel[W_TRANSFER, axle] = 0.0
        kind = _axle_kind(p, axle)
        if kind != INDEPENDENT:
            input_n_m = abs(wheel[W_DRIVE, 2 * axle] + wheel[W_DRIVE, 2 * axle + 1]) / h
            axle_coupling(base + axle * DIFFERENTIAL_SIZE, axle, input_n_m, p, h, wheel)
    per_second = 1.0 / h
    for i in range(4):
        wheel[W_DRIVE, i] *= per_second
