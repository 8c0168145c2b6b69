"""Find the files rally_sim ships in config/ (vehicles, stages), from source or install."""

import os


def config_file(relative: str) -> str:
    """Return the path of config/<relative>, or '' if it is not there."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, '..', 'config', relative)]
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.append(os.path.join(get_package_share_directory('rally_sim'), 'config',
                                       relative))
    except (ImportError, LookupError):
        pass
    for candidate in candidates:
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    return ''


def preset(name: str, folder: str, suffix: str) -> str:
    """Return `name` if it is a path, else config/<folder>/<name><suffix> if shipped."""
    if os.path.exists(name) or os.sep in name or name.endswith(suffix):
        return name
    return config_file(os.path.join(folder, name + suffix)) or name


def shipped(folder: str, suffix: str = '.yaml') -> list:
    """Return the names of the files shipped in config/<folder> ending in `suffix`, sorted."""
    path = config_file(folder)
    if not path:
        return []
    return sorted(name[:-len(suffix)] for name in os.listdir(path) if name.endswith(suffix))
