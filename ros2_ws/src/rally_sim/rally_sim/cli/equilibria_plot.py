"""The classic drift diagrams: steer, drive and speed against sideslip, stability marked."""

import math
from typing import List

import numpy as np

from ..physics.equilibria import DRIVER, Equilibrium

STABLE, UNSTABLE, BEYOND = '#1f77b4', '#d62728', '#aaaaaa'
"""Marker colours: stable, unstable (a saddle or worse), beyond a limit of the car."""


def plot_equilibria(equilibria: List[Equilibrium], path: str, title: str = '') -> None:
    """
    Write a PNG: steer angle, drive input and speed (or radius) against sideslip.

    Each equilibrium is a marker, filled blue where stable and hollow red
    where unstable (the largest unstable eigenvalue in a fourth panel),
    grey beyond a limit of the car (steer, torque, throttle, revs).
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    beta = np.degrees([e.sideslip_rad for e in equilibria])
    driver = equilibria[0].mode == DRIVER
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharex=True)
    panels = [
        (axes[0, 0], [math.degrees(e.steer_rad) for e in equilibria], 'steer angle [deg]'),
        (axes[0, 1], [e.throttle for e in equilibria] if driver
         else [e.axle_torque_n_m()[1] for e in equilibria],
         'throttle (held gear)' if driver else 'rear axle drive torque [N m]'),
        (axes[1, 0], [e.speed_m_s for e in equilibria], 'speed [m/s]'),
        (axes[1, 1], [max([v.real for v in e.unstable], default=0.0) for e in equilibria],
         'largest unstable eigenvalue [1/s]'),
    ]
    for ax, values, label in panels:
        ax.plot(beta, values, color='#555555', linewidth=0.8, zorder=1)
        for b, value, e in zip(beta, values, equilibria):
            colour = BEYOND if e.limit else (STABLE if e.stable else UNSTABLE)
            face = colour if (e.stable or e.limit) else 'white'
            ax.scatter([b], [value], s=22, color=face, edgecolors=colour, zorder=2)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    if driver:
        twin = axes[0, 1].twinx()
        twin.plot(beta, [e.axle_torque_n_m()[1] for e in equilibria], color='#2ca02c',
                  linewidth=0.8, linestyle='--')
        twin.set_ylabel('rear axle torque [N m] (dashed)', color='#2ca02c')
    for ax in axes[1]:
        ax.set_xlabel('sideslip beta [deg]')
    handles = [plt.Line2D([], [], marker='o', linestyle='', color=STABLE, label='stable'),
               plt.Line2D([], [], marker='o', linestyle='', markerfacecolor='white',
                          color=UNSTABLE, label='unstable (saddle)'),
               plt.Line2D([], [], marker='o', linestyle='', color=BEYOND,
                          label="beyond the car's limits")]
    fig.legend(handles=handles, loc='lower center', ncol=3, frameon=False)
    fig.suptitle(title or 'equilibria')
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    fig.savefig(path, dpi=100)
    plt.close(fig)
