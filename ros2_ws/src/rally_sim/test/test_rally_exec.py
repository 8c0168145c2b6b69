"""`./rally exec ros2 ...` without a ros-launch kit says what is missing and where to look."""

import base64
import hashlib
import os
import subprocess
import zipfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                     '..', '..', '..', '..'))


def rally_exec(*words: str, kit: str = None) -> subprocess.CompletedProcess:
    """Run `./rally exec WORDS` with RALLY_SIM_ROS_LAUNCH set to `kit` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != 'RALLY_SIM_ROS_LAUNCH'}
    # What the suite's process put first on PATH must not be taken for a `ros2`.
    env['PATH'] = os.pathsep.join(p for p in env['PATH'].split(os.pathsep)
                                  if not os.path.isfile(os.path.join(p, 'ros2')))
    if kit is not None:
        env['RALLY_SIM_ROS_LAUNCH'] = kit
    return subprocess.run([os.path.join(ROOT, 'rally'), 'exec', *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_ros2_without_the_kit_names_the_variable_and_the_docs():
    done = rally_exec('ros2', 'topic', 'list')
    assert done.returncode == 127
    assert 'no `ros2` command line' in done.stderr
    assert 'RALLY_SIM_ROS_LAUNCH' in done.stderr and 'docs/ros.md' in done.stderr


def test_ros2_with_an_incomplete_kit_says_so(tmp_path):
    done = rally_exec('ros2', 'node', 'list', kit=str(tmp_path))
    assert done.returncode == 127
    assert f'RALLY_SIM_ROS_LAUNCH={tmp_path} has no bin/ros2' in done.stderr


def test_other_commands_run_without_the_kit():
    done = rally_exec('python', '-c', 'import rclpy; print("rclpy here")')
    assert done.returncode == 0 and 'rclpy here' in done.stdout, done.stderr


def wheel(folder, name: str, body: str) -> str:
    """Write a one-module wheel `name` 0.0.1 (what pip installs from an index); its path."""
    dist = f'{name}-0.0.1.dist-info'
    files = {f'{name}/__init__.py': body,
             f'{dist}/METADATA': f'Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n',
             f'{dist}/WHEEL': 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n'
                              'Tag: py3-none-any\n'}
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=')
        record.append(f'{path},sha256={digest.decode()},{len(text.encode())}')
    files[f'{dist}/RECORD'] = '\n'.join(record + [f'{dist}/RECORD,,']) + '\n'
    path = os.path.join(folder, f'{name}-0.0.1-py3-none-any.whl')
    with zipfile.ZipFile(path, 'w') as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_pip_install_goes_to_the_user_site_and_never_over_a_pinned_package(tmp_path):
    """Two local wheels: one of the user's own, one that claims numpy's name."""
    site = tmp_path / 'site'
    env = dict(os.environ, RALLY_SIM_USER_SITE=str(site))
    for name, body in (('my_helpers', 'ANSWER = 42\n'), ('numpy', 'FAKE = True\n')):
        done = subprocess.run([os.path.join(ROOT, 'rally'), 'exec', 'pip', 'install', '--no-deps',
                               '--no-index', '--quiet', wheel(tmp_path, name, body)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert (site / name / '__init__.py').is_file()
    done = subprocess.run(
        [os.path.join(ROOT, 'rally'), 'exec', 'python', '-c',
         'import my_helpers, numpy; print(my_helpers.ANSWER, hasattr(numpy, "FAKE"), '
         'numpy.__version__)'],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    answer, fake, version = done.stdout.split()
    assert (answer, fake) == ('42', 'False')          # the pinned numpy stays first
    assert version == '2.2.6'
