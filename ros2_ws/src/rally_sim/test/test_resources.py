"""What the `map` setting names: a stage, none, or a map_server YAML with or without .yaml."""

import pytest
from rally_sim.physics import Surface
from rally_sim.resources import walls_from
from rally_sim.world.occupancy import MapError
from support.maps import corridor_map


def test_a_map_file_is_found_with_or_without_its_yaml_as_f1tenth_gym_ros_names_it(tmp_path):
    ground = Surface.uniform('tarmac_dry')
    corridors = corridor_map(str(tmp_path))
    assert corridors.endswith('.yaml')
    with_suffix, without = walls_from(corridors, ground), walls_from(corridors[:-5], ground)
    assert without.source == with_suffix.source == corridors
    assert walls_from('none', ground) is None and walls_from('track', ground) is not None
    with pytest.raises(MapError, match="no occupancy map 'nowhere': not a stage with one"):
        walls_from('nowhere', ground)
