"""Where the drift LQR was: it is in drift/lqr.py (this path kept for users' imports)."""

from .drift.lqr import DriftDesign, DriftLqr

__all__ = ['DriftDesign', 'DriftLqr']
