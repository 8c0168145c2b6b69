"""
The launch files' `record:=DIR`: every topic of the launch into a rosbag2 MCAP bag.

The recorder is `./rally bag record -a -o DIR` (rally_sim.cli.bag) in a process
of the launch: it starts with the simulator, takes each topic from its
first message, and writes the bag when the launch ends (Ctrl-C).
"""

import sys

from launch.actions import ExecuteProcess
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PythonExpression


RECORD_HELP = ('record every topic into this rosbag2 MCAP bag (a new folder), as '
               './rally bag record -a -o DIR; empty: no recording')
"""The launch argument `record`'s description (each launch file declares it, default '')."""


def recorder() -> ExecuteProcess:
    """Return the recorder's process, when record:= names a folder."""
    folder = LaunchConfiguration('record')
    return ExecuteProcess(
        cmd=[sys.executable, '-m', 'rally_sim.cli.bag', 'record', '-a', '-o', folder],
        name='bag_record', output='screen', sigterm_timeout='30',
        condition=IfCondition(PythonExpression(["'", folder, "' != ''"])))
