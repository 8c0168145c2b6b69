"""python -m rally_sim.drift_transition: its refusals (a plan itself: test_drift_transition)."""

import subprocess
import sys

import pytest


def plan(*args):
    return subprocess.run([sys.executable, '-m', 'rally_sim.drift_transition', *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize('args, code, message', [
    (['--radius', 'nan'], 2, '--radius: nan is not a positive number'),
    (['--sideslip-deg', '-20'], 2, '--sideslip-deg: -20.0 is not a positive number'),
    (['no_such_car'], 2, "vehicle: no vehicle 'no_such_car'"),
    (['--radius', '1.0'], 2, 'bad input: .*radius'),
    (['--surface', 'tarmac_dry', '--gear', '3', '--sideslip-deg', '40'], 1,
     'no drift to plan from: .*engine'),
])
def test_bad_input_is_refused_and_nothing_is_written(tmp_path, args, code, message):
    import re
    out = tmp_path / 'plan.yaml'
    result = plan(*args, '--output', str(out))
    assert result.returncode == code, result.stderr
    assert re.search(message, result.stderr), result.stderr
    assert not out.exists()
