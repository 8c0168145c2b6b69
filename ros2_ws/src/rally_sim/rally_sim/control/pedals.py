"""
Normalised actions to wheel torques: one pedal for drive and brake, steer in -1..1.

For learners and samplers that want a small, bounded action: steer -1..1 is
a fraction of the vehicle's largest steer angle (positive left); pedal 0..1
is that fraction of each wheel's largest drive torque, pedal -1..0 that
fraction of each wheel's largest brake torque (the vehicle file's limits,
so the front/rear balance is the vehicle's own). ROS-free.
"""

from typing import Tuple

import numpy as np

from ..physics.config import VehicleConfig


class Pedals:
    """Map normalised (steer, pedal) arrays to steer [rad], drive and brake torques [N m]."""

    def __init__(self, config: VehicleConfig):
        """Read the vehicle's limits."""
        self.max_steer_rad = float(config['steering.max_angle_rad'])
        self.drive_n_m = config.per_wheel('drive.max_torque_front_n_m',
                                          'drive.max_torque_rear_n_m')
        self.brake_n_m = config.per_wheel('brakes.max_torque_front_n_m',
                                          'brakes.max_torque_rear_n_m')

    def torques(self, steer, pedal) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """
        Return the steer angle [rad] and the drive and brake torques [N m] of actions.

        Torques have shape (..., 4); values beyond -1..1 are clipped.
        """
        steer = np.clip(np.asarray(steer, dtype=float), -1.0, 1.0)
        pedal = np.clip(np.asarray(pedal, dtype=float), -1.0, 1.0)[..., None]
        drive = np.maximum(pedal, 0.0) * self.drive_n_m
        brake = np.maximum(-pedal, 0.0) * self.brake_n_m
        return steer * self.max_steer_rad, drive, brake
