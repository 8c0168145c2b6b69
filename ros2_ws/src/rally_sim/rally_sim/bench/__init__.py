"""The benchmarks: physics (python -m rally_sim.bench), node, stage, campaign."""
