"""Calibration: over many seeds, intervals contain the known truth at their stated level."""

from __future__ import annotations

import functools

import pytest
from scipy import special

from gctheory.montecarlo import (
    GaussianSpace,
    ShiftedGaussian,
    Stop,
    estimate_mean,
    estimate_probability,
    estimate_splitting,
    importance_sampling,
)
from gctheory.montecarlo.calibration import coverage_study
from tests import _mc_events as ev

LEVEL = 0.95  # a lower level shows a shortfall with fewer seeds


def _first(x):
    return x[:, 0]


def _tail(x, t):
    return x[:, 0] > t


def _studies(p=0.02):
    bern = functools.partial(ev.bernoulli, p=p)
    exp_mean = functools.partial(ev.exponential, mean=2.0)
    t = 3.0
    q = float(special.ndtr(-t))
    kw = dict(level=LEVEL)
    return {
        "wilson": (lambda s: estimate_probability(bern, 2000, rng=s, **kw), p),
        "clopper-pearson": (
            lambda s: estimate_probability(bern, 2000, rng=s, interval="clopper-pearson", **kw),
            p,
        ),
        "stop-events": (
            lambda s: estimate_probability(
                bern, 10**6, rng=s, chunk_size=20, stop=Stop(events=10), **kw
            ),
            p,
        ),
        "stop-rel-half-width": (
            lambda s: estimate_probability(
                bern, 10**6, rng=s, chunk_size=200, stop=Stop(rel_half_width=0.3), **kw
            ),
            p,
        ),
        "mean": (lambda s: estimate_mean(exp_mean, 500, rng=s, **kw), 2.0),
        "importance-shifted-gaussian": (
            lambda s: importance_sampling(
                functools.partial(_tail, t=t), ShiftedGaussian((t,)), 500, rng=s, **kw
            ),
            q,
        ),
        "splitting": (
            lambda s: estimate_splitting(
                _first, t, GaussianSpace(1), 10, particles=30, rng=s, **kw
            ),
            q,
        ),
    }


@pytest.mark.parametrize("name", list(_studies()))
def test_coverage_fast(name):
    estimator, truth = _studies()[name]
    cov = coverage_study(estimator, truth, range(60), LEVEL)
    assert not cov.below_level, f"{name}: {cov}"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(_studies()))
def test_coverage_slow(name):
    estimator, truth = _studies()[name]
    cov = coverage_study(estimator, truth, range(1000), LEVEL)
    assert not cov.below_level, f"{name}: {cov}"


def test_coverage_study_catches_a_wrong_truth():  # the negative control
    estimator, _ = _studies()["wilson"]
    cov = coverage_study(estimator, 0.03, range(60), LEVEL)
    assert cov.below_level and cov.covered < 30


def test_coverage_study_bad_input():
    with pytest.raises(ValueError, match="level"):
        coverage_study(lambda s: None, 0.1, range(3), 1.5)
    with pytest.raises(ValueError, match="must return an Estimate"):
        coverage_study(lambda s: 0.1, 0.1, range(3), 0.9)
    with pytest.raises(ValueError, match="at least one seed"):
        coverage_study(lambda s: 0.1, 0.1, [], 0.9)
