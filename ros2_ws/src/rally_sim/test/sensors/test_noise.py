"""Each error model against its statistics, with fixed seeds."""

import math

import numpy as np
import pytest

from rally_sim.sensors import Noise, NoiseSpec

SEED = 20261124


def rng(stream=0):
    """Return a generator of the test's fixed seed."""
    return np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(stream,)))


def noise_of(spec, components, generator):
    """Return a Noise with its bias drawn from `generator`."""
    return Noise(spec, generator.standard_normal(components))


def sample(noise, generator, truth, interval_s):
    """Return one measurement, its normals drawn from `generator`."""
    return noise.sample(truth, interval_s, generator.standard_normal((2, len(truth))))


def series(spec, components, samples, interval_s, truth=0.0):
    """Return (samples, components) measurements of a constant truth."""
    generator = rng()
    noise = noise_of(spec, components, generator)
    value = np.full(components, truth)
    return np.array([sample(noise, generator, value, interval_s)
                     for _ in range(samples)]), noise


def test_exact_quantity_returns_the_truth_itself():
    generator = rng()
    noise = noise_of(NoiseSpec(), 3, generator)
    truth = np.array([-0.0, 1.5, np.pi])
    assert sample(noise, generator, truth, 0.01) is truth
    assert noise.variance() == 0.0


def test_white_noise_standard_deviation_within_its_confidence_bound():
    n = 40_000
    values, noise = series(NoiseSpec(stddev=0.3), 1, n, 0.01)
    std = values[:, 0].std(ddof=1)
    # the sample standard deviation of n normal draws: relative error ~ 1/sqrt(2(n-1))
    bound = 4.0 / math.sqrt(2.0 * (n - 1))
    assert abs(std / 0.3 - 1.0) < bound
    assert abs(values.mean()) < 4.0 * 0.3 / math.sqrt(n)
    lag1 = np.corrcoef(values[:-1, 0], values[1:, 0])[0, 1]
    assert abs(lag1) < 4.0 / math.sqrt(n)                       # white: uncorrelated
    assert noise.variance() == pytest.approx(0.09)


def test_constant_bias_is_drawn_once_per_run():
    values, noise = series(NoiseSpec(bias_stddev=0.5), 2000, 3, 0.01)
    assert np.array_equal(values[0], values[2])                 # constant in a run
    spread = np.std(noise.bias, ddof=1)                         # across 2000 runs
    assert abs(spread / 0.5 - 1.0) < 4.0 / math.sqrt(2.0 * 1999)


def test_random_walk_variance_grows_with_time():
    walk, interval, runs = 0.2, 0.01, 4000
    values, noise = series(NoiseSpec(random_walk=walk), runs, 900, interval)
    for seconds in (1.0, 4.0, 9.0):
        k = round(seconds / interval) - 1
        variance = values[k].var(ddof=1)
        expected = walk ** 2 * seconds
        assert abs(variance / expected - 1.0) < 4.0 * math.sqrt(2.0 / (runs - 1))
    assert noise.variance() == pytest.approx(walk ** 2 * 9.0)


def test_gauss_markov_autocorrelation_at_one_correlation_time_is_one_over_e():
    tau, interval, runs = 0.5, 0.01, 4000
    values, _ = series(NoiseSpec(stddev=1.0, correlation_time_s=tau), runs, 400, interval)
    lag = round(tau / interval)
    a, b = values[100], values[100 + lag]
    correlation = np.corrcoef(a, b)[0, 1]
    # the standard error of a correlation r over n pairs: (1 - r^2) / sqrt(n)
    assert abs(correlation - 1.0 / math.e) < 4.0 * (1.0 - math.exp(-2.0)) / math.sqrt(runs)
    assert abs(values[100].std(ddof=1) - 1.0) < 4.0 / math.sqrt(2.0 * runs)   # stationary
    assert abs(values[0].std(ddof=1) - 1.0) < 4.0 / math.sqrt(2.0 * runs)     # from the start


def test_quantisation_gives_steps_of_the_set_size():
    q = 0.1309
    generator = rng()
    noise = noise_of(NoiseSpec(quantisation=q), 1, generator)
    truths = np.linspace(-3.0, 3.0, 2001)
    out = np.array([sample(noise, generator, np.array([t]), 0.01)[0] for t in truths])
    steps = out / q
    assert np.allclose(steps, np.round(steps), atol=1e-9)
    assert np.all(np.abs(out - truths) <= q / 2 + 1e-12)
    assert set(np.round(np.diff(out) / q).astype(int)) == {0, 1}
    assert noise.variance() == pytest.approx(q * q / 12.0)


def test_same_seed_same_errors_other_seed_others():
    spec = NoiseSpec(stddev=0.1, bias_stddev=0.2, random_walk=0.05, correlation_time_s=0.3)

    def run(seed):
        generator = np.random.default_rng(seed)
        noise = noise_of(spec, 3, generator)
        return np.array([sample(noise, generator, np.zeros(3), 0.02) for _ in range(50)])
    assert np.array_equal(run(7), run(7))
    assert not np.array_equal(run(7), run(8))


@pytest.mark.parametrize('spec', [
    NoiseSpec(stddev=0.02, bias_stddev=0.01, random_walk=0.003, quantisation=0.005),
    NoiseSpec(stddev=0.02, correlation_time_s=0.3, random_walk=0.001),
])
def test_many_components_on_arrays_read_as_few_in_floats_bit_for_bit(spec, monkeypatch):
    # a lidar's beams are sampled on arrays; the floats' path must give the same bits
    from rally_sim.sensors import noise as module
    truth = np.linspace(0.5, 12.0, 40)
    runs = []
    for vector_from in (module.VECTOR_FROM, 1000):
        monkeypatch.setattr(module, 'VECTOR_FROM', vector_from)
        generator = rng(3)
        noise = noise_of(spec, len(truth), generator)
        runs.append([sample(noise, generator, truth, 0.025).tolist() for _ in range(30)])
    assert runs[0] == runs[1]
