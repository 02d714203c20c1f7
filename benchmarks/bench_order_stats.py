"""Benchmark of the expected-order-statistic paths (a measurement, not a test).

Part 1, integration against SciPy (issue 27): ``expected_order_statistic`` for the
normal, lognormal, gamma and Weibull laws at ``n`` in {10, 100, 1000, 10^5} and ``k``
at the median, ``0.9 n`` and ``n``, against ``scipy.stats.order_statistic(X, r=k,
n=n).mean()`` (SciPy's new distribution infrastructure, ``X`` built once), and the old
route (adaptive ``quad`` of the survival function with scalar frozen-law calls, which
also computed the variance) as the "before" column. Times are medians over rounds
that alternate the order of the sides, in one process; the table prints the ratios
gctheory / scipy (lower is better; below 1 is faster than SciPy) and the relative
error of each side against a 30-digit mpmath reference (``order_statistic_reference``,
``mp.quad`` over ``x`` of the order statistic's density in log space: a route
independent of both). SciPy returns NaN at ``n = 10^5``, ``k < n``.

Part 2: the cost of one Pareto ``E[X_(k:n)]`` by each path, as a ratio to the closed
form measured in the same run: the quadrature of the survival function, the mpmath
closed form and the mpmath quadrature (reference values), and Monte Carlo with 20 000
trials. Also the exact Halbawi optimum of ``f`` over all ``f = 1..n`` for n = 80 and
2000.

Run: ``python benchmarks/bench_order_stats.py [--quick] [--rounds R] [--no-reference]``
(``--quick``: n in {10, 1000}, 3 rounds).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import warnings
from functools import partial
from pathlib import Path

from scipy import stats

from gctheory.order_stats import (
    expected_order_statistic,
    order_statistic_mc,
    order_statistic_moments,
    order_statistic_reference,
)
from gctheory.order_stats.quadrature import _sf_quad_order_stat
from gctheory.runtime import halbawi_optimal_f

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402


def _time(fn, repeat: int = 5) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


# law: (gctheory's frozen law, SciPy's new-infrastructure law, reference family and params)
LAWS = {
    "normal": (
        stats.norm(loc=1.0, scale=0.2),
        lambda: stats.Normal(mu=1.0, sigma=0.2),
        ("normal", {"loc": 1.0, "scale": 0.2}),
    ),
    "lognormal": (
        stats.lognorm(0.5),
        lambda: stats.make_distribution(stats.lognorm)(s=0.5),
        ("lognormal", {"s": 0.5}),
    ),
    "gamma": (
        stats.gamma(2.0),
        lambda: stats.make_distribution(stats.gamma)(a=2.0),
        ("gamma", {"a": 2.0}),
    ),
    "weibull": (
        stats.weibull_min(1.5),
        lambda: stats.make_distribution(stats.weibull_min)(c=1.5),
        ("weibull", {"c": 1.5}),
    ),
}


def _alternating(fns: list, rounds: int) -> list[float]:
    """Median time of each function over ``rounds`` rounds, the order reversed every
    other round (so drift in the machine's load hits every side alike)."""
    times: list[list[float]] = [[] for _ in fns]
    for r in range(rounds):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            t = time.perf_counter()
            fns[i]()
            times[i].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def _scipy_mean(x_law, k: int, n: int) -> float:
    return stats.order_statistic(x_law, r=k, n=n).mean()


def _rel(x: float, ref) -> float:
    if not math.isfinite(x):
        return math.nan
    return abs(float((x - ref) / ref))


def vs_scipy(ns: tuple[int, ...], rounds: int, reference: bool) -> None:
    """Part 1: the table of time ratios and errors (module docstring)."""
    print(
        f"E[X_(k:n)] by integration against scipy.stats.order_statistic(...).mean(); medians "
        f"of {rounds} alternating rounds in one process"
    )
    print(
        f"{'law':9s} {'n':>6s} {'k':>6s} {'scipy ms':>9s} {'new/scipy':>9s} "
        f"{'old/scipy':>9s} {'err new':>8s} {'err scipy':>9s} {'err old':>8s}"
    )
    worst = {"new": 0.0, "scipy": 0.0}
    ratios = []
    for name, (dist, make_x, (fam, params)) in LAWS.items():
        x_law = make_x()
        for n in ns:
            for k in sorted({max(n // 2, 1), int(0.9 * n), n}):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # scipy's NaN warnings at n = 10^5
                    t_new, t_sp, t_old = _alternating(
                        [
                            partial(expected_order_statistic, dist, k, n),
                            partial(_scipy_mean, x_law, k, n),
                            partial(_sf_quad_order_stat, dist, k, n),
                        ],
                        rounds,
                    )
                    v_new = expected_order_statistic(dist, k, n)
                    v_sp = float(_scipy_mean(x_law, k, n))
                    v_old = _sf_quad_order_stat(dist, k, n).mean
                if reference:
                    ref = order_statistic_reference(fam, k, n, dps=30, method="quad", **params)
                    e_new, e_sp, e_old = (_rel(v, ref) for v in (v_new, v_sp, v_old))
                    worst["new"] = max(worst["new"], e_new)
                    if math.isfinite(e_sp):
                        worst["scipy"] = max(worst["scipy"], e_sp)
                else:
                    e_new = e_sp = e_old = math.nan
                ratios.append(t_new / t_sp)
                print(
                    f"{name:9s} {n:6d} {k:6d} {t_sp * 1e3:9.2f} {t_new / t_sp:9.3f} "
                    f"{t_old / t_sp:9.2f} {e_new:8.1e} {e_sp:9.1e} {e_old:8.1e}"
                )
                key = f"{name} E[X_({k}:{n})]"
                record(f"{key}: gctheory / scipy time", t_new / t_sp, better="lower")
                record(f"{key}: old quad / scipy time", t_old / t_sp, better="none")
                if reference:
                    record(f"{key}: gctheory rel. error", e_new, "", "none")
    print(
        f"new/scipy time: median {statistics.median(ratios):.3f}, max {max(ratios):.3f}; "
        + (
            f"worst relative error: gctheory {worst['new']:.1e}, scipy (where not NaN) "
            f"{worst['scipy']:.1e}"
            if reference
            else "(no reference computed)"
        )
    )


def pareto_paths() -> None:
    """Part 2 (module docstring)."""
    d = stats.pareto(1.1, scale=0.001)
    k, n = 68, 80
    base = _time(lambda: order_statistic_moments(d, k, n), 50)
    rows = {
        "closed form (log-gamma)": base,
        "scipy quadrature of the survival fn": _time(
            lambda: order_statistic_moments(d, k, n, method="quad")
        ),
        "mpmath closed form, 40 digits": _time(
            lambda: order_statistic_reference("pareto", k, n, t0=0.001, xi=1.1)
        ),
        "mpmath quadrature, 20 digits": _time(
            lambda: order_statistic_reference(
                "pareto", k, n, t0=0.001, xi=1.1, method="quad", dps=20
            ),
            1,
        ),
        "Monte Carlo, 20000 trials": _time(lambda: order_statistic_mc(d, k, n, 20_000, rng=1), 3),
    }
    print(f"E[X_(68:80)], Pareto(0.001, 1.1): closed form {base * 1e6:.1f} us per call")
    for name, t in rows.items():
        print(f"  {name:40s} {t * 1e3:9.3f} ms   x{t / base:10.1f}")
        record(f"Pareto E[X_(68:80)]: {name} / closed form", t / base, better="none")
    big = _time(lambda: order_statistic_moments(d, 4000, 5000), 50)
    print(f"closed form at n = 5000: {big * 1e6:.1f} us per call (x{big / base:.2f} of n = 80)")
    for nn in (80, 2000):
        t = _time(lambda nn=nn: halbawi_optimal_f(nn, t0=0.001, xi=1.1, n_cg=0.035), 1)
        print(f"exact optimum of f over 1..{nn} (eq. (17)): {t * 1e3:.1f} ms")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n in {10, 1000}, 3 rounds")
    ap.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 7)")
    ap.add_argument(
        "--no-reference", action="store_true", help="skip the mpmath errors (about 1 s each)"
    )
    args = ap.parse_args(argv)
    ns = (10, 1000) if args.quick else (10, 100, 1000, 10**5)
    rounds = args.rounds or (3 if args.quick else 7)
    vs_scipy(ns, rounds, not args.no_reference)
    print()
    pareto_paths()


if __name__ == "__main__":
    main()
