"""
The ROS-free physics core of rally_sim (plain Python and NumPy).

Importable and testable without rclpy: the ROS layer converts messages to
Command objects and Vehicle state back to messages; everything else is here.
"""

from .config import ConfigError, load_vehicle, VehicleConfig
from .surfaces import Surface, SURFACE_GRIP, SurfaceError
from .vehicle import (
    Command, CommandError, DriverCommand, DrivetrainState, Vehicle, WheelState)

__all__ = ['Command', 'CommandError', 'ConfigError', 'DriverCommand', 'DrivetrainState',
           'load_vehicle', 'Surface', 'SURFACE_GRIP', 'SurfaceError', 'Vehicle',
           'VehicleConfig', 'WheelState']
