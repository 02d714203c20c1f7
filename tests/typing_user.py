"""A downstream user's script, as mypy sees it (type-checked by tests/test_typing.py).

Not collected by pytest (no ``test_`` prefix) and never run there: it only has to
type-check. ``reveal_type`` sits under ``TYPE_CHECKING``, so the file also runs on
Python 3.10, whose ``typing`` has no ``reveal_type``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import gctheory
import gctheory.tradeoff
from gctheory import (
    Stop,
    empirical_s_kappa,
    estimate_probability,
    expected_order_statistic,
    halbawi_alpha_star,
    halbawi_optimal_f,
    ldpc,
    s_kappa_commfr,
    s_kappa_ye_abbe,
    table1,
)
from gctheory.codes import (
    CommFRCode,
    DecodeResult,
    FractionalRepetitionCode,
    GradientCode,
    load_code,
    verify_straggler_sets,
)
from gctheory.conditioning import max_condition
from gctheory.delays import decision_table, fit_law, make_trace, scheme_times
from gctheory.generators import gaussian_generator, generator
from gctheory.load_bounds import exact_recovery_lower_bound, frc_failure_probability
from gctheory.montecarlo import Estimate
from gctheory.training import simulate

if TYPE_CHECKING:  # a builtin for mypy, and in typing only from Python 3.11
    from typing_extensions import reveal_type


def failure_rate(trials: int) -> Estimate:
    """P(a fair coin shows heads), estimated as a user would write it."""

    def heads(rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.random(size) < 0.5

    return gctheory.estimate_probability(heads, trials, rng=1)


def condition(result: DecodeResult) -> float:
    return result.condition_number


def main() -> None:
    G = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 2.0]])
    code = CommFRCode(8, 4, G)
    tolerance: int = code.s + 1  # an exact code's s is an int, not Optional
    survivors = list(range(code.n - code.s))
    partials = np.ones((code.k, 3))
    result = code.decode_detail(survivors, code.encode(partials)[survivors])
    kappa = condition(result)
    frc = FractionalRepetitionCode(4, 1)

    est = failure_rate(1000)
    low: float = est.low
    value: float = est.value
    table = gctheory.tradeoff.tradeoff(4, schemes=["cyclic-mds"], quick=True, rng=0)
    print(tolerance, kappa, frc.load, low, value, len(table.rows))

    if TYPE_CHECKING:
        reveal_type(code)
        reveal_type(code.s)
        reveal_type(result)
        reveal_type(gctheory.estimate_probability)
        reveal_type(est)
        reveal_type(est.value)
        reveal_type(est.low)
        reveal_type(table)


def min_below(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    return rng.random((size, n)).min(axis=1) < 1 / n  # Any: numpy's reductions (its stubs)


def readme_calls(path: str) -> None:
    """The README's calls, one per line as printed there (type-checked, not run here:
    ``tests/test_readme.py`` runs the README itself)."""
    import functools

    from scipy import stats

    est = estimate_probability(functools.partial(min_below, n=8), 200_000, rng=1)
    inside: bool = est.contains(1 - (1 - 1 / 8) ** 8)
    est = estimate_probability(
        functools.partial(min_below, n=8), 10**9, rng=1, chunk_size=10_000,
        stop=Stop(rel_half_width=0.01),
    )  # fmt: skip
    stopped = est.stopped_by
    guaranteed = s_kappa_commfr(8, 2, kappa=1000, eps=1e-3)
    ye_abbe = s_kappa_ye_abbe(60, 8, kappa=1000, eps=1e-3)
    real = empirical_s_kappa(gaussian_generator(2, 10, rng=1), 1000).value
    rows = table1()
    mc = max_condition(generator("chebyshev-vandermonde", 10, 12), 10)
    worst = mc.subset
    code = CommFRCode(8, 4, np.array([[1.0, 0, 1, 1], [0, 1, 1, 2]]))
    ok: bool = verify_straggler_sets(code, 2).ok
    loaded: GradientCode = load_code(path)
    threshold = ldpc.regular_threshold(3, 6)
    H = ldpc.regular_ensemble(2000, 3, 6, rng=1)  # Any: a scipy.sparse matrix (untyped)
    left = ldpc.peel(H, np.random.default_rng(2).random(2000) < 0.38)  # Any: H
    failure = ldpc.block_failure_rate(H, 0.42, 200, rng=3)  # Any: H
    profile = ldpc.erasure_profile(200, 3, 6).block_erasure(0.4)
    scaling = ldpc.regular_scaling_parameters(3, 6).block_erasure(10000, 0.42)
    d = exact_recovery_lower_bound(1000, 100)
    p_fail = float(frc_failure_probability(1000, 100, 3))
    pareto = stats.pareto(1.1, scale=0.001)  # Any: scipy.stats publishes no types
    order: float = expected_order_statistic(pareto, 68, 80)  # Any: pareto
    alpha = halbawi_alpha_star(t0=0.001, xi=1.1, n_cg=0.035)
    f = halbawi_optimal_f(80, t0=0.001, xi=1.1, n_cg=0.035).f
    run = simulate("lgc", n=10, K=7, delay="shifted_exp(0.05, 0.02)", iterations=50, rng=1)
    rnd, wkr = np.divmod(np.arange(20 * 16), 16)
    load = np.repeat([0.25, 0.5, 0.75, 1.0], rnd.size)
    trace = make_trace(np.tile(rnd, 4), np.tile(wkr, 4), load, 0.6 + 1.2 * load)
    fit = fit_law(trace.times(0.5), "lognormal")
    res = scheme_times(trace, "cyclic-mds", 16, laws=("shifted_exp",), bootstrap=50, rng=1)
    decision = decision_table(res)
    table = gctheory.tradeoff_table(
        40, s=4, kappa=1000, eps=1e-3, delay="pareto(scale=0.001, shape=1.1)", quick=True, rng=0
    )
    dominated = table.dominated_schemes()
    if TYPE_CHECKING:
        reveal_type(profile)
        reveal_type(scaling)
        reveal_type(order)
    print(inside, stopped, guaranteed, ye_abbe, real, rows, worst, ok, loaded, threshold)
    print(left, failure, profile, scaling, d, p_fail, order, alpha, f, run, fit, decision)
    print(dominated)
    if TYPE_CHECKING:
        reveal_type(loaded)
        reveal_type(run)
        reveal_type(fit)
        reveal_type(res)
        reveal_type(trace)
        reveal_type(mc)
        reveal_type(failure)
        reveal_type(gctheory.tradeoff_table)


if __name__ == "__main__":
    main()
