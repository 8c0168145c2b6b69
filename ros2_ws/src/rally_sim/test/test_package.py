"""package.xml declares what the code imports, so that rosdep users get a working install."""

import ast
import glob
import os
import sys
import xml.etree.ElementTree as ElementTree

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROSDEP_KEYS = {
    'numpy': 'python3-numpy', 'yaml': 'python3-yaml', 'transforms3d': 'python3-transforms3d',
    'matplotlib': 'python3-matplotlib', 'PIL': 'python3-pil', 'numba': 'python3-numba',
    'llvmlite': 'python3-numba', 'gymnasium': 'python3-gymnasium-pip',
    'aiohttp': 'python3-aiohttp'}
"""Python modules imported under another name than their rosdep key."""
WITHOUT_KEY = {'mcap', 'pyarrow', 'ray', 'rosbags', 'selenium', 'stable_baselines3', 'torch'}
"""No rosdep key: package.xml says to pip install them (recording; campaigns; a bag in the view;
the view's benchmark; Stable-Baselines3 and torch for rally_sim.gym.sb3 and train_ppo)."""


def imported_modules() -> set:
    """Return the top-level modules that the package's code and launch files import."""
    found = set()
    files = glob.glob(os.path.join(PACKAGE, 'rally_sim', '**', '*.py'), recursive=True)
    files += glob.glob(os.path.join(PACKAGE, 'launch', '*.py'))
    for path in files:
        with open(path, encoding='utf-8') as source:
            tree = ast.parse(source.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split('.')[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                found.add(node.module.split('.')[0])
    return found - set(sys.stdlib_module_names) - {'rally_sim'}


def test_package_xml_depends_on_everything_the_code_imports():
    root = ElementTree.parse(os.path.join(PACKAGE, 'package.xml')).getroot()
    depends = {e.text for e in root if e.tag in ('exec_depend', 'depend')}
    wanted = {ROSDEP_KEYS.get(module, module) for module in imported_modules() - WITHOUT_KEY}
    assert wanted - depends == set()
    with open(os.path.join(PACKAGE, 'package.xml'), encoding='utf-8') as stream:
        text = stream.read()
    assert all(f'pip install {module}' in text for module in WITHOUT_KEY)
