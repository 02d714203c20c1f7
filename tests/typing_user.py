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


def gallery_calls() -> None:
    """The gallery's calls (``examples/plot_*.py``), as written there; type-checked, not
    run here (``tests/test_gallery.py`` runs the examples)."""
    from itertools import combinations

    import matplotlib.pyplot as plt
    from scipy import stats

    from gctheory.cluster import compare, run
    from gctheory.codes import HeterogeneousGradientCode, measured_split
    from gctheory.conditioning import (
        condition_numbers,
        condition_tail_mc,
        gaussian_condition_bound,
    )
    from gctheory.data import lambda_delays
    from gctheory.delays import fit_laws
    from gctheory.generators import vandermonde_generator
    from gctheory.ldpc import regular_scaling_parameters, regular_threshold, waterfall
    from gctheory.load_bounds import frc_min_load, load_curves, min_load_lower_bound
    from gctheory.montecarlo import ShiftedGaussian, importance_sampling
    from gctheory.plots import plot_delay_fits, plot_load_bounds, plot_tradeoff
    from gctheory.runtime import halbawi_approx_time, halbawi_expected_time
    from gctheory.sgc import SCHEMES, param_grid, run_scheme, trace_delays
    from gctheory.tables import table1
    from gctheory.tails import condition_tail_is
    from gctheory.tradeoff import tradeoff

    # 01: Table I
    rows = table1(kappa=1000, eps=1e-3)
    n_first: int = rows[0]["n"]
    # 02: condition tails
    subsets = np.array(list(combinations(range(12), 6)), dtype=np.intp)
    G = vandermonde_generator(6, 12, nodes="chebyshev")
    conds = np.sort(condition_numbers(np.moveaxis(G[:, subsets], 1, 0)))
    bound: float = gaussian_condition_bound(6, 6, 100.0)
    # 03: s_kappa versus n
    found = empirical_s_kappa(gaussian_generator(6, 8, rng=0), 1000)
    drawn: int | None = found.value
    guaranteed: int = s_kappa_commfr(2, 4, kappa=1000, eps=1e-3)
    ye_abbe: int = s_kappa_ye_abbe(8, 2, kappa=1000, eps=1e-3)
    # 04: the LDPC waterfall
    points = waterfall([1000, 4000], np.linspace(0.36, 0.46, 9), 3, 6, 300, rng=1)
    point_n: int = points[0].n
    point_eps: float = points[0].eps
    point_value: float = points[0].failure.value
    law = regular_scaling_parameters(3, 6)
    threshold: float = regular_threshold(3, 6).eps
    # 05: load bounds
    curves = load_curves(1000, [5, 50, 500], eps=0.01, target=0.01)
    lower: float = min_load_lower_bound(1000, 100, 0.01).load
    frc_load: int = frc_min_load(1000, 100, 0.01)
    fig = plt.figure()
    drawing = plot_load_bounds(curves, fig=fig, n=1000, eps=0.01, target=0.01)
    # 06: Halbawi's optimum
    exact: float = halbawi_expected_time(40, 80, t0=0.001, xi=1.1, n_cg=0.035)
    approx: float = halbawi_approx_time(0.5, t0=0.001, xi=1.1, n_cg=0.035)
    best_f: int = halbawi_optimal_f(80, t0=0.001, xi=1.1, n_cg=0.035).f
    # 07: the tradeoff atlas
    atlas = tradeoff(40, kappa=1000, eps=1e-3, delay="pareto(scale=0.001, shape=1.1)",
                     quick=True, rng=0)  # fmt: skip
    dominated = atlas.dominated_schemes()
    first_row = atlas.rows[0]
    atlas_fig = plot_tradeoff(atlas, figsize=(14, 11))
    # 08: fitting the Lambda delays
    trace = lambda_delays(profile="cnn-desktop-long", region="Canada")
    fits = {}
    for load in trace.loads:  # Any: iterating a numpy array (numpy's stubs)
        for fit in fit_laws(trace.times(load), ("lognormal", "pareto")):  # Any: load
            fits[(fit.law, float(load))] = fit  # Any: load
    aic: float = fits[("lognormal", 0.5)].aic
    fitted = plot_delay_fits(trace, fits, fig=plt.figure())
    # 09: a heterogeneous cluster
    means = np.array([1.0] * 12 + [3.0] * 12) / 288
    laws = [stats.expon(loc=m / 2, scale=m / 2) for m in means]  # Any: scipy.stats
    split = HeterogeneousGradientCode(measured_split(means, 288, 2), 288, 2, rng=0)
    split_time: float = split.expected_time(laws)  # Any: laws
    # 10: sequential gradient coding on the Lambda profile
    D = trace_delays(trace, 0.0)
    runtimes: list[float] = []
    for scheme in SCHEMES:
        for params in param_grid(scheme, D.shape[0], D.shape[1], 20):
            sgc_run = run_scheme(D, scheme, params, jobs=20, mu=1.0, base_comp=2.2013)
            runtimes.append(sgc_run.runtime)
    # 11: a real run, measured against predicted
    cluster_result = run("cyclic-mds", 4, s=1, delay="shifted_exp(0.02, 0.01)", iterations=30,
                 workload="quadratic", rng=0)  # fmt: skip
    same = compare(cluster_result)
    agrees: bool = same.agrees
    p_value: float = same.p_value
    measured: float = same.measured

    # 12: importance sampling
    def above_4(z: np.ndarray) -> np.ndarray:
        return z[:, 0] > 4.0

    weighted = importance_sampling(above_4, ShiftedGaussian((4.0,)), 4000, rng=1)
    tail = condition_tail_is(4, 4, 1e4, 4000, rng=1)
    plain = condition_tail_mc(4, 4, 1e4, 20_000, rng=1)
    print(n_first, conds, bound, drawn, guaranteed, ye_abbe, point_n, point_eps, point_value)
    print(law, threshold, lower, frc_load, drawing, exact, approx, best_f, dominated)
    print(first_row, atlas_fig, aic, fitted, split_time, runtimes, agrees, p_value, measured)
    print(weighted.value, tail.value, plain.value)
    if TYPE_CHECKING:
        reveal_type(rows)
        reveal_type(conds)
        reveal_type(points)
        reveal_type(law)
        reveal_type(curves)
        reveal_type(drawing)
        reveal_type(atlas)
        reveal_type(atlas_fig)
        reveal_type(trace)
        reveal_type(fitted)
        reveal_type(D)
        reveal_type(sgc_run)
        reveal_type(cluster_result)
        reveal_type(same)
        reveal_type(weighted)
        reveal_type(tail)


if __name__ == "__main__":
    main()
