"""Vehicle files: the presets load; every kind of bad value is named with its range."""

import math

import pytest
from rally_sim.physics import ConfigError, load_vehicle, Vehicle
from rally_sim.physics.config import ALL, FIELDS
from support.vehicles import PRESETS, vehicle_file
import yaml


@pytest.mark.parametrize('name', PRESETS)
def test_presets_load_and_build_a_car(name):
    config = load_vehicle(vehicle_file(name))
    assert config['name'] == name
    assert Vehicle(config).speed_m_s() == 0.0


def write(tmp_path, tree):
    path = tmp_path / 'car.yaml'
    path.write_text(yaml.safe_dump(tree))
    return str(path)


def v40_tree():
    with open(vehicle_file('volvo_v40'), encoding='utf-8') as stream:
        return yaml.safe_load(stream)


@pytest.mark.parametrize('mutate, message', [
    (lambda t: t.update(wheelbase=2.6), "unknown key 'wheelbase'"),
    (lambda t: t['tyres']['front'].update(E=0.5), "unknown key 'tyres.front.E'"),
    (lambda t: t.pop('mass_kg'), 'missing key.*mass_kg'),
    (lambda t: t['tyres']['rear'].pop('mu'), 'missing key.*tyres.rear.mu'),
    (lambda t: t.update(mass_kg=-5.0), r"'mass_kg' = -5.0 is out of range \[1, 100000\]"),
    (lambda t: t.update(mass_kg=math.nan), r"'mass_kg' = nan is out of range"),
    (lambda t: t.update(cg_height_m=math.inf), r"'cg_height_m' = inf is out of range \[0, 5\]"),
    (lambda t: t['tyres']['front'].update(mu='grippy'), "'tyres.front.mu' = 'grippy' must "
                                                        'be a number'),
    (lambda t: t.update(dt=True), "'dt' = True must be a number"),
    (lambda t: t.update(integrator='verlet'), "'integrator' = 'verlet' must be one of"),
    (lambda t: t['steering'].update(ackermann=1.5), r"'steering.ackermann' = 1.5 is out of "
                                                    r'range \[0, 1\]'),
    (lambda t: t.update(load_transfer='guess'), r"'load_transfer' = 'guess' must be one of "
                                                r"\['exact', 'document'\]"),
    (lambda t: t.update(load_transfer_iterations=2.5), "'load_transfer_iterations' = 2.5 must "
                                                       'be a whole number'),
    (lambda t: t.update(load_transfer_iterations=-1), r"'load_transfer_iterations' = -1 is out "
                                                      r'of range \[0, 1000\]'),
])
def test_bad_vehicle_files_name_the_key(tmp_path, mutate, message):
    tree = v40_tree()
    mutate(tree)
    with pytest.raises(ConfigError, match=message):
        load_vehicle(write(tmp_path, tree))


def test_not_a_mapping_and_not_yaml(tmp_path):
    path = tmp_path / 'car.yaml'
    path.write_text('- just\n- a list\n')
    with pytest.raises(ConfigError, match='mapping'):
        load_vehicle(str(path))
    path.write_text('mass_kg: [1, 2\n')
    with pytest.raises(ConfigError, match='not valid YAML'):
        load_vehicle(str(path))
    with pytest.raises(ConfigError, match='cannot read'):
        load_vehicle(str(tmp_path / 'missing.yaml'))


def test_keys_with_a_default_may_be_left_out(tmp_path):
    tree = v40_tree()
    assert 'load_transfer' not in tree
    config = load_vehicle(write(tmp_path, tree))
    assert config['load_transfer'] == 'exact' and config['load_transfer_iterations'] == 8
    tree['load_transfer_iterations'] = 20
    assert load_vehicle(write(tmp_path, tree))['load_transfer_iterations'] == 20


def test_overrides_are_validated_too():
    config = load_vehicle(vehicle_file('volvo_v40'), ['dt=0.0005', 'tyres.rear.mu=0.6'])
    assert config['dt'] == 0.0005 and config['tyres.rear.mu'] == 0.6
    with pytest.raises(ConfigError, match=r"'dt' = 2.0 is out of range"):
        load_vehicle(vehicle_file('volvo_v40'), ['dt=2.0'])
    with pytest.raises(ConfigError, match='key=value'):
        load_vehicle(vehicle_file('volvo_v40'), ['dt'])


def test_every_field_has_a_description_and_range():
    for key, field in FIELDS.items():
        assert field.description, key
        assert field.kind in (str, bool) or field.low < field.high, key
        assert field.kind is not list or 0 < field.length[0] <= field.length[1], key
        assert field.models == ALL or field.neutral is not None, key    # what others read


CORVETTE_DRIVETRAIN = {
    'drivetrain': {'layout': 'rwd'},
    'engine': {'torque_curve_rpm': [1000, 2500, 4400, 5600, 6000],
               'torque_curve_n_m': [390, 448, 475, 438, 400], 'limit_rpm': 6000},
    'gearbox': {'ratios': [2.66, 1.78, 1.30, 1.00, 0.74, 0.50], 'reverse_ratio': 2.90,
                'final_drive': 3.42, 'efficiency': 0.7, 'shift_up_rpm': 5500,
                'shift_down_rpm': 2500},
    'clutch': {'max_torque_n_m': 700},
    'differential': {'rear': {'type': 'torque_bias', 'bias_ratio': 2.5}},
}


def with_drivetrain(**changes):
    tree = v40_tree()
    drivetrain = yaml.safe_load(yaml.safe_dump(CORVETTE_DRIVETRAIN))
    for dotted, value in changes.items():
        *path, last = dotted.split('.')
        node = drivetrain
        for part in path:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last)
        else:
            node[last] = value
    tree.update(drivetrain)
    return tree


def test_a_drivetrain_section_loads_with_its_defaults(tmp_path):
    config = load_vehicle(write(tmp_path, with_drivetrain()))
    assert config['gearbox.ratios'] == (2.66, 1.78, 1.30, 1.00, 0.74, 0.50)
    assert config['engine.idle_rpm'] == 800.0 and config['differential.front.type'] == 'open'
    assert config['differential.rear.bias_ratio'] == 2.5
    assert load_vehicle(vehicle_file('volvo_v40'))['drivetrain.layout'] == 'none'


@pytest.mark.parametrize('changes, message', [
    ({'engine.torque_curve_rpm': [1000, 3000, 2500, 5600, 6000]},
     r"'engine.torque_curve_rpm' = \[1000.0, 3000.0, 2500.0, 5600.0, 6000.0\] must increase"),
    ({'engine.torque_curve_n_m': [390, 448, 475]}, "'engine.torque_curve_n_m' has 3 entries"),
    ({'gearbox.ratios': [2.66, 0.0, 1.3]}, r"'gearbox.ratios' entry 1 = 0.0 must be a number "
                                           r'in \[0.05, 20\]'),
    ({'gearbox.final_drive': 0.0}, r"'gearbox.final_drive' = 0.0 is out of range"),
    ({'gearbox.ratios': 2.66}, "'gearbox.ratios' must be a list of 1 to 12 numbers"),
    ({'differential.rear.type': 'viscous'}, r"'differential.rear.type' = 'viscous' must be "
                                            r"one of \['open', 'locked', 'clutch_pack', "
                                            r"'torque_bias'\]"),
    ({'clutch.max_torque_n_m': None}, r'missing key\(s\) clutch.max_torque_n_m '
                                      r'\(drivetrain.layout rwd\)'),
    ({'drivetrain.layout': 'none'}, 'need drivetrain.layout fwd, rwd or awd'),
    ({'gearbox.shift_up_rpm': 6500}, "'gearbox.shift_up_rpm' .6500. < 'engine.limit_rpm'"),
])
def test_bad_drivetrains_name_the_key(tmp_path, changes, message):
    with pytest.raises(ConfigError, match=message):
        load_vehicle(write(tmp_path, with_drivetrain(**changes)))


def test_a_file_with_several_bad_and_missing_keys_is_refused_with_all_of_them(tmp_path):
    tree = v40_tree()
    tree.update(mass_kg=-3.0, wheel_radius_m=math.nan, wheelbase_m=2.6)
    tree['tyres']['rear']['C'] = 9.0
    tree.pop('half_track_m')
    tree.pop('cg_height_m')
    with pytest.raises(ConfigError) as refused:
        load_vehicle(write(tmp_path, tree))
    lines = str(refused.value).splitlines()
    assert lines[0].endswith('car.yaml: 5 problems:')
    assert sorted(lines[1:-1]) == sorted([       # in the file's order, the missing last
        "  - key 'mass_kg' = -3.0 is out of range [1, 100000]: total mass [kg]",
        "  - key 'wheel_radius_m' = nan is out of range [0.01, 2]: wheel radius R [m]",
        "  - unknown key 'wheelbase_m' (did you mean 'wheel_radius_m' or 'wheel_radius_rear_m'?); "
        'every key is listed in docs/vehicle_files.md (python -m rally_sim.vehicle_keys)',
        "  - key 'tyres.rear.C' = 9.0 is out of range [0.1, 3]: rear Pacejka shape factor C"])
    assert lines[-1] == '  - missing key(s) half_track_m, cg_height_m'


def test_the_docs_list_every_key_as_the_schema_has_it():
    import os
    from rally_sim.cli.vehicle_keys import reference
    docs = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'docs',
                        'vehicle_files.md')
    with open(docs, encoding='utf-8') as stream:
        assert stream.read() == reference(), ('docs/vehicle_files.md is not the schema now: '
                                              'python -m rally_sim.vehicle_keys --output '
                                              'docs/vehicle_files.md')
    for key, spec in FIELDS.items():
        row = next(line for line in reference().splitlines() if line.startswith(f'| `{key}` |'))
        assert ('required' in row or 'with a drivetrain' in row
                or 'with a suspension' in row) == (spec.default is None)
