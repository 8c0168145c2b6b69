"""A SLAM-like occupancy map for tests, written as map_server writes one (PGM and YAML)."""

import os

import numpy as np

RESOLUTION_M = 0.05
ORIGIN = (-3.0, -1.9, 0.0)
"""The lower-left pixel's pose in map [m, m, rad], as map_server's origin."""
OCCUPIED, FREE, UNKNOWN = 0, 254, 205
"""map_saver's grey levels."""


def corridor_map(folder: str, name: str = 'corridors') -> str:
    """
    Write a building's corridors as SLAM leaves them; return the YAML's path.

    A rectangular loop of corridors 1.6 m wide round a block of offices (unknown:
    never seen), 12 m x 7 m outside, walls 0.1 m thick, unknown beyond them; the
    map's origin at (-3, -1.9) so that map and pixel frames differ. The corridors'
    centre line runs through (0, 0) heading +x (0 rad), and through (9.1, 2.6)
    heading +y; the offices' unknown middle is round (3.5, 2.6).
    """
    from PIL import Image
    width, height = round(14.0 / RESOLUTION_M), round(9.0 / RESOLUTION_M)
    image = np.full((height, width), UNKNOWN, dtype=np.uint8)
    wall = round(0.1 / RESOLUTION_M)
    corridor = round(1.6 / RESOLUTION_M)
    margin = round(1.0 / RESOLUTION_M)
    outer = (slice(margin, height - margin), slice(margin, width - margin))
    image[outer] = OCCUPIED
    inner_free = (slice(margin + wall, height - margin - wall),
                  slice(margin + wall, width - margin - wall))
    image[inner_free] = FREE
    block = margin + wall + corridor
    image[block:height - block, block:width - block] = OCCUPIED
    image[block + wall:height - block - wall, block + wall:width - block - wall] = UNKNOWN
    os.makedirs(folder, exist_ok=True)
    Image.fromarray(image).save(os.path.join(folder, name + '.pgm'))
    path = os.path.join(folder, name + '.yaml')
    with open(path, 'w', encoding='utf-8') as out:
        out.write(f'image: {name}.pgm\nmode: trinary\nresolution: {RESOLUTION_M}\n'
                  f'origin: [{ORIGIN[0]}, {ORIGIN[1]}, {ORIGIN[2]}]\nnegate: 0\n'
                  'occupied_thresh: 0.65\nfree_thresh: 0.196\n')
    return path
