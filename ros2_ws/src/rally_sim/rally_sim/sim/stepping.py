"""
How simulated time advances: physics steps between control periods, sensors, outputs.

It stops at control periods, any car's sensor events and publishing
instants; every car takes the same steps. Every front end steps a
session.Session, so their runs are the same run.

A stepped simulation offers (session.Session does):
- sim_steps: the step count, advanced here; dt: a step [s];
- cars, each with an intake (control_steps, start_control_period():
  intake.CommandIntake), sensors.next_event(), vehicle.advance(steps, dt) and
  halted (a car that touched something is not stepped);
- contacts (contacts.Contacts): active, safe_steps(steps) and check(), which
  cut chunks short near walls and cars and find the step a car touches;
- publish_every, marker_every (0: no markers), markers_at: steps between
  publishing instants and markers, the step of the last markers;
- stop_requested(): a long call stops early when the process is asked to;
- at_step(publish, markers) -> bool: measure and publish what is due now;
  True when the state controllers answer (odometry) was published;
- failed(error): the physics went non-finite (the state is the last finite);
  with several cars, the error names the car;
- walker (optional): a walk.Walker, which takes the steps between publishing
  instants in one compiled call where the session allows it.
"""

from .period_kernels import NON_FINITE, TOUCH, WATCHDOG


def advance(sim, steps: int, until_state: bool = False) -> None:
    """
    Take up to `steps` physics steps, stopping at each control period, publish and sensor.

    Starts a control period at each multiple of it; measures, delivers and
    publishes at each step where a car's sensor or the outputs are due.
    until_state: stop once odometry (the state controllers answer) is
    published. Stops early when the process is asked to stop. Where the
    session's walker allows it (walk.Walker.usable), the steps to the next
    publishing instant are taken in one compiled call: the same steps.
    """
    contacts = sim.contacts if sim.contacts.active else None    # no car is added meanwhile
    stop_requested = sim.stop_requested
    walker = getattr(sim, 'walker', None)
    while steps > 0 and not stop_requested():
        before = sim.sim_steps
        why = walker.walk(before + steps) if walker is not None and walker.usable() else None
        if why == NON_FINITE:
            try:
                sim.cars[0].vehicle._non_finite()
            except FloatingPointError as error:
                sim.failed(error)
            return
        if why == TOUCH:
            contacts.check()
        elif (why is None or why == WATCHDOG and sim.sim_steps == before) and not _chunk(
                sim, steps, contacts):
            return
        steps -= sim.sim_steps - before
        publish = sim.sim_steps % sim.publish_every == 0
        markers = publish and bool(sim.marker_every) and (
            sim.sim_steps // sim.marker_every != sim.markers_at // sim.marker_every)
        if markers:
            sim.markers_at = sim.sim_steps
        if sim.at_step(publish, markers) and until_state:
            return


def _chunk(sim, steps: int, contacts) -> bool:
    """
    Take the steps to the next control period, publish, sensor event or possible contact.

    At most `steps`; a touch found after them is taken (contacts.check). Returns
    False when the physics failed (the front end is told).
    """
    cars = sim.cars
    control_steps = cars[0].intake.control_steps     # CONTROL_PERIOD_S: the same for all
    if sim.sim_steps % control_steps == 0:
        for car in cars:
            car.intake.start_control_period()
    chunk = min(steps, control_steps - sim.sim_steps % control_steps,
                sim.publish_every - sim.sim_steps % sim.publish_every)
    for car in cars:
        event = car.sensors.next_event()
        if event is not None:
            chunk = min(chunk, max(event - sim.sim_steps, 1))
    if contacts is not None:
        chunk = contacts.safe_steps(chunk)
    for car in cars:
        if car.halted is not None:
            continue
        try:
            car.vehicle.advance(chunk, sim.dt)
        except FloatingPointError as error:
            sim.failed(error if len(cars) == 1 else FloatingPointError(
                f'car {car.name!r}: {error}'))
            return False
    sim.sim_steps += chunk
    if contacts is not None and sim.sim_steps >= contacts.safe_until:
        contacts.check()
    return True
