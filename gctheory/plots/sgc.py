"""Figures of sequential gradient coding and partial stragglers.

``sgc-runtime-lambda``: the best total runtime of GC, SR-SGC, M-SGC, no
coding and no-wait on the shared AWS Lambda rounds (``cnn-desktop-long``,
Canada, 256 workers, 20 jobs, ``mu = 1``, base load 0, ``base_comp =
2.2013`` s; :mod:`gctheory.sgc`), under the paper's rules and the authors'
scripts' rules. The full run searches every scheme's whole grid
(:func:`gctheory.sgc.param_grid`); quick mode searches a small grid (GC: every
s; SR-SGC and M-SGC: ``B, W`` in ``(1, 2), (1, 3), (2, 3)`` and a dozen
``lambda`` including the full search's optima), so its bars can only be at or
above the full ones. Where the data file is missing the maker says so and
writes nothing (as :mod:`gctheory.plots.delays`).

``partial-fraction-vs-deadline``: expected fraction of the gradient recovered
by a deadline at n = 12, s = 2 (:mod:`gctheory.codes.partial`, exact values)
for cyclic and fractional repetition counting finished partitions, Tandon et
al.'s partial cyclic and partial replication schemes (p = 4 pieces a worker),
and the plain cyclic-MDS code (all or nothing), with times per unit of data
``1 + Exp(1)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gctheory.plots._base import figure, plt, save_figure
from gctheory.plots.delays import _missing, data_path

CAMPAIGN = {"profile": "cnn-desktop-long", "region": "Canada"}
JOBS, MU, BASE_COMP = 20, 1.0, 2.2013
QUICK_LAMBDAS = (1, 2, 4, 8, 10, 12, 16, 17, 19, 27, 32, 64)
QUICK_BW = ((1, 2), (1, 3), (2, 3))


def _quick_grid(scheme: str, n: int, rounds: int, rules: str) -> list[tuple]:
    from gctheory.sgc import param_grid

    full = param_grid(scheme, n, rounds, JOBS, rules)
    if scheme not in ("SR-SGC", "M-SGC"):
        return full
    keep = {(B, W, lam) for B, W in QUICK_BW for lam in QUICK_LAMBDAS}
    return [p for p in full if p in keep]


def best_runtimes(D: np.ndarray, rules: str, quick: bool) -> list[dict]:
    """Best runtime per scheme on ``D`` (workers, rounds): full grid, or the quick grid."""
    from gctheory.sgc import SCHEMES, run_scheme, search_runtimes

    if not quick:
        best, _ = search_runtimes(D, jobs=JOBS, mu=MU, base_comp=BASE_COMP, rules=rules)
        return best
    out = []
    n, rounds = D.shape
    for scheme in SCHEMES:
        top: dict[str, Any] | None = None
        for p in _quick_grid(scheme, n, rounds, rules):
            r = run_scheme(D, scheme, p, jobs=JOBS, mu=MU, base_comp=BASE_COMP, rules=rules)
            if top is None or r.runtime < top["runtime"]:
                top = {"scheme": scheme, "runtime": r.runtime, "params": list(p), "load": r.load}
        if top is not None:
            out.append(top)
    return out


@figure(
    "sgc-runtime-lambda",
    paper="krishnan2023",
    description="Best total runtime of GC, SR-SGC, M-SGC, no coding and no-wait on the AWS Lambda "
    "rounds (cnn-desktop-long, Canada, n = 256, 20 jobs), paper rules vs the authors' scripts' "
    "rules",
)
def _runtime_lambda(outdir: Path, quick: bool) -> list[Path]:
    name = "sgc-runtime-lambda"
    if _missing(name):
        return []
    from gctheory.delays import read_trace
    from gctheory.sgc import SCHEMES, trace_delays

    D = trace_delays(read_trace(str(data_path())).select(**CAMPAIGN), 0.0)
    data: dict[str, list] = {"rules": [], "scheme": [], "runtime": [], "params": [], "load": []}
    fig, ax = plt.subplots(figsize=(7.5, 4.0))
    x = np.arange(len(SCHEMES))
    for off, rules, color in ((-0.2, "paper", "tab:blue"), (0.2, "scripts", "tab:orange")):
        best = {b["scheme"]: b for b in best_runtimes(D, rules, quick)}
        vals = [best[s]["runtime"] for s in SCHEMES]
        ax.bar(x + off, vals, width=0.4, color=color, label=f"{rules} rules")
        for xi, s in zip(x, SCHEMES):
            b = best[s]
            label = ",".join(str(v) for v in b["params"]) or "-"
            ax.text(xi + off, b["runtime"] + 0.2, label, ha="center", fontsize=6, rotation=90)
            data["rules"].append(rules)
            data["scheme"].append(s)
            data["runtime"].append(float(b["runtime"]))
            data["params"].append(" ".join(str(v) for v in b["params"]))
            data["load"].append(float(b["load"]))
    ax.set_xticks(x, SCHEMES)
    ax.set_ylabel(f"total runtime of {JOBS} jobs (s)")
    ax.set_ylim(0, max(data["runtime"]) * 1.2)
    ax.legend(fontsize=8, loc="lower left")
    grid = "small grid (quick)" if quick else "full grid"
    ax.set_title(
        f"cnn-desktop-long, Canada: n = {D.shape[0]}, mu = {MU:g}, base comp {BASE_COMP} s, "
        f"{grid}; labels: s or (B, W, lambda)",
        fontsize=8,
    )
    return save_figure(fig, outdir, name, data, digits={"runtime": 8, "load": 8})


@figure(
    "partial-fraction-vs-deadline",
    paper="tandon2017",
    description="Expected fraction of the gradient recovered by a deadline at n = 12, s = 2: "
    "repetition placements counting finished partitions, Tandon et al.'s partial schemes, "
    "plain cyclic-MDS (exact values, times 1 + Exp(1) per unit of data)",
)
def _partial_fraction(outdir: Path, quick: bool) -> list[Path]:
    from scipy import stats

    from gctheory.codes.partial import (
        PartialCyclicScheme,
        PartialPlacement,
        PartialReplicationScheme,
    )

    name = "partial-fraction-vs-deadline"
    n, s, p = 12, 2, 4
    dist = stats.expon(loc=1.0, scale=1.0)
    schemes: dict[str, PartialPlacement | PartialCyclicScheme | PartialReplicationScheme] = {
        "cyclic repetition (pieces)": PartialPlacement.cyclic(n, s),
        "FRC staggered (pieces)": PartialPlacement.frc(n, s),
        "FRC same order (pieces)": PartialPlacement.frc(n, s, order="same"),
        f"partial cyclic, p = {p}": PartialCyclicScheme(n, s, p),
        f"partial replication, p = {p}": PartialReplicationScheme(n, s, p),
        "cyclic-MDS GC (all or nothing)": PartialCyclicScheme(n, s, s + 1),
    }
    taus = np.linspace(0.0, 0.6, 31 if quick else 121)
    data: dict[str, list] = {"scheme": [], "load": [], "deadline": [], "fraction": []}
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    for label, sch in schemes.items():
        load = sch.load / sch.k
        fr = [sch.expected_fraction(float(t), dist) for t in taus]
        style = "--" if "same" in label else "-"
        ax.plot(taus, fr, style, label=f"{label} (load {load:.3g})")
        data["scheme"] += [label] * len(taus)
        data["load"] += [float(load)] * len(taus)
        data["deadline"] += [float(t) for t in taus]
        data["fraction"] += [float(f) for f in fr]
    ax.set_xlabel("deadline (time per unit of data ~ 1 + Exp(1))")
    ax.set_ylabel("expected fraction of the gradient recovered")
    ax.set_title(f"Partial stragglers, n = {n}, s = {s} (exact values)", fontsize=9)
    ax.legend(fontsize=7)
    return save_figure(fig, outdir, name, data, digits={"fraction": 10, "load": 10})
