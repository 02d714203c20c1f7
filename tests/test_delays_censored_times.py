"""The measured rows of ``delays optimum`` on a run trace: the cancelled stragglers are
right-censored, so the ``empirical`` row reads the Kaplan-Meier estimate and the
``rounds`` row only the rounds that measured the waited-for time.

The seeded simulations draw synthetic runs (each round keeps its fastest ``n - s``
times, the rest censored where the round ended, as ``gctheory run`` does) through
:mod:`gctheory.montecarlo`; the same traces read the old way (every time as complete)
are the negative control.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from gctheory.delays import make_trace, scheme_times
from gctheory.delays.censored_times import (
    KM_TAIL,
    censored_round_values,
    censoring_flags,
    km_grouped_means,
)
from gctheory.delays.orderstats import empirical_grouped_mean
from gctheory.montecarlo import estimate_mean, estimate_probability

SHIFT, MEAN, UNIT, N, S_RUN = 0.02, 0.02, 3.0, 8, 2  # shifted_exp(0.02, 0.02) per unit load


def _run(rng, rounds=50, gap=0.002):
    """A synthetic run trace of cyclic-MDS, n = 8, s = 2, at unit load 3."""
    t = stats.expon(loc=SHIFT, scale=MEAN).rvs(size=(rounds, N), random_state=rng) * UNIT
    cut = np.sort(t, axis=1)[:, N - S_RUN - 1 : N - S_RUN] + gap
    cens = t > cut
    return make_trace(
        np.repeat(np.arange(rounds), N),
        np.tile(np.arange(N), rounds),
        np.full(rounds * N, UNIT),
        np.where(cens, cut, t).ravel(),
        status=np.where(cens, "never", "used").ravel(),
        load_unit=np.full(rounds * N, "unit"),
    )


def _as_complete(tr):
    """The old reading: every time complete (the status column dropped)."""
    return make_trace(tr.round, tr.worker, tr.load / N, tr.time)


def _truth(s):
    """cyclic-MDS at s waits for the (8 - s)-th of 8 at unit load s + 1: by the Renyi
    representation of exponential order statistics, (s + 1)(0.02 + 0.02 (H_8 - H_s))."""
    return (s + 1) * (SHIFT + MEAN * float(sum(Fraction(1, j) for j in range(s + 1, N + 1))))


def _times(tr, estimator, s, bootstrap=0, rng=0):
    st = scheme_times(tr, "cyclic-mds", N, s=[s], laws=(), bootstrap=bootstrap,
                      load_model="proportional", rng=rng)  # fmt: skip
    if not bootstrap:
        return st.times[estimator][0], st.notes
    return st.times[estimator][0], st.low[estimator][0], st.high[estimator][0]


def test_km_means_without_censoring_are_the_empirical_order_statistics():
    x = np.random.default_rng(0).exponential(1.0, 40)
    lays = [(1, 8, 6), (2, 4, 3), (1, 8, 8)]
    means, beyond = km_grouped_means(x, np.zeros(x.size, bool), lays)
    want = [empirical_grouped_mean(x, g, r, w) for g, r, w in lays]
    assert np.allclose(means, want, rtol=1e-12) and np.allclose(beyond, 0.0, atol=1e-12)


def test_km_means_refuse_an_order_statistic_past_the_last_completed_time():
    # 4 completed, 4 censored beyond them: the maximum of 8 is not identified
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 5.0, 5.0])
    c = np.array([0, 0, 0, 0, 1, 1, 1, 1], bool)
    means, beyond = km_grouped_means(x, c, [(1, 8, 8), (1, 8, 1)])
    assert np.isnan(means[0]) and beyond[0] > KM_TAIL
    # the minimum of 8 from the KM (masses 1/8 at 1..4, 1/2 beyond 4): P(min > t) = S(t)^8,
    # so E = 1 + (7/8)^8 + (6/8)^8 + (5/8)^8 (the 2^-8 beyond 4 put at 4, its lower bound)
    want = 1 + sum(Fraction(j, 8) ** 8 for j in (7, 6, 5))
    assert beyond[1] == pytest.approx(0.5**8) and means[1] == pytest.approx(float(want))


def test_round_values_are_kept_only_where_every_round_measured_them():
    M = np.array([[1.0, 2.0, 5.0, 5.0], [3.0, 1.0, 4.0, 6.0]])
    C = np.array([[0, 0, 1, 1], [0, 0, 0, 1]], bool)
    got = censored_round_values(M, C, [(1, 4, 2), (1, 4, 3), (2, 2, 1)])
    assert got[:, 0].tolist() == [2.0, 3.0]  # the 2nd of 4: measured in both rounds
    assert np.isnan(got[:, 1]).all()  # the 3rd of 4: cancelled in round 0
    # the slower of two groups' fastest: round 0's second group was cancelled whole
    assert np.isnan(got[:, 2]).all()
    assert censored_round_values(M, None, [(1, 4, 3)])[:, 0].tolist() == [5.0, 4.0]


def test_a_trace_with_every_time_complete_has_no_censoring_flags():
    tr = _run(np.random.default_rng(1), rounds=3)
    assert censoring_flags(_as_complete(tr)) is None
    flags = censoring_flags(tr)
    assert flags.time.sum() == 3 * S_RUN  # two cancelled per round


def test_the_notes_name_the_estimate_and_the_s_it_cannot_give():
    tr = _run(np.random.default_rng(2))
    st = scheme_times(tr, "cyclic-mds", N, laws=(), bootstrap=0, load_model="proportional")
    assert np.isnan(st.at("empirical", 0)) and np.isnan(st.at("rounds", 0))
    assert "Kaplan-Meier" in st.notes["empirical"] and "s = 0, 1" in st.notes["empirical"]
    assert "no value at s = 0, 1 " in st.notes["rounds"]
    assert np.isfinite(st.at("rounds", 2)) and np.isfinite(st.at("empirical", 3))


def _relative_error(rng, size, estimator, reading, s=3):
    out = np.empty(size)
    for i in range(size):
        tr = reading(_run(rng))
        out[i] = _times(tr, estimator, s)[0] / _truth(s) - 1
    return out


@pytest.mark.parametrize("estimator", ["empirical", "rounds"])
def test_the_censoring_aware_rows_are_unbiased_and_the_old_reading_is_not(estimator):
    """Over 80 seeded runs the mean relative error of the row at s = 3 (the 5th of 8) has
    a 99% interval that contains 0; the same traces read as complete give an interval
    below 0 (measured: about -6% for the empirical row)."""
    new = estimate_mean(lambda g, k: _relative_error(g, k, estimator, lambda t: t), 80, rng=11)
    assert new.low <= 0.0 <= new.high, new
    if estimator == "empirical":  # negative control: the censored times read as complete
        old = estimate_mean(lambda g, k: _relative_error(g, k, estimator, _as_complete), 80,
                            rng=11)  # fmt: skip
        assert old.high < -0.03, old


def _covers(rng, size, reading):
    out = np.empty(size, bool)
    for i in range(size):
        _, lo, hi = _times(reading(_run(rng)), "empirical", 3, bootstrap=100, rng=rng)
        out[i] = lo <= _truth(3) <= hi
    return out


def test_the_bootstrap_interval_of_the_empirical_row_covers_the_truth():
    """The 95% bootstrap interval at s = 3 covers the truth in about 95% of 60 seeded
    runs (99% Clopper-Pearson interval on the coverage contains 0.95); read as complete,
    it covers far less (measured: about a third)."""
    new = estimate_probability(lambda g, k: _covers(g, k, lambda t: t), 60, rng=5,
                               interval="clopper-pearson")  # fmt: skip
    assert new.low <= 0.95 <= new.high, new
    old = estimate_probability(lambda g, k: _covers(g, k, _as_complete), 60, rng=5,
                               interval="clopper-pearson")  # fmt: skip
    assert old.high < 0.9, old


def test_the_heterogeneous_estimators_refuse_a_run_trace_and_run_on_complete_times():
    from gctheory.delays.heterogeneity import hetero_scheme_times

    tr = _run(np.random.default_rng(4), rounds=40)
    kw = {"s": [2], "laws": (), "bootstrap": 0, "load_model": "proportional", "trials": 200}
    st = hetero_scheme_times(tr, "cyclic-mds", N, rng=0, **kw)
    assert "per-worker" not in st.times and "right-censored" in st.notes["heterogeneous"]
    full = hetero_scheme_times(_as_complete(tr), "cyclic-mds", N, rng=0, **kw)  # control
    assert "per-worker" in full.times
