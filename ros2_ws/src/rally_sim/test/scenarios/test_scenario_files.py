"""A scenario's own files are found beside it, from whatever folder it is run."""

import os
import shutil

from rally_sim.resources import config_file
from rally_sim.scenarios.spec import load_scenario
import yaml


def test_a_scenario_s_vehicle_controller_files_and_path_are_found_beside_it(tmp_path,
                                                                            monkeypatch):
    mine = tmp_path / 'mine'
    mine.mkdir()
    shutil.copy(config_file('vehicles/rwd_gravel.yaml'), mine / 'my_car.yaml')
    shutil.copy(config_file('stages/rally_stage_path.csv'), mine / 'line.csv')
    (mine / 'my_controller.py').write_text('print("a controller")\n')
    with open(config_file('scenarios/drift_skid_pad.yaml'), encoding='utf-8') as stream:
        spec = yaml.safe_load(stream)
    spec.update(vehicle='my_car.yaml', path='line.csv')
    spec['controller'] = {'command': ['python', 'my_controller.py'],
                          'params': {'vehicle': 'my_car.yaml', 'surface': 'gravel'}}
    spec['opponents'] = [{'name': 'other', 'vehicle': 'my_car.yaml',
                          'controller': {'command': ['python', 'my_controller.py']}}]
    (mine / 'my.yaml').write_text(yaml.safe_dump(spec))
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)                    # the user runs it from another folder
    loaded = load_scenario(str(mine / 'my.yaml'))
    car, script = str(mine / 'my_car.yaml'), str(mine / 'my_controller.py')
    assert loaded['vehicle'] == car and loaded['path'] == str(mine / 'line.csv')
    assert loaded['controller']['command'] == ['python', script]
    assert loaded['controller']['params'] == {'vehicle': car, 'surface': 'gravel'}
    other = loaded['opponents'][0]
    assert other['vehicle'] == car and other['controller']['command'] == ['python', script]
    assert loaded['stage'] == 'skid_pad'            # a shipped name stays a name
    assert os.listdir(elsewhere) == []
