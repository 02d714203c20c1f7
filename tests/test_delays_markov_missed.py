"""Misses of a replicated group under persistent stragglers (gctheory.delays.markov.missed)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from gctheory.delays.markov import (
    GilbertElliott,
    chain_missed_moments,
    class_missed_law,
    missed_mc,
)

F = Fraction


def test_class_law_is_a_law_and_the_excess_variance_is_n_n_minus_1_var_q():
    N, T, w, ps, pa = 12, 3, F(3, 10), F(4, 5), F(1, 10)
    a = class_missed_law(N, T, 0.3, 0.8, 0.1, shuffle=False)
    b = class_missed_law(N, T, 0.3, 0.8, 0.1, shuffle=True)
    assert sum(a.pmf) == 1 and sum(b.pmf) == 1
    # closed forms: same mean N qbar; excess variance N (N - 1) Var(q_i), i ~ Bin(T, w)
    wi = [F(1, 1) * (w**i) * (1 - w) ** (T - i) * [1, 3, 3, 1][i] for i in range(T + 1)]
    qi = [ps**i * pa ** (T - i) for i in range(T + 1)]
    qbar = sum(x * y for x, y in zip(wi, qi))
    var_q = sum(x * y * y for x, y in zip(wi, qi)) - qbar**2
    assert a.mean == b.mean == N * qbar
    assert b.variance == N * qbar * (1 - qbar)
    assert a.variance - b.variance == N * (N - 1) * var_q


def test_chain_moments_against_exhaustive_enumeration():
    # every straggler path of T = 2 stationary chains over N = 4 rounds, exact
    ch = GilbertElliott(0.2, 0.4)
    p, r = F(1, 5), F(2, 5)
    P = [[1 - p, p], [r, 1 - r]]
    pi = [r / (p + r), p / (p + r)]
    N, T = 4, 2

    def path_prob(x):
        out = pi[x[0]]
        for a, b in itertools.pairwise(x):
            out *= P[a][b]
        return out

    paths = list(itertools.product((0, 1), repeat=N))
    m1 = m2 = F(0)
    for xs in itertools.product(paths, repeat=T):
        pr = path_prob(xs[0]) * path_prob(xs[1])
        misses = sum(all(x[t] for x in xs) for t in range(N))
        m1 += pr * misses
        m2 += pr * misses * misses
    got = chain_missed_moments(N, T, ch, shuffle=False)
    assert got.mean == m1 and got.variance == m2 - m1 * m1


@pytest.mark.parametrize("shuffle", [False, True])
def test_monte_carlo_twin_contains_the_exact_moments(shuffle):
    ch = GilbertElliott(0.2, 0.4)
    for model, exact in (
        ((0.3, 0.8, 0.1), class_missed_law(40, 2, 0.3, 0.8, 0.1, shuffle=shuffle)),
        (ch, chain_missed_moments(40, 2, ch, shuffle=shuffle)),
    ):
        m, v = missed_mc(40, 2, model, shuffle=shuffle, trials=2000, rng=3)
        assert m.low <= exact.mean <= m.high, (model, m, exact)
        assert v.low <= exact.variance <= v.high, (model, v, exact)


def test_negative_control_shuffling_variance_is_outside_the_unshuffled_interval():
    ch = GilbertElliott(0.2, 0.4)
    _, v = missed_mc(40, 2, ch, shuffle=False, trials=2000, rng=3)
    wrong = chain_missed_moments(40, 2, ch, shuffle=True).variance
    assert not v.low <= wrong <= v.high, (v, float(wrong))


def test_bad_input():
    with pytest.raises(ValueError, match="p_slow"):
        class_missed_law(5, 2, 0.3, 1.5, 0.1, shuffle=False)
    with pytest.raises(ValueError, match="N must"):
        class_missed_law(0, 2, 0.3, 0.5, 0.1, shuffle=False)
    with pytest.raises(ValueError, match="shuffle"):
        class_missed_law(5, 2, 0.3, 0.5, 0.1, shuffle=1)
    with pytest.raises(ValueError, match="h_good = 0"):
        chain_missed_moments(5, 2, GilbertElliott(0.2, 0.4, h_good=0.1), shuffle=False)
    with pytest.raises(ValueError, match="T must"):
        chain_missed_moments(5, True, GilbertElliott(0.2, 0.4), shuffle=False)
