"""Find the files rally_sim ships in config/ (vehicles, stages), from source or install."""

import os

from .physics import ConfigError, Surface, SURFACE_GRIP, SurfaceError
from .physics.files import config_file  # noqa: F401 (found here by the other parts)


def preset(name: str, folder: str, suffix: str) -> str:
    """Return `name` if it is a path, else config/<folder>/<name><suffix> if shipped."""
    if os.path.exists(name) or os.sep in name or name.endswith(suffix):
        return name
    return config_file(os.path.join(folder, name + suffix)) or name


def path_of(value: str) -> str:
    """Return a path follower's path file: a CSV, a shipped stage's line, or rally_stage's."""
    return preset(value, 'stages', '_path.csv') if value else config_file(
        'stages/rally_stage_path.csv')


def shipped(folder: str, suffix: str = '.yaml') -> list:
    """Return the names of the files shipped in config/<folder> ending in `suffix`, sorted."""
    path = config_file(folder)
    if not path:
        return []
    return sorted(name[:-len(suffix)] for name in os.listdir(path) if name.endswith(suffix))


def read_shipped(name: str, folder: str, what: str, error) -> tuple:
    """
    Return (path, parsed YAML) of a shipped config/<folder> file by name, or of a file.

    Raises `error` (an exception class) naming what does not exist, with
    the shipped ones, or why the file cannot be read.
    """
    import yaml
    path = preset(name, folder, '.yaml')
    if not os.path.isfile(path):
        raise error(f"no {what} '{name}': not a {what} file, nor a built-in {what} "
                    f"(built-in: {', '.join(shipped(folder))})")
    try:
        with open(path, encoding='utf-8') as stream:
            return path, yaml.safe_load(stream)
    except (OSError, yaml.YAMLError) as failure:
        raise error(f'cannot read {what} {name}: {failure}') from None


def vehicle_path(name: str) -> str:
    """Return a vehicle file's path: an existing path, or a preset's; ConfigError if neither."""
    path = preset(name, 'vehicles', '.yaml')
    if not os.path.isfile(path):
        raise ConfigError(f"no vehicle '{name}': not a vehicle file, nor a preset (presets: "
                          f"{', '.join(shipped('vehicles'))})")
    return path


def tyre_path(name: str) -> str:
    """Return a tyre file's path: an existing path, or a shipped tyre's (config/tyres/NAME.tir)."""
    return preset(name, 'tyres', '.tir')


def surface_from(text: str) -> Surface:
    """Return a uniform surface for a type name, else a map file's or a shipped stage's map."""
    if text in SURFACE_GRIP:
        return Surface.uniform(text)
    path = preset(text, 'stages', '.yaml')
    if not os.path.isfile(path):
        from .world.stages import STAGES
        raise SurfaceError(f"no surface '{text}': not a surface type ({', '.join(SURFACE_GRIP)}),"
                           f" a stage ({', '.join(sorted(STAGES))}) nor a surface map file")
    return Surface.load(path)


def walls_from(text: str, surface: Surface):
    """
    Return the occupancy map a `map` setting names (world/occupancy.py), or None.

    '': the one beside the surface's map (a stage's <name>_map.yaml), if
    any; 'none': no walls; a shipped stage's name: its map; else a file,
    with or without its .yaml (f1tenth_gym_ros's map_path has none).
    MapError naming the file and the key if it cannot be used.
    """
    from .world.occupancy import load_map, map_beside, MapError
    if text == 'none':
        return None
    if text == '':
        beside = map_beside(surface.source) if surface.source else None
        return load_map(beside) if beside else None
    path = preset(text, 'stages', '_map.yaml')
    if not os.path.isfile(path) and os.path.isfile(text + '.yaml'):
        path = text + '.yaml'
    if not os.path.isfile(path):
        raise MapError(f"no occupancy map '{text}': not a stage with one, nor a file")
    return load_map(path)
