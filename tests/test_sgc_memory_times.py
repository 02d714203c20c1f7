"""Sequential codes' time per job under stragglers with memory (gctheory.sgc.memory_times)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gctheory.delays.markov import GilbertElliott, MemoryDelay
from gctheory.sgc.memory_times import sequential_time_mc


def _const(c):
    return np.array([float(c)])  # measured times resampled: a constant


def _gc_exact(n, s, b):
    """GC with fast time 1, slow 3, mu = 1: a round lasts 1 without stragglers, 2 with
    1..s slow workers (wait for 2 x the fastest), 3 otherwise (all slow or > s slow)."""
    k = np.arange(n + 1)
    pk = stats.binom.pmf(k, n, b)
    dur = np.where(k == 0, 1.0, np.where(k <= s, 2.0, 3.0))
    dur[n] = 3.0
    return float(pk @ dur)


def test_gc_under_a_persistent_chain_matches_the_exact_stationary_round():
    ch = GilbertElliott(0.05, 0.2)  # straggler rate 0.2, stay bad 0.8
    d = MemoryDelay(ch, _const(1.0), _const(3.0))
    est = sequential_time_mc(d, "GC", (2,), 8, jobs=30, runs=300, rng=1)
    exact = _gc_exact(8, 2, ch.straggler_rate)
    assert est.low <= exact <= est.high, (exact, est)
    # negative control: the exact value at a 50 % higher straggler rate is outside
    assert not est.low <= _gc_exact(8, 2, 0.3) <= est.high


def test_sr_sgc_and_m_sgc_under_memory_run_and_beat_waiting_for_everyone():
    d = MemoryDelay(GilbertElliott(0.05, 0.5), _const(1.0), _const(3.0))
    kw = dict(jobs=30, runs=60, rng=2)
    sr = sequential_time_mc(d, "SR-SGC", (2, 3, 2), 8, **kw)
    m = sequential_time_mc(d, "M-SGC", (2, 3, 2), 8, **kw)
    none = sequential_time_mc(d, "no coding", (), 8, **kw)
    assert sr.high < none.low and m.high < none.low
    assert sr.low > 0 and m.low > 0


def test_bad_input():
    with pytest.raises(ValueError, match="MemoryDelay"):
        sequential_time_mc("x", "GC", (1,), 4, jobs=3)
