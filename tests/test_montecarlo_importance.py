"""Importance sampling and multilevel splitting in the engine (issue 15), against exact values."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import stats

from gctheory.montecarlo import (
    GaussianSpace,
    ShiftedGaussian,
    Stop,
    UnreliableEstimateWarning,
    estimate_splitting,
    importance_sampling,
)
from tests import _mc_events as ev

ABOVE_5 = functools.partial(ev.first_coordinate_above, t=5.0)
P5 = float(stats.norm.sf(5.0))  # exact P(Z > 5) = 2.8665e-7 (closed form, the normal tail)


class _Misnormalised:
    """ShiftedGaussian whose log-weights forgot a constant: every weight doubled."""

    def __init__(self, shift):
        self.inner = ShiftedGaussian(shift)

    def sample(self, rng, size):
        x, logw = self.inner.sample(rng, size)
        return x, logw + math.log(2.0)


class _Broken:
    def __init__(self, value):
        self.value = value

    def sample(self, rng, size):
        x = rng.standard_normal((size, 1))
        logw = np.zeros(size)
        logw[0] = self.value
        return x, logw


def test_shifted_gaussian_reaches_the_normal_tail():
    est = importance_sampling(ABOVE_5, ShiftedGaussian((5.0,)), 20_000, rng=1)
    assert est.contains(P5) and not est.contains(1.1 * P5)  # and a negative control
    assert est.method == "importance" and est.rel_half_width < 0.05
    d = est.diagnostics
    assert d.ess > 2_000 and d.max_share < 0.01 and d.messages == ()
    # far from the event the weights exp(12.5 - 5x) are wild: too few effective weights
    # to test their mean, so the normalisation check stays silent
    assert d.weight_ess < 100


ABOVE_15 = functools.partial(ev.first_coordinate_above, t=1.5)
P15 = float(stats.norm.sf(1.5))  # exact P(Z > 1.5) (closed form)


def test_weights_of_an_exact_proposal_average_to_one():
    est = importance_sampling(ABOVE_15, ShiftedGaussian((1.5,)), 20_000, rng=1)
    lo, hi = est.diagnostics.weight_mean_interval
    assert est.diagnostics.weight_ess > 100 and lo <= 1.0 <= hi and est.contains(P15)


def test_wrong_normalisation_is_caught():
    with pytest.warns(UnreliableEstimateWarning, match="weights are mis-normalised"):
        est = importance_sampling(ABOVE_15, _Misnormalised((1.5,)), 20_000, rng=1)
    assert not est.contains(P15)  # the estimate is off by 2, and the diagnostic said so
    assert est.diagnostics.weight_mean == pytest.approx(2.0, rel=0.1)


@pytest.mark.parametrize("value", [np.nan, np.inf, 1e6])
def test_non_finite_weights_are_refused_naming_the_proposal(value):
    with pytest.raises(ValueError, match="proposal"):
        importance_sampling(ABOVE_5, _Broken(value), 100, rng=1)


def test_zero_weights_are_allowed():
    above_0 = functools.partial(ev.first_coordinate_above, t=0.0)
    est = importance_sampling(above_0, _Broken(-np.inf), 1_000, rng=1, level=0.9)
    assert est.contains(0.5)  # one weight 0 (where P would have no mass) is allowed


def test_few_effective_samples_warn():
    # the plain law as "proposal" at P(Z > 3): a handful of hits
    with pytest.warns(UnreliableEstimateWarning, match="rests on few samples"):
        est = importance_sampling(
            functools.partial(ev.first_coordinate_above, t=3.0),
            ShiftedGaussian((0.0,)),
            2_000,
            rng=2,
        )
    assert est.diagnostics.ess < 30


def test_no_hit_has_no_upper_limit():
    with pytest.warns(UnreliableEstimateWarning, match="no sample of 500 fell in the event"):
        est = importance_sampling(
            functools.partial(ev.first_coordinate_above, t=9.0), ShiftedGaussian((0.0,)), 500, rng=2
        )
    assert est.value == 0.0 and est.high == math.inf


def test_importance_sampling_is_bit_identical_on_a_pool():
    a = importance_sampling(ABOVE_5, ShiftedGaussian((5.0,)), 20_000, rng=4, chunk_size=3_000)
    b = importance_sampling(
        ABOVE_5, ShiftedGaussian((5.0,)), 20_000, rng=4, chunk_size=3_000, executor=2
    )
    assert a == b


def test_bad_proposal():
    with pytest.raises(ValueError, match="proposal must have a method sample"):
        importance_sampling(ABOVE_5, 3.0, 100, rng=1)
    with pytest.raises(ValueError, match="shift must be a non-empty vector"):
        ShiftedGaussian(())


# --- splitting ---------------------------------------------------------------------------


def _sum_score(x):
    return x.sum(axis=1) / math.sqrt(x.shape[1])


def test_splitting_matches_exact_gaussian_tails():
    # P(sum of 4 normals / 2 > 4.5) = P(Z > 4.5) = 3.4e-6 (closed form)
    exact = float(stats.norm.sf(4.5))
    est = estimate_splitting(
        _sum_score, 4.5, GaussianSpace(4), 60, particles=100, rng=3, level=0.99
    )
    assert est.method == "splitting" and est.contains(exact)
    assert not est.contains(1.5 * exact) and not est.contains(exact / 1.5)  # negative controls


def test_splitting_stops_adaptively_and_is_bit_identical():
    kw = dict(particles=50, rng=9, stop=Stop(rel_half_width=0.3))
    a = estimate_splitting(_sum_score, 3.0, GaussianSpace(2), 1_000, **kw)
    b = estimate_splitting(_sum_score, 3.0, GaussianSpace(2), 1_000, executor=2, **kw)
    assert a == b and a.stopped_by == "rel_half_width"


def test_splitting_bad_input():
    with pytest.raises(ValueError, match="space must have methods"):
        estimate_splitting(_sum_score, 3.0, "gauss", 10, rng=1)
    with pytest.raises(ValueError, match=r"kill_fraction must lie in \(0, 1\)"):
        estimate_splitting(_sum_score, 3.0, GaussianSpace(2), 10, kill_fraction=1.0, rng=1)
    with pytest.raises(ValueError, match=r"rho must lie in \[0, 1\)"):
        GaussianSpace(2, rho=1.0)
    with pytest.raises(ValueError, match="did not reach threshold"):
        estimate_splitting(_sum_score, 1e9, GaussianSpace(1), 2, max_levels=5, rng=1)
