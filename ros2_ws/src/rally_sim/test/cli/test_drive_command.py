"""`./rally drive` as a person runs it: a page to drive from, the drive written as a run."""

import csv
import glob
import json
import os
import signal
import subprocess
import sys

from support import ros_process
from support.bags import decode_with_rosbags
from support.browser import Browser, free_port, served


def test_a_drive_from_the_page_is_written_as_a_run_with_its_bag(tmp_path):
    # No --duration: the run's clock starts with the simulator, not with the page, so a
    # browser slow to start would find the drive over. The person ends it with Ctrl-C.
    port = free_port()
    command = [sys.executable, '-m', 'rally_sim.cli.drive', 'rwd_gravel', '--stage', 'skid_pad',
               '--port', str(port), '--output', str(tmp_path / 'out'),
               '--record', str(tmp_path / 'bag'), '--assist', 'automatic_gearbox']
    drive = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=ros_process.tagged_environment(str(tmp_path)))
    browser = Browser(str(tmp_path))
    try:
        served(f'http://localhost:{port}/', lambda: drive.poll() is None, 180.0)
        browser.open(f'http://localhost:{port}/')
        browser.wait("rallyView.role === 'drive' && rallyView.hud.drive", 120.0)
        assert browser.value('rallyView.hud.drive.assists.automatic_gearbox') is True
        browser.key('w', True)
        browser.wait('rallyView.hud.shown.speed_m_s > 3.5', 120.0)
        drive.send_signal(signal.SIGINT)                # Ctrl-C ends a drive
        output, _ = drive.communicate(timeout=180.0)
    finally:
        browser.close()
        if drive.poll() is None:
            drive.kill()
    assert drive.returncode == 0, output
    assert f'open http://localhost:{port}/' in output
    (folder,) = glob.glob(str(tmp_path / 'out' / 'drive-*'))
    for name in ('run.csv', 'run.png', 'laps.csv', 'simulator.log', 'view.log'):
        assert os.path.getsize(os.path.join(folder, name)) > 0, name
    with open(os.path.join(folder, 'run.csv'), encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    assert float(rows[-1]['vx']) > 3.0                  # the throttle held to the end
    bag = decode_with_rosbags(tmp_path / 'bag')
    assert any(m.throttle == 1.0 and m.gear == -2 for m in bag['/driver_cmd'])
    (assists,) = bag['/drive_assists']                  # latched: the assists of the run
    assert json.loads(assists.data)['assists']['automatic_gearbox'] is True


def test_a_race_puts_the_path_follower_beside_you_on_the_stage(tmp_path):
    port = free_port()
    done = subprocess.run(
        [sys.executable, '-m', 'rally_sim.cli.drive', 'rwd_gravel', '--race', '--duration', '3',
         '--port', str(port), '--output', str(tmp_path / 'out')], capture_output=True, text=True,
        timeout=300, env=ros_process.tagged_environment(str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    (folder,) = glob.glob(str(tmp_path / 'out' / 'drive-*'))
    with open(os.path.join(folder, 'simulator.log'), encoding='utf-8') as stream:
        log = stream.read()
    assert 'cars you (rwd_gravel), follower (rwd_gravel)' in log
    with open(os.path.join(folder, 'path_follower.log'), encoding='utf-8') as stream:
        assert 'following' in stream.read()
    with open(os.path.join(folder, 'run.csv'), encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    assert float(rows[-1]['t']) >= 2.9                  # your car's run: you did not drive
    assert abs(float(rows[-1]['vx'])) < 0.5


def test_a_race_needs_a_stage_with_a_path(tmp_path):
    done = subprocess.run([sys.executable, '-m', 'rally_sim.cli.drive', '--race', '--stage',
                           'gravel'], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and '--race: gravel has no reference path' in done.stderr
