"""
The technique driver's law: one run of a rally technique's scripted inputs (control/techniques.py).

It reads nothing of the state but its stamp: the inputs are a schedule over
simulated time, as a test driver's would be. A car with a drivetrain gets
the pedals (driver_cmd), one without (the arcade's) the wheel torques they
stand for (wheel_torque_cmd); both with the steer (ackermann_cmd).
"""

from typing import Any, Dict, List

from . import Law, parameters, steering
from ..interface import Pedals, PlanarState, WheelTorques
from ..parameters import Spec
from ..techniques import command_of, TECHNIQUES
from ...physics.config import load_vehicle
from ...physics.vehicle import DriverCommand
from ...resources import vehicle_path

SPECS = {
    'technique': Spec('scandinavian_flick', 'the technique whose inputs are driven',
                      choices=tuple(TECHNIQUES)),
    'run': Spec('control', "which of the technique's runs: 'control' (without the technique), "
                'or the name of its run with it (./rally technique NAME lists them)'),
    'vehicle': Spec('rwd_gravel', 'the car driven: a preset or a vehicle file (the full lock '
                    'and, without a drivetrain, the largest torques come from it)'),
}


class TechniqueLaw(Law):
    """Answers each state with the inputs one run of a technique has at its stamp."""

    SPECS = SPECS

    def __init__(self, given: Dict[str, Any]):
        """Build the technique on the car and pick its run (ValueError naming the parameter)."""
        p = parameters(SPECS, given)
        technique = TECHNIQUES[p['technique']](p['vehicle'])
        if p['run'] not in technique.runs:
            raise ValueError(f"controller parameter 'run' = {p['run']!r} must be one of "
                             f"{list(technique.runs)} ({p['technique']}'s runs)")
        self.technique, self.name = technique, p['run']
        self.schedule = technique.runs[p['run']]
        self.config = load_vehicle(vehicle_path(p['vehicle']))
        self.pedals = self.config['drivetrain.layout'] != 'none'

    def answer(self, stamp_ns: int, state: PlanarState, wheels=None) -> List[Any]:
        """Return the steer and the pedals (or wheel torques) of the schedule at stamp_ns."""
        inputs = self.schedule(stamp_ns / 1e9)
        return [steering(inputs.steer_rad), self.drive(inputs)]

    def drive(self, inputs: DriverCommand):
        """Return the inputs' pedals (driver_cmd), or their wheel torques (wheel_torque_cmd)."""
        if self.pedals:
            return Pedals(inputs.throttle, inputs.brake, inputs.handbrake, int(inputs.gear))
        torques = command_of(self.config, inputs)
        return WheelTorques(list(torques.drive_torque_n_m), list(torques.brake_torque_n_m),
                            torques.handbrake)
