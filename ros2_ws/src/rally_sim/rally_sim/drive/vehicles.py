"""
A car as another model of the family (`./rally drive --model`): what carries over, what is derived.

The kinematic bicycle takes a subset of any car's keys (lengths, mass,
steering, drive and brakes). The arcade bicycle (reference 000) also needs
each axle's cornering stiffness, a cornering force per newton of axle load
per radian: the four-wheel tyre's own slope at zero slip, mu B C D
(document 002's F = mu Fz D sin(C atan(B s)) at small s), or reference
000's 5.0 for a tyre given by a .tir file. Keys the model does not use
(the tyre's shape, the wheels' inertia, a drivetrain) are dropped, so a car
whose drivetrain the model cannot hold is driven by wheel torques. Keys the
car's own model does not use take the new model's defaults, or what DERIVED
makes of the car. A bicycle becomes no four-wheel car: its file has no tyre
shape (ConfigError says so).
"""

from typing import Any, Dict, Mapping

from ..physics.config import FIELDS, VehicleConfig

REFERENCE_STIFFNESS_PER_RAD = 5.0
"""Reference 000's cornering stiffness (per newton of load per radian) where no slope is known."""


def as_model(config: VehicleConfig, model: str) -> Dict[str, Any]:
    """Return the vehicle-file tree of `config`'s car as `model` (a key of MODELS)."""
    source = config['model']
    if model == source:
        raise ValueError(f"{config['name']} is a {model} car already")
    values = {key: value for key, value in config.values.items()      # set, and used by both
              if value is not None and model in FIELDS[key].models
              and source in FIELDS[key].models and key not in NUMERICS}
    values['model'] = model
    values['name'] = f"{config['name']}_{model}"
    if model == 'arcade_bicycle':
        for axle in ('front', 'rear'):
            values[f'arcade.cornering_stiffness_{axle}_per_rad'] = slope_per_rad(config, axle)
    for key, derive in DERIVED.items():
        if key not in values and model in FIELDS[key].models:
            values[key] = derive(config)
    return nested(values)


NUMERICS = ('dt', 'integrator', 'slip_model', 'low_speed_m_s')
"""How a model is integrated: each model's own defaults, never carried over."""
DERIVED = {
    'yaw_inertia_kg_m2': lambda c: c['mass_kg'] * c['cg_to_front_axle_m'] * c['cg_to_rear_axle_m'],
    'wheel_inertia_kg_m2':
        lambda c: 1.2 * c['mass_kg'] / 1050.0 * (c['wheel_radius_m'] / 0.31) ** 2,
    'tyres.front.mu': lambda c: 1.0,
    'tyres.rear.mu': lambda c: 1.0,
}
"""What a model needs that the car's own model has not: the yaw inertia of a car about its
CG as about m a b; a wheel's inertia as rwd_gravel's (1.2 kg m^2 for a 0.31 m wheel of a
1,050 kg car) scaled by the mass and the radius squared; a tyre's friction 1 (the surface's
grip scales it)."""


def slope_per_rad(config: VehicleConfig, axle: str) -> float:
    """Return an axle's tyre slope at zero slip per newton of load [1/rad]: mu B C D."""
    if config['model'] != 'four_wheel' or config[f'tyres.{axle}.tir']:
        return REFERENCE_STIFFNESS_PER_RAD
    return float(config[f'tyres.{axle}.mu'] * config[f'tyres.{axle}.B']
                 * config[f'tyres.{axle}.C'] * config[f'tyres.{axle}.D'])


def nested(values: Mapping[str, Any]) -> Dict[str, Any]:
    """Return dotted keys as a nested tree, as a vehicle file holds them."""
    tree: Dict[str, Any] = {}
    for key, value in values.items():
        *parents, leaf = key.split('.')
        branch = tree
        for part in parents:
            branch = branch.setdefault(part, {})
        branch[leaf] = value
    return tree
