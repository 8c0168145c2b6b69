"""The benchmarks' plain-Python reference step is document 002's step, and document mode is it."""

import numpy as np
import pytest
from rally_sim.cli.reference_step import ReferenceStep
from rally_sim.physics import Command, Vehicle
from rally_sim.physics.model import OMEGA, VX
from rally_sim.physics.scenarios import document_scenario
from support.vehicles import vehicle


def drift_car_and_reference():
    """Return the document-mode car at the drift's start, the reference step, its state."""
    config = vehicle('volvo_v40_document')
    car = Vehicle(config)
    car.reset(vx=document_scenario('drift').initial_speed_m_s)
    return car, ReferenceStep(config), car.state[VX:OMEGA + 4].copy()


def test_document_mode_takes_the_reference_step_at_every_step_of_the_drift():
    # Both stop the load iteration after 8 passes; at 19 steps the rear-left
    # wheel's load from the formula is negative and its tyre gives no force.
    scenario = document_scenario('drift')
    car, reference, z = drift_car_and_reference()
    for k in range(len(scenario.inputs.steer)):
        steer, drive = scenario.inputs.steer[k], scenario.inputs.drive[k]
        car.state[VX:OMEGA + 4] = z          # from the reference's own state
        z = reference.step(z, steer, drive[2], drive[3], 0.01)
        car.set_command(Command(steer_rad=steer, drive_torque_n_m=drive))
        car.step(0.01)
        assert car.state[VX:OMEGA + 4] == pytest.approx(z, rel=1e-12, abs=1e-12), k
    assert np.all(np.isfinite(z))


def test_document_mode_follows_the_reference_trajectory_through_the_negative_loads():
    # Steps 82-118 carry the negative loads; after ~350 steps the document's
    # step is chaotic (a 1e-15 nudge grows to O(1)), so the whole trajectories
    # are compared up to step 300 only.
    scenario = document_scenario('drift')
    car, reference, z = drift_car_and_reference()
    for k in range(300):
        steer, drive = scenario.inputs.steer[k], scenario.inputs.drive[k]
        z = reference.step(z, steer, drive[2], drive[3], 0.01)
        car.set_command(Command(steer_rad=steer, drive_torque_n_m=drive))
        car.step(0.01)
        assert car.state[VX:OMEGA + 4] == pytest.approx(z, rel=1e-9, abs=1e-9), k
