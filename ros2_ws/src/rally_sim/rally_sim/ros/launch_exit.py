"""
The launch files' answer to the simulator's end: the whole launch ends with it.

A simulator that could not start (a bad parameter: exit 2, its reason on
screen) or failed makes `ros2 launch` exit non-zero too, so a script or CI
that launches it sees the failure. Imported by the launch files only (it
needs `launch`, which a pip install does not have).
"""


def simulator_ended(event, context):
    """Return the launch's shutdown; raise (`ros2 launch` exits 1) when the simulator failed."""
    from launch.actions import Shutdown
    if event.returncode != 0:
        raise RuntimeError(f'rally_sim exited with code {event.returncode} (its reason is '
                           'above): the launch fails')
    return [Shutdown(reason='rally_sim ended')]
