"""Stopping the processes a tool started: silent even while they are still starting."""

import os
import sys
import time

from rally_sim.runtime.processes import DISCOVERY_PROFILE, start_logged, stop_all


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


def test_the_shm_watch_counts_what_the_tests_processes_leave_and_nothing_else(tmp_path):
    """A file its tagged process used and left is a leak; another program's is not."""
    import subprocess
    from support import ros_process
    hold = ('import sys, time\nstream = open(sys.argv[1], "w")\nprint("up", flush=True)\n'
            'time.sleep(float(sys.argv[2]))\n')
    tag = f'watch-{tmp_path}'
    ours, theirs = (f'/dev/shm/fastdds_test_{os.getpid()}_{name}' for name in ('ours', 'theirs'))
    watch = ros_process.ShmWatch(tag, period_s=0.05).start()
    try:
        children = [subprocess.Popen([sys.executable, '-c', hold, path, '0.5'],
                                     stdout=subprocess.PIPE, text=True, env=env)
                    for path, env in ((ours, ros_process.tagged_environment(tag)),
                                      (theirs, dict(os.environ)))]
        for child in children:
            assert child.stdout.readline().strip() == 'up'
            child.wait(timeout=30)
        watch.stop()
        assert watch.leaked() == {ours}      # theirs was made and left while we watched
        os.remove(ours)
        assert watch.leaked() == set()
    finally:
        for path in (ours, theirs):
            if os.path.exists(path):
                os.remove(path)


def test_the_discovery_profile_children_get_is_there():
    with open(DISCOVERY_PROFILE, encoding='utf-8') as profile:
        assert '<profiles' in profile.read()


def test_a_benchmark_killed_mid_run_takes_its_simulator_with_it(tmp_path):
    """A parent started with SIGKILL in store, its child (a simulator, say) made to die with it."""
    import signal
    import subprocess
    pid_file = tmp_path / 'child.pid'
    parent = subprocess.Popen([sys.executable, '-c', (
        'import subprocess, sys, time\n'
        'from rally_sim.runtime.processes import die_with_parent\n'
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'],\n"
        '                         preexec_fn=die_with_parent)\n'
        f'open({str(pid_file)!r}, "w").write(str(child.pid))\n'
        'time.sleep(120)\n')])
    try:
        deadline = time.monotonic() + 60.0
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        os.kill(child, 0)                               # running
        parent.send_signal(signal.SIGKILL)              # no handler, no clean-up of its own
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            with open(f'/proc/{child}/stat', encoding='ascii') as stat:
                if stat.read().rsplit(')', 1)[1].split()[0] == 'Z':     # ended, not reaped
                    break
            time.sleep(0.05)
        else:
            raise AssertionError(f'child {child} outlived its killed parent')
    finally:
        if parent.poll() is None:
            parent.kill()
