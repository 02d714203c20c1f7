"""Iteration times under stragglers with memory (gctheory.delays.markov_times) and in the
tradeoff atlas: the exact stationary round time (the i.i.d. time under the stationary
mixture) against Monte Carlo runs of the chains, with negative controls."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import gctheory
from gctheory.delays.markov import GilbertElliott, MarkovSampler, MemoryDelay
from gctheory.delays.markov_times import (
    has_exact_time,
    memory_time_exact,
    memory_time_mc,
    parse_memory_delay,
    stationary_law,
)
from gctheory.runtime import scheme_time_moments

FAST, SLOW = "shifted_exp(1, 0.5)", "shifted_exp(3, 1)"
SPEC = f"markov(p=0.05, r=0.2, fast={FAST}, slow={SLOW})"  # strong memory: stay bad 0.8


def test_stationary_law_is_the_mixture_at_the_straggler_rate():
    d = parse_memory_delay(SPEC)
    law = stationary_law(d)
    b = 0.05 / 0.25
    assert d.chain.straggler_rate == pytest.approx(b)
    fast, slow = stats.expon(1, 0.5), stats.expon(3, 1)
    for t in (1.2, 2.0, 3.5, 6.0):
        assert law.cdf(t) == pytest.approx((1 - b) * fast.cdf(t) + b * slow.cdf(t), rel=1e-12)
    assert law.mean() == pytest.approx((1 - b) * 1.5 + b * 4.0, rel=1e-8)
    # the exact time is the i.i.d. time under that law: uncoded with n = 2 is E[max]
    e_max = integrate.quad(lambda t: 1 - law.cdf(t) ** 2, 0, np.inf)[0]
    assert memory_time_exact("uncoded", d, 2).mean == pytest.approx(e_max / 2, rel=1e-7)


def test_the_mixture_answers_as_scipys_generic_call():
    # its fast scalar route and kernels give scipy's generic values bit for bit, scaled too,
    # inside and outside the support; a law scipy cannot unpack goes through its own calls
    from scipy.stats._distn_infrastructure import rv_continuous_frozen

    from gctheory.delays.markov_times import _part
    from gctheory.runtime.schemes import _scaled

    law = stationary_law(parse_memory_delay(SPEC))
    x = np.r_[np.linspace(-1.0, 9.0, 401), 1.0, 3.0, np.inf, -np.inf, np.nan]
    for f in (law, _scaled(law, 0.25)):
        for what in ("pdf", "cdf", "sf"):
            generic = getattr(rv_continuous_frozen, what)(f, x)
            assert np.array_equal(getattr(f, what)(x), generic, equal_nan=True)
            one = [getattr(f, what)(float(t)) for t in x]
            assert np.array_equal(np.array(one), generic, equal_nan=True)
    assert law.mean() == pytest.approx(0.8 * 1.5 + 0.2 * 4.0, rel=1e-15)
    assert _part(None, stats.expon(), "sf", 2.0) == stats.expon().sf(2.0)


@pytest.mark.parametrize("scheme, s", [("cyclic-mds", 2), ("frc", 2), ("ignore-s", 3)])
def test_exact_round_time_lies_in_the_monte_carlo_interval_of_the_chains(scheme, s):
    d = parse_memory_delay(SPEC)
    exact = memory_time_exact(scheme, d, 12, s, tau=0.1).mean
    est, sd = memory_time_mc(scheme, d, 12, s, runs=400, rounds=20, tau=0.1, rng=3)
    assert est.low <= exact <= est.high, (exact, est)
    # negative control: the same chain's time with twice the straggling is outside
    worse = MemoryDelay(GilbertElliott(0.1, 0.2), d.fast, d.slow)
    assert not est.low <= memory_time_exact(scheme, worse, 12, s, tau=0.1).mean <= est.high


def test_memory_changes_the_spread_of_a_run_not_the_mean_of_a_round():
    d = parse_memory_delay(SPEC)
    # same straggler rate 0.2 without memory: p + r = 1 makes the states independent
    iid = MemoryDelay(GilbertElliott(0.2, 0.8), d.fast, d.slow)
    assert memory_time_exact("cyclic-mds", d, 12, 2).mean == pytest.approx(
        memory_time_exact("cyclic-mds", iid, 12, 2).mean, rel=1e-12
    )
    _, sd_mem = memory_time_mc("cyclic-mds", d, 12, 2, runs=300, rng=1)
    _, sd_iid = memory_time_mc("cyclic-mds", iid, 12, 2, runs=300, rng=1)
    assert sd_mem > 1.3 * sd_iid  # persistent stragglers: totals spread more


def test_bursty_model_is_monte_carlo_only():
    d = parse_memory_delay(f"bursty(B=2, W=4, lam=3, rate=0.05, fast={FAST}, slow={SLOW})")
    assert not has_exact_time(d)
    with pytest.raises(ValueError, match="couples the workers"):
        stationary_law(d)
    est, _ = memory_time_mc("cyclic-mds", d, 12, 2, runs=50, rng=2)
    fast_only = scheme_time_moments("cyclic-mds", stats.expon(1, 0.5), 12, 2).mean
    assert est.low > fast_only  # the bursts slow the rounds down


def test_tradeoff_takes_a_memoryful_delay_and_says_so():
    n = 8  # each s is an order statistic by quadrature: 8.9 s of CPU at n = 12, 6.3 s at 8
    t = gctheory.tradeoff_table(
        n, s=2, delay=SPEC, schemes=["cyclic-mds", "frc"], quick=True, rng=1
    )
    assert t.parameters["delay"] == f"memory: {SPEC}"
    assert any("stragglers with memory" in x and "exact" in x for x in t.notes)
    d = parse_memory_delay(SPEC)
    checked = 0
    for r in t.rows:
        if r["scheme"] in ("cyclic-mds", "frc"):
            assert r["time"] == pytest.approx(
                memory_time_exact(r["scheme"], d, n, r["s"]).mean, rel=1e-12
            )
            if r.get("time_low") is not None:
                assert r["time_low"] <= r["time"] <= r["time_high"]
                checked += 1
    assert checked >= 3
    # a MarkovSampler is taken too, the bursty model by Monte Carlo everywhere
    t2 = gctheory.tradeoff_table(4, s=1, delay=MarkovSampler(d), schemes=["cyclic-mds"], quick=True)
    assert t2.parameters["delay"].startswith("memory:")
    b = f"bursty(B=2, W=4, lam=2, rate=0.05, fast={FAST}, slow={SLOW})"
    t3 = gctheory.tradeoff_table(6, s=1, delay=b, schemes=["cyclic-mds"], quick=True, rng=2)
    assert any("Monte Carlo at every point" in x for x in t3.notes)
    rows = [r for r in t3.rows if r["scheme"] == "cyclic-mds"]
    assert rows and all(r["time_low"] <= r["time"] <= r["time_high"] for r in rows)


def test_bad_memory_specs_are_refused():
    with pytest.raises(ValueError, match="required"):
        parse_memory_delay("markov(p=0.1, r=0.5, fast=exp(1))")
    with pytest.raises(ValueError, match="arguments are named"):
        parse_memory_delay(f"markov(0.1, r=0.5, fast={FAST}, slow={SLOW})")
    with pytest.raises(ValueError, match="p"):
        parse_memory_delay(f"markov(p=0, r=0.5, fast={FAST}, slow={SLOW})")
    with pytest.raises(ValueError, match="MemoryDelay"):
        memory_time_mc("cyclic-mds", "x", 4, 1)


def test_parse_delay_takes_memory_specs_fresh_and_persistent():
    from gctheory.delays import parse_delay
    from gctheory.delays.markov import BURSTY_BLOCK, fit_gilbert_elliott

    spec = "markov(p=0.05, r=0.2, fast=constant(1), slow=constant(3))"
    a, b = parse_delay(spec), parse_delay(spec)
    assert isinstance(a.dist, MarkovSampler) and a.dist is not b.dist and a.label == spec
    g = np.random.default_rng(4)
    S = np.array([a.draw(g, 30) for _ in range(200)]) > 2
    f = fit_gilbert_elliott(S.astype(np.int8))
    assert f.contains("p", 0.05) and f.contains("r", 0.2) and f.rejects_iid(1e-6)
    # the same seed gives the same rounds from a fresh model (a run replays from its seed)
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    c, d = parse_delay(spec), parse_delay(spec)
    assert all(np.array_equal(c.draw(g1, 5), d.draw(g2, 5)) for _ in range(20))
    # a MemoryDelay object, and the bursty constraint served in blocks
    m = parse_delay(MemoryDelay(GilbertElliott(0.1, 0.4), np.array([1.0]), np.array([3.0])))
    assert isinstance(m.dist, MarkovSampler)
    bur = parse_delay("bursty(B=2, W=4, lam=2, rate=0.2, fast=constant(1), slow=constant(3))")
    rows = np.array([bur.draw(g, 6) for _ in range(BURSTY_BLOCK + 10)]) > 2
    assert rows.any() and rows[:BURSTY_BLOCK].any(axis=1).mean() > 0.1
    # negative control: a memoryless chain drawn the same way is not flagged
    iid = parse_delay("markov(p=0.2, r=0.8, fast=constant(1), slow=constant(3))")
    S0 = np.array([iid.draw(g, 30) for _ in range(200)]) > 2
    assert not fit_gilbert_elliott(S0.astype(np.int8)).rejects_iid(0.01)
