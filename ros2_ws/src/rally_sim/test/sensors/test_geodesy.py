"""The odom frame as a local tangent plane: exact conversion to latitude and longitude."""

import math

import pytest

from rally_sim.sensors.geodesy import ecef, geodetic, LocalTangentPlane, radii_m


@pytest.mark.parametrize('point', [(0.0, 0.0, 0.0), (66.4979, 25.718, 105.0),
                                   (-33.9, 151.2, 40.0), (46.2, 6.14, 375.0)])
def test_ecef_round_trip(point):
    lat, lon, alt = geodetic(*ecef(*point))
    assert (lat, lon) == pytest.approx(point[:2], abs=1e-11)     # about a micrometre
    assert alt == pytest.approx(point[2], abs=1e-6)


def test_a_point_of_the_plane_is_where_the_ellipsoid_puts_it():
    datum = (66.4979, 25.718, 105.0)
    plane = LocalTangentPlane(datum)
    assert plane.geodetic(0.0, 0.0, 0.0) == pytest.approx(datum, abs=1e-9)
    meridional, normal = radii_m(datum[0])
    lat, lon, alt = plane.geodetic(0.0, 100.0, 0.0)          # 100 m north
    north = (lat - datum[0]) * math.pi / 180 * (meridional + 105.0)
    assert north == pytest.approx(100.0, abs=1e-3)
    lat, lon, alt = plane.geodetic(100.0, 0.0, 0.0)          # 100 m east
    radius = (normal + 105.0) * math.cos(math.radians(datum[0]))
    assert (lon - datum[1]) * math.pi / 180 * radius == pytest.approx(100.0, abs=1e-3)
    assert alt - 105.0 == pytest.approx(100.0 ** 2 / (2 * normal), rel=0.05)  # the plane rises
    x, y, z = ecef(*plane.geodetic(30.0, -40.0, 2.0))
    ox, oy, oz = ecef(*datum)
    assert math.dist((x, y, z), (ox, oy, oz)) == pytest.approx(math.hypot(30, 40, 2), abs=1e-6)
