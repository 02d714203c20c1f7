"""Figures of heterogeneous and memoryful workers.

``hetero-lambda-cyclic-mds``: expected iteration time of cyclic-MDS versus ``s`` at
``n = 256`` on the AWS Lambda measurements (campaign ``cnn-desktop-long``), as the
measured rounds give it (with their bootstrap interval) and as the i.i.d. lognormal
fit, the per-cluster lognormal fit (4 clusters of workers), the per-worker empirical
laws and the fitted two-state Markov straggler chain predict it
(:func:`gctheory.delays.heterogeneity.hetero_scheme_times`).

``hetero-load-allocation``: the measure-then-split loads per worker type
(:func:`gctheory.codes.heterogeneous.measured_split`) for two machine types, and the
expected time of cyclic-MDS with equal versus split loads
(non-identical order statistics, :mod:`gctheory.order_stats`).

Where the measurements are missing the first maker says so and writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gctheory.plots._base import figure, plt, save_figure
from gctheory.plots.delays import CAMPAIGN, _missing, data_path

N = 256
_EST = (
    ("rounds", "measured rounds", "black", "-"),
    ("lognormal", "i.i.d. lognormal fit", "tab:purple", "--"),
    ("clusters-lognormal", "4 clusters, lognormal each", "tab:green", "-."),
    ("per-worker", "per-worker empirical", "tab:orange", ":"),
    ("markov", "Markov straggler chain", "tab:blue", (0, (3, 1, 1, 1))),
)


def lambda_curves(quick: bool = False):
    """The :class:`~gctheory.delays.SchemeTimes` behind ``hetero-lambda-cyclic-mds``."""
    from gctheory.delays import read_trace
    from gctheory.delays.heterogeneity import hetero_scheme_times

    tr = read_trace(data_path()).select(**CAMPAIGN)
    s = list(range(0, N, 8 if quick else 1))
    return hetero_scheme_times(
        tr,
        "cyclic-mds",
        N,
        s=s,
        trials=2000 if quick else 20_000,
        bootstrap=20 if quick else 200,
        rng=2026,
    )


@figure(
    "hetero-lambda-cyclic-mds",
    description="cyclic-MDS time vs s at n=256 on AWS Lambda: measured rounds vs i.i.d., "
    "per-cluster, per-worker and Markov predictions",
    slow=True,
)
def lambda_figure(outdir: Path, quick: bool) -> list[Path]:
    name = "hetero-lambda-cyclic-mds"
    if _missing(name):
        return []
    res = lambda_curves(quick)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    data = {"s": res.s.tolist()}
    for key, label, color, ls in _EST:
        if key not in res.times:
            continue
        t = res.times[key]
        s_opt, t_opt = res.optimum(key)
        ax.plot(res.s, t, color=color, ls=ls, lw=1.2, label=f"{label} (best s = {s_opt})")
        ax.plot([s_opt], [t_opt], "o", color=color, ms=4)
        data[key] = t.tolist()
    if "rounds" in res.low:
        ax.fill_between(
            res.s, res.low["rounds"], res.high["rounds"], color="gray", alpha=0.25, lw=0
        )
        data["rounds_low"] = res.low["rounds"].tolist()
        data["rounds_high"] = res.high["rounds"].tolist()
    ax.set_xlabel("straggler tolerance s")
    ax.set_ylabel("expected iteration time (s)")
    ax.set_title(f"cyclic-MDS, n = {N}, AWS Lambda ({CAMPAIGN['profile']})", fontsize=9)
    ax.legend(fontsize=7)
    ax.set_ylim(top=float(np.nanquantile(res.times["rounds"], 0.9)) * 1.1)
    return save_figure(fig, outdir, name, data, digits=6)


@figure(
    "hetero-load-allocation",
    description="measure-then-split loads per worker type; cyclic-MDS time, equal vs split loads",
)
def allocation_figure(outdir: Path, quick: bool) -> list[Path]:
    from scipy import stats

    from gctheory.codes.heterogeneous import measured_split
    from gctheory.order_stats import expected_order_statistic

    n, k = 24, 24 * 12
    counts = (12, 12)
    means = np.repeat([1.0, 3.0], counts)
    laws = [stats.expon(loc=0.5 * m, scale=0.5 * m) for m in means]
    svals = list(range(0, n - 1, 4 if quick else 1))
    equal, split, d_fast, d_slow = [], [], [], []
    for s in svals:
        d = measured_split(means, k, s)
        d_fast.append(int(d[0]))
        d_slow.append(int(d[-1]))
        load_eq = (s + 1) / n
        equal.append(expected_order_statistic([_scaled(x, load_eq) for x in laws], n - s))
        split.append(
            expected_order_statistic([_scaled(x, di / k) for x, di in zip(laws, d)], n - s)
        )
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8.0, 3.4))
    a1.plot(svals, np.array(d_fast) / k, label="fast type (mean 1)")
    a1.plot(svals, np.array(d_slow) / k, label="slow type (mean 3)")
    a1.plot(svals, (np.array(svals) + 1) / n, "k--", lw=0.8, label="equal loads")
    a1.set_xlabel("s")
    a1.set_ylabel("data share per worker")
    a1.legend(fontsize=7)
    a2.plot(svals, equal, label="equal loads (s+1)/n")
    a2.plot(svals, split, label="measure-then-split")
    a2.set_xlabel("s")
    a2.set_ylabel("expected iteration time")
    a2.legend(fontsize=7)
    fig.suptitle("12 fast + 12 slow shifted-exponential workers", fontsize=9)
    data: dict[str, list[Any]] = {
        "s": svals,
        "partitions_fast": d_fast,
        "partitions_slow": d_slow,
        "equal": equal,
        "split": split,
    }
    return save_figure(fig, outdir, "hetero-load-allocation", data, digits=8)


def _scaled(dist, c: float):
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return dist.dist(*shapes, loc=loc * c, scale=scale * c)
