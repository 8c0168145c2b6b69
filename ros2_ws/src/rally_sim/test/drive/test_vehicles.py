"""A car as another model of the family (./rally drive --model): it loads, it runs."""

import pytest
from rally_sim.drive.vehicles import as_model, REFERENCE_STIFFNESS_PER_RAD, slope_per_rad
from rally_sim.physics import load_vehicle, Vehicle
from rally_sim.physics.config import ConfigError, from_mapping
from rally_sim.physics.tyre import unit_forces
from rally_sim.resources import vehicle_path


@pytest.mark.parametrize('name, model', [
    (name, model)
    for name in ('rwd_gravel', 'volvo_v40', 'rwd_gravel_suspension', 'volvo_v40_mf',
                 'fwd_hatchback')
    for model in ('kinematic_bicycle', 'arcade_bicycle')]
    + [('arcade_group4', 'kinematic_bicycle'), ('volvo_v40_kinematic', 'arcade_bicycle')])
def test_every_car_becomes_a_bicycle_of_either_kind(name, model):
    config = load_vehicle(vehicle_path(name))
    car = from_mapping(as_model(config, model))
    assert car['model'] == model and car['mass_kg'] == config['mass_kg']
    assert car['steering.max_angle_rad'] == config['steering.max_angle_rad']
    vehicle = Vehicle(car)
    vehicle.reset(vx=10.0)
    vehicle.advance(100, 0.001)                         # it runs
    assert vehicle.state[0] > 0.9


def test_the_arcade_stiffness_is_the_tyre_s_own_slope_at_zero_slip():
    config = load_vehicle(vehicle_path('rwd_gravel'))
    stiffness = slope_per_rad(config, 'front')
    assert stiffness == pytest.approx(1.0 * 8.0 * 1.4 * 1.0)
    small = 1e-6                                        # the document's force, per newton
    _, lateral = unit_forces(0.0, small, config.tyre('B')[0], config.tyre('C')[0],
                             config.tyre('D')[0])
    assert config.tyre('mu')[0] * abs(lateral) / small == pytest.approx(stiffness, rel=1e-6)
    assert slope_per_rad(load_vehicle(vehicle_path('volvo_v40_mf')), 'rear') == \
        REFERENCE_STIFFNESS_PER_RAD
    with pytest.raises(ValueError, match='is a four_wheel car already'):
        as_model(config, 'four_wheel')
    with pytest.raises(ConfigError, match='missing key'):      # a bicycle has no tyre shape
        from_mapping(as_model(load_vehicle(vehicle_path('arcade_group4')), 'four_wheel'))
