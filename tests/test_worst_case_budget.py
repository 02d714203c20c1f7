"""The evaluation budget of the worst-case searches (``max_evaluations``): honoured, a
function of the inputs only (the same result under any clock), and the figure that uses it
(``kadhe2019_skappa_vs_n``) the same from run to run."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

import gctheory.conditioning.worst_case.budget as budget_mod
from gctheory.conditioning import empirical_s_kappa, max_condition
from gctheory.generators import gaussian_generator, vandermonde_generator


class _SlowClock:
    """A clock that jumps an hour at every reading: a machine under any load."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 3600.0
        return self.now


def _spent(mc) -> int:
    return mc.evaluated + mc.nodes


_CASES = {
    "gaussian": (lambda: gaussian_generator(5, 15, rng=11), 7),  # 6435 subsets: Gram bound path
    "complex": (lambda: vandermonde_generator(5, 11, nodes="roots_of_unity"), 6),
    "small": (lambda: gaussian_generator(4, 12, rng=3), 7),
}


@functools.cache
def _brute_max(case: str) -> float:
    # every t-subset by np.linalg.cond: the reference the certified interval must hold
    make, t = _CASES[case]
    G = make()
    return max(np.linalg.cond(G[:, list(T)]) for T in itertools.combinations(range(G.shape[1]), t))


def _summary(r) -> tuple:
    return (r.value, r.exact, r.low) + tuple(
        (s.value, s.subset, s.lower, s.upper, s.evaluated, s.nodes, s.method) for s in r.steps
    )


@pytest.mark.parametrize(
    "case, kw",
    [
        ("gaussian", dict(method="branch-and-bound", samples=50)),
        ("gaussian", dict(method="exhaustive")),
        ("complex", dict(method="exhaustive")),
        ("small", dict(method="estimate", samples=300)),
    ],
)
@pytest.mark.parametrize("budget", [1, 7, 60, 500])
def test_max_condition_honours_the_budget_and_stays_certified(case, kw, budget):
    truth = _brute_max(case)
    make, t = _CASES[case]
    mc = max_condition(make(), t, time_limit=math.inf, max_evaluations=budget, rng=1, **kw)
    assert 1 <= _spent(mc) <= budget
    assert mc.lower <= truth * (1 + 1e-9) and truth <= mc.upper * (1 + 1e-9)
    if not mc.complete and kw["method"] != "estimate":
        assert "max_evaluations" in mc.method and not mc.exact


def test_a_larger_budget_completes_the_search_a_small_one_does_not():
    make, t = _CASES["gaussian"]
    kw = dict(method="branch-and-bound", samples=50, rng=1, time_limit=math.inf)
    cut = max_condition(make(), t, max_evaluations=200, **kw)
    full = max_condition(make(), t, max_evaluations=10**5, **kw)
    assert not cut.complete and not cut.exact
    assert full.complete and full.exact and _spent(full) < 10**5
    assert full.value == pytest.approx(_brute_max("gaussian"), rel=1e-9)


# 10 steps (3 enumerated, 7 by branch and bound), about 11,000 evaluations in all
_SK = dict(exhaustive_limit=300, samples=100, rng=3, time_limit=math.inf)


def test_empirical_s_kappa_shares_one_budget_over_its_steps():
    G = gaussian_generator(5, 14, rng=5)
    for budget in (1, 50, 3000):
        r = empirical_s_kappa(G, 1000.0, max_evaluations=budget, **_SK)
        assert sum(_spent(s) for s in r.steps) <= budget and not r.exact
    big = empirical_s_kappa(G, 1000.0, max_evaluations=10**5, **_SK)
    assert big.exact and big.value == 8  # the budget decides whether it is certified


def test_the_budget_makes_the_search_independent_of_the_clock(monkeypatch):
    G = gaussian_generator(5, 14, rng=5)
    here = _summary(empirical_s_kappa(G, 1000.0, max_evaluations=3000, **_SK))
    monkeypatch.setattr(budget_mod, "time", _SlowClock())
    slow = _summary(empirical_s_kappa(G, 1000.0, max_evaluations=3000, **_SK))
    assert here == slow
    # negative control: a time limit on the same slow clock stops at the first check
    timed = empirical_s_kappa(G, 1000.0, **{**_SK, "time_limit": 5.0})
    assert not timed.exact and _summary(timed) != here


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10"])
def test_bad_budget_is_refused_by_name(bad):
    G = gaussian_generator(3, 6, rng=0)
    with pytest.raises(ValueError, match="max_evaluations"):
        max_condition(G, 4, max_evaluations=bad)
    with pytest.raises(ValueError, match="max_evaluations"):
        empirical_s_kappa(G, 50.0, max_evaluations=bad)


@pytest.mark.filterwarnings("ignore::gctheory.montecarlo.UnreliableEstimateWarning")
def test_skappa_vs_n_figure_is_a_function_of_its_inputs(monkeypatch):
    import matplotlib.pyplot as plt

    from gctheory.plots import plot_skappa_vs_n

    first = plot_skappa_vs_n(quick=True).data
    plt.close("all")
    monkeypatch.setattr(budget_mod, "time", _SlowClock())  # as if every search ran for hours
    second = plot_skappa_vs_n(quick=True).data
    plt.close("all")
    assert first == second
    # the budget is what bounds the searches: some of them stop short (open markers)
    assert False in first["exact"]
