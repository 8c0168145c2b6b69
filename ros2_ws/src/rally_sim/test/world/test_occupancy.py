"""Occupancy maps in the map_server format: cells as map_server reads them, bad files named."""

import numpy as np
from PIL import Image
import pytest
from rally_sim.world.occupancy import load_map, MapError, OCCUPIED
import yaml

# F1TENTH's maps (f1tenth_gym's levine.yaml, nav2's map_saver) as written: floats with six
# decimals, negate 0, the saver's thresholds, a binary PGM with 205 for unknown space.
F1TENTH_YAML = """image: levine.pgm
resolution: 0.050000
origin: [-51.224998, -51.224998, 0.000000]
negate: 0
occupied_thresh: 0.65
free_thresh: 0.196
"""


def write_map(folder, pixels, name='map', **keys):
    """Write `pixels` (rows, cols[, channels], uint8) and its YAML; return the YAML's path."""
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(folder / 'map.png')
    spec = {'image': 'map.png', 'resolution': 0.1, 'origin': [-1.0, -2.0, 0.0], 'negate': 0,
            'occupied_thresh': 0.65, 'free_thresh': 0.196, **keys}
    path = folder / f'{name}.yaml'
    path.write_text(yaml.safe_dump({k: v for k, v in spec.items() if v is not None}))
    return path


def test_an_f1tenth_map_loads_as_it_is(tmp_path):
    pixels = np.full((40, 60), 254, dtype=np.uint8)     # free
    pixels[:, :5] = 0                                    # a wall on the left
    pixels[30:, 50:] = 205                               # unknown, as map_saver writes it
    Image.fromarray(pixels).save(tmp_path / 'levine.pgm')
    (tmp_path / 'levine.yaml').write_text(F1TENTH_YAML)
    grid = load_map(str(tmp_path / 'levine.yaml'))
    assert grid.resolution_m == 0.05 and grid.origin_x_m == -51.224998
    assert grid.cells.shape == (40, 60)
    assert (grid.cells[:, :5] == 100).all() and (grid.cells[:30, 5:] == 0).all()
    assert (grid.cells[30:, 50:] == -1).all()       # p = 50/255 = 0.19608 > free_thresh
    # the lower-left pixel is the origin: a point just inside it is in the wall
    assert grid.is_blocked(-51.2, -51.2) and not grid.is_blocked(-51.224998 + 0.3, -51.2)


def test_trinary_scale_and_raw_read_as_map_server_reads_them(tmp_path):
    shades = np.array([[0, 50, 128, 205, 250, 255]], dtype=np.uint8)
    occupancy = (255.0 - shades[0]) / 255.0       # 1, 0.80, 0.50, 0.196, 0.02, 0
    trinary = load_map(str(write_map(tmp_path, shades))).cells[0].tolist()
    assert trinary == [100, 100, -1, -1, 0, 0]
    scale = load_map(str(write_map(tmp_path, shades, mode='scale'))).cells[0].tolist()
    between = np.round(99.0 * (occupancy[2:4] - 0.196) / (0.65 - 0.196)).astype(int)
    assert scale == [100, 100, *between.tolist(), 0, 0]
    negated = load_map(str(write_map(tmp_path, shades, negate=1))).cells[0].tolist()
    assert negated == [0, -1, -1, 100, 100, 100]     # 50/255 = 0.19608: not free
    raw = load_map(str(write_map(tmp_path, np.array([[0, 37, 100, 101, 255]]), mode='raw')))
    assert raw.cells[0].tolist() == [0, 37, 100, -1, -1]
    colour = np.zeros((1, 2, 4), dtype=np.uint8)      # RGBA: the mean of r, g, b
    colour[0, 0] = [255, 255, 255, 0]
    colour[0, 1] = [30, 0, 0, 255]
    assert load_map(str(write_map(tmp_path, colour))).cells[0].tolist() == [0, 100]


def test_the_grid_message_starts_at_the_origin_cell_and_blocked_is_occupied_only(tmp_path):
    pixels = np.full((3, 4), 255, dtype=np.uint8)
    pixels[2, 0] = 0            # the image's bottom-left: the origin cell
    pixels[0, 3] = 128          # unknown, top right
    grid = load_map(str(write_map(tmp_path, pixels)))
    data = grid.grid_data()
    assert data.dtype == np.int8 and data.tolist() == [100] + [0] * 10 + [-1]
    assert grid.blocked.sum() == 1 and grid.blocked[2, 0] == 1


@pytest.mark.parametrize('keys, words', [
    ({'resolution': None}, 'missing key(s) resolution'),
    ({'negate': None, 'free_thresh': None}, 'missing key(s) negate, free_thresh'),
    ({'resolution': -0.1}, 'resolution = -0.1 must be a number in [0.0001, 100] m per pixel'),
    ({'origin': [0.0, 1.0]}, 'origin = [0.0, 1.0] must be [x, y, yaw] of finite numbers'),
    ({'negate': 2}, 'negate = 2 must be 0 or 1'),
    ({'occupied_thresh': 1.5}, 'occupied_thresh = 1.5 must be a number in [0, 1]'),
    ({'free_thresh': 0.7}, 'free_thresh = 0.7 must be below occupied_thresh = 0.65'),
    ({'mode': 'binary'}, "mode = 'binary' must be one of trinary, scale, raw"),
    ({'image': 'missing.png'}, 'image: cannot read'),
])
def test_a_bad_map_is_refused_naming_the_file_and_the_key(tmp_path, keys, words):
    path = write_map(tmp_path, np.zeros((2, 2)), **keys)
    with pytest.raises(MapError) as error:
        load_map(str(path))
    assert str(error.value).startswith(f'occupancy map {path}: ')
    assert words in str(error.value)


def test_a_map_that_is_not_a_mapping_or_not_yaml_is_refused(tmp_path):
    (tmp_path / 'list.yaml').write_text('[1, 2]\n')
    with pytest.raises(MapError, match='the file must hold a mapping of keys'):
        load_map(str(tmp_path / 'list.yaml'))
    with pytest.raises(MapError, match='cannot read occupancy map'):
        load_map(str(tmp_path / 'absent.yaml'))
    assert OCCUPIED == 100
