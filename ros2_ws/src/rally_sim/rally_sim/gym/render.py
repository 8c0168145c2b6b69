"""Pictures of a stage with cars on it, as RGB arrays (for Env.render)."""

import math
from typing import Sequence

import numpy as np
from PIL import Image, ImageDraw

from ..physics.config import VehicleConfig
from ..physics.files import read_yaml
from ..physics.surfaces import SurfaceError
from ..resources import config_file
from ..world.plotting import footprint

MIN_SIDE_PX = 400
CAR_COLOUR = (220, 30, 30)
LINE_COLOUR = (255, 255, 255)


class StageCanvas:
    """A stage's surface map, scaled up, with its reference line; cars drawn on a copy."""

    def __init__(self, stage: str, config: VehicleConfig, path: np.ndarray):
        """Read the stage's map image and origin; `path` is its reference line (K, 2)."""
        spec_path = config_file(f'stages/{stage}.yaml')
        spec = read_yaml(spec_path, 'surface map', SurfaceError)
        image = Image.open(config_file(f"stages/{spec['image']}")).convert('RGB')
        self.scale = max(1, math.ceil(MIN_SIDE_PX / max(image.size)))
        self.pixel_m = float(spec['resolution']) / self.scale
        self.origin = (float(spec['origin'][0]), float(spec['origin'][1]))
        self.background = image.resize((image.width * self.scale, image.height * self.scale),
                                       Image.NEAREST)
        ImageDraw.Draw(self.background).line(
            self._pixels(np.vstack([path, path[:1]])), fill=LINE_COLOUR, width=1)
        self.config = config

    def _pixels(self, points: np.ndarray) -> list:
        """Return odom points as image (column, row) pairs (row 0 at the top)."""
        col = (points[:, 0] - self.origin[0]) / self.pixel_m
        row = self.background.height - (points[:, 1] - self.origin[1]) / self.pixel_m
        return list(zip(col.tolist(), row.tolist()))

    def draw(self, poses: Sequence[Sequence[float]]) -> np.ndarray:
        """Return the (H, W, 3) uint8 picture with a car at each (x, y, yaw)."""
        picture = self.background.copy()
        pen = ImageDraw.Draw(picture)
        for x, y, yaw in poses:
            if np.isfinite([x, y, yaw]).all():
                pen.polygon(self._pixels(footprint(self.config, x, y, yaw)), fill=CAR_COLOUR)
        return np.asarray(picture, dtype=np.uint8)
