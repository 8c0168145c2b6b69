"""
Seeded random plausible rear-drive cars, 1/10 scale to rally cars, as vehicle-file trees.

A car is drawn by its wheelbase (0.32 to 2.8 m, log-uniform) and scaled
from rwd_gravel: mass as the wheelbase cubed, wheel radius, track and CG
height in proportion to it, inertias from the masses; weight split 30/70 to
70/30; gravel-like tyres with their own B and C front and rear. The engine
and gearbox keep rwd_gravel's revs: the final drive is scaled so that the
engine turns at the same rpm on the car's own circle (4 to 8 wheelbases),
and the torques so that a wheel's drive is the same share of its weight.
The rear differential is open, clutch-pack or locked; the drive mode
torque or driver (the drivetrain and its differential); every other car
(even seeds) has a handbrake.
"""

import math
from typing import Dict, Tuple

import numpy as np

DIFFERENTIALS = ('open', 'clutch_pack', 'locked')
MODES = ('torque', 'driver')


def random_car(seed: int) -> Tuple[Dict, float, str]:
    """Return (vehicle tree, circle radius [m], drive mode) of a seeded random rear-drive car."""
    rng = np.random.default_rng(seed)
    wheelbase = float(np.exp(rng.uniform(math.log(0.32), math.log(2.8))))
    front_weight = rng.uniform(0.3, 0.7)
    lf, lr = wheelbase * (1.0 - front_weight), wheelbase * front_weight
    mass = 1300.0 * (wheelbase / 2.5) ** 3 * rng.uniform(0.75, 1.3)
    radius = wheelbase * rng.uniform(0.11, 0.17)
    circle = wheelbase * rng.uniform(4.0, 8.0)
    wheel_inertia = 1.2 * (radius / 0.31) ** 2 * (mass / 1050.0) * rng.uniform(0.7, 1.4)
    torque_scale = mass * radius / (1050.0 * 0.31)
    final = 4.1 * (radius / 0.31) / math.sqrt(circle / 15.0) * rng.uniform(0.85, 1.15)
    engine_scale = torque_scale * 4.1 / final
    diff = DIFFERENTIALS[int(rng.integers(3))]
    b = rng.uniform(6.0, 12.0)
    tyre = {'mu': 1.0, 'B': b, 'C': rng.uniform(1.2, 1.6), 'D': 1.0}
    tree = {
        'name': f'random_{seed}', 'mass_kg': mass,
        'yaw_inertia_kg_m2': mass * lf * lr * rng.uniform(0.8, 1.2),
        'wheel_inertia_kg_m2': wheel_inertia, 'wheel_radius_m': radius,
        'cg_to_front_axle_m': lf, 'cg_to_rear_axle_m': lr,
        'half_track_m': wheelbase * rng.uniform(0.27, 0.36),
        'cg_height_m': wheelbase * rng.uniform(0.15, 0.22),
        'tyres': {'front': dict(tyre), 'rear': dict(tyre, B=b * rng.uniform(0.9, 1.2))},
        'resistance': {'drag_coefficient_kg_m': 0.5 * (wheelbase / 2.4) ** 2,
                       'rolling_resistance_n_s_m': 15.0 * mass / 1050.0},
        'steering': {'max_angle_rad': rng.uniform(0.5, 0.7), 'max_rate_rad_s': 4.0},
        'drive': {'max_torque_front_n_m': 0.0, 'max_torque_rear_n_m': 1500.0 * torque_scale},
        'brakes': {'max_torque_front_n_m': 1500.0 * torque_scale,
                   'max_torque_rear_n_m': 1000.0 * torque_scale,
                   'handbrake_torque_n_m': 1500.0 * torque_scale if seed % 2 == 0 else 0.0},
        'drivetrain': {'layout': 'rwd'},
        'engine': {'torque_curve_rpm': [1000, 3000, 5000, 6500, 7500],
                   'torque_curve_n_m': [t * engine_scale for t in (130, 180, 205, 190, 160)],
                   'idle_rpm': 900, 'limit_rpm': 7800,
                   'inertia_kg_m2': 0.15 * (wheel_inertia / 1.2) / (final / 4.1) ** 2,
                   'braking_n_m': 40 * engine_scale},
        'gearbox': {'ratios': [3.2, 2.2, 1.65, 1.3, 1.05], 'reverse_ratio': 3.3,
                    'final_drive': final, 'efficiency': 0.88, 'shift_up_rpm': 7000,
                    'shift_down_rpm': 3500, 'shift_time_s': 0.15},
        'clutch': {'max_torque_n_m': 400 * engine_scale},
        'differential': {'rear': {'type': diff}},
    }
    if diff == 'clutch_pack':
        tree['differential']['rear'].update(preload_n_m=100.0 * torque_scale,
                                            lock_factor=rng.uniform(0.2, 0.7))
    return tree, float(circle), MODES[int(rng.integers(2))]


def tightest_radius_m(tree: Dict) -> float:
    """Return a car's tightest circle: its CG's at full steering lock, rolling without slip."""
    lf, lr = tree['cg_to_front_axle_m'], tree['cg_to_rear_axle_m']
    return math.hypot(lr, (lf + lr) / math.tan(tree['steering']['max_angle_rad']))


def on_springs(tree: Dict, seed: int) -> Dict:
    """
    Return a random car's tree on a suspension sized by the rules a user might follow.

    Ride 1.5 Hz front and 1.7 Hz rear on the sprung corner; bump damping 30 %
    and rebound 50 % of critical; unsprung masses 8 % of the corner; the
    tyre deflected 5 % of the wheel radius at static load; bars and roll
    centres drawn (seeded: bars up to the springs' own roll stiffness, roll centres up
    to half the CG height); travels in proportion to the wheel.
    """
    rng = np.random.default_rng(1000 + seed)
    mass, g = tree['mass_kg'], 9.81
    lf, lr = tree['cg_to_front_axle_m'], tree['cg_to_rear_axle_m']
    radius, cg, c = tree['wheel_radius_m'], tree['cg_height_m'], tree['half_track_m']
    corners = (0.5 * mass * lr / (lf + lr), 0.5 * mass * lf / (lf + lr))
    suspension = {}
    for axle, corner, hz in zip(('front', 'rear'), corners, (1.5, 1.7)):
        unsprung = 0.08 * corner
        sprung = corner - unsprung
        rate = sprung * (2.0 * math.pi * hz) ** 2
        critical = 2.0 * math.sqrt(rate * sprung)
        suspension[axle] = {
            'unsprung_mass_kg': unsprung, 'spring_rate_n_m': rate,
            'bump_damping_n_s_m': 0.3 * critical, 'rebound_damping_n_s_m': 0.5 * critical,
            'bump_travel_m': 0.35 * radius, 'rebound_travel_m': 0.3 * radius,
            'bump_stop_rate_n_m': 10.0 * rate, 'bump_stop_damping_n_s_m': 2.0 * critical,
            'anti_roll_bar_n_m_rad': rng.uniform(0.0, 1.0) * 2.0 * rate * c * c,
            'roll_centre_height_m': rng.uniform(0.0, 0.5) * cg,
            'tyre_rate_n_m': corner * g / (0.05 * radius),
            'tyre_damping_n_s_m': 0.02 * critical}
    sprung_mass = mass - 2.0 * sum(s['unsprung_mass_kg'] for s in suspension.values())
    suspension['roll_inertia_kg_m2'] = sprung_mass * (0.8 * c) ** 2
    suspension['pitch_inertia_kg_m2'] = 0.85 * tree['yaw_inertia_kg_m2']
    return dict(tree, name=tree['name'] + '_suspension', body='suspension',
                suspension=suspension)
