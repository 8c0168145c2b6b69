"""
Vehicle files: YAML, validated on load against one declared schema.

Every key is declared once below with its type, allowed range and meaning,
and, for the keys a file may leave out, its default. An unknown key, a
missing key, a wrong type, a non-finite or out-of-range
value is a ConfigError that names the key and what is allowed.
"""

from dataclasses import dataclass
import functools
import math
import os
from typing import Any, Dict, Iterable, Mapping, NamedTuple, Optional, Tuple

import numpy as np
import yaml

from .body.parameters import body_block, problems as suspension_problems
from .drivetrain.equations import DIFFERENTIALS, drivetrain_block, TORQUE_MODE_DIFFERENTIALS
from .files import config_file, read_yaml
from .integrators import INTEGRATORS
from .magic_formula import has_relaxation
from .model import (
    ARCADE_BICYCLE, FOUR_WHEEL, KINEMATIC_BICYCLE, LOAD_DOCUMENT, LOAD_EXACT, MF_AXLE_SIZE,
    ModelParams, TYRE_DOCUMENT, TYRE_MF)
from .tir import read_tir, TirError, TyreFile
from .tyre import SLIP_DOCUMENT, SLIP_REGULARIZED

SLIP_MODELS = {'document': SLIP_DOCUMENT, 'regularized': SLIP_REGULARIZED}
LOAD_TRANSFERS = {'exact': LOAD_EXACT, 'document': LOAD_DOCUMENT}
MODELS = {'four_wheel': FOUR_WHEEL, 'kinematic_bicycle': KINEMATIC_BICYCLE,
          'arcade_bicycle': ARCADE_BICYCLE}
"""Vehicle models by their name in the vehicle file's `model` key."""
ALL = tuple(MODELS)
PACEJKA = ('four_wheel',)
"""The model with Pacejka tyres, wheel spin and a choice of integrators."""
SLIDING = ('four_wheel', 'arcade_bicycle')
"""The models whose tyres slide (friction, yaw inertia, low-speed regularisation)."""
ROLLING = ('four_wheel', 'kinematic_bicycle')
"""The models with per-wheel steer geometry and wheel inertia."""
ARCADE = ('arcade_bicycle',)


class ConfigError(ValueError):
    """A vehicle file or override that cannot be used; the message names the key."""


class Field(NamedTuple):
    """
    One key of the vehicle file: type, range or choices, meaning and default.

    A key without a default (None) must be in every vehicle file of the
    models that use it (`models`); a file of another model may not set it.
    """

    kind: type
    low: Optional[float]
    high: Optional[float]
    description: str
    choices: Tuple[str, ...] = ()
    default: Any = None
    models: Tuple[str, ...] = ALL
    neutral: Any = None
    """What the kernels read for this key in a car of a model that does not use it."""
    length: Tuple[int, int] = (0, 0)
    """For a list of numbers (kind list): fewest and most entries; low, high bound each."""


def _tyre_fields(axle: str) -> Dict[str, Field]:
    return {
        f'tyres.{axle}.mu': Field(float, 0.01, 5.0, f'{axle} tyre friction coefficient '
                                  f'(not with tyres.{axle}.tir, nor B, C, D)',
                                  models=SLIDING, neutral=1.0),
        f'tyres.{axle}.B': Field(float, 0.1, 100.0, f'{axle} Pacejka stiffness factor B',
                                 models=PACEJKA, neutral=10.0),
        f'tyres.{axle}.C': Field(float, 0.1, 3.0, f'{axle} Pacejka shape factor C',
                                 models=PACEJKA, neutral=1.3),
        f'tyres.{axle}.D': Field(float, 0.1, 3.0, f'{axle} Pacejka peak factor D',
                                 models=PACEJKA, neutral=1.0),
        f'tyres.{axle}.tir': Field(
            str, None, None, f'{axle} tyre property file (.tir, Magic Formula 5.2 or 6.x): a '
            "path (relative: beside the vehicle file) or a shipped tyre's name; instead of "
            'mu, B, C and D, on both axles', (), '', models=PACEJKA, neutral=''),
        f'tyres.{axle}.camber_rad': Field(
            float, -0.2, 0.2, f'{axle} static camber of a .tir tyre [rad], negative: the '
            "wheels' tops lean in", (), 0.0, models=PACEJKA, neutral=0.0),
        f'tyres.{axle}.pressure_pa': Field(
            float, 0.0, 1.0e7, f'{axle} inflation pressure of an MF 6.x .tir tyre [Pa], 0: '
            "the file's", (), 0.0, models=PACEJKA, neutral=0.0),
        f'tyres.{axle}.relaxation_length_x_m': Field(
            float, 0.0, 5.0, f'{axle} longitudinal relaxation length [m] (tyre_relaxation); '
            "0: the .tir file's, with load (PTX1-3, or the carcass stiffness)", (), 0.0,
            models=PACEJKA, neutral=0.0),
        f'tyres.{axle}.relaxation_length_y_m': Field(
            float, 0.0, 5.0, f'{axle} lateral relaxation length [m] (tyre_relaxation); 0: '
            "the .tir file's, with load (PTY1-2, or the carcass stiffness)", (), 0.0,
            models=PACEJKA, neutral=0.0),
    }


RELAXATION_KEYS = ('relaxation_length_x_m', 'relaxation_length_y_m')
DOCUMENT_TYRE_KEYS = ('mu', 'B', 'C', 'D')
"""An axle's keys of document 002's tyre, which a .tir tyre replaces."""
MF_TYRE_KEYS = ('camber_rad', 'pressure_pa')
"""An axle's keys that only a .tir tyre reads."""


ACTUATORS = {
    'steer': ('rad', 100.0),
    'drive': ("share of full drive: the wheel's drive torque limit, or full throttle", 1000.0),
    'brake': ("share of full brake: the wheel's brake torque limit (pedal: of full travel)",
              1000.0),
    'handbrake': ('share of the full lever', 1000.0),
}
"""The actuators of the `actuation:` section: the unit of their values, largest rate."""
STEER_ALIASES = {'actuation.steer.time_constant_s': 'steering.time_constant_s',
                 'actuation.steer.rate_limit': 'steering.max_rate_rad_s'}
"""Keys that name one setting twice: the steering section's older names."""


def _actuator_fields(name: str) -> Dict[str, Field]:
    unit, fastest = ACTUATORS[name]
    rate = f'{unit} per second' if name != 'steer' else 'rad/s'
    return {
        f'actuation.{name}.delay_s': Field(
            float, 0.0, 1.0, f'{name} dead time [s of simulated time]: a command takes effect '
            'this long after it arrived, to the physics step', (), 0.0),
        f'actuation.{name}.time_constant_s': Field(
            float, 0.0, 5.0, f'{name} first-order lag after the dead time [s], 0: none', (),
            0.0),
        f'actuation.{name}.rate_limit': Field(
            float, 0.0, fastest, f'{name} rate limit [{rate}], 0: none', (), 0.0),
        f'actuation.{name}.dead_band': Field(
            float, 0.0, 1.0, f'{name} commands of at most this size act as 0 [{unit}]', (), 0.0),
        f'actuation.{name}.bias': Field(
            float, -1.0, 1.0, f'{name} offset added to every command [{unit}]', (), 0.0),
    }


LAYOUTS = ('none', 'fwd', 'rwd', 'awd')
"""drivetrain.layout: none (per-wheel torques as commanded) or the driven axles."""


def _differential_fields(place: str) -> Dict[str, Field]:
    return {
        f'differential.{place}.type': Field(
            str, None, None, f'{place} differential: open (equal torques), locked (equal '
            'speeds), clutch_pack (preload + lock factor x input torque) or torque_bias '
            '(torques differ by at most bias_ratio)', tuple(DIFFERENTIALS), 'open'),
        f'differential.{place}.preload_n_m': Field(
            float, 0.0, 10000.0, f'{place} clutch-pack preload [N m]', (), 0.0),
        f'differential.{place}.lock_factor': Field(
            float, 0.0, 1.0, f'{place} clutch-pack share of the input torque it can move',
            (), 0.0),
        f'differential.{place}.bias_ratio': Field(
            float, 1.0, 20.0, f'{place} torque-bias ratio (high / low output torque)', (), 2.0),
    }


DRIVETRAIN_FIELDS: Dict[str, Field] = {
    'drivetrain.layout': Field(
        str, None, None, 'none: the commanded per-wheel torques drive the wheels; fwd, rwd, '
        'awd: an engine, clutch, gearbox and differentials drive those axles', LAYOUTS,
        'none'),
    'engine.torque_curve_rpm': Field(
        list, 0.0, 30000.0, 'engine speeds of the torque curve [rpm], increasing',
        length=(2, 64)),
    'engine.torque_curve_n_m': Field(
        list, 0.0, 20000.0, 'largest engine torque at each of torque_curve_rpm [N m]',
        length=(2, 64)),
    'engine.idle_rpm': Field(float, 100.0, 5000.0, 'idle speed [rpm]', (), 800.0),
    'engine.limit_rpm': Field(float, 500.0, 30000.0, 'rev limiter: no drive torque at or '
                              'above it [rpm]'),
    'engine.inertia_kg_m2': Field(float, 1.0e-6, 10.0, 'engine and flywheel inertia [kg m^2]',
                                  (), 0.2),
    'engine.braking_n_m': Field(float, 0.0, 5000.0, 'engine braking at closed throttle and '
                                'the limiter speed (less in proportion below it) [N m]', (),
                                50.0),
    'gearbox.ratios': Field(list, 0.05, 20.0, 'forward gear ratios, first gear first',
                            length=(1, 12)),
    'gearbox.reverse_ratio': Field(float, 0.05, 20.0, 'reverse gear ratio (magnitude)'),
    'gearbox.final_drive': Field(float, 0.05, 50.0, 'final drive (differential) ratio'),
    'gearbox.efficiency': Field(float, 0.1, 1.0, 'share of the engine power that reaches '
                                'the wheels', (), 0.9),
    'gearbox.shift_up_rpm': Field(float, 500.0, 30000.0, 'automatic upshift speed [rpm]'),
    'gearbox.shift_down_rpm': Field(float, 100.0, 30000.0, 'automatic downshift speed [rpm]'),
    'gearbox.shift_time_s': Field(float, 0.0, 5.0, 'time a shift interrupts the torque [s]',
                                  (), 0.2),
    'clutch.max_torque_n_m': Field(float, 0.01, 20000.0, 'torque the engaged clutch holds '
                                   '[N m]'),
    **_differential_fields('front'),
    **_differential_fields('rear'),
    'differential.centre.type': Field(
        str, None, None, 'centre differential of an awd car: open (front_share of the torque '
        'to the front axle) or locked (both axles at one speed)', ('open', 'locked'), 'open'),
    'differential.centre.front_share': Field(
        float, 0.0, 1.0, 'share of the torque an open centre differential sends to the front '
        'axle', (), 0.5),
}


def _torque_mode_fields() -> Dict[str, Field]:
    fields = {}
    for place in ('front', 'rear'):
        for key, spec in _differential_fields(place).items():
            if key.endswith('.type'):
                spec = spec._replace(
                    description=f'{place} axle in torque mode: independent (each wheel the '
                    'torque commanded for it, as wheel motors) or a differential that takes '
                    "the axle's summed torque: open (equal torques), locked (equal speeds), "
                    'clutch_pack or torque_bias', choices=tuple(TORQUE_MODE_DIFFERENTIALS),
                    default='independent')
            fields[f'torque_mode.{key}'] = spec
    fields['torque_mode.max_power_w'] = Field(
        float, 0.0, 1.0e7, "torque mode's motor: largest power into (and out of) the driven "
        'wheels together [W], 0: none', (), 0.0)
    fields['torque_mode.max_wheel_speed_rad_s'] = Field(
        float, 0.0, 1.0e5, "torque mode's motor: no drive torque beyond this wheel speed "
        '(an axle with a differential: its mean) [rad/s], 0: none', (), 0.0)
    return {key: spec._replace(models=PACEJKA, neutral=spec.default)
            for key, spec in fields.items()}


TORQUE_MODE_FIELDS = _torque_mode_fields()
"""Torque mode's drive (four-wheel model): an electric motor's limits and each axle's
differential, with no engine or gearbox (drivetrain/torque_mode.py)."""


BODIES = ('planar', 'suspension')
"""The `body` key's choices: document 002's planar body, or a sprung body on its suspension."""


def _suspension_axle_fields(axle: str) -> Dict[str, Field]:
    at = f'{axle} wheels'
    return {
        f'suspension.{axle}.spring_rate_n_m': Field(
            float, 1.0, 1.0e8, f"{at}' spring rate at the wheel (wheel rate) [N/m]"),
        f'suspension.{axle}.bump_damping_n_s_m': Field(
            float, 1.0e-3, 1.0e7, f"{at}' damping in compression, at the wheel [N s/m]"),
        f'suspension.{axle}.rebound_damping_n_s_m': Field(
            float, 1.0e-3, 1.0e7, f"{at}' damping in extension, at the wheel [N s/m]"),
        f'suspension.{axle}.bump_travel_m': Field(
            float, 1.0e-4, 2.0, f'{at}: travel from static ride to the bump stop [m]'),
        f'suspension.{axle}.rebound_travel_m': Field(
            float, 1.0e-4, 2.0, f'{at}: travel from static ride to full droop [m]'),
        f'suspension.{axle}.bump_stop_rate_n_m': Field(
            float, 1.0, 1.0e9, f'{at}: rate of the stops at either end of the travel [N/m]'),
        f'suspension.{axle}.bump_stop_damping_n_s_m': Field(
            float, 0.0, 1.0e7, f'{at}: damping of the stops while in them [N s/m] (their '
            'hysteresis: a landing on the stops does not bounce back whole), 0: elastic', (),
            0.0),
        f'suspension.{axle}.anti_roll_bar_n_m_rad': Field(
            float, 0.0, 1.0e7, f"{axle} anti-roll bar's roll stiffness [N m/rad], 0: none",
            (), 0.0),
        f'suspension.{axle}.roll_centre_height_m': Field(
            float, -1.0, 5.0, f'{axle} roll centre height above the ground [m] (below the '
            "sprung mass's centre of gravity)", (), 0.0),
        f'suspension.{axle}.unsprung_mass_kg': Field(
            float, 1.0e-3, 10000.0, f'unsprung mass of each of the {at} [kg] (part of mass_kg)'),
        f'suspension.{axle}.tyre_rate_n_m': Field(
            float, 1.0, 1.0e9, f"{at}' tyre vertical stiffness [N/m]"),
        f'suspension.{axle}.tyre_damping_n_s_m': Field(
            float, 0.0, 1.0e6, f"{at}' tyre vertical damping [N s/m]", (), 0.0),
    }


SUSPENSION_FIELDS: Dict[str, Field] = {
    'suspension.roll_inertia_kg_m2': Field(
        float, 1.0e-4, 1.0e6, "the sprung mass's roll inertia about its centre of gravity "
        '[kg m^2]'),
    'suspension.pitch_inertia_kg_m2': Field(
        float, 1.0e-4, 1.0e6, "the sprung mass's pitch inertia about its centre of gravity "
        '[kg m^2]'),
    **_suspension_axle_fields('front'),
    **_suspension_axle_fields('rear'),
}
SUSPENSION_FIELDS = {key: spec._replace(models=PACEJKA, neutral=(
    spec.default if spec.default is not None else spec.low))
    for key, spec in SUSPENSION_FIELDS.items()}
"""The sprung body's keys (four-wheel model only): a file sets them only with body
suspension, and then every one without a default."""


def _neutral(key: str, spec: Field) -> Any:
    """Return what a car of another model holds for a drivetrain key (layout none)."""
    if key == 'drivetrain.layout':
        return 'none'
    if spec.default is not None:
        return spec.default
    return () if spec.kind is list else spec.low


DRIVETRAIN_FIELDS = {key: spec._replace(models=PACEJKA, neutral=_neutral(key, spec))
                     for key, spec in DRIVETRAIN_FIELDS.items()}
"""The drivetrain's keys (four-wheel model only): a file sets them only with a layout."""

FIELDS: Dict[str, Field] = {
    'name': Field(str, None, None, 'vehicle name'),
    'model': Field(str, None, None, "vehicle model: 'four_wheel' (document 002's, with tyres "
                   "that slip), 'kinematic_bicycle' (reference 001: wheels roll where they "
                   "point) or 'arcade_bicycle' (reference 000: capped linear cornering force "
                   'per axle)', ALL, 'four_wheel'),
    'mass_kg': Field(float, 1.0, 100000.0, 'total mass [kg]'),
    'yaw_inertia_kg_m2': Field(float, 1.0e-4, 1.0e6, 'yaw moment of inertia I_z [kg m^2]',
                               models=SLIDING, neutral=1.0),
    'wheel_inertia_kg_m2': Field(float, 1.0e-6, 100.0, 'spin inertia of one wheel I_w [kg m^2]',
                                 models=ROLLING, neutral=1.0),
    'wheel_radius_m': Field(float, 0.01, 2.0, 'wheel radius R [m]'),
    'wheel_radius_rear_m': Field(
        float, 0.0, 2.0, "the rear wheels' radius [m] where it differs from the front's "
        '(wheel_radius_m, then the front only); 0: wheel_radius_m', (), 0.0, models=PACEJKA,
        neutral=0.0),
    'cg_to_front_axle_m': Field(float, 0.01, 10.0, 'CG to front axle L_f [m]'),
    'cg_to_rear_axle_m': Field(float, 0.01, 10.0, 'CG to rear axle L_r [m]'),
    'half_track_m': Field(float, 0.05, 5.0, 'half the track width c [m]'),
    'cg_height_m': Field(float, 0.0, 5.0, 'CG height above ground h [m]'),
    'gravity_m_s2': Field(float, 0.1, 100.0, 'gravitational acceleration g [m/s^2]', (), 9.81),
    'footprint.length_m': Field(float, 0.0, 50.0, "the body's length, for contact and other "
                                "cars' lidars [m]; 0: the wheelbase plus four wheel radii",
                                (), 0.0),
    'footprint.width_m': Field(float, 0.0, 20.0, "the body's width [m]; 0: the track plus a "
                               'wheel radius', (), 0.0),
    **_tyre_fields('front'),
    **_tyre_fields('rear'),
    'resistance.drag_coefficient_kg_m': Field(
        float, 0.0, 100.0, 'aerodynamic drag C_drag = 0.5 Cd A rho [kg/m], 0: none', (), 0.0),
    'resistance.rolling_resistance_n_s_m': Field(
        float, 0.0, 10000.0, 'rolling resistance C_rr, force per speed [N s/m], 0: none', (),
        0.0),
    'steering.max_angle_rad': Field(float, 0.0, 1.0, 'largest bicycle steer angle [rad]'),
    'steering.max_rate_rad_s': Field(float, 0.0, 100.0, 'steer rate limit [rad/s], 0: none',
                                     (), 0.0),
    'steering.time_constant_s': Field(float, 0.0, 5.0, 'steering first-order lag [s], 0: none',
                                      (), 0.0),
    'steering.ackermann': Field(float, 0.0, 1.0, '0: parallel front wheels, 1: full Ackermann',
                                (), 0.0, models=ROLLING, neutral=0.0),
    'drive.max_torque_front_n_m': Field(
        float, 0.0, 100000.0, 'largest drive torque magnitude at a front wheel [N m]'),
    'drive.max_torque_rear_n_m': Field(
        float, 0.0, 100000.0, 'largest drive torque magnitude at a rear wheel [N m]'),
    'brakes.max_torque_front_n_m': Field(
        float, 0.0, 100000.0, 'largest brake torque at a front wheel [N m]'),
    'brakes.max_torque_rear_n_m': Field(
        float, 0.0, 100000.0, 'largest brake torque at a rear wheel [N m]'),
    'brakes.handbrake_torque_n_m': Field(
        float, 0.0, 100000.0, 'brake torque of the full handbrake at each rear wheel [N m], '
        '0: none', (), 0.0),
    'dt': Field(float, 1.0e-5, 0.1, 'largest physics (sub-)step [s]', (), 0.001),
    'integrator': Field(str, None, None, 'time-stepping scheme', tuple(INTEGRATORS),
                        'implicit_euler', models=PACEJKA, neutral='euler'),
    'slip_model': Field(str, None, None, 'slip definition', tuple(SLIP_MODELS),
                        'regularized', models=PACEJKA, neutral='regularized'),
    'low_speed_m_s': Field(
        float, 0.0, 5.0, 'slip regularisation speed v_low of the regularized slip [m/s] '
        '(the arcade bicycle needs at least 0.05)', (), 0.5, models=SLIDING, neutral=0.0),
    'load_transfer': Field(
        str, None, None, "wheel loads: 'exact' solves the coupled loads and lifts a wheel "
        "whose load would go negative; 'document' runs document 002's fixed-point "
        'iteration (its formula, negative loads kept, no force from an unloaded tyre)',
        tuple(LOAD_TRANSFERS), 'exact', models=('four_wheel',), neutral='exact'),
    'tyre_relaxation': Field(
        bool, None, None, "true: each tyre's slips are first-order states that follow the "
        'slips of its motion over its relaxation lengths (tyres.<axle>.relaxation_length_*); '
        'false: the forces follow the slips at once', (), False, models=('four_wheel',),
        neutral=False),
    'load_transfer_iterations': Field(
        int, 0, 1000, "most passes of the 'document' load iteration", (), 8,
        models=('four_wheel',), neutral=0),
    'arcade.cornering_stiffness_front_per_rad': Field(
        float, 0.1, 50.0, 'front axle cornering force per newton of its load per radian of '
        'slip angle, up to mu times the load', models=ARCADE, neutral=1.0),
    'arcade.cornering_stiffness_rear_per_rad': Field(
        float, 0.1, 50.0, 'rear axle cornering force per newton of its load per radian of '
        'slip angle, up to mu times the load', models=ARCADE, neutral=1.0),
    'arcade.handbrake_grip': Field(
        float, 0.0, 1.0, 'share of the rear grip left at full handbrake', (), 0.2,
        models=ARCADE, neutral=1.0),
    'arcade.steer_reduction': Field(
        float, 0.0, 0.95, 'share of the largest steer angle and rate taken away at '
        'steer_reduction_speed_m_s and above', (), 0.7, models=ARCADE, neutral=0.0),
    'arcade.steer_reduction_speed_m_s': Field(
        float, 1.0, 200.0, 'speed of the full steer reduction [m/s]', (), 40.0, models=ARCADE,
        neutral=1.0),
    'arcade.friction_circle': Field(
        bool, None, None, "true: an axle's drive and brake force and its cornering force share "
        'its grip (the cornering cap is sqrt((mu F_z)^2 - F_x^2)), so that throttle in a corner '
        'breaks a driven axle away (power oversteer); false: each is capped alone, as '
        "reference 000's equations are", (), False, models=ARCADE, neutral=False),
    'arcade.counter_steer_assist': Field(
        float, 0.0, 1.0, 'share of the way the steer target turns toward the direction of '
        'travel while the rear slides out (0: off)', (), 0.0, models=ARCADE, neutral=0.0),
    'body': Field(str, None, None, "the car's body: 'planar' (document 002's: load transfer "
                  "from the accelerations at once) or 'suspension' (a sprung mass that "
                  'heaves, rolls and pitches on springs, dampers, bars and tyres: the '
                  'suspension section)', BODIES, 'planar', models=PACEJKA, neutral='planar'),
    **SUSPENSION_FIELDS,
    **DRIVETRAIN_FIELDS,
    **TORQUE_MODE_FIELDS,
    **{key: spec for name in ACTUATORS for key, spec in _actuator_fields(name).items()},
}


def _flatten(tree: Mapping, prefix: str = '') -> Dict[str, Any]:
    flat = {}
    for key, value in tree.items():
        dotted = f'{prefix}{key}'
        if isinstance(value, Mapping):
            flat.update(_flatten(value, dotted + '.'))
        else:
            flat[dotted] = value
    return flat


def check_value(key: str, value: Any) -> Any:
    """Return `value` converted for `key`, or raise ConfigError naming both."""
    if key not in FIELDS:
        import difflib
        near = difflib.get_close_matches(key, FIELDS, n=3)
        raise ConfigError(f"unknown key '{key}'" + (
            f" (did you mean {' or '.join(repr(k) for k in near)}?)" if near else '')
            + '; every key is listed in docs/vehicle_files.md (python -m '
            'rally_sim.vehicle_keys)')
    spec = FIELDS[key]
    if spec.kind is list:
        return _check_list(key, value, spec)
    if spec.kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"key '{key}' = {value!r} must be true or false: "
                              f'{spec.description}')
        return value
    if spec.kind is str:
        if not isinstance(value, str):
            raise ConfigError(f"key '{key}' must be a string ({spec.description})")
        if spec.choices and value not in spec.choices:
            raise ConfigError(f"key '{key}' = {value!r} must be one of {list(spec.choices)}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"key '{key}' = {value!r} must be a number: {spec.description}")
    number = float(value)
    if not math.isfinite(number) or not spec.low <= number <= spec.high:
        raise ConfigError(
            f"key '{key}' = {value!r} is out of range [{spec.low:g}, {spec.high:g}]: "
            f'{spec.description}')
    if spec.kind is int:
        if not number.is_integer():
            raise ConfigError(f"key '{key}' = {value!r} must be a whole number: "
                              f'{spec.description}')
        return int(number)
    return number


def _check_list(key: str, value: Any, spec: Field) -> Tuple[float, ...]:
    """Return a list of numbers as a tuple, or raise ConfigError naming the key."""
    fewest, most = spec.length
    if not isinstance(value, (list, tuple)) or not fewest <= len(value) <= most:
        raise ConfigError(f"key '{key}' must be a list of {fewest} to {most} numbers: "
                          f'{spec.description}')
    numbers = []
    for k, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not (
                math.isfinite(item) and spec.low <= item <= spec.high):
            raise ConfigError(f"key '{key}' entry {k} = {item!r} must be a number in "
                              f'[{spec.low:g}, {spec.high:g}]: {spec.description}')
        numbers.append(float(item))
    return tuple(numbers)


@dataclass(frozen=True)
class VehicleConfig:
    """A validated vehicle: every key of FIELDS, by dotted name."""

    values: Mapping[str, Any]
    given: frozenset = frozenset()
    """The keys the file (or an override) set; the others are defaults."""

    @staticmethod
    def of(values: Mapping[str, Any]) -> 'VehicleConfig':
        """Return the config of checked `values`, completed (see complete())."""
        return VehicleConfig(complete(values), frozenset(values))

    def __getitem__(self, key: str) -> Any:
        """Return the value of a dotted key."""
        return self.values[key]

    def per_wheel(self, front_key: str, rear_key: str) -> np.ndarray:
        """Return [fl, fr, rl, rr] from a front and a rear key."""
        front, rear = self.values[front_key], self.values[rear_key]
        return np.array([front, front, rear, rear], dtype=float)

    def tyre(self, name: str) -> np.ndarray:
        """Return the per-wheel array of a tyre parameter (mu, B, C or D)."""
        return self.per_wheel(f'tyres.front.{name}', f'tyres.rear.{name}')

    def with_overrides(self, overrides: Mapping[str, Any]) -> 'VehicleConfig':
        """
        Return a copy with some keys replaced (validated).

        A `tyres.<axle>.tir` replaces that axle's document tyre (its mu, B, C
        and D go); a relative path is looked for from the working folder.
        """
        values = {key: self.values[key] for key in self.given}
        for key, value in overrides.items():
            values[key] = check_value(key, value)
            if key.endswith('.tir') and values[key]:    # a .tir replaces the document tyre
                values[key] = find_tyre(values[key], os.getcwd(), key)
                axle = key.split('.')[1]
                for name in DOCUMENT_TYRE_KEYS:
                    if f'tyres.{axle}.{name}' not in overrides:
                        values.pop(f'tyres.{axle}.{name}', None)
            for pair in STEER_ALIASES.items():
                if key in pair:     # an override replaces the setting under either name
                    values.pop(pair[1] if key == pair[0] else pair[0], None)
        return VehicleConfig.of(values)

    def model_params(self) -> ModelParams:
        """Return the numeric parameters of the physics kernel."""
        v = self.values
        return ModelParams(
            mass_kg=v['mass_kg'], yaw_inertia_kg_m2=v['yaw_inertia_kg_m2'],
            wheel_inertia_kg_m2=v['wheel_inertia_kg_m2'], wheel_radius_m=v['wheel_radius_m'],
            cg_to_front_m=v['cg_to_front_axle_m'], cg_to_rear_m=v['cg_to_rear_axle_m'],
            half_track_m=v['half_track_m'], cg_height_m=v['cg_height_m'],
            gravity_m_s2=v['gravity_m_s2'],
            pacejka_b=self.tyre('B'), pacejka_c=self.tyre('C'), pacejka_d=self.tyre('D'),
            drag_kg_m=v['resistance.drag_coefficient_kg_m'],
            rolling_resistance_n_s_m=v['resistance.rolling_resistance_n_s_m'],
            ackermann=v['steering.ackermann'],
            slip_model=SLIP_MODELS[v['slip_model']],
            low_speed_m_s=v['low_speed_m_s'],
            steer_rate_rad_s=v['steering.max_rate_rad_s'],
            steer_time_constant_s=v['steering.time_constant_s'],
            load_transfer=LOAD_TRANSFERS[v['load_transfer']],
            load_transfer_iterations=v['load_transfer_iterations'],
            model=MODELS[v['model']],
            arcade=(v['arcade.cornering_stiffness_front_per_rad'],
                    v['arcade.cornering_stiffness_rear_per_rad'], v['arcade.handbrake_grip'],
                    v['arcade.steer_reduction'], v['arcade.steer_reduction_speed_m_s'],
                    v['arcade.counter_steer_assist'], v['steering.max_angle_rad'],
                    1.0 if v['arcade.friction_circle'] else 0.0),
            drivetrain=drivetrain_block(v),
            body=body_block(v),
            tyre_model=TYRE_MF if v['tyres.front.tir'] else TYRE_DOCUMENT,
            magic_formula=self.magic_formula_block(),
            wheel_radius_rear_m=v['wheel_radius_rear_m'],
            relaxation=(1.0 if v['tyre_relaxation'] else 0.0,
                        *(v[f'tyres.{axle}.{name}'] for axle in ('front', 'rear')
                          for name in RELAXATION_KEYS)))

    def tyre_files(self) -> Tuple[Optional[TyreFile], Optional[TyreFile]]:
        """Return the front and rear .tir tyres (None, None for the document tyre)."""
        return tuple(tyre_file(self.values[f'tyres.{axle}.tir'], f'tyres.{axle}.tir')
                     if self.values[f'tyres.{axle}.tir'] else None for axle in ('front', 'rear'))

    def magic_formula_block(self) -> np.ndarray:
        """Return the kernels' Magic Formula parameters (model.P_MF_FRONT's layout)."""
        block = np.zeros(2 * MF_AXLE_SIZE)
        for k, (axle, tyre) in enumerate(zip(('front', 'rear'), self.tyre_files())):
            if tyre is None:
                continue
            pressure = self.values[f'tyres.{axle}.pressure_pa'] or tyre['INFLPRES']
            side = -1.0 if tyre.strings.get('TYRESIDE', 'LEFT').upper() == 'RIGHT' else 1.0
            head = [1.0 if tyre.version == '5.2' else 0.0,
                    self.values[f'tyres.{axle}.camber_rad'], pressure, side]
            block[k * MF_AXLE_SIZE:(k + 1) * MF_AXLE_SIZE] = head + list(tyre.coefficients())
        return block


def from_mapping(tree: Mapping, source: str = 'vehicle') -> VehicleConfig:
    """Validate a parsed vehicle tree (nested mappings) into a VehicleConfig."""
    if not isinstance(tree, Mapping):
        raise ConfigError(f'{source}: the file must hold a mapping of keys to values')
    flat = _flatten(tree)
    values, problems = {}, []
    for key, value in flat.items():
        try:
            values[key] = check_value(key, value)
        except ConfigError as error:
            problems.append(str(error))
    if not problems:
        try:
            _find_tyres(values, os.path.dirname(os.path.abspath(source))
                        if os.path.isfile(source) else os.getcwd())
        except ConfigError as error:
            problems.append(str(error))
    if problems:            # all of them at once, with the keys the file lacks
        missing = missing_keys(flat, values.get('model', FIELDS['model'].default))
        if missing:
            problems.append(f"missing key(s) {', '.join(missing)}")
        raise ConfigError(f'{source}: ' + (problems[0] if len(problems) == 1 else (
            f'{len(problems)} problems:\n' + '\n'.join(f'  - {p}' for p in problems))))
    try:
        return VehicleConfig.of(values)
    except ConfigError as error:
        raise ConfigError(f'{source}: {error}') from None


def missing_keys(given: Mapping[str, Any], model: str) -> list:
    """Return the keys a vehicle file of `model` must set that `given` lacks (drivetrain aside)."""
    return [key for key, spec in FIELDS.items()
            if key not in given and spec.default is None and model in spec.models
            and key not in DRIVETRAIN_FIELDS and key not in SUSPENSION_FIELDS
            and not _replaced_by_tir(key, given)
            and not any(o == key and n in given for n, o in STEER_ALIASES.items())]


def _replaced_by_tir(key: str, given: Mapping[str, Any]) -> bool:
    """Return whether `key` is a document-tyre key of an axle whose tyre is a .tir file."""
    parts = key.split('.')
    return (len(parts) == 3 and parts[0] == 'tyres' and parts[2] in DOCUMENT_TYRE_KEYS
            and bool(given.get(f'tyres.{parts[1]}.tir')))


def complete(values: Mapping[str, Any]) -> Dict[str, Any]:
    """
    Return checked `values` with the defaults and the keys the model does not use.

    Raises ConfigError naming a missing key, or a key the model does not use.
    """
    model = values.get('model', FIELDS['model'].default)
    unused = [key for key in values if model not in FIELDS[key].models]
    if unused:
        raise ConfigError(f"key(s) {', '.join(unused)} not used by model '{model}'")
    _check_layout(values)
    _check_body(values)
    _check_tyres(values)
    missing = missing_keys(values, model)
    if missing:
        raise ConfigError(f"missing key(s) {', '.join(missing)}")
    completed = {key: spec.neutral if model not in spec.models or _replaced_by_tir(key, values)
                 else spec.default for key, spec in FIELDS.items() if key not in values}
    completed.update(values)
    _fold_steering(values, completed)
    rear = completed['wheel_radius_rear_m']
    if 0.0 < rear < FIELDS['wheel_radius_m'].low:
        raise ConfigError(f"key 'wheel_radius_rear_m' = {rear:g} is out of range: 0 (the same "
                          f"as wheel_radius_m) or [{FIELDS['wheel_radius_m'].low:g}, 2]")
    if model == 'arcade_bicycle':
        _check_arcade(completed)
    if completed['body'] == 'suspension':
        found = suspension_problems(completed)
        if found:
            raise ConfigError(found[0] if len(found) == 1 else f'{len(found)} problems:\n'
                              + '\n'.join(f'  - {p}' for p in found))
    return completed


def _check_body(values: Mapping[str, Any]) -> None:
    """Check that the suspension keys come with body suspension, and all it needs."""
    _check_section(values, SUSPENSION_FIELDS, values.get('body', 'planar') == 'suspension',
                   'body: suspension (the body is planar)', 'body: suspension')


def _check_section(values: Mapping[str, Any], fields: Mapping[str, Field], on: bool,
                   needs: str, switched: str) -> None:
    """
    Check a section's keys against the key that switches it on.

    Off, a file may set none of them (`needs`: what would switch it on); on,
    it must set every one without a default (`switched`: what did).
    """
    if not on:
        given = [key for key in values if key in fields]
        if given:
            raise ConfigError(f"key(s) {', '.join(given)} need {needs}")
        return
    missing = [key for key, spec in fields.items() if spec.default is None and key not in values]
    if missing:
        raise ConfigError(f"missing key(s) {', '.join(missing)} ({switched})")


def _check_tyres(values: Mapping[str, Any]) -> None:
    """
    Check that both axles name a .tir tyre or neither, and each key fits its axle's tyre.

    A .tir tyre comes with its own friction and shape (mu, B, C, D are the
    document tyre's); camber and pressure are the Magic Formula's. The file
    must be readable and of a Magic Formula this reads.
    """
    tirs = {axle: values.get(f'tyres.{axle}.tir', '') for axle in ('front', 'rear')}
    if bool(tirs['front']) != bool(tirs['rear']):
        given, lacking = ('front', 'rear') if tirs['front'] else ('rear', 'front')
        raise ConfigError(f"key 'tyres.{given}.tir' names a tyre file but 'tyres.{lacking}.tir' "
                          'does not: give both axles a .tir tyre, or neither')
    for axle, path in tirs.items():
        own = MF_TYRE_KEYS if not path else DOCUMENT_TYRE_KEYS
        clash = [f'tyres.{axle}.{name}' for name in own if f'tyres.{axle}.{name}' in values]
        if clash:
            raise ConfigError(
                f"key(s) {', '.join(clash)} " + (
                    f'need a .tir tyre (tyres.{axle}.tir)' if not path else
                    f'not used with the .tir tyre of tyres.{axle}.tir ({path}), which has its '
                    'own friction and shape'))
        if path:
            tyre_file(path, f'tyres.{axle}.tir')
    _check_relaxation(values, tirs)


def _check_relaxation(values: Mapping[str, Any], tirs: Mapping[str, str]) -> None:
    """Check that with tyre_relaxation on each axle has its lengths, and without it none."""
    given = [f'tyres.{axle}.{name}' for axle in tirs for name in RELAXATION_KEYS
             if f'tyres.{axle}.{name}' in values]
    if not values.get('tyre_relaxation', False):
        if given:
            raise ConfigError(f"key(s) {', '.join(given)} need tyre_relaxation: true")
        return
    for axle, path in tirs.items():
        lengths = [values.get(f'tyres.{axle}.{name}', 0.0) for name in RELAXATION_KEYS]
        if all(lengths):
            continue
        if path and has_relaxation(tyre_file(path, f'tyres.{axle}.tir')):
            if any(lengths):
                raise ConfigError(f'tyres.{axle}: give both relaxation lengths, or neither '
                                  "(the .tir file's)")
            _check_tir_relaxation(tyre_file(path), f'tyres.{axle}.tir')
            continue
        raise ConfigError(
            f'tyre_relaxation true: tyres.{axle}.relaxation_length_x_m and _y_m must be '
            'positive ' + (f'({path} gives no relaxation: no PTX1/PTY1, no carcass '
                           'stiffnesses)' if path else "(document 002's tyre has none)"))


def _check_tir_relaxation(tyre: TyreFile, key: str) -> None:
    """Refuse a .tir file whose relaxation lengths are not positive at its nominal load."""
    names = (('PTX1', 'PTY1', 'PTY2') if tyre['PTX1'] or tyre['PTY1'] else
             ('LONGITUDINAL_STIFFNESS', 'LATERAL_STIFFNESS'))
    for name in names:
        if not tyre[name] > 0.0:
            raise ConfigError(f"key '{key}': {tyre.path}: [{tyre.sections.get(name, '?')}] "
                              f'{name} = {tyre[name]:g}: a relaxation length from it is not '
                              'positive (tyre_relaxation true)')


def tyre_file(path: str, key: str = 'tyres.tir') -> TyreFile:
    """Return the .tir file at `path`, read (cached while unchanged); ConfigError if unusable."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError as failure:
        raise ConfigError(f"key '{key}' = {path!r}: cannot read the tyre file: "
                          f'{failure.strerror}') from None
    try:
        return _read_tir(path, stamp)
    except TirError as error:
        raise ConfigError(f"key '{key}': {error}") from None


@functools.lru_cache(maxsize=64)
def _read_tir(path: str, stamp: int) -> TyreFile:
    """read_tir(), once per file version (stamp: its modification time)."""
    return read_tir(path)


def find_tyre(value: str, beside: str, key: str) -> str:
    """
    Return the path a `tyres.<axle>.tir` value names; ConfigError if none.

    A relative path is looked for beside the vehicle file (`beside`, a
    folder), then, for a bare name, among the shipped tyres (config/tyres,
    with or without .tir).
    """
    if not value or os.path.isabs(value):
        return value
    candidates = [os.path.join(beside, value)]
    if os.sep not in value and '/' not in value:
        name = value if value.endswith('.tir') else value + '.tir'
        candidates.append(config_file(os.path.join('tyres', name)))
    for candidate in candidates:
        if candidate and os.path.isfile(candidate):
            return os.path.abspath(candidate)
    shipped = config_file('tyres')
    names = sorted(n[:-4] for n in os.listdir(shipped) if n.endswith('.tir')) if shipped else []
    raise ConfigError(f"key '{key}' = {value!r}: no such tyre file beside the vehicle file "
                      f"({beside}), nor a shipped tyre (shipped: {', '.join(names) or 'none'})")


def _find_tyres(values: Dict[str, Any], beside: str) -> None:
    """Replace each `tyres.<axle>.tir` value in `values` by the path it names."""
    for axle in ('front', 'rear'):
        key = f'tyres.{axle}.tir'
        if values.get(key):
            values[key] = find_tyre(values[key], beside, key)


def _fold_steering(values: Mapping[str, Any], completed: Dict[str, Any]) -> None:
    """Give each steering setting named twice (STEER_ALIASES) one value under both names."""
    for new, old in STEER_ALIASES.items():
        if new in values and old in values and values[new] != values[old]:
            raise ConfigError(f"keys '{new}' ({values[new]:g}) and '{old}' ({values[old]:g}) "
                              'name one setting: give one of them')
        value = values[new] if new in values else completed[old]
        completed[new] = completed[old] = value


def _check_layout(values: Mapping[str, Any]) -> None:
    """
    Check the drivetrain keys against the layout and each other.

    With layout none a file may set no drivetrain key; with a layout it
    must set every one without a default, the torque curve must rise in rpm
    and pair each rpm with a torque, and the shift speeds must lie between
    idle and the limiter.
    """
    layout = values.get('drivetrain.layout', 'none')
    section = {key: spec for key, spec in DRIVETRAIN_FIELDS.items() if key != 'drivetrain.layout'}
    _check_section(values, section, layout != 'none', 'drivetrain.layout fwd, rwd or awd (it is '
                   'none: the commanded torques drive the wheels)', f'drivetrain.layout {layout}')
    if layout == 'none':
        return
    rpm, torque = values['engine.torque_curve_rpm'], values['engine.torque_curve_n_m']
    if any(b <= a for a, b in zip(rpm, rpm[1:])):
        raise ConfigError(f"key 'engine.torque_curve_rpm' = {list(rpm)} must increase")
    if len(torque) != len(rpm):
        raise ConfigError(f"key 'engine.torque_curve_n_m' has {len(torque)} entries; "
                          f'engine.torque_curve_rpm has {len(rpm)}')
    idle = values.get('engine.idle_rpm', FIELDS['engine.idle_rpm'].default)
    down, up = values['gearbox.shift_down_rpm'], values['gearbox.shift_up_rpm']
    if not idle < down < up < values['engine.limit_rpm']:
        raise ConfigError(f"keys 'engine.idle_rpm' ({idle:g}) < 'gearbox.shift_down_rpm' "
                          f"({down:g}) < 'gearbox.shift_up_rpm' ({up:g}) < 'engine.limit_rpm' "
                          f"({values['engine.limit_rpm']:g}) must hold")


def _check_arcade(v: Mapping[str, Any]) -> None:
    """
    Refuse an arcade car whose sub-step cannot resolve its low-speed damper.

    Below v_low an axle pushes back on sideways sliding with k F_z / v_low
    per m/s; explicit steps follow that decay without a sign flip while
    dt times its rate stays under 1 (with 2x margin for weight transfer).
    """
    v_low = v['low_speed_m_s']
    if v_low < 0.05:
        raise ConfigError(f"key 'low_speed_m_s' = {v_low!r} must be at least 0.05 for the "
                          'arcade bicycle (its slip angle divides by max(|u|, v_low))')
    lf, lr = v['cg_to_front_axle_m'], v['cg_to_rear_axle_m']
    weight = v['mass_kg'] * v['gravity_m_s2']
    front = v['arcade.cornering_stiffness_front_per_rad'] * weight * lr / (lf + lr) / v_low
    rear = v['arcade.cornering_stiffness_rear_per_rad'] * weight * lf / (lf + lr) / v_low
    rate = max((front + rear) / v['mass_kg'],
               (front * lf * lf + rear * lr * lr) / v['yaw_inertia_kg_m2'])
    largest = 0.5 / rate
    if v['dt'] > largest:
        raise ConfigError(f"key 'dt' = {v['dt']!r} is too long for this arcade car's "
                          f'low-speed tyre damping: at most {largest:.6f} s (or raise '
                          'low_speed_m_s, or lower the cornering stiffness)')


def load_vehicle(path: str, overrides: Iterable[str] = ()) -> VehicleConfig:
    """Load and validate a vehicle file, then apply `key=value` overrides."""
    config = from_mapping(read_yaml(path, 'vehicle file', ConfigError), source=path)
    return config.with_overrides(parse_overrides(overrides))


def parse_overrides(items: Iterable[str]) -> Dict[str, Any]:
    """Parse `key=value` strings (values in YAML syntax) into a dict."""
    parsed = {}
    for item in items:
        key, sep, text = item.partition('=')
        if not sep or not key:
            raise ConfigError(f'override {item!r} must have the form key=value')
        try:
            parsed[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError:
            raise ConfigError(f'override {item!r}: value is not valid YAML') from None
    return parsed
