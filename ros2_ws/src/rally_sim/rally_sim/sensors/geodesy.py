"""Local east-north-up metres to WGS-84 latitude, longitude and altitude, about a datum."""

import math
from typing import Tuple

WGS84_A_M = 6378137.0
"""WGS-84 semi-major axis [m]."""
WGS84_F = 1.0 / 298.257223563
"""WGS-84 flattening."""
E2 = WGS84_F * (2.0 - WGS84_F)
"""First eccentricity squared."""
DEFAULT_DATUM = (0.0, 0.0, 0.0)
"""The datum of a surface without one: latitude 0, longitude 0, altitude 0."""
ITERATIONS = 6
"""Passes of the latitude iteration: converged far below a millimetre on Earth's surface."""


def radii_m(latitude_deg: float) -> Tuple[float, float]:
    """Return the meridional and prime-vertical radii of curvature at a latitude [m]."""
    w = math.sqrt(1.0 - E2 * math.sin(math.radians(latitude_deg)) ** 2)
    return WGS84_A_M * (1.0 - E2) / w ** 3, WGS84_A_M / w


def ecef(latitude_deg: float, longitude_deg: float, altitude_m: float
         ) -> Tuple[float, float, float]:
    """Return the Earth-centred, Earth-fixed coordinates of a geodetic point [m]."""
    phi, lam = math.radians(latitude_deg), math.radians(longitude_deg)
    normal = WGS84_A_M / math.sqrt(1.0 - E2 * math.sin(phi) ** 2)
    return ((normal + altitude_m) * math.cos(phi) * math.cos(lam),
            (normal + altitude_m) * math.cos(phi) * math.sin(lam),
            (normal * (1.0 - E2) + altitude_m) * math.sin(phi))


def geodetic(x: float, y: float, z: float) -> Tuple[float, float, float]:
    """Return latitude, longitude [deg] and altitude [m] of an ECEF point (iterated)."""
    p = math.hypot(x, y)
    phi = math.atan2(z, p * (1.0 - E2))
    altitude = 0.0
    for _ in range(ITERATIONS):
        normal = WGS84_A_M / math.sqrt(1.0 - E2 * math.sin(phi) ** 2)
        altitude = p / math.cos(phi) - normal
        phi = math.atan2(z, p * (1.0 - E2 * normal / (normal + altitude)))
    return math.degrees(phi), math.degrees(math.atan2(y, x)), altitude


class LocalTangentPlane:
    """The odom frame as the tangent plane at a datum: x east, y north, z up (REP-103)."""

    def __init__(self, datum: Tuple[float, float, float]):
        """Place the odom origin at datum (latitude, longitude [deg], altitude [m])."""
        self.datum = tuple(float(v) for v in datum)
        self.origin = ecef(*self.datum)
        phi, lam = math.radians(self.datum[0]), math.radians(self.datum[1])
        sp, cp, sl, cl = math.sin(phi), math.cos(phi), math.sin(lam), math.cos(lam)
        self._axes = ((-sl, -sp * cl, cp * cl), (cl, -sp * sl, cp * sl), (0.0, cp, sp))

    def geodetic(self, east_m: float, north_m: float, up_m: float
                 ) -> Tuple[float, float, float]:
        """Return latitude, longitude [deg] and altitude [m] of a point of the plane."""
        point = [o + a[0] * east_m + a[1] * north_m + a[2] * up_m
                 for o, a in zip(self.origin, self._axes)]
        return geodetic(*point)
