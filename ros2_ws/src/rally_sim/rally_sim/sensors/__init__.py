"""
Sensor models, ROS-free: seeded errors, rates and latencies on the simulated car's truth.

A profile (config/sensors/*.yaml) names the channels and their error
models; Sensors samples them on the simulator's steps and delivers each
measurement when its latency has passed. The ROS layer only turns
measurements into messages.
"""

from .noise import Noise, NoiseSpec
from .profiles import CHANNELS, load_profile, Profile, QUANTITIES, SensorError
from .suite import Measurement, Sensors

__all__ = ['CHANNELS', 'load_profile', 'Measurement', 'Noise', 'NoiseSpec', 'Profile',
           'QUANTITIES', 'SensorError', 'Sensors']
