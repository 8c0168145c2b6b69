"""The seeded random cars the tests draw: rally_sim/random_cars.py (benchmarks use them too)."""

from rally_sim.random_cars import on_springs, random_car, tightest_radius_m

__all__ = ['on_springs', 'random_car', 'tightest_radius_m']
