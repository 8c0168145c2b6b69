"""
Train Stable-Baselines3's PPO to follow the rally stage's line: python -m rally_sim.gym.train_ppo.

    ./rally exec python -m rally_sim.gym.train_ppo --minutes 15 --output out/ppo

RallyDrive-v0's cars (make_sb3_vec_env: one batch, SB3's VecEnv), the
observations and rewards normalised by SB3's VecNormalize, PPO with an MLP
policy; torch runs on one thread (on two cores, torch's default of one
thread per core competes with the simulation: 8 times slower here).
Training stops after --minutes of wall time or --steps, whichever comes
first. Then the policy drives --eval-cars cars from evenly spaced places on
the line for an episode, deterministically; written into --output:
policy.zip and vecnormalize.pkl (the model and its normalisation),
curve.csv (steps, minutes, mean episode return, mean lateral error [m] of
the episodes that ended in that stretch), curve.png, evaluation.json.
Seeded (--seed): the starts, the policy's initial weights, its sampling.
"""

import argparse
import json
import os
import sys
import time
from typing import Sequence

import numpy as np

EVAL_SPEED_M_S = 5.0
"""The evaluation cars' speed at their start [m/s]."""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog='python -m rally_sim.gym.train_ppo',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--minutes', type=float, default=15.0,
                        help='wall-time budget of the training [min]; default 15')
    parser.add_argument('--steps', type=int, default=10_000_000,
                        help='most car-steps to train; default 10 M (the minutes end it first)')
    parser.add_argument('--cars', type=int, default=32, help='cars trained at once; default 32')
    parser.add_argument('--eval-cars', type=int, default=16,
                        help='cars the trained policy is evaluated on; default 16')
    parser.add_argument('--seed', type=int, default=0, help='default 0')
    parser.add_argument('--output', default='out/ppo', help='folder for the results')
    args = parser.parse_args(argv)
    for name in ('minutes', 'steps', 'cars', 'eval_cars'):
        if not getattr(args, name) > 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    return args


def main(argv: Sequence[str] = None) -> int:
    """Train, evaluate and write the results; return the exit status."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor, VecNormalize
    from .sb3 import make_sb3_vec_env

    torch.set_num_threads(1)
    os.makedirs(args.output, exist_ok=True)
    env = VecNormalize(VecMonitor(make_sb3_vec_env('rally_sim/RallyDrive-v0', args.cars,
                                                   seed=args.seed)), gamma=0.99)
    curve = []

    class Curve(BaseCallback):
        """Keep each stretch's mean episode return and lateral error; stop at the budget."""

        def __init__(self):
            super().__init__()
            self.start = time.monotonic()
            self.returns, self.lateral = [], []
            self.squares = np.zeros(args.cars)
            self.count = np.zeros(args.cars)

        def _on_step(self) -> bool:
            infos = self.locals['infos']
            cross = np.array([info['cross_track_m'] for info in infos])
            self.squares += np.abs(cross)
            self.count += 1
            for i, info in enumerate(infos):
                if 'episode' in info:
                    self.returns.append(info['episode']['r'])
                    self.lateral.append(self.squares[i] / self.count[i])
                    self.squares[i] = self.count[i] = 0.0
            minutes = (time.monotonic() - self.start) / 60.0
            return minutes < args.minutes

        def _on_rollout_end(self) -> None:
            minutes = (time.monotonic() - self.start) / 60.0
            if self.returns:
                curve.append((self.num_timesteps, minutes, float(np.mean(self.returns)),
                              float(np.mean(self.lateral))))
                print(f'{self.num_timesteps:9d} steps {minutes:6.2f} min: return '
                      f'{curve[-1][2]:8.2f}, lateral error {curve[-1][3]:.3f} m', flush=True)
                self.returns, self.lateral = [], []

    model = PPO('MlpPolicy', env, n_steps=256, batch_size=1024, n_epochs=10, gamma=0.99,
                gae_lambda=0.95, learning_rate=3e-4, ent_coef=0.0, seed=args.seed,
                policy_kwargs={'net_arch': [128, 128]}, device='cpu', verbose=0)
    started = time.monotonic()
    model.learn(total_timesteps=args.steps, callback=Curve())
    trained_min = (time.monotonic() - started) / 60.0
    model.save(os.path.join(args.output, 'policy.zip'))
    env.save(os.path.join(args.output, 'vecnormalize.pkl'))
    result = evaluate(model, env, args.eval_cars, args.seed)
    result.update(steps=int(model.num_timesteps), minutes=trained_min, cars=args.cars,
                  seed=args.seed)
    write_results(args.output, curve, result)
    print(f"trained {result['steps']} steps in {trained_min:.1f} min; the policy on "
          f"{args.eval_cars} cars: lateral error mean {result['lateral_error_mean_m']:.3f} m "
          f"(RMS {result['lateral_error_rms_m']:.3f} m), mean speed "
          f"{result['mean_speed_m_s']:.1f} m/s, {result['off_road']} off the road; results "
          f'in {args.output}')
    return 0


def evaluate(model, trained, cars: int, seed: int) -> dict:
    """Drive `cars` cars from evenly spaced places on the line for an episode; return figures."""
    from .envs import Fleet
    from .tasks import DriveTask
    fleet = Fleet(DriveTask, cars, seed=seed)
    rng = np.random.default_rng(seed)
    for row in range(cars):
        fleet.place(np.array([row]), rng, {'progress_m': row * fleet.task.path.length_m / cars,
                                           'speed_m_s': EVAL_SPEED_M_S})
    alive = np.ones(cars, dtype=bool)
    lateral, speed, off_road = [], [], 0
    for _ in range(fleet.max_steps):
        action, _ = model.predict(trained.normalize_obs(fleet.observe()), deterministic=True)
        _, terminated, _, info = fleet.step(action)
        lateral.append(np.where(alive, np.abs(info['cross_track_m']), np.nan))
        speed.append(np.where(alive, np.hypot(fleet.states[:, 3], fleet.states[:, 4]), np.nan))
        off_road += int(np.sum(terminated & alive))
        alive &= ~terminated
    lateral = np.array(lateral)
    return {'lateral_error_mean_m': float(np.nanmean(lateral)),
            'lateral_error_rms_m': float(np.sqrt(np.nanmean(lateral ** 2))),
            'mean_speed_m_s': float(np.nanmean(np.array(speed))), 'off_road': off_road,
            'eval_cars': cars, 'eval_s': fleet.max_steps * fleet.task.period_s}


def write_results(folder: str, curve, result: dict) -> None:
    """Write curve.csv, curve.png and evaluation.json."""
    with open(os.path.join(folder, 'curve.csv'), 'w', encoding='utf-8') as out:
        out.write('steps,minutes,mean_return,lateral_error_m\n')
        for row in curve:
            out.write(','.join(f'{v:g}' for v in row) + '\n')
    with open(os.path.join(folder, 'evaluation.json'), 'w', encoding='utf-8') as out:
        json.dump(result, out, indent=2)
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot
    figure, (top, bottom) = pyplot.subplots(2, 1, sharex=True, figsize=(7, 5))
    minutes = [row[1] for row in curve]
    top.plot(minutes, [row[2] for row in curve])
    top.set_ylabel('mean episode return')
    bottom.plot(minutes, [row[3] for row in curve])
    bottom.set_ylabel('mean |lateral error| [m]')
    bottom.set_xlabel('training time [min]')
    top.set_title('PPO on rally_sim/RallyDrive-v0')
    figure.tight_layout()
    figure.savefig(os.path.join(folder, 'curve.png'), dpi=100)
    pyplot.close(figure)


if __name__ == '__main__':
    sys.exit(main())
