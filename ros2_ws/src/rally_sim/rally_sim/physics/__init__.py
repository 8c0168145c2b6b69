"""
The ROS-free physics core of rally_sim (plain Python and NumPy).

Importable and testable without rclpy: the ROS layer converts messages to
Command objects and Vehicle state back to messages; everything else is here.
"""

from .config import ConfigError, load_vehicle, VehicleConfig
from .surfaces import SURFACE_GRIP, UniformSurface
from .vehicle import Command, CommandError, Vehicle, WheelState

__all__ = ['Command', 'CommandError', 'ConfigError', 'load_vehicle', 'SURFACE_GRIP',
           'UniformSurface', 'Vehicle', 'VehicleConfig', 'WheelState']
