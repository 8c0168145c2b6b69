"""
The sprung body's states and parameter block (constants only, imported by the model).

A car with `body: suspension` carries SPRUNG_STATE_SIZE states: the planar
model's STATE_SIZE (model.py) first, unchanged, then its positions and
their rates:
  [heave, roll, pitch, wheel_z x4, heave_rate, roll_rate, pitch_rate, wheel_vz x4]
heave: the sprung mass's centre of gravity's height in the odom frame [m];
roll, pitch: the sprung body's angles (REP-103: roll positive left side up,
pitch positive nose down) [rad]; wheel_z: each wheel centre's height in the
odom frame [m]; then their rates. A body block of all zeros is not placed
yet: the kernels put it at its static ride over the ground first.
"""

PLANAR_SIZE = 14
"""model.STATE_SIZE: the planar states that come first."""
HEAVE, ROLL, PITCH, WHEEL_Z = 14, 15, 16, 17
HEAVE_RATE, ROLL_RATE, PITCH_RATE, WHEEL_VZ = 21, 22, 23, 24
BODY_POSITIONS = HEAVE
BODY_RATES = HEAVE_RATE
BODY_DOF = 7
SPRUNG_STATE_SIZE = 28

# The body's block of the kernel parameters (model.P_BODY), B_* entries from its start.
(B_ON, B_SPRUNG_MASS, B_SPRUNG_HEIGHT, B_SPRUNG_X, B_ROLL_INERTIA, B_PITCH_INERTIA,
 B_ROLL_AXIS) = range(7)
"""1 for the sprung body (0: planar); the sprung mass [kg], its centre of gravity's height
above the ground at static ride [m] and its distance ahead of the car's [m]; its roll and
pitch inertias about it [kg m^2]; the roll axis's height under it [m]."""
B_FRONT = 7
(X_SPRING, X_BUMP_DAMPING, X_REBOUND_DAMPING, X_BUMP_TRAVEL, X_REBOUND_TRAVEL, X_STOP_RATE,
 X_STOP_DAMPING, X_BAR_RATE, X_ROLL_CENTRE, X_UNSPRUNG, X_TYRE_RATE, X_TYRE_DAMPING,
 X_PRELOAD, X_TYRE_STATIC) = range(14)
"""An axle's entries: wheel rate [N/m], bump and rebound damping [N s/m], travels to the
bump stop and to full droop from static ride [m], the stops' rate [N/m] and damping
[N s/m] (while in a stop), the anti-roll
bar as a rate on the difference of its wheels' travels [N/m], roll-centre height [m],
unsprung mass per wheel [kg], tyre vertical rate [N/m] and damping [N s/m]; then derived:
the spring's force at static ride [N] and the tyre's static deflection [m]."""
AXLE_SIZE = 14
B_REAR = B_FRONT + AXLE_SIZE
BODY_SIZE = B_REAR + AXLE_SIZE
