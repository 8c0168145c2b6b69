"""
Drift control, ROS-free: holding a drift, planning the way into and between drifts.

- steady.py: the classic split (throttle holds the sideslip, steering the
  yaw rate and course) round a circle; DriftController, DriftSettings are
  also importable from here, their home before this folder (control/drift.py);
- lqr.py: the drift LQR, designed on the model's linearisation at the car's
  equilibrium (DriftDesign, DriftLqr);
- lqr_design.py: the regulator's maths (zero-order hold, discrete Riccati);
- transition.py: a transition from one drift to the mirrored one, planned
  on the car's own model, and its files;
- figure_eight.py: the drift LQR on two circles with planned transitions.
"""

from .steady import DriftController, DriftSettings

__all__ = ['DriftController', 'DriftSettings']
