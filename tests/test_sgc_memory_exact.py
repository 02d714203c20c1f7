"""Exact time per job of the sequential schemes under a Markov straggler chain
(gctheory.sgc.memory_exact), held against its Monte Carlo twin (gctheory.sgc.memory_times)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy import stats

from gctheory.delays.markov import BurstyModel, Fritchman, GilbertElliott, MemoryDelay
from gctheory.delays.markov_times import BurstyChain
from gctheory.sgc.memory_exact import sequential_time_exact
from gctheory.sgc.memory_times import sequential_time_mc


def _const(c):
    return np.array([float(c)])  # measured times resampled: a constant


# a persistent chain (stay bad 0.8) and a discrete fast/slow pair with several values
_FAST = stats.rv_discrete(values=([1.0, 1.5], [0.75, 0.25]))
_SLOW = np.array([2.5, 4.0, 4.0])


def test_gc_is_the_binomial_closed_form_in_fractions():
    # fast 1, slow 3, mu = 1: 1 without stragglers, 2 with 1..s slow, 3 otherwise; the
    # chain's stationary straggler rate p / (p + r) = 1/5, binomial over n = 6 workers
    d = MemoryDelay(GilbertElliott(0.05, 0.2), _const(1), _const(3))
    e = sequential_time_exact(d, "GC", (2,), 6, jobs=5)
    b = Fraction(1, 5)
    pk = [comb(6, k) * b**k * (1 - b) ** (6 - k) for k in range(7)]
    closed = pk[0] + 2 * (pk[1] + pk[2]) + 3 * sum(pk[3:])
    assert e.steady_exact == closed
    assert e.first == e.run == float(closed)  # one-round scheme: memory leaves the mean alone


@pytest.mark.parametrize(
    ("scheme", "params"),
    [("GC", (1,)), ("SR-SGC", (2, 3, 2)), ("M-SGC", (2, 3, 2)), ("no coding", ()), ("no-wait", ())],
)
def test_exact_lies_in_the_monte_carlo_interval(scheme, params):
    d = MemoryDelay(GilbertElliott(0.05, 0.2, h_good=0.05, h_bad=0.9), _FAST, _SLOW)
    e = sequential_time_exact(d, scheme, params, 4, jobs=20, arithmetic="float")
    mc = sequential_time_mc(d, scheme, params, 4, jobs=20, runs=300, rng=5, span="jobs")
    assert mc.low <= e.first <= mc.high, (e.first, mc)
    if e.run is not None:
        mc_run = sequential_time_mc(d, scheme, params, 4, jobs=20, runs=300, rng=6)
        assert mc_run.low <= e.run <= mc_run.high, (e.run, mc_run)


def test_fritchman_chain_against_monte_carlo():
    ch = Fritchman((0.7, 0.95), (0.5, 0.5), 0.6)
    d = MemoryDelay(ch, _const(1), _const(4))
    e = sequential_time_exact(d, "SR-SGC", (1, 2, 1), 3, jobs=15, arithmetic="float")
    mc = sequential_time_mc(d, "SR-SGC", (1, 2, 1), 3, jobs=15, runs=400, rng=8, span="jobs")
    assert mc.low <= e.first <= mc.high, (e.first, mc)


def test_a_wrong_transition_matrix_is_rejected_by_the_monte_carlo_interval():
    # the memoryless chain with the same straggler rate (p + r = 1) and the swapped one
    # give other exact values; the twin run under the true chain excludes both
    true = GilbertElliott(0.05, 0.2)
    b = true.straggler_rate
    kw = dict(jobs=20, arithmetic="float")
    d = MemoryDelay(true, _const(1), _const(5))
    e = sequential_time_exact(d, "SR-SGC", (1, 3, 2), 4, **kw)
    mc = sequential_time_mc(d, "SR-SGC", (1, 3, 2), 4, jobs=20, runs=400, rng=11, span="jobs")
    assert mc.low <= e.first <= mc.high
    for wrong in (GilbertElliott(b, 1 - b), GilbertElliott(0.2, 0.05)):
        w = sequential_time_exact(MemoryDelay(wrong, _const(1), _const(5)), "SR-SGC",
                                  (1, 3, 2), 4, **kw)  # fmt: skip
        assert not mc.low <= w.first <= mc.high, (wrong, w.first, mc)


def test_fractions_and_floats_agree_and_the_run_tends_to_the_steady_value():
    d = MemoryDelay(GilbertElliott(0.1, 0.3, h_good=0.1), _FAST, _SLOW)
    q = sequential_time_exact(d, "M-SGC", (1, 2, 1), 3, jobs=10)
    f = sequential_time_exact(d, "M-SGC", (1, 2, 1), 3, jobs=10, arithmetic="float")
    assert q.states == f.states and q.residual == 0.0 and f.residual < 1e-12
    assert q.steady == pytest.approx(f.steady, rel=1e-12)
    assert q.first == pytest.approx(f.first, rel=1e-12)
    assert float(q.steady_exact) == q.steady
    # the chain mixes geometrically: the first-rounds average approaches the steady value
    # at rate O(1 / jobs) from the empty-history start
    long = sequential_time_exact(d, "M-SGC", (1, 2, 1), 3, jobs=4000, arithmetic="float")
    short = sequential_time_exact(d, "M-SGC", (1, 2, 1), 3, jobs=40, arithmetic="float")
    assert abs(long.first - long.steady) < abs(short.first - short.steady) / 50


def test_memory_changes_the_sequential_time_but_not_gc():
    true = GilbertElliott(0.05, 0.2)
    iid = GilbertElliott(true.straggler_rate, 1 - true.straggler_rate)
    t = {
        ch: {
            s: sequential_time_exact(MemoryDelay(ch, _const(1), _const(5)), s, p, 4).steady
            for s, p in (("GC", (1,)), ("SR-SGC", (1, 3, 2)))
        }
        for ch in (true, iid)
    }
    assert t[true]["GC"] == t[iid]["GC"]
    assert t[true]["SR-SGC"] > t[iid]["SR-SGC"] + 0.3  # bursts break the window constraint


def test_bad_input():
    d = MemoryDelay(GilbertElliott(0.05, 0.2), _const(1), _const(3))
    with pytest.raises(ValueError, match=r"max_states = 10 .*lumped states"):
        sequential_time_exact(d, "SR-SGC", (2, 3, 2), 4, max_states=10)
    with pytest.raises(ValueError, match="joint outcomes a round, above the limit"):
        sequential_time_exact(MemoryDelay(d.chain, _FAST, _SLOW), "GC", (1,), 12)
    with pytest.raises(ValueError, match="finite support"):
        sequential_time_exact(MemoryDelay(d.chain, stats.expon(), _const(3)), "GC", (1,), 4)
    bursty = BurstyChain(BurstyModel(1, 2, 1), 0.1)
    with pytest.raises(ValueError, match="not a Markov chain"):
        sequential_time_exact(MemoryDelay(bursty, _const(1), _const(3)), "GC", (1,), 4)
    with pytest.raises(ValueError, match="scheme"):
        sequential_time_exact(d, "SGC", (1,), 4)
    with pytest.raises(ValueError, match="arithmetic"):
        sequential_time_exact(d, "GC", (1,), 4, arithmetic="decimal")
    with pytest.raises(ValueError, match="GC takes params"):
        sequential_time_exact(d, "GC", (5,), 4)
    with pytest.raises(ValueError, match="jobs"):
        sequential_time_exact(d, "GC", (1,), 4, jobs=True)
    with pytest.raises(ValueError, match="MemoryDelay"):
        sequential_time_exact("markov", "GC", (1,), 4)
    with pytest.raises(ValueError, match="span"):
        sequential_time_mc(d, "GC", (1,), 4, jobs=3, span="all")
