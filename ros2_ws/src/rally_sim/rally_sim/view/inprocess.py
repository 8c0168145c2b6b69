"""
The view fed in process: Gymnasium's render_mode 'human' shows its car in the same page.

ROS-free. The stage's ground is built from the same functions the
simulator's stage topics use (world/stage_view.py, its occupancy map), the
car's facts from its vehicle file, and each state from a Vehicle put in the
environment's state (Vehicle.restore), so the page gets what it would from
the simulator node. The pages are served from a thread (server.py); the
environment's steps are paced to real time, as a human render is.
"""

import time
from typing import Optional
import webbrowser

import numpy as np

from . import ground as ground_module
from .frames import car_facts, CarSample, CarTrack
from .server import ViewServer
from ..physics.model import VX, VY, X, Y, YAW, YAW_RATE
from ..physics.surfaces import Surface
from ..physics.vehicle import Vehicle
from ..resources import walls_from
from ..world.scene import footprint_of
from ..world.stage_view import ground_triangles


def walls_of_map(surface: Surface) -> Optional[ground_module.Walls]:
    """Return the occupancy map beside a stage's surface map as Walls (None: none)."""
    walls = walls_from('', surface)
    if walls is None:
        return None
    return ground_module.Walls(walls.grid_data().reshape(walls.cells.shape), walls.resolution_m,
                               walls.origin_x_m, walls.origin_y_m, walls.origin_yaw_rad)


def facts_of(config, name: str = '') -> dict:
    """Return a car's facts for the page from its vehicle file."""
    front, rear = config['cg_to_front_axle_m'], config['cg_to_rear_axle_m']
    side = config['half_track_m']
    wheels = [[front, side], [front, -side], [-rear, side], [-rear, -side]]
    f = footprint_of(config)
    ahead, half_length, half_width = f.ahead_of_cg_m, 0.5 * f.length_m, 0.5 * f.width_m
    outline = [[ahead + half_length, half_width], [ahead - half_length, half_width],
               [ahead - half_length, -half_width], [ahead + half_length, -half_width]]
    return car_facts(name, 0, outline, wheels, config['wheel_radius_m'], config['name'])


class LiveView:
    """One car shown live: a server, the stage, the car's frames."""

    def __init__(self, config, surface: Surface, path: Optional[np.ndarray], port: int = 0,
                 open_browser: bool = True, title: str = 'rally_sim (Gymnasium)'):
        """Serve the page (port 0: a free one) with the stage; open it in a browser if asked."""
        self.server = ViewServer(drive=False, port=port, title=title)
        self.url = self.server.start()
        self.car = Vehicle(config, surface)
        ground = ground_module.build(ground_triangles(surface), walls_of_map(surface))
        self.ground = ground
        self.server.set_ground(ground.png if ground else None)
        bounds = ground_module.bounds_of(ground_triangles(surface), walls_of_map(surface))
        if bounds is None and path is not None:
            bounds = (*path.min(axis=0).tolist(), *path.max(axis=0).tolist())
        self.server.latch('scene', {
            'version': 1, 'bounds': bounds, 'ground': ground.description() if ground else None,
            'path': None if path is None else np.round(path, 3).tolist()})
        facts = facts_of(config)
        self.server.latch('cars', {'cars': [facts]})
        self.track = CarTrack(facts['wheels'], path)
        self._wall0: Optional[float] = None
        self._t0 = 0.0
        print(f'rally_sim: the environment is shown at {self.url}', flush=True)
        if open_browser:
            webbrowser.open(self.url)

    def show(self, t: float, state: np.ndarray, pace: bool = True) -> None:
        """Send the page the car in `state` at time t; with pace, wait until t is due."""
        try:
            self.car.restore(state)
        except ValueError:          # a state the car refuses (non-finite): nothing to show
            return
        w = self.car.wheels()
        s = self.car.state
        roll = pitch = 0.0
        if self.car.sprung:
            _, pitch, roll = self.car.body_pose()
        sample = CarSample('', t, float(s[X]), float(s[Y]), float(s[YAW]), float(s[VX]),
                           float(s[VY]), float(s[YAW_RATE]), roll, pitch, w.steer_rad.tolist(),
                           w.slip_ratio.tolist(), w.slip_angle_rad.tolist(),
                           w.normal_load_n.tolist(), self.car.suspension_travel().tolist())
        self.server.publish('state', {'t': t, 'rtf': self._rtf(t), 'wall_ms': time.time() * 1e3,
                                      'paused': False,
                                      'cars': [self.track.frame(sample, self.ground)]})
        if pace:
            self._pace(t)

    def reset(self) -> None:
        """Start a new episode: the car is elsewhere, the clock starts again."""
        self.track.reset()
        self._wall0 = None

    def _pace(self, t: float) -> None:
        now = time.monotonic()
        if self._wall0 is None:
            self._wall0, self._t0 = now, t
            return
        wait = self._wall0 + (t - self._t0) - now
        if wait > 0.0:
            time.sleep(wait)

    def _rtf(self, t: float) -> float:
        if self._wall0 is None:
            return 1.0
        wall = time.monotonic() - self._wall0
        return (t - self._t0) / wall if wall > 0.0 else 1.0

    def close(self) -> None:
        """Stop serving."""
        self.server.stop()
