"""Point the ROS wheels' CMake files at this interpreter's include folders.

The ROS 2 wheels on PyPI are built in a manylinux image whose Python lives in
/opt/python/cp311-cp311; their exported CMake files keep those include paths,
so building an interface package against them fails with "includes
non-existent path". This rewrites them, in place, to this venv's paths.
Usage: python fix_cmake_paths.py VENV_SHARE_DIR
"""

import pathlib
import sys
import sysconfig

import numpy

BUILD_PYTHON = '/opt/python/cp311-cp311'
REPLACEMENTS = (
    (BUILD_PYTHON + '/lib/python3.11/site-packages/numpy/_core/include',
     numpy.get_include()),
    (BUILD_PYTHON + '/include/python3.11', sysconfig.get_paths()['include']),
)


def fix_file(path: pathlib.Path) -> bool:
    """Rewrite one CMake file; return whether it changed."""
    text = path.read_text(encoding='utf-8', errors='surrogateescape')
    fixed = text
    for old, new in REPLACEMENTS:
        fixed = fixed.replace(old, new)
    if fixed == text:
        return False
    path.write_text(fixed, encoding='utf-8', errors='surrogateescape')
    return True


def main(argv: list) -> int:
    """Fix every *.cmake file below the given folder."""
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    changed = [p for p in pathlib.Path(argv[0]).rglob('*.cmake') if fix_file(p)]
    print(f'fixed include paths in {len(changed)} CMake files')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
