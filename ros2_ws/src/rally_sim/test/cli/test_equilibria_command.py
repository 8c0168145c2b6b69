"""./rally equilibria as a user runs it, and replay --initial-state from its JSON."""

import csv
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                     '..', '..', '..'))
RALLY = os.path.join(ROOT, 'rally')


def rally_equilibria(*args):
    """Run `./rally equilibria ARGS` from the project's root."""
    return subprocess.run([RALLY, 'equilibria', *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_the_command_tables_writes_and_the_replay_holds_an_equilibrium(tmp_path):
    eq, png = tmp_path / 'eq.json', tmp_path / 'eq.png'
    done = rally_equilibria('rwd_gravel', '--surface', 'gravel', '--radius', '15', '--to-deg',
                            '20', '--points', '11', '--json', str(eq), '--plot', str(png))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == 'rwd_gravel on gravel, R = 15 m, driver mode, gear 2'
    rows = lines[3:]
    assert len(rows) == 11
    assert rows[0].split()[0] == '0.0' and rows[0].endswith('stable')
    assert rows[-1].split()[0] == '-20.0' and 'unstable (' in rows[-1]
    assert 'driven spins held: 1.' in rows[-1]
    data = json.loads(eq.read_text())
    assert data['vehicle'] == 'rwd_gravel' and data['gear'] == 2 and data['ended'] == ''
    assert all(e['residual'] <= 1e-9 for e in data['equilibria'])
    assert png.stat().st_size > 20_000
    # the drift at -20 deg, started in the replay with its inputs held: still there 0.3 s on
    out = tmp_path / 'held.csv'
    held = subprocess.run([sys.executable, '-m', 'rally_sim.replay', '--vehicle', 'rwd_gravel',
                           '--surface', 'gravel', '--initial-state', f'{eq}#10',
                           '--duration', '0.3', '--output', str(out)],
                          capture_output=True, text=True, timeout=600)
    assert held.returncode == 0, held.stderr
    with open(out, newline='') as stream:
        table = list(csv.DictReader(stream))
    state = data['equilibria'][10]['state']
    names = ('vx', 'vy', 'yaw_rate', 'omega_fl', 'omega_fr', 'omega_rl', 'omega_rr')
    start = np.array([state[n] for n in names])
    for row in (table[0], table[-1]):
        values = np.array([float(row[n]) for n in names])
        assert np.max(np.abs(values - start) / np.maximum(np.abs(start), 1.0)) < 1e-3
    assert float(table[-1]['t']) == pytest.approx(0.3)


def test_a_limit_exits_1_and_bad_input_exits_2_with_the_reason():
    beyond = rally_equilibria('rwd_gravel', '--surface', 'gravel', '--sideslip-deg', '-50')
    assert beyond.returncode == 1
    assert 'steer limit: it needs' in beyond.stderr
    tight = rally_equilibria('rwd_gravel', '--radius', '1')
    assert tight.returncode == 2 and 'at least the wheelbase' in tight.stderr
    kinematic = rally_equilibria('volvo_v40_kinematic')
    assert kinematic.returncode == 2 and 'four_wheel' in kinematic.stderr


def test_a_car_on_springs_tables_its_roll_and_the_replay_starts_its_body_at_rest(tmp_path):
    eq = tmp_path / 'eq.json'
    done = rally_equilibria('rwd_gravel_suspension', '--surface', 'gravel', '--sideslip-deg',
                            '-25', '--gear', '2', '--json', str(eq))
    assert done.returncode == 0, done.stderr
    head, _, row = done.stdout.splitlines()[1:4]
    assert head.split()[-3:] == ['roll', 'pitch', 'stability']
    roll_deg, pitch_deg = (float(v) for v in row.split()[13:15])
    data = json.loads(eq.read_text())
    e = data['equilibria'][0]
    assert (roll_deg, pitch_deg) == pytest.approx((e['roll_deg'], e['pitch_deg']), abs=0.006)
    assert 1.0 < roll_deg < 3.0 and pitch_deg < 0.0       # leaning out, the nose lifted
    assert e['state']['roll'] == e['roll_rad'] and e['state']['roll_rate'] == 0.0
    out = tmp_path / 'held.csv'
    held = subprocess.run([sys.executable, '-m', 'rally_sim.replay', '--vehicle',
                           'rwd_gravel_suspension', '--surface', 'gravel', '--initial-state',
                           str(eq), '--duration', '0.5', '--output', str(out)],
                          capture_output=True, text=True, timeout=600)
    assert held.returncode == 0, held.stderr
    with open(out, newline='') as stream:
        table = list(csv.DictReader(stream))
    for row in (table[0], table[-1]):
        assert float(row['roll']) == pytest.approx(e['roll_rad'], rel=1e-6)
        assert float(row['pitch']) == pytest.approx(e['pitch_rad'], rel=1e-6)
        assert float(row['vy']) == pytest.approx(e['state']['vy'], rel=1e-6)
