"""
The error of one measured quantity: bias, random walk, Gauss-Markov or white noise, steps.

At sample k, Delta seconds after sample k - 1, a quantity of n components reads

    measured = quantise(truth + b + w_k + e_k)

- b: a constant bias, drawn once per run, N(0, bias_stddev^2);
- w_k = w_{k-1} + random_walk sqrt(Delta) N(0, 1): a random walk (bias drift), its
  variance random_walk^2 t after t seconds;
- e_k: white noise N(0, stddev^2) when correlation_time_s is 0; else first-order
  Gauss-Markov noise of stationary standard deviation stddev and correlation time T,
  e_k = phi e_{k-1} + stddev sqrt(1 - phi^2) N(0, 1), phi = exp(-Delta / T), whose
  autocorrelation at lag T is 1/e;
- quantise: to the nearest multiple of `quantisation` (0: none).

The caller draws the standard normals (a channel draws all its quantities'
at once, from its own generator: see suite.Channel); a quantity takes two
per component at every sample.
"""

from dataclasses import dataclass
import math

import numpy as np

KEYS = ('stddev', 'bias_stddev', 'random_walk', 'correlation_time_s', 'quantisation')
VECTOR_FROM = 16
"""A quantity of more components than this is sampled on arrays (a lidar's beams)."""


@dataclass(frozen=True)
class NoiseSpec:
    """The error model of one quantity (see the module); all zero: exact."""

    stddev: float = 0.0
    bias_stddev: float = 0.0
    random_walk: float = 0.0
    correlation_time_s: float = 0.0
    quantisation: float = 0.0

    @property
    def exact(self) -> bool:
        """Return whether the quantity is measured without error (its truth as it is)."""
        return not any((self.stddev, self.bias_stddev, self.random_walk, self.quantisation))


class Noise:
    """The running error of one quantity of n components."""

    def __init__(self, spec: NoiseSpec, bias_normals: np.ndarray):
        """Set the bias from n standard normals; the first sample starts walk and noise."""
        self.spec = spec
        self.components = len(bias_normals)
        self.bias = (spec.bias_stddev * bias_normals).tolist()
        self.walk = [0.0] * self.components
        self.coloured = None        # Gauss-Markov state, drawn stationary at the first sample
        self.elapsed_s = 0.0

    def sample(self, truth: np.ndarray, interval_s: float, draws: np.ndarray) -> np.ndarray:
        """
        Return the measurement of `truth`, interval_s after the previous sample.

        draws: (2, n) standard normals, for the walk and the noise (unused
        when the quantity is exact). In plain floats for the few components
        of most quantities, where numpy's per-call cost would dominate; on
        arrays for many.
        """
        s = self.spec
        if s.exact:
            return truth
        self.elapsed_s += interval_s
        step = s.random_walk * math.sqrt(interval_s)
        if self.components > VECTOR_FROM:
            return self._sample_array(truth, interval_s, step, draws)
        walk_draws, noise_draws = draws.tolist()
        self.walk = [w + step * d for w, d in zip(self.walk, walk_draws)]
        if s.correlation_time_s > 0.0:
            if self.coloured is None:
                self.coloured = [s.stddev * d for d in noise_draws]
            else:
                phi = math.exp(-interval_s / s.correlation_time_s)
                gain = s.stddev * math.sqrt(1.0 - phi * phi)
                self.coloured = [phi * c + gain * d for c, d in zip(self.coloured, noise_draws)]
            error = self.coloured
        else:
            error = [s.stddev * d for d in noise_draws]
        value = [t + b + w + e for t, b, w, e in zip(truth.tolist(), self.bias, self.walk, error)]
        if s.quantisation > 0.0:
            q = s.quantisation
            value = [q * round(v / q) for v in value]
        return np.array(value)

    def _sample_array(self, truth: np.ndarray, interval_s: float, step: float,
                      draws: np.ndarray) -> np.ndarray:
        """sample() for many components (a lidar's beams): the same operations, on arrays."""
        s = self.spec
        self.walk = np.asarray(self.walk) + step * draws[0]
        if s.correlation_time_s > 0.0:
            if self.coloured is None:
                self.coloured = s.stddev * draws[1]
            else:
                phi = math.exp(-interval_s / s.correlation_time_s)
                self.coloured = phi * self.coloured + s.stddev * math.sqrt(1.0 - phi * phi) * \
                    draws[1]
            error = self.coloured
        else:
            error = s.stddev * draws[1]
        value = truth + np.asarray(self.bias) + self.walk + error
        if s.quantisation > 0.0:
            value = s.quantisation * np.round(value / s.quantisation)
        return value

    def variance(self) -> float:
        """Return the variance of the error now: what a message's covariance states."""
        s = self.spec
        return (s.stddev ** 2 + s.bias_stddev ** 2 + s.random_walk ** 2 * self.elapsed_s
                + s.quantisation ** 2 / 12.0)
