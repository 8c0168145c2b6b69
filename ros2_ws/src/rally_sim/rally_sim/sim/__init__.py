"""
The simulation session, ROS-free: one car, command intake, sensors, stepping, reset.

Every front end drives it: the simulator node (ros/), the in-process
campaign engine (campaign/inprocess.py) and the Gymnasium environments.
The commands it takes are control/interface.py's.
"""

from .intake import CommandIntake, CONTROL_PERIOD_S
from .reports import Reports
from .session import Front, prepare, Session, Start

__all__ = ['CommandIntake', 'CONTROL_PERIOD_S', 'Front', 'prepare', 'Reports', 'Session',
           'Start']
