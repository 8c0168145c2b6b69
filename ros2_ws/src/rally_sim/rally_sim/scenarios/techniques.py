"""
A technique's scenario: its runs over ROS judged as control/techniques.py judges its own.

ROS-free: the runner hands over what the simulator published in each run (the
true odometry's states and the front wheels' loads and lateral forces); the
runs are moved into the frame of their start pose, so the technique's
signature reads them as it reads the runs it simulates itself.
"""

from typing import Any, Dict, List

import numpy as np

from ..control.techniques import MARGINS, Result, Run, start_framed, Technique, TECHNIQUES

FRONT_FIELDS = ['normal_load.0', 'normal_load.1', 'lateral_force.0', 'lateral_force.1']
"""What the runner reads of each state's wheel_slip for a technique: the front axle."""
TECHNIQUE_METRICS = ('emerged',) + tuple(MARGINS.values())
"""A technique scenario's metrics for thresholds: emerged (1 or 0) and each technique's margin
(the signature's figure against its control run); the report has the whole signature."""


def technique_of(spec: Dict[str, Any]) -> Technique:
    """Return the technique a scenario's controller drives, on the scenario's car."""
    params = spec['controller'].get('params', {})
    return TECHNIQUES[params['technique']](params.get('vehicle', spec['vehicle']))


def judged(spec: Dict[str, Any], results: Dict[str, Dict[str, Any]]) -> Result:
    """Return the signature of the scenario's runs (results: the runner's, by run name)."""
    technique = technique_of(spec)
    runs: List[Run] = []
    for name in technique.runs:
        states, front = results[name]['states'], results[name]['front']
        runs.append(start_framed(
            name, states['t'], states['x'], states['y'], states['yaw'], states['vx'],
            states['vy'], states['yaw_rate'], front[:, 0] + front[:, 1],
            front[:, 2] + front[:, 3]))
    return technique.judged(runs)


def technique_metrics(result: Result) -> Dict[str, float]:
    """Return a judged technique's metrics: its signature and emerged (1.0 or 0.0)."""
    return {**result.signature, 'emerged': float(result.emerged)}


QUANTITY = {'scandinavian_flick': 'sideslip', 'left_foot_braking': 'front_load',
            'trail_braking': 'front_load', 'handbrake_hairpin': 'yaw',
            'power_oversteer': 'sideslip', 'lift_off_oversteer': 'yaw_rate'}
"""The column each technique's figure draws over time, beside the path."""


def plot(result: Result, path: str) -> None:
    """Write a PNG: the paths (x, y) and the signature's quantity over time, each run."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    quantity = QUANTITY[result.technique]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for run in result.runs:
        left.plot(run.column('x'), run.column('y'), label=run.name)
        values = run.column(quantity)
        if quantity in ('sideslip', 'yaw'):
            values = np.degrees(values)
        right.plot(run.column('t'), values, label=run.name)
    left.set(xlabel='x [m] (from the start, along its heading)', ylabel='y [m]', aspect='equal',
             title='path')
    unit = {'sideslip': 'sideslip [deg]', 'yaw': 'heading [deg]', 'yaw_rate': 'yaw rate [rad/s]',
            'front_load': 'front axle load [N]'}[quantity]
    right.set(xlabel='t [s]', ylabel=unit, title=f'{result.technique} on {result.vehicle}')
    for axes in (left, right):
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
