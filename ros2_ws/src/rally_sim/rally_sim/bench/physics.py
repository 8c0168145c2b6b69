"""
Benchmark of the physics core: steps per second and real-time factors.

    python -m rally_sim.bench [--repeat N]

Prints, for the document mode and the default settings of the V40: the
compiled kernel's steps of 0.01 s per second (one Vehicle.advance() call
running many steps), Vehicle.step(0.01) calls per second in a Python loop
(command set once, as validation happens at set_command), the same with
set_command() in every call, the plain-Python reference step of document 002
(rally_sim.cli.reference_step) measured in the same run and the ratio, and the
real-time factor of replaying document 002's 7 s drift (Vehicle.run). Then
the kernel rate of a preset of each vehicle model, the drivetrain's cost
(driver mode against torque mode), and the batch rollouts' throughput. The
issues' targets are printed beside the figures.
"""

import argparse
import math
import os
import sys
import time

import numpy as np

from ..cli.reference_step import ReferenceStep
from ..physics import Command, load_vehicle, Vehicle
from ..physics.jit import ENABLED as JIT_ENABLED, njit
from ..physics.magic_formula import forces
from ..physics.model import COMMAND_SIZE, OMEGA, OUTPUT_ROWS, STATE_SIZE, VX
from ..physics.scenarios import document_scenario
from ..physics.trajectory import simulate
from ..physics.tyre import unit_forces

VEHICLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config',
                        'vehicles')
PERIOD_S = 0.01
COMMAND = Command(steer_rad=0.05, drive_torque_n_m=(0.0, 0.0, 150.0, 150.0))
TARGETS = {'kernel': 1_000_000, 'ratio': 20.0, 'drift': 1000.0}
SPRUNG_TARGET = 3.0
"""Issue 50: a step of a car on its suspension costs at most this many of the planar one's."""
RELAXED = ('tyre_relaxation=true', 'tyres.front.relaxation_length_x_m=0.15',
           'tyres.front.relaxation_length_y_m=0.4', 'tyres.rear.relaxation_length_x_m=0.15',
           'tyres.rear.relaxation_length_y_m=0.4')
"""Tyre relaxation for the bench's Magic Formula car: a car tyre's lengths (estimates)."""
"""Issue 8's targets: document-mode kernel steps/s, Vehicle.step vs the reference step,
default-settings drift real-time factor."""


def best_of(repeat: int, function) -> float:
    """Return the shortest wall time of `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def kernel_steps_per_s(car: Vehicle, n: int, repeat: int) -> float:
    """Return steps of PERIOD_S per second, n of them in one compiled call."""
    def run():
        car.reset(vx=10.0)
        car.set_command(COMMAND)
        car.advance(n, PERIOD_S)
    return n / best_of(repeat, run)


def vehicle_steps_per_s(car: Vehicle, n: int, repeat: int, command_each: bool) -> float:
    """Return Vehicle.step(PERIOD_S) calls per second (with set_command each time or not)."""
    def loop():
        car.reset(vx=10.0)
        car.set_command(COMMAND)
        for _ in range(n):
            if command_each:
                car.set_command(COMMAND)
            car.step(PERIOD_S)
    return n / best_of(repeat, loop)


def reference_steps_per_s(car: Vehicle, n: int, repeat: int) -> float:
    """Return document 002's plain-Python reference steps per second."""
    reference = ReferenceStep(car.config)

    def loop():
        car.reset(vx=10.0)
        z = car.state[VX:OMEGA + 4].copy()
        for _ in range(n):
            z = reference.step(z, 0.05, 150.0, 150.0, PERIOD_S)
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
    parser.add_argument('--batch-plot', default='out/batch_throughput.png',
                        help='where to write the batch throughput plot (PNG)')
    args = parser.parse_args(argv)
    print(f'JIT: {"numba" if JIT_ENABLED else "off (plain Python)"}; '
          f'steps of {PERIOD_S} s; best of {args.repeat}')
    print(f'{"vehicle file":<20}{"substeps":>9}{"kernel steps/s":>16}{"Vehicle.step/s":>16}'
          f'{"+set_command":>14}{"reference/s":>13}{"ratio":>8}{"drift x RT":>12}')
    kernels = {}
    for name, overrides in (('volvo_v40_document', ()), ('volvo_v40', ()), ('volvo_v40_mf', ()),
                            ('volvo_v40_mf relaxed', RELAXED), ('volvo_v40_suspension', ())):
        config = load_vehicle(os.path.join(VEHICLES, name.split()[0] + '.yaml'), overrides)
        car = Vehicle(config)
        kernel_steps_per_s(car, 10, 1)        # compile (or load the cache) first
        drift = drift_real_time_factor(config, args.repeat)
        kernel = kernel_steps_per_s(car, 100_000 if JIT_ENABLED else 100, args.repeat)
        steps = vehicle_steps_per_s(car, 20_000 if JIT_ENABLED else 50, args.repeat, False)
        with_command = vehicle_steps_per_s(car, 20_000 if JIT_ENABLED else 50, args.repeat,
                                           True)
        reference = reference_steps_per_s(car, 500, args.repeat)
        kernels[name] = kernel
        print(f'{name:<20}{car.substeps_for(PERIOD_S):>9}{kernel:>16,.0f}{steps:>16,.0f}'
              f'{with_command:>14,.0f}{reference:>13,.0f}{steps / reference:>7.1f}x'
              f'{drift:>11,.0f}x')
    print(f'targets (issue 8): document-mode kernel >= {TARGETS["kernel"]:,} steps/s; '
          f'Vehicle.step >= {TARGETS["ratio"]:g}x the reference step; default drift >= '
          f'{TARGETS["drift"]:g}x real time')
    print('before (issue 8, this machine 2026-11-22): document kernel 117,160 steps/s, '
          'Vehicle.step 3,345/s (the issue: 2.9x the reference), default drift x367')
    ratio = kernels['volvo_v40'] / kernels['volvo_v40_mf']
    relaxed = kernels['volvo_v40'] / kernels['volvo_v40_mf relaxed']
    print(f"Magic Formula tyres (volvo_v40_mf): a step costs {ratio:.2f}x volvo_v40's, "
          f"{relaxed:.2f}x with tyre relaxation (issue 49's target: at most 4x with it; the "
          'drift at 1 kHz at least x300 real time; Open-Car-Dynamics, C++ with MF 5.2 '
          'tyres: x52 here)')
    sprung = kernels['volvo_v40'] / kernels['volvo_v40_suspension']
    print(f'the body on its suspension (volvo_v40_suspension): a step costs {sprung:.2f}x '
          f"volvo_v40's (issue 50's target: at most {SPRUNG_TARGET:g}x)")
    models(args.repeat)
    magic_formula(args.repeat)
    drivetrain(args.repeat)
    equilibria(args.repeat)
    transition()
    batch(args.repeat, args.batch_plot)
    gym_envs()
    return 0


def gym_envs(periods: int = 40) -> None:
    """Print the vector environment's throughput: batched (the truth) and with profiles."""
    import gymnasium
    import rally_sim.gym  # noqa: F401  (registers the environments)
    print(f'\n{"rally_sim/RallyDrive-v0 vector":<34}{"cars":>6}{"car-periods/s":>15}'
          f'{"x real time":>13}')
    for sensors, cars in ((None, 256), (None, 1024), ('ideal', 16), ('typical', 16)):
        kwargs = {} if sensors is None else {'sensors': sensors, 'seed': 0}
        envs = gymnasium.make_vec('rally_sim/RallyDrive-v0', num_envs=cars,
                                  vectorization_mode='vector_entry_point', **kwargs)
        envs.reset(seed=0)
        actions = np.tile([0.05, 0.3], (cars, 1))
        envs.step(actions)      # compile or load the kernels
        start = time.perf_counter()
        for _ in range(periods):
            envs.step(actions)
        rate = cars * periods / (time.perf_counter() - start)
        label = 'batched, observed as they are' if sensors is None else f'sensors {sensors}'
        print(f'{label:<34}{cars:>6}{rate:>15,.0f}{rate * 0.05:>13,.0f}')
    print("with a profile each car runs in the simulator node's session (1 kHz physics, "
          'its sensors), as the node would run it; without one, the cars are batched')
    sb3_adapter(periods)


def sb3_adapter(periods: int, cars: int = 64, rounds: int = 15) -> None:
    """Print Stable-Baselines3's VecEnv (gym/sb3.py) beside the vector form, interleaved."""
    import gymnasium
    from ..gym.sb3 import make_sb3_vec_env
    vector = gymnasium.make_vec('rally_sim/RallyDrive-v0', num_envs=cars,
                                vectorization_mode='vector_entry_point')
    adapter = make_sb3_vec_env('rally_sim/RallyDrive-v0', cars)
    vector.reset(seed=0)
    adapter.reset()
    actions = np.tile([0.05, 0.3], (cars, 1))
    rates = {'vector': [], 'sb3': []}
    for _ in range(rounds):         # pairs in turn: the machine's speed drifts
        for name, step in (('vector', vector.step), ('sb3', adapter.step)):
            start = time.perf_counter()
            for _ in range(periods):
                step(actions)
            rates[name].append(cars * periods / (time.perf_counter() - start))
    ratio = np.median(np.array(rates['sb3']) / np.array(rates['vector']))
    print(f"Stable-Baselines3's VecEnv (make_sb3_vec_env), {cars} cars: "
          f"{np.median(rates['sb3']):,.0f} car-periods/s against the vector form's "
          f"{np.median(rates['vector']):,.0f} (medians of {rounds} interleaved pairs; "
          f'ratio {ratio:.3f}; issue 59: keeps the batch speed)')


EQUILIBRIA_TARGET_S = 2.0
"""Issue 34: a family of 50 equilibria solves in at most this long."""


def equilibria(repeat: int) -> None:
    """Print how long a family of 50 steady states, 0 to -49 deg, with their stability takes."""
    from ..physics import Surface
    from ..physics.equilibria import SteadyState
    print(f'\n{"equilibria, 50 points":<34}{"mode":>8}{"family [s]":>12}{"per point [ms]":>16}')
    sideslips = np.radians(np.linspace(0.0, -49.0, 50))
    for name, surface, mode in (('rwd_gravel', 'gravel', 'driver'),
                                ('rwd_gravel', 'gravel', 'torque'),
                                ('volvo_v40', 'tarmac_dry', 'torque')):
        car = Vehicle(load_vehicle(os.path.join(VEHICLES, name + '.yaml')),
                      Surface.uniform(surface))

        def solve():
            SteadyState(car, mode).family(sideslips, radius_m=15.0)
        solve()                               # compile (or load the cache) first
        wall = best_of(repeat, solve)
        print(f'{name + " on " + surface + ", R 15 m":<34}{mode:>8}{wall:>12.3f}'
              f'{1000 * wall / 50:>16.1f}')
    print(f'target (issue 34): a family of 50 points in at most {EQUILIBRIA_TARGET_S:g} s, '
          'eigenvalues included')


def transition() -> None:
    """Plan the shipped figure-eight transition again: its time, and whether it is the file's."""
    from ..control.drift.lqr import DriftDesign, DriftLqr
    from ..control.drift.transition import design_transition, load_transition
    from ..resources import config_file
    shipped = load_transition(config_file('transitions/rwd_gravel_gravel_15m.yaml'))
    d = shipped.design
    left = DriftLqr(load_vehicle(os.path.join(VEHICLES, d['vehicle'] + '.yaml')), d['surface'],
                    DriftDesign(radius_m=d['radius_m'], gear=d['gear'],
                                sideslip_rad=math.radians(d['sideslip_deg'])))
    start = time.perf_counter()
    planned = design_transition(d['vehicle'], left)
    wall = time.perf_counter() - start
    # numba compiles for the host's processor: another one may plan it a rounding apart
    steer = float(np.max(np.abs(planned.steer_rad - shipped.steer_rad)))
    spin = float(np.max(np.abs(planned.rear_wheel_speed_rad_s - shipped.rear_wheel_speed_rad_s)))
    m = planned.measured
    print(f"\ntransition plan, {d['vehicle']} on {d['surface']}, R {d['radius_m']:g} m: "
          f"{wall:.1f} s, {m['runs']} runs; lateral max {m['lateral_max_m']:.3f} m, regain "
          f"{m['regain_s']:.2f} s; from the shipped plan's knots at most {steer:.1e} rad of "
          f'steer and {spin:.1e} rad/s of rear wheel speed (0: bit for bit)')


BATCH_TARGETS = {'volvo_v40_document': 10_000_000, 'volvo_v40': 2_000_000,
                 'volvo_v40_document_tir': 5_000_000}
"""Issue 11: car-steps/s in document numerics, car sub-steps/s in the default numerics;
issue 49: car-steps/s in vector lanes on .tir tyres."""
BATCH_TIR = {'tyres.front.tir': 'pacejka_2006_205_60r15', 'tyres.front.camber_rad': -0.0087,
             'tyres.rear.tir': 'pacejka_2006_205_60r15', 'tyres.rear.camber_rad': -0.0175}
"""volvo_v40_document_tir: volvo_v40_document on volvo_v40_mf's tyres (document numerics)."""


BATCH_CARS = (100, 300, 1000, 3000, 10000)
"""Batch sizes measured (the targets hold for 1,000-10,000)."""

BATCH_RUNS = (('volvo_v40_document', True, False), ('volvo_v40_document_tir', True, False),
              ('volvo_v40_document_tir', False, False), ('volvo_v40_document', False, False),
              ('volvo_v40_document', False, True), ('volvo_v40', False, False),
              ('volvo_v40', False, True))
"""(vehicle file, in vector lanes, with tyre states) of each batch figure."""


def batch(repeat: int, plot_path: str, horizon: int = 50) -> None:
    """Print batch rollout throughput (N cars x H steps of PERIOD_S in one call) and memory."""
    from ..physics.batch.rollouts import Batch
    print(f'\n{"batch rollouts (H = " + str(horizon) + ")":<24}{"kernel":>8}{"tyres":>6}'
          f'{"cars":>7}{"car-steps/s":>14}{"car sub-steps/s":>17}{"memory MB":>11}')
    curves = {}
    for name, lanes, tyres in BATCH_RUNS:
        tir = name.endswith('_tir')
        config = load_vehicle(os.path.join(VEHICLES, name.removesuffix('_tir') + '.yaml'))
        config = config.with_overrides(BATCH_TIR) if tir else config
        car = Vehicle(config)
        car.reset(vx=10.0)
        substeps = car.substeps_for(PERIOD_S)
        for cars in BATCH_CARS if JIT_ENABLED else (10,):
            rollouts = Batch(config, cars)
            states = np.repeat(car.state[None], cars, axis=0)
            steer = np.full((cars, horizon), COMMAND.steer_rad)
            drive = np.tile(COMMAND.drive_torque_n_m, (cars, horizon, 1))

            def run(rows: int = horizon):
                return rollouts.rollout(states, steer[:, :rows], drive[:, :rows], dt=PERIOD_S,
                                        tyres=tyres, lanes=lanes)
            run(1)          # compile or load the cache
            rate = cars * horizon / best_of(repeat, run)
            rows = STATE_SIZE + (0 if lanes else COMMAND_SIZE) + (OUTPUT_ROWS * 4 if tyres else 0)
            memory = rollouts.work_bytes + cars * horizon * 8 * rows   # results, commands
            curves.setdefault((name, lanes, tyres), []).append((cars, rate * (
                1 if name.startswith('volvo_v40_document') else substeps)))
            print(f'{name:<24}{"lanes" if lanes else "cars":>8}{"yes" if tyres else "no":>6}'
                  f'{cars:>7}{rate:>14,.0f}{rate * substeps:>17,.0f}{memory / 1e6:>11.1f}')
    print(f'targets (issue 11): {BATCH_TARGETS["volvo_v40_document"]:,} car-steps/s in '
          f'document numerics, {BATCH_TARGETS["volvo_v40"]:,} car sub-steps/s in the default '
          'numerics, N = 1,000-10,000, H = 50; (issue 49) '
          f'{BATCH_TARGETS["volvo_v40_document_tir"]:,} car-steps/s in vector lanes on .tir '
          "tyres (volvo_v40_document_tir: volvo_v40_document on volvo_v40_mf's tyres)")
    print('kernel: lanes = rollout(lanes=True), the cars in vector lanes (document numerics '
          "only, not bit for bit); cars = each car the single car's kernel, bit for bit. "
          'Before lanes (this machine, 2026-11-22/23): document numerics 1.47-1.97 M '
          'car-steps/s without tyre states; lanes before their load pass was vectorised '
          '(2026-11-23): 7.5-14.8 M')
    _plot_batch(curves, plot_path)
    mppi(repeat)


def mppi(repeat: int) -> None:
    """Print the example MPPI controller's time per command on the rally stage."""
    from ..control.mppi import Mppi
    from ..control.path import ClosedPath
    from ..physics.surfaces import Surface
    from ..resources import config_file
    from ..world.stages import read_path
    config = load_vehicle(os.path.join(VEHICLES, 'volvo_v40.yaml'))
    path = ClosedPath(read_path(config_file('stages/rally_stage_path.csv')))
    controller = Mppi(config, Surface.load(config_file('stages/rally_stage.yaml')), path)
    car = Vehicle(config)
    start, ahead = path.points[0], path.points[1] - path.points[0]
    car.reset(start[0], start[1], math.atan2(ahead[1], ahead[0]), 8.0)
    controller.command(car.state)
    wall = best_of(repeat, lambda: controller.command(car.state))
    s = controller.settings
    print(f'MPPI command (volvo_v40 on rally_stage, {s.samples} samples x {s.horizon} periods '
          f'of {s.period_s:g} s, model dt {s.model_dt_s:g} s): {wall * 1e3:.1f} ms '
          f'({wall / s.period_s:.0%} of the control period)')


def _plot_batch(curves, path: str) -> None:
    """Write the throughput-against-N plot (one line per vehicle file and tyres choice)."""
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    for (name, lanes, tyres), points in curves.items():
        cars, rates = zip(*points)
        unit = 'car-steps/s' if name.startswith('volvo_v40_document') else 'car sub-steps/s'
        axes.plot(cars, rates, '^-' if lanes else ('o-' if tyres else 's--'),
                  label=f'{name} ({unit}){", vector lanes" if lanes else ""}'
                        f'{"" if tyres else ", no tyre states"}')
    for name, target in BATCH_TARGETS.items():
        axes.axhline(target, color='grey', linewidth=0.8, linestyle=':')
        axes.annotate(f'target {name}', (BATCH_CARS[0], target), fontsize=8,
                      va='bottom', color='grey')
    axes.set(xscale='log', yscale='log', xlabel='cars N (H = 50 steps of 0.01 s)',
             ylabel='throughput per second', title='rally_sim batch rollouts on this machine')
    axes.legend(fontsize=8)
    axes.grid(True, which='both', alpha=0.3)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    figure.savefig(path, dpi=100, bbox_inches='tight')
    pyplot.close(figure)
    print(f'plot of throughput against N: {path}')


MODEL_PRESETS = ('volvo_v40', 'volvo_v40_kinematic', 'arcade_group_b')
"""A preset of each vehicle model, the four-wheel one first (the others are compared to it)."""
MODEL_TARGET = 3.0
"""Issue 10: the bicycle models step at least this many times the four-wheel model's rate."""


def models(repeat: int) -> None:
    """Print each model's kernel steps of PERIOD_S per second, at its preset's own sub-step."""
    print(f'\n{"model (preset)":<42}{"substeps":>9}{"kernel steps/s":>16}'
          f'{"substeps/s":>14}{"vs four_wheel":>15}')
    four_wheel = None
    for name in MODEL_PRESETS:
        config = load_vehicle(os.path.join(VEHICLES, name + '.yaml'))
        car = Vehicle(config)
        kernel_steps_per_s(car, 10, 1)
        rate = kernel_steps_per_s(car, 20_000 if JIT_ENABLED else 20, repeat)
        four_wheel = four_wheel or rate
        substeps = car.substeps_for(PERIOD_S)
        print(f'{config["model"] + " (" + name + ")":<42}{substeps:>9}{rate:>16,.0f}'
              f'{rate * substeps:>14,.0f}{rate / four_wheel:>14.1f}x')
    print(f'target (issue 10): each bicycle model >= {MODEL_TARGET:g}x the four-wheel '
          "model's steps/s")


MF_TARGET_US = 0.75
"""Issue 49: one Magic Formula evaluation (Fx and Fy in combined slip, one tyre) at most this."""


@njit
def _mf_loop(p, version52: bool, moments: bool, n: int, out) -> float:
    """Evaluate the Magic Formula n times over varying slips; return a sum (kept alive)."""
    total = 0.0
    for k in range(n):
        kappa, alpha = 0.002 * (k % 97) - 0.1, 0.003 * (k % 89) - 0.13
        forces(p, version52, 4000.0 + (k % 13), kappa, alpha, 0.01, 20.0, 2.2e5, out, moments)
        total += out[0] + out[1]
    return total


@njit
def _document_tyre_loop(n: int) -> float:
    """Evaluate document 002's tyre (slips and unit forces) n times over the same slips."""
    total = 0.0
    for k in range(n):
        sx, sy = 0.002 * (k % 97) - 0.1, 0.003 * (k % 89) - 0.13
        fx, fy = unit_forces(sx, sy, 10.0, 1.9, 1.0)
        total += fx + fy
    return total


def magic_formula(repeat: int, n: int = 1_000_000) -> None:
    """Print the time of one Magic Formula evaluation, beside document 002's tyre."""
    from ..physics.magic_formula import coefficients, OUTPUTS
    from ..physics.tir import read_tir
    from ..resources import tyre_path
    n = n if JIT_ENABLED else 1000
    out = np.zeros(len(OUTPUTS))
    print(f'\n{"tyre evaluation (one tyre)":<52}{"us":>8}')
    rows = [('document 002 (combined slip magnitude)', lambda: _document_tyre_loop(n))]
    for name in ('pacejka_2006_205_60r15',):
        tyre = read_tir(tyre_path(name))
        p, version52 = coefficients(tyre), tyre.version == '5.2'
        rows += [(f'MF {tyre.version} Fx, Fy combined ({name})',
                  lambda: _mf_loop(p, version52, False, n, out)),
                 (f'MF {tyre.version} Fx, Fy, Mz, My combined',
                  lambda: _mf_loop(p, version52, True, n, out))]
    for label, run in rows:
        run()                           # compile (or load the cache) first
        print(f'{label:<52}{1e6 * best_of(repeat, run) / n:>8.3f}')
    print(f'target (issue 49): Fx and Fy in combined slip <= {MF_TARGET_US:g} us (a compiled '
          'C++ MF 5.2 takes 0.50 us here)')


DRIVETRAIN_TARGET = 0.30
"""Issue 9: the drivetrain costs at most this share of the kernel's steps/s."""


def drivetrain(repeat: int, seconds: float = 20.0) -> None:
    """
    Print the kernel's rate for a car driven through its drivetrain and by torques.

    The same car and manoeuvre both ways: full throttle from rest through
    the gears (driver mode), then the drive torques it produced given
    per wheel (torque mode, each row's last sub-step's torques).
    """
    from ..physics import DriverCommand
    from ..physics.drivetrain.equations import AUTOMATIC
    print(f'\n{"drivetrain (corvette_c5)":<28}{"substeps":>9}{"torque mode/s":>15}'
          f'{"driver mode/s":>15}{"cost":>7}')
    rows = int(seconds / PERIOD_S) if JIT_ENABLED else 20
    ones, zeros = np.ones(rows), np.zeros(rows)
    dts, gears = np.full(rows, PERIOD_S), np.full(rows, AUTOMATIC)
    for integrator in ('implicit_euler', 'euler'):
        config = load_vehicle(os.path.join(VEHICLES, 'corvette_c5.yaml'),
                              [f'integrator={integrator}'])
        car = Vehicle(config)
        car.set_command(DriverCommand(throttle=1.0))
        torques = np.zeros((rows, 4))
        for k in range(rows):
            car.step(PERIOD_S)
            torques[k] = car.drivetrain().drive_torque_n_m
        brakes = np.zeros((rows, 4))

        def torque_mode():
            Vehicle(config).run(zeros, zeros, torques, brakes, zeros, dts)

        def driver_mode():
            Vehicle(config).run_driver(zeros, zeros, ones, zeros, zeros, gears, dts)
        torque_mode()
        driver_mode()
        walls = [1e9, 1e9]
        for _ in range(repeat):       # interleaved, the best of each kept
            walls = [min(walls[0], best_of(1, torque_mode)),
                     min(walls[1], best_of(1, driver_mode))]
        torque_rate, driver_rate = rows / walls[0], rows / walls[1]
        print(f'{integrator:<28}{car.substeps_for(PERIOD_S):>9}{torque_rate:>15,.0f}'
              f'{driver_rate:>15,.0f}{1.0 - driver_rate / torque_rate:>7.0%}')
    print(f'target (issue 9): the drivetrain costs <= {DRIVETRAIN_TARGET:.0%} of the steps/s '
          '(steps of 0.01 s, 20 s of full throttle from rest)')


if __name__ == '__main__':
    sys.exit(main())
