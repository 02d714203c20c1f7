"""Benchmark of the expected-order-statistic paths (a measurement, not a test).

Prints the cost of one ``E[X_(k:n)]`` by each path, as a ratio to the closed
form measured in the same run: the quadrature of the survival function (the
path every non-closed-form distribution takes), the mpmath closed form and the
mpmath quadrature (reference values), and Monte Carlo with 20 000 trials. Also
the exact Halbawi optimum of ``f`` over all ``f = 1..n`` for n = 80 and 2000.

Run: ``python benchmarks/bench_order_stats.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from scipy import stats

from gctheory.order_stats import (
    order_statistic_mc,
    order_statistic_moments,
    order_statistic_reference,
)
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


def main() -> None:
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


if __name__ == "__main__":
    main()
