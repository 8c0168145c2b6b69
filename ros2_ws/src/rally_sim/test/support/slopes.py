"""A 10 % plane to drive on: a surface map with a height map beside it, for tests."""

import math

import numpy as np
from PIL import Image
import yaml

G = 9.82
SLOPE = 0.1                                  # 10 %: rises 0.1 m per metre
SIN = SLOPE / math.sqrt(1.0 + SLOPE ** 2)
FLAT = {'resistance.drag_coefficient_kg_m': 0.0, 'resistance.rolling_resistance_n_s_m': 0.0}


def write_maps(folder, rise='x', height_spec=None, height_pixels=None):
    """Write a 256 m square gravel surface map and a 10 % plane height map beside it."""
    Image.fromarray(np.full((256, 256), 200, np.uint8)).save(folder / 'surface.png')
    cols, rows = np.meshgrid(np.arange(256), np.arange(256))
    plane = cols if rise == 'x' else 255 - rows            # image row 0 is the top
    pixels = plane.astype(np.uint8) if height_pixels is None else height_pixels
    Image.fromarray(pixels).save(folder / 'heights.png')
    spec = {'image': 'heights.png', 'resolution': 1.0, 'origin': [0.0, 0.0, 0.0],
            'min_height_m': 0.0, 'max_height_m': 25.5, 'max_slope': 0.2}
    spec.update(height_spec or {})
    (folder / 'heights.yaml').write_text(yaml.safe_dump(spec))
    (folder / 'surface.yaml').write_text(yaml.safe_dump({
        'image': 'surface.png', 'resolution': 1.0, 'origin': [0.0, 0.0, 0.0],
        'surfaces': [{'color': 200, 'surface': 'tarmac_dry'}], 'height_map': 'heights.yaml'}))
    return str(folder / 'surface.yaml')
