"""Reading the project's YAML files with errors that name the file."""

from typing import Any, Type

import yaml

LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
"""safe_load's loader in libyaml's C where PyYAML has it: the same data, five times faster."""


def read_yaml(path: str, what: str, error: Type[Exception]) -> Any:
    """Return the parsed YAML of `path`; raise `error` naming `what` and the path."""
    try:
        with open(path, encoding='utf-8') as stream:
            return yaml.load(stream, Loader=LOADER)
    except OSError as failure:
        raise error(f'cannot read {what} {path}: {failure.strerror}') from None
    except yaml.YAMLError as failure:
        raise error(f'{what} {path} is not valid YAML: {failure}') from None
