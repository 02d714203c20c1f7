"""Stragglers with memory: Gilbert-Elliott, Fritchman, (B, W, lambda) (issue 23, part 2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gctheory.delays.markov import (
    BurstyModel,
    Fritchman,
    GilbertElliott,
    MemoryDelay,
    fit_bursty,
    fit_fritchman,
    fit_gilbert_elliott,
    memory_scheme_times,
    min_rounds,
    straggler_matrix,
)


def test_gilbert_recovers_and_rejects_iid():
    true = GilbertElliott(0.05, 0.4)
    hits = 0
    for seed in range(20):
        f = fit_gilbert_elliott(true.sample(40, 128, rng=seed))
        hits += f.contains("p", 0.05) and f.contains("r", 0.4)
        assert f.rejects_iid(1e-6)
    assert hits >= 15  # two 95% intervals jointly: ~90% expected
    assert true.persistence == pytest.approx(0.6)
    assert true.straggler_rate == pytest.approx(0.05 / 0.45)
    assert true.h == pytest.approx((1 - 0.05 / 0.45) / 0.4)


def test_iid_trace_not_rejected():
    rejections = 0
    for seed in range(40):
        S = (np.random.default_rng(seed).random((30, 256)) < 0.1).astype(int)
        f = fit_gilbert_elliott(S)
        rejections += f.rejects_iid(0.05)
        assert f.params["persistence"] == pytest.approx(0.1, abs=0.04)
    assert rejections <= 6  # level 5%: 2 expected of 40


def test_hidden_gilbert_elliott():
    true = GilbertElliott(0.05, 0.4, 0.02, 0.9)
    f = fit_gilbert_elliott(true.sample(100, 256, rng=1), hidden=True)
    for k, v in (("p", 0.05), ("r", 0.4), ("h_good", 0.02), ("h_bad", 0.9)):
        assert f.contains(k, v), (k, f.intervals[k])
    assert f.df == 3 and f.rejects_iid(1e-6)


def test_fritchman_recovers():
    true = Fritchman((0.6, 0.97), (0.5, 0.5), 0.5)
    f = fit_fritchman(true.sample(100, 256, rng=3), 2)
    assert f.contains("stay_good[0]", 0.6)
    assert f.contains("stay_good[1]", 0.97)
    assert f.contains("stay_bad", 0.5)
    assert f.contains("entry_logit[1]", 0.0)
    assert f.rejects_iid(1e-6)
    # the K = 1 Fritchman chain is Gilbert's chain
    g = Fritchman((0.9,), (1.0,), 0.6)
    np.testing.assert_allclose(g.transition, GilbertElliott(0.1, 0.4).transition)


def test_bursty_model():
    m = BurstyModel(2, 4, 3)
    S = m.sample(200, 20, 0.05, rng=1)
    assert m.conformity(S) == 1.0
    S2 = np.zeros((6, 5), dtype=int)
    S2[0, 0] = S2[2, 0] = 1  # a second burst within the window: breaks rule 2
    assert not m.follows(S2)[2]
    rows = fit_bursty(S, 4, target=1.0)
    assert rows[1]["lam"] <= 3


def test_memory_delay_matches_iid_marginal():
    chain = GilbertElliott(0.1, 0.5)
    from scipy import stats

    d = MemoryDelay(chain, stats.expon(scale=1.0), stats.expon(loc=5.0, scale=1.0))
    r = memory_scheme_times(d, 20, [10, 20], rounds=20, trials=200, rng=1)
    # the per-round marginal: a worker is slow with probability 1/6, independently of others
    rng = np.random.default_rng(2)
    slow = rng.random((200_000, 20)) < 1 / 6
    T = np.where(slow, 5 + rng.exponential(size=slow.shape), rng.exponential(size=slow.shape))
    T.sort(axis=1)
    want = T[:, [9, 19]].mean(axis=0)
    assert np.all(r["low"] - 0.02 <= want) and np.all(want <= r["high"] + 0.02)


def test_straggler_matrix_rule():
    M = np.arange(20.0).reshape(4, 5)
    S, rule = straggler_matrix(M, quantile=0.9)
    assert S.sum() == 2 and "0.9-quantile" in rule
    S, rule = straggler_matrix(M, threshold=15.0)
    assert S.sum() == 4 and "15" in rule


def test_bad_input():
    with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\]"):
        GilbertElliott(1.2, 0.3)
    with pytest.raises(ValueError, match="not ergodic"):
        GilbertElliott(0.0, 0.3)
    with pytest.raises(ValueError, match="periodic"):
        GilbertElliott(1.0, 1.0)
    with pytest.raises(ValueError, match="stay_bad"):
        Fritchman((0.5,), (1.0,), 1.0)
    with pytest.raises(ValueError, match="entry must sum to 1"):
        Fritchman((0.5, 0.6), (0.5, 0.6), 0.3)
    S = (np.random.default_rng(0).random((2, 4)) < 0.5).astype(int)
    need = min_rounds(2, 4)
    with pytest.raises(ValueError, match=f"at least {need} rounds"):
        fit_gilbert_elliott(S)
    with pytest.raises(ValueError, match="0 \\(on time\\) or 1"):
        fit_gilbert_elliott(np.full((10, 10), 2))
    with pytest.raises(ValueError, match="B must lie"):
        BurstyModel(4, 4, 1)
    assert math.isfinite(GilbertElliott(0.2, 0.2).h)


def test_markov_sampler_as_delay_spec():
    from scipy import stats

    from gctheory.delays import parse_delay
    from gctheory.delays.markov import MarkovSampler

    d = MemoryDelay(GilbertElliott(0.05, 0.3), stats.uniform(0, 1), stats.uniform(10, 1))
    model = parse_delay(MarkovSampler(d))
    rng = np.random.default_rng(5)
    S = np.array([model.draw(rng, 400) > 5 for _ in range(60)]).astype(int)
    f = fit_gilbert_elliott(S)
    assert f.contains("p", 0.05) and f.contains("r", 0.3)
