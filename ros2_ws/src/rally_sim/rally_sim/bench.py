"""
Benchmark of the physics core: steps per second and real-time factors.

    python -m rally_sim.bench [--repeat N]

Prints, for the document mode and the default settings of the V40: the
compiled kernel's fixed steps per second (one 0.01 s command period each),
the Vehicle.step() calls per second (checks and copies included, as the ROS
node uses it), and the real-time factor of replaying document 002's 7 s drift.
"""

import argparse
import os
import sys
import time

import numpy as np

from .physics import Command, load_vehicle, Vehicle
from .physics.integrators import JACOBIAN_REFRESH_SUBSTEPS, step
from .physics.jit import ENABLED as JIT_ENABLED
from .physics.scenarios import document_scenario
from .physics.trajectory import simulate

VEHICLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'config', 'vehicles')
PERIOD_S = 0.01


def best_of(repeat: int, function) -> float:
    """Return the shortest wall time of `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def kernel_steps_per_s(car: Vehicle, n: int, repeat: int) -> float:
    """Return fixed steps of PERIOD_S per second through the compiled kernel alone."""
    state, diag = car.state.copy(), np.zeros_like(car.diag)
    matrix = np.zeros((7, 7))
    drive, brake = np.array([0.0, 0.0, 150.0, 150.0]), np.zeros(4)
    substeps = car.substeps_for(PERIOD_S)

    def loop():
        age = JACOBIAN_REFRESH_SUBSTEPS
        for _ in range(n):
            age = step(state, 0.05, 0.0, drive, brake, car.friction, PERIOD_S, substeps,
                       car.method, car.params, diag, matrix, age)
    return n / best_of(repeat, loop)


def vehicle_steps_per_s(car: Vehicle, n: int, repeat: int) -> float:
    """Return Vehicle.step(PERIOD_S) calls per second, command checks included."""
    def loop():
        for _ in range(n):
            car.set_command(Command(steer_rad=0.05, drive_torque_n_m=(0.0, 0.0, 150.0, 150.0)))
            car.step(PERIOD_S)
    return n / best_of(repeat, loop)


def drift_real_time_factor(config, repeat: int) -> float:
    """Return simulated seconds per wall second replaying the 7 s drift scenario."""
    scenario = document_scenario('drift')

    def run():
        car = Vehicle(config)
        car.reset(vx=scenario.initial_speed_m_s)
        simulate(car, scenario.inputs)
    return 7.0 / best_of(repeat, run)


def main(argv=None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.bench', description=__doc__)
    parser.add_argument('--repeat', type=int, default=5, help='runs per figure (best kept)')
    args = parser.parse_args(argv)
    print(f'JIT: {"numba" if JIT_ENABLED else "off (plain Python)"}; '
          f'command period {PERIOD_S} s; best of {args.repeat}')
    print(f'{"vehicle file":<22}{"substeps":>9}{"kernel steps/s":>16}'
          f'{"Vehicle.step/s":>16}{"drift 7 s, x real time":>24}')
    for name in ('volvo_v40_document', 'volvo_v40'):
        config = load_vehicle(os.path.join(VEHICLES, name + '.yaml'))
        car = Vehicle(config)
        car.reset(vx=10.0)
        kernel_steps_per_s(car, 10, 1)        # compile (or load the cache) first
        simulate_rtf = drift_real_time_factor(config, args.repeat)
        print(f'{name:<22}{car.substeps_for(PERIOD_S):>9}'
              f'{kernel_steps_per_s(car, 20000, args.repeat):>16,.0f}'
              f'{vehicle_steps_per_s(car, 5000, args.repeat):>16,.0f}{simulate_rtf:>24,.0f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
