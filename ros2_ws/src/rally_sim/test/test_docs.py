"""
The README's and the docs pages' code blocks: run as written, checked, or marked with why not.

Each fenced block carries a marker on the line before it:

    <!-- doc-test: run -->                 bash: run as written, from a clone's root;
                                           python: run in the project's environment
    <!-- doc-test: run after -->           the same, after the block before it (its
                                           variables, its files)
    <!-- doc-test: run with --duration S -->  bash: run as written, each ./rally run and
                                           ./rally scenario cut to S s by its own
                                           --duration option (a long run, shorter)
    <!-- doc-test: run with RALLY_SIM_ROS_LAUNCH -->  bash: run as written in a test of its
                                           own, which needs the ros-launch kit (the
                                           `ros2` command line) and skips without it
    <!-- doc-test: scenario -->            YAML: a scenario file, loaded and checked
    <!-- doc-test: scenario over NAME -->  YAML: scenario keys, over shipped scenario NAME
    <!-- doc-test: campaign -->            YAML: a campaign file, expanded and checked
    <!-- doc-test: not run: REASON -->     not runnable here, and why

A block without one fails the suite, naming it. The shell blocks run in a
folder of their own where `./rally` is this clone's (what they write stays
there); one test runs every block of a document, in order.
"""

import os
import re
import subprocess

import pytest
from support import ros_launch_kit
import yaml

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.normpath(os.path.join(PACKAGE, '..', '..', '..'))
DOCUMENTS = ['README.md'] + [os.path.join('docs', page) for page in (
    'ros.md', 'f1tenth.md', 'scenarios.md', 'physics.md', 'layout.md', 'user_guide.md',
    'drive_and_watch.md')]
MARKER = re.compile(r'<!-- doc-test: (run after|run with (--duration [0-9.]+)|'
                    r'run with RALLY_SIM_ROS_LAUNCH|run|'
                    r'scenario over (\w+)|scenario|campaign|not run: .+) -->$')
SHORTENED = re.compile(r'^(\./rally (?:run|scenario)\b[^#]*?)(\s*#.*)?$', re.MULTILINE)
"""A command line that a --duration option shortens, and its comment."""
BLOCK_TIMEOUT_S = 900
KIT = 'run with RALLY_SIM_ROS_LAUNCH'


def blocks(document: str):
    """Return the document's fenced blocks: (line, language, text, marker or None)."""
    with open(os.path.join(ROOT, document), encoding='utf-8') as stream:
        lines = stream.read().splitlines()
    found, k = [], 0
    while k < len(lines):
        opening = re.match(r'```(\w*)$', lines[k])
        if opening is None:
            k += 1
            continue
        end = next(j for j in range(k + 1, len(lines)) if lines[j] == '```')
        marker = MARKER.match(lines[k - 1]) if k > 0 else None
        found.append((k + 1, opening.group(1), '\n'.join(lines[k + 1:end]) + '\n', marker))
        k = end + 1
    return found


def test_every_block_of_both_documents_has_a_marker():
    unmarked = [f'{document}:{line}' for document in DOCUMENTS
                for line, _, _, marker in blocks(document) if marker is None]
    assert not unmarked, f'code blocks without a <!-- doc-test: ... --> marker: {unmarked}'


@pytest.mark.parametrize('document', DOCUMENTS)
def test_the_document_s_blocks_run_and_check_as_written(document, tmp_path):
    (tmp_path / 'rally').write_text(f'#!/usr/bin/env bash\nexec {ROOT}/rally "$@"\n')
    (tmp_path / 'rally').chmod(0o755)
    namespace = {}
    for line, language, text, marker in blocks(document):
        if marker is None or marker.group(1).startswith('not run'):
            continue
        where = f'{document}:{line}'
        kind = marker.group(1)
        if kind == KIT:
            continue            # test_the_blocks_that_need_the_ros2_command_line
        if kind.startswith('run with') and language == 'bash':
            _run_shell(SHORTENED.sub(rf'\1 {marker.group(2)}\2', text), tmp_path, where)
        elif kind in ('run', 'run after') and language == 'bash':
            _run_shell(text, tmp_path, where)
        elif kind in ('run', 'run after') and language == 'python':
            if kind == 'run':
                namespace = {'__name__': '__doc_block__'}
            _run_python(text, namespace, tmp_path, where)
        else:
            _check_yaml(kind, marker.group(3), text, tmp_path, where)


def kit_blocks():
    """Return (document, line, text) of each block that needs the ros-launch kit."""
    return [(document, line, text) for document in DOCUMENTS
            for line, language, text, marker in blocks(document)
            if marker is not None and marker.group(1) == KIT and language == 'bash']


@pytest.mark.parametrize('document, line, text', kit_blocks(),
                         ids=[f'{d}:{n}' for d, n, _ in kit_blocks()])
@ros_launch_kit.needed()
def test_the_blocks_that_need_the_ros2_command_line(document, line, text, tmp_path):
    (tmp_path / 'rally').write_text(f'#!/usr/bin/env bash\nexec {ROOT}/rally "$@"\n')
    (tmp_path / 'rally').chmod(0o755)
    _run_shell(text, tmp_path, f'{document}:{line}')


def test_the_ros2_command_line_blocks_are_found():
    assert ('docs/ros.md' in {document for document, _, _ in kit_blocks()}), \
        'docs/ros.md shows the `ros2` command line in a block marked to run with the kit'


def _run_shell(text: str, folder, where: str) -> None:
    """Run a shell block as written in `folder` (./rally is the clone's); fail with its output."""
    result = subprocess.run(['bash', '-euo', 'pipefail', '-c', text], cwd=folder,
                            capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
    assert result.returncode == 0, f'{where}: exit {result.returncode}\n{result.stdout}' \
                                   f'\n{result.stderr}'


def _run_python(text: str, namespace: dict, folder, where: str) -> None:
    """Run a Python block in this process (the project's environment), in `folder`."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(text, where, 'exec'), namespace)      # noqa: S102 -- the document's own
    finally:
        os.chdir(here)


def _check_yaml(kind: str, base: str, text: str, folder, where: str) -> None:
    """Check a YAML block as the file it shows: a scenario, scenario keys, a campaign."""
    from rally_sim.campaign.spec import load_campaign
    from rally_sim.scenarios.spec import check_scenario, load_scenario
    tree = yaml.safe_load(text)
    if kind == 'campaign':
        path = folder / 'campaign.yaml'
        path.write_text(text)
        assert load_campaign(str(path)).runs, where
        return
    if base:
        spec = load_scenario(base)
        spec.pop('file')
        spec.update(tree)
        tree = spec
    check_scenario(tree, where)


def test_a_shortened_block_cuts_each_run_by_its_own_option():
    text = './rally run     # the demo\n./rally scenario path_follow\n./rally exec true\n'
    assert SHORTENED.sub(r'\1 --duration 2\2', text) == (
        './rally run --duration 2     # the demo\n./rally scenario path_follow --duration 2\n'
        './rally exec true\n')
