"""Plots of a run a person wants to look at: footprint, speed and yaw rate, slip."""

import math
from typing import Optional

import numpy as np

from .stage_view import draw_stage
from .. import WHEELS
from ..physics.config import VehicleConfig
from ..physics.surfaces import Surface
from ..physics.trajectory import Trajectory

MAX_FOOTPRINTS = 70


def footprint(config: VehicleConfig, x: float, y: float, yaw: float) -> np.ndarray:
    """Return the closed outline of the wheelbase x track rectangle in the odom frame."""
    lf, lr, c = (config['cg_to_front_axle_m'], config['cg_to_rear_axle_m'],
                 config['half_track_m'])
    corners = np.array([[lf, c], [lf, -c], [-lr, -c], [-lr, c], [lf, c]])
    rotation = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
    return corners @ rotation.T + (x, y)


def plot_run(trajectory: Trajectory, config: VehicleConfig, path: str, title: str = '',
             surface: Optional[Surface] = None) -> None:
    """
    Write a PNG with the car's footprint along its path, speeds and per-wheel slip.

    A run with engine_rpm and gear columns (a car with a drivetrain) gets a
    third row: the engine speed and the gear. A surface map (`surface`) is
    drawn under the footprints in its RViz colours (stage_view.py).
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    col = trajectory.columns
    t = col['t']
    drivetrain = 'engine_rpm' in col and 'gear' in col
    fig = plt.figure(figsize=(13, 14 if drivetrain else 10))
    rows = 3 if drivetrain else 2
    axes = np.array([[fig.add_subplot(rows, 2, 2 * r + c + 1) for c in range(2)]
                     for r in range(2)])
    fig.suptitle(f"{config['name']}: {title}".strip(': '))

    ax = axes[0, 0]
    draw_stage(ax, surface)
    every = max(1, len(t) // MAX_FOOTPRINTS)
    colours = plt.cm.viridis(np.linspace(0.0, 1.0, len(t)))
    for k in range(0, len(t), every):
        outline = footprint(config, col['x'][k], col['y'][k], col['yaw'][k])
        ax.plot(outline[:, 0], outline[:, 1], color=colours[k], linewidth=0.8)
        ax.plot(outline[:2, 0], outline[:2, 1], color=colours[k], linewidth=2.0)  # nose
    ax.plot(col['x'], col['y'], 'k--', linewidth=0.8, label='CG path')
    ax.plot(col['x'][0], col['y'][0], 'go', label='start')
    ax.plot(col['x'][-1], col['y'][-1], 'rs', label='end')
    ax.set_aspect('equal', adjustable='datalim')
    ax.set_xlabel('x [m] (odom)')
    ax.set_ylabel('y [m] (odom)')
    ax.set_title(f'footprint every {every * (t[1] - t[0]):.2g} s (colour: time, thick: front)')
    ax.grid(True)
    ax.legend(loc='best', fontsize=8)

    ax = axes[0, 1]
    speed = np.hypot(col['vx'], col['vy']) * 3.6
    ax.plot(t, speed, color='tab:blue', label='speed [km/h]')
    ax.set_xlabel('time [s]')
    ax.set_ylabel('speed [km/h]', color='tab:blue')
    twin = ax.twinx()
    twin.plot(t, col['yaw_rate'], color='tab:red', label='yaw rate [rad/s]')
    sideslip = np.where(np.hypot(col['vx'], col['vy']) > 0.1,
                        np.arctan2(col['vy'], np.abs(col['vx'])), 0.0)
    twin.plot(t, sideslip, color='tab:orange', linestyle=':', label='sideslip [rad]')
    twin.set_ylabel('yaw rate, sideslip [rad/s, rad]', color='tab:red')
    ax.set_title('speed, yaw rate and sideslip')
    ax.grid(True)
    twin.legend(loc='upper right', fontsize=8)

    for ax, name, label, scale in ((axes[1, 0], 'slip_ratio', 'slip ratio [-]', 1.0),
                                   (axes[1, 1], 'slip_angle', 'slip angle [deg]',
                                    180.0 / math.pi)):
        for w in WHEELS:
            ax.plot(t, col[f'{name}_{w}'] * scale, label=w, linewidth=1.0)
        ax.set_xlabel('time [s]')
        ax.set_ylabel(label)
        ax.set_title(f'per-wheel {label}')
        ax.grid(True)
        ax.legend(loc='best', fontsize=8)
    axes[1, 0].set_ylim(-1.2, 1.2)
    if drivetrain:
        _plot_drivetrain(fig.add_subplot(rows, 1, 3), t, col)

    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _plot_drivetrain(ax, t: np.ndarray, col) -> None:
    """Plot the engine speed and, on a second axis, the gear engaged."""
    ax.plot(t, col['engine_rpm'], color='tab:purple', linewidth=1.0)
    ax.set_xlabel('time [s]')
    ax.set_ylabel('engine speed [rpm]', color='tab:purple')
    twin = ax.twinx()
    twin.step(t, col['gear'], where='post', color='tab:green', linewidth=1.0)
    twin.set_ylabel('gear (-1 reverse, 0 neutral)', color='tab:green')
    ax.set_title('engine speed and gear')
    ax.grid(True)
