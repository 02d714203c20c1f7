"""Benchmark of the order-statistic paths behind the decisions on measured data (a measurement).

A decision evaluates one law for every ``s`` of a scheme. Prints, as ratios
measured in the same run:

* fitted law, ``E[X_(n-s:n)]`` for 32 values of ``s`` at ``n = 256``:
  :func:`gctheory.order_stats.order_statistic_moments` once per ``s``
  (adaptive quadrature) against one :func:`gctheory.delays.law_grouped_means`
  call (the quantile function computed once on a grid), and their largest
  relative difference;
* empirical distribution of 7680 times (the size of one load of the shared
  data), all 256 values of ``s``: the exact weights of
  :func:`gctheory.delays.empirical_weights` against Monte Carlo with 2000
  draws of 256 workers per ``s``.

Run: ``python benchmarks/bench_delays.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from gctheory.delays import empirical_weights, law_grouped_means
from gctheory.order_stats import order_statistic_moments

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402


def _time(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    n = 256
    s_values = list(range(0, n, 8))
    lays = [(1, n, n - s) for s in s_values]
    law = stats.lognorm(0.5, loc=1.0, scale=0.17)
    t_quad, quad = _time(lambda: [order_statistic_moments(law, w, r).mean for _, r, w in lays])
    t_grid, grid = _time(lambda: law_grouped_means(law, lays))
    rel = float(np.max(np.abs(np.asarray(grid) / np.asarray(quad) - 1)))
    print(f"fitted lognormal, {len(lays)} values of s at n={n}:")
    print(f"  adaptive quadrature per s   {t_quad:8.3f} s   (1.00)")
    print(f"  law_grouped_means, one call {t_grid:8.3f} s   ({t_grid / t_quad:.3f})")
    record("law_grouped_means vs quadrature per s", t_quad / t_grid)
    print(f"  largest relative difference {rel:.2e}")

    rng = np.random.default_rng(0)
    x = np.sort(1.0 + rng.lognormal(-2, 0.5, 7680))
    all_lays = [(1, n, n - s) for s in range(n)]
    t_exact, W = _time(lambda: x @ empirical_weights(x.size, all_lays))

    def mc():
        draws = np.sort(rng.choice(x, size=(2000, n)), axis=1)
        return draws[:, [w - 1 for _, _, w in all_lays]].mean(axis=0)

    t_mc, est = _time(mc)
    print(f"empirical distribution of {x.size} times, all {n} values of s:")
    print(f"  Monte Carlo, 2000 draws      {t_mc:8.3f} s   (1.00)")
    print(f"  exact weights               {t_exact:8.3f} s   ({t_exact / t_mc:.3f})")
    record("exact order-statistic weights vs Monte Carlo 2000 draws", t_mc / t_exact)
    print(f"  largest |MC - exact| / exact {np.max(np.abs(est / W - 1)):.2e} (MC noise)")


if __name__ == "__main__":
    main()
