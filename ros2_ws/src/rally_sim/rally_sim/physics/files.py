"""Reading the project's YAML files with errors that name the file; finding shipped ones."""

import os
from typing import Any, Type

import yaml

LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
"""safe_load's loader in libyaml's C where PyYAML has it: the same data, five times faster."""


def cache_folder(*parts: str) -> str:
    """Return rally_sim's folder in the user's cache ($XDG_CACHE_HOME, else ~/.cache), joined."""
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'rally_sim', *parts)


def read_yaml(path: str, what: str, error: Type[Exception]) -> Any:
    """Return the parsed YAML of `path`; raise `error` naming `what` and the path."""
    try:
        with open(path, encoding='utf-8') as stream:
            return yaml.load(stream, Loader=LOADER)
    except OSError as failure:
        raise error(f'cannot read {what} {path}: {failure.strerror}') from None
    except yaml.YAMLError as failure:
        raise error(f'{what} {path} is not valid YAML: {failure}') from None


def config_file(relative: str) -> str:
    """
    Return the path of config/<relative>, or '' if it is not there.

    Looked for beside the package (a source tree, colcon's symlinked
    install), in the package itself (`rally_sim/data`: a pip install) and in
    the ament share folder (colcon's install); without a ROS environment the
    last is skipped.
    """
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))    # rally_sim/
    for candidate in (os.path.join(here, '..', 'config', relative),
                      os.path.join(here, 'data', relative)):
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    try:        # the index only where the package's own folders have nothing: it reads files
        from ament_index_python.packages import get_package_share_directory
        candidate = os.path.join(get_package_share_directory('rally_sim'), 'config', relative)
    except (ImportError, LookupError, OSError):    # OSError: AMENT_PREFIX_PATH not set
        return ''
    return os.path.normpath(candidate) if os.path.exists(candidate) else ''
