"""rally_sim: a four-wheel combined-slip vehicle-dynamics simulator for ROS 2."""

WHEELS = ('fl', 'fr', 'rl', 'rr')
"""Wheel order used everywhere: front-left, front-right, rear-left, rear-right."""
