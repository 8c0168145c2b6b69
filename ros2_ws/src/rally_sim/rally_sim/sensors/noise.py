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

Each quantity draws from its own generator, the same number of draws at every
sample whatever the others do, so its errors depend on the seed and its own
sample times only.
"""

from dataclasses import dataclass
import math

import numpy as np

KEYS = ('stddev', 'bias_stddev', 'random_walk', 'correlation_time_s', 'quantisation')


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
    """The running error of one quantity of n components, from one generator."""

    def __init__(self, spec: NoiseSpec, components: int, rng: np.random.Generator):
        """Draw the bias now; the first sample starts the walk and the Gauss-Markov noise."""
        self.spec = spec
        self.rng = rng
        self.bias = spec.bias_stddev * rng.standard_normal(components)
        self.walk = np.zeros(components)
        self.coloured = None        # Gauss-Markov state, drawn stationary at the first sample
        self.elapsed_s = 0.0

    def sample(self, truth: np.ndarray, interval_s: float) -> np.ndarray:
        """Return the measurement of `truth`, interval_s after the previous sample."""
        s = self.spec
        if s.exact:
            return truth
        draws = self.rng.standard_normal((2, len(truth)))
        self.elapsed_s += interval_s
        self.walk = self.walk + s.random_walk * math.sqrt(interval_s) * draws[0]
        if s.correlation_time_s > 0.0:
            if self.coloured is None:
                self.coloured = s.stddev * draws[1]
            else:
                phi = math.exp(-interval_s / s.correlation_time_s)
                self.coloured = phi * self.coloured + s.stddev * math.sqrt(1.0 - phi * phi) \
                    * draws[1]
            error = self.coloured
        else:
            error = s.stddev * draws[1]
        value = truth + self.bias + self.walk + error
        if s.quantisation > 0.0:
            value = s.quantisation * np.round(value / s.quantisation)
        return value

    def variance(self) -> float:
        """Return the variance of the error now: what a message's covariance states."""
        s = self.spec
        return (s.stddev ** 2 + s.bias_stddev ** 2 + s.random_walk ** 2 * self.elapsed_s
                + s.quantisation ** 2 / 12.0)
