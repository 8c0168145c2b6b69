"""Stopping the processes a tool started: silent even while they are still starting."""

import os
import sys
import time

from rally_sim.processes import start_logged, stop_all


def test_a_process_stopped_before_it_handles_signals_ends_without_a_traceback(tmp_path):
    # A child still in its imports has Python's own signal handling: SIGINT would
    # print a KeyboardInterrupt traceback into its log; stop_all must not.
    log = tmp_path / 'child.log'
    child = start_logged([sys.executable, '-c', 'import time\nprint("up", flush=True)\n'
                          'time.sleep(60)'], str(log))
    deadline = time.monotonic() + 30.0
    while 'up' not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    stop_all([child])
    assert child.returncode is not None
    assert 'Traceback' not in log.read_text() and 'KeyboardInterrupt' not in log.read_text()


def test_a_started_process_has_a_process_group_of_its_own_in_the_tools_session(tmp_path):
    # A terminal's Ctrl-C (to the tool's group) must reach the tool alone, which stops its
    # processes; a session of its own would be a scheduling group of its own (autogroup).
    child = start_logged([sys.executable, '-c', 'import time\ntime.sleep(60)'],
                         str(tmp_path / 'child.log'))
    try:
        assert os.getpgid(child.pid) == child.pid != os.getpgid(0)
        assert os.getsid(child.pid) == os.getsid(0)
    finally:
        stop_all([child])
