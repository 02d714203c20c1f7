"""The heavy-tail check below 200 draws (the exponential-spacings test) and Hill's from 200:
light tails alarm at most at the stated rate, Pareto 1.5 is flagged; rates over seeded
replications, each judged by its Clopper-Pearson interval."""

from __future__ import annotations

import numpy as np
import pytest

from gctheory.montecarlo import binomial_estimate
from gctheory.montecarlo.summaries import Moments, mean_estimate
from gctheory.montecarlo.tail_checks import (
    TAIL_CONFIDENCE,
    hill_tail_index,
    spacings_tail_test,
    tail_messages,
)

RATE = 1.0 - TAIL_CONFIDENCE  # the stated false-alarm rate of an exponential tail

LAWS = {
    "exponential": lambda rng, n: rng.exponential(2.0, n),
    "normal": lambda rng, n: rng.normal(0.0, 1.0, n),
    "pareto(1.5)": lambda rng, n: rng.pareto(1.5, n) + 1.0,
}


def _alarms(law: str, n: int, runs: int) -> tuple[int, int]:
    """Heavy-tail alarms and any warning of ``mean_estimate`` over ``runs`` seeds."""
    tail = any_msg = 0
    for seed in range(runs):
        x = LAWS[law](np.random.default_rng([seed, n]), n)
        est = mean_estimate(Moments.of(x), 0.95, warn=False)
        assert est.diagnostics is not None
        msgs = est.diagnostics.messages
        tail += any(m.startswith("heavy tail") for m in msgs)
        any_msg += bool(msgs)
    return tail, any_msg


@pytest.mark.parametrize("law", ["exponential", "normal"])
@pytest.mark.parametrize("n", [20, 50, 120, 199, 200, 300])
def test_a_light_tail_alarms_at_most_at_the_stated_rate(law, n):
    tail, _ = _alarms(law, n, 1000)
    ci = binomial_estimate(tail, 1000, level=0.99)
    assert ci.low <= RATE, (law, n, tail)


def test_the_spacings_test_is_exact_for_an_exponential_tail():
    # p-values uniform under the null: the rejection rate at 1% is 1%, and at 20% is 20%
    p = []
    for seed in range(2000):
        x = np.random.default_rng(seed).exponential(1.0, 60)
        test = spacings_tail_test(tuple(np.sort(x)[::-1]), 60)
        assert test is not None
        p.append(test[1])
    for alpha in (0.01, 0.2):
        ci = binomial_estimate(int(np.sum(np.array(p) <= alpha)), 2000, level=0.99)
        assert ci.low <= alpha <= ci.high


@pytest.mark.parametrize("n, least", [(150, 0.8), (60, 0.4)])
def test_pareto_1_5_is_flagged_below_200_draws(n, least):
    tail, any_msg = _alarms("pareto(1.5)", n, 400)
    assert binomial_estimate(tail, 400, level=0.99).low >= least, tail
    assert any_msg >= tail


def test_ties_are_not_judged():
    top = (5.0, 4.0, 4.0, 3.0, 2.0, 1.0, 1.0, 0.5)
    assert spacings_tail_test(top, 16) is None
    assert spacings_tail_test((2.0, 1.0), 3) is None  # fewer than two spacings


def test_hill_from_10_excesses_false_alarmed_an_exponential_at_200_draws():
    # the control for the floor of 20 excesses: with 10, Hill's lower limit on exponential
    # samples of 200 draws falls to 1 far more often than the stated 1%
    old = new = 0
    for seed in range(1000):
        m = Moments.of(np.random.default_rng(seed).exponential(1.0, 200))
        old += bool(tail_messages(hill_tail_index(m.top, 10), 200, 10))
        new += bool(tail_messages(hill_tail_index(m.top, 20), 200, 20))
    assert binomial_estimate(old, 1000, level=0.99).low > RATE
    assert binomial_estimate(new, 1000, level=0.99).low <= RATE
