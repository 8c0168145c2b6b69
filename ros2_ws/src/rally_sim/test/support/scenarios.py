"""Scenario files for tests: the shipped path_follow scenario, shortened and changed."""

from rally_sim.resources import config_file
import yaml


def short_scenario(tmp_path, name, **changes):
    """Write path_follow shortened to 8 s with `changes` into tmp_path; return its path."""
    with open(config_file('scenarios/path_follow.yaml'), encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(name=name, duration_s=8.0,
                thresholds={'cross_track_max_m': {'max': 1.0}, 'off_road_time_s': {'max': 0.0}})
    spec.update(changes)
    path = tmp_path / f'{name}.yaml'
    path.write_text(yaml.safe_dump(spec))
    return path
