"""
Warm starts: the run's processes forked from a server with their imports done.

Driven from a child process of its own (the starter makes its process a
child subreaper, not something to do to pytest's). The campaign tests
check the rest: a run started warm has the metrics of one started cold,
and a killed worker leaves none of its forked processes behind.
"""

import json
import subprocess
import sys

from support import ros_process

DRIVER = r"""
import json, os, signal, sys, time
from rally_sim.campaign.warm_start import WarmProcess, WarmStarter
folder = sys.argv[1]
starter = WarmStarter()
node = [sys.executable, '-m', 'rally_sim.ros.node', '--ros-args']
out = {}
bad = starter.start(node + ['-p', 'physics_rate_hz:=5.0'], os.path.join(folder, 'bad.log'))
out['bad'] = [type(bad).__name__, bad.wait(timeout=120)]
os.environ['RCUTILS_CONSOLE_OUTPUT_FORMAT'] = 'FORKED {name}: {message}'
good = starter.start(node + ['-p', 'pacing:=lockstep'], os.path.join(folder, 'good.log'))
deadline = time.monotonic() + 120
while 'FORKED' not in open(os.path.join(folder, 'good.log')).read() \
        and time.monotonic() < deadline:
    time.sleep(0.05)
out['running'] = good.poll()
out['name'] = open(f'/proc/{good.pid}/comm').read().strip()
out['group'] = os.getpgid(good.pid) == good.pid
good.terminate()
out['good'] = good.wait(timeout=60)
killed = starter.start(node + ['-p', 'pacing:=lockstep'], os.path.join(folder, 'killed.log'))
killed.kill()
out['killed'] = killed.wait(timeout=60)
cold = starter.start([sys.executable, '-c', 'print("cold")'], os.path.join(folder, 'cold.log'))
out['cold'] = [type(cold).__name__, cold.wait(timeout=60)]
starter.close()
print(json.dumps(out))
"""


def test_forked_processes_run_their_module_with_the_runs_arguments_log_and_environment(
        tmp_path):
    tag = str(tmp_path)
    result = subprocess.run([sys.executable, '-c', DRIVER, str(tmp_path)], capture_output=True,
                            text=True, timeout=600, env=ros_process.tagged_environment(tag))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.splitlines()[-1])
    # a bad parameter: the node's own refusal, into the run's log, exit 2
    assert out['bad'] == ['WarmProcess', 2]
    assert "'physics_rate_hz'" in (tmp_path / 'bad.log').read_text()
    # the run's environment (a log format), a name of its module, a process group of its own
    assert out['running'] is None and out['name'] == 'node' and out['group']
    assert 'FORKED rally_sim: ' in (tmp_path / 'good.log').read_text()
    assert out['good'] == 0                     # SIGTERM: a clean stop, as a cold node
    assert out['killed'] == -9
    # any other command starts cold, as before
    assert out['cold'] == ['Popen', 0] and (tmp_path / 'cold.log').read_text() == 'cold\n'
    assert not ros_process.tagged_processes(tag)
