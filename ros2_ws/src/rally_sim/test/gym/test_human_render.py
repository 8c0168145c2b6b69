"""Gymnasium's render_mode 'human': the environment's car in the view's page, in a real browser."""

import io

import gymnasium
from matplotlib import colors, image
import numpy as np
import pytest
import rally_sim.gym  # noqa: F401  (registers the environments)
from rally_sim.physics.model import X, Y, YAW
from support.browser import Browser, free_port


@pytest.mark.parametrize('env_id', ['rally_sim/RallyDrive-v0', 'rally_sim/Drift-v0'])
def test_the_human_render_shows_the_environment_s_car(env_id, tmp_path):
    port = free_port()
    env = gymnasium.make(env_id, render_mode='human', open_browser=False, view_port=port)
    browser = Browser(str(tmp_path))
    try:
        env.reset(seed=3)
        browser.open(f'http://localhost:{port}/')
        browser.wait("rallyView.role === 'watch' && rallyView.cars.length === 1 && "
                     'rallyView.world.ground !== null')
        for _ in range(10):
            env.step(np.array([0.1, 0.3], dtype=np.float32))
        state = env.unwrapped.fleet.states[0]
        shown = browser.wait('rallyView.shownState && rallyView.shownState.t > 0.45 && '
                             'rallyView.shownState')
        car = shown['cars'][0]
        assert shown['t'] == pytest.approx(0.5)
        assert (car['x'], car['y'], car['yaw']) == (state[X], state[Y], state[YAW])
        assert browser.value('rallyView.stats.frames') > 0
        assert _painted(browser.driver.get_screenshot_as_png(), browser.value(
            'rallyView.cars[0].colour')) > 50           # the car's body, drawn by the painter
        assert browser.errors() == []
    finally:
        browser.close()
        env.close()
    assert env.unwrapped._view is None                  # closed with the environment


def _painted(png: bytes, colour: str) -> int:
    """Count the screenshot's pixels of the car's colour (within 3 of 255 per channel)."""
    pixels = image.imread(io.BytesIO(png), format='png')[:, :, :3]
    return int(np.sum(np.all(np.abs(pixels - colors.to_rgb(colour)) < 3 / 255, axis=2)))
