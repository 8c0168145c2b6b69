"""
Plans on knots, found by least squares on the car's own model: the shared solver. ROS-free.

A plan's parameters are input values at knot times (linear between); a
design simulates them (its `simulate`), weighs the run's errors (its
`residuals`) and is minimised by Levenberg-Marquardt on forward
differences. Each difference column is simulated only from its knot's
reach (the run before it is unchanged: the inputs are causal), from the
base run's kept states. transition.py and entry.py design on it.
"""

from abc import ABC, abstractmethod
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import yaml


def write_plan(path: str, header: str, tree: Dict) -> None:
    """Write a plan's tree as YAML under a comment header (its lines without '# ')."""
    with open(path, 'w', encoding='utf-8') as out:
        out.write(''.join(f'# {line}\n' for line in header.splitlines()))
        yaml.safe_dump(tree, out, sort_keys=False)


def read_plan(path: str, what: str) -> Dict:
    """Return a plan file's mapping; ValueError names the file (`what`: 'entry file', ...)."""
    try:
        with open(path, encoding='utf-8') as source:
            tree = yaml.safe_load(source)
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f'{what} {path}: {error}') from None
    if not isinstance(tree, dict):
        raise ValueError(f'{what} {path}: not a mapping')
    return tree


def read_knots(tree: Dict, names: Sequence[str], where: str) -> Dict[str, np.ndarray]:
    """
    Return knot_times_s and the named inputs of a plan's tree as arrays, checked.

    ValueError (prefixed by `where`, e.g. 'entry file PATH') names the key:
    each a list of finite numbers, the times rising from 0, as many of each.
    """
    arrays = {}
    for name in ('knot_times_s', *names):
        try:
            arrays[name] = np.array(tree[name], dtype=float)
        except (KeyError, TypeError, ValueError):
            arrays[name] = np.array([math.nan])
        if arrays[name].ndim != 1 or not np.all(np.isfinite(arrays[name])):
            raise ValueError(f"{where}: '{name}' must be a list of finite numbers")
    times = arrays['knot_times_s']
    if len(times) < 2 or times[0] != 0.0 or np.any(np.diff(times) <= 0.0) or any(
            len(a) != len(times) for a in arrays.values()):
        raise ValueError(f"{where}: 'knot_times_s' must rise from 0, with as many "
                         + ' and '.join(names))
    return arrays


class KnotDesign(ABC):
    """Levenberg-Marquardt over knot parameters; subclasses simulate and weigh."""

    times: np.ndarray          # the knots, from the window's start
    period: float              # the control period the runs step at
    evaluations: int = 0

    @abstractmethod
    def simulate(self, p: np.ndarray, from_step: int = 0,
                 states: Optional[List[np.ndarray]] = None,
                 keep: bool = False) -> Tuple[np.ndarray, List[np.ndarray]]:
        """Return a run's rows from from_step (and its states if `keep`); FloatingPointError."""

    @abstractmethod
    def residuals(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Return a run's weighted errors."""

    @abstractmethod
    def difference_step(self, j: int) -> float:
        """Return the forward difference's step of parameter j."""

    def evaluate(self, p: np.ndarray, keep: bool = False):
        """Return (residuals, rows, states) of parameters p; residuals None if the run failed."""
        self.evaluations += 1
        try:
            rows, states = self.simulate(p, keep=keep)
        except FloatingPointError:
            return None, None, None
        return self.residuals(rows, p), rows, states

    def jacobian(self, p: np.ndarray, rows: np.ndarray, states: List[np.ndarray]) -> np.ndarray:
        """Return the residuals' forward-difference Jacobian, each run from its knot's reach."""
        f = self.residuals(rows, p)
        n = len(self.times)
        columns = np.zeros((len(f), len(p)))
        for j in range(len(p)):
            step = self.difference_step(j)
            q = p.copy()
            q[j] += step
            first = int(self.times[max(j % n - 1, 0)] / self.period)
            self.evaluations += 1
            try:
                tail, _ = self.simulate(q, first, states)
            except FloatingPointError:
                continue
            columns[:, j] = (self.residuals(np.vstack([rows[:first], tail]), q) - f) / step
        return columns

    def ranked(self, candidates: List[np.ndarray]) -> List[np.ndarray]:
        """Return the candidates whose runs did not fail, lowest cost first."""
        tried = []
        for p in candidates:
            f, _, _ = self.evaluate(p)
            if f is not None:
                tried.append((float(f @ f), len(tried), p))
        return [p for _, _, p in sorted(tried, key=lambda item: item[:2])]

    def descend(self, p: np.ndarray, iterations: int,
                tolerance: float) -> Tuple[np.ndarray, float]:
        """Return the knots and the cost where Levenberg-Marquardt ends from p."""
        f, rows, states = self.evaluate(p, keep=True)
        if f is None:
            return p, math.inf
        damping = 1e-2
        for _ in range(iterations):
            jac = self.jacobian(p, rows, states)
            gradient, hessian = jac.T @ f, jac.T @ jac
            while True:
                step = -np.linalg.solve(hessian + damping * np.diag(np.diag(hessian) + 1e-9),
                                        gradient)
                trial, trial_rows, trial_states = self.evaluate(p + step, keep=True)
                if trial is not None and trial @ trial < f @ f:
                    gain = 1.0 - (trial @ trial) / (f @ f)
                    p, f, rows, states = p + step, trial, trial_rows, trial_states
                    damping = max(damping / 3.0, 1e-7)
                    break
                damping *= 4.0
                if damping > 1e8:
                    return p, float(f @ f)
            if gain < tolerance:
                break
        return p, float(f @ f)
