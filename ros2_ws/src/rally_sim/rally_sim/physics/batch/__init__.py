"""
Batch rollouts of N cars: per car (rollouts.py) or in vector lanes (lanes.py).

    from rally_sim.physics.batch import Batch
"""

from .rollouts import Batch, BatchResult, prepare, prepare_lanes

__all__ = ['Batch', 'BatchResult', 'prepare', 'prepare_lanes']
