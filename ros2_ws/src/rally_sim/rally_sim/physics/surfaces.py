"""Road surfaces and the grip they give (reference 000's grip multipliers)."""

import math
from typing import Dict

import numpy as np

SURFACE_GRIP: Dict[str, float] = {
    'tarmac_dry': 1.0,
    'tarmac_wet': 0.7,
    'gravel': 0.6,
    'dirt': 0.55,
    'mud': 0.35,
    'grass': 0.4,
    'snow': 0.3,
    'ice': 0.15,
}
"""Multiplier of the tyre's friction coefficient on each surface type."""


class UniformSurface:
    """The same surface everywhere (the default stage)."""

    def __init__(self, surface: str = 'tarmac_dry', grip: float = None):
        """Use a named surface type, or an explicit grip multiplier."""
        if grip is None:
            if surface not in SURFACE_GRIP:
                raise ValueError(
                    f"unknown surface '{surface}'; known: {', '.join(SURFACE_GRIP)}")
            grip = SURFACE_GRIP[surface]
        if not math.isfinite(grip) or not 0.0 < grip <= 2.0:
            raise ValueError(f'surface grip {grip!r} is out of range (0, 2]')
        self.name = surface
        self.grip = float(grip)

    def grip_at(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Return the grip multiplier at each (x, y) point of the odom frame."""
        return np.full(np.shape(xs), self.grip)
