"""
A person at the wheel, ROS-free: keyboard and gamepad inputs to the commands a controller sends.

The view page sends what the person's hands do (inputs.py); steering.py
turns keys into a ramped steering angle as reference 000 (section 6) does,
a gamepad's axis into a direct one; assists.py holds the game aids of
reference 000 (section 8) and the usual ones, acting on the commands only;
person.py puts them together into plain commands (control/interface.py)
that the view node publishes into the simulator's own intake; laps.py
times laps and sectors along a stage's path.
"""

from .assists import ASSIST_SPECS, Assists
from .inputs import InputError, Inputs
from .laps import LapTimer
from .person import CarFacts, Person, PersonCommand

__all__ = ['ASSIST_SPECS', 'Assists', 'CarFacts', 'InputError', 'Inputs', 'LapTimer', 'Person',
           'PersonCommand']
