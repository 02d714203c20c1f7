"""Figure: approximate gradient codes (Wang-Liu-Shroff 2019; Charles et al. 2017).

Left: the d-FRC's exact decoding-failure probability versus n for fixed d,
and along Theorem 4's choice ``d = ceil(eq. (14))``, with Monte Carlo points.
Right: the error each decoder makes (mean ``err / n``, eq. (5) form) versus
average load for the d-FRC, the batch raptor code (``P_w``, Theorem 6), the
Bernoulli gradient code, the expander code of Raviv et al. (random
d-regular graphs, optimal and fixed decoders, with the spectral bound on the
fixed decoder's worst-case error) and IS-GC's largest partial sum on cyclic
and hybrid repetition (err = partitions not recovered), at n = 120 with 20%
random stragglers.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from gctheory.codes.approximate import (
    BatchRaptorCode,
    BernoulliGradientCode,
    DFractionalRepetitionCode,
    dfrc_failure_probability,
    dfrc_theorem4_load,
    estimate_decoding_failure,
    estimate_mean_error,
    theorem6_mean_degree,
)
from gctheory.codes.expander import ExpanderCode, random_regular_graph
from gctheory.codes.isgc import ISGCCode
from gctheory.plots import figure, plt, save_figure


@figure(
    "approx_codes",
    description="d-FRC exact P(err > 0) vs n (fixed d and Theorem 4's d, delta = 0.1, with Monte "
    "Carlo points); mean err/n vs average load for d-FRC, batch raptor, Bernoulli, expander "
    "codes (optimal and fixed decoders, with the spectral bound) and IS-GC cyclic / hybrid "
    "repetition (n = 120, 20% stragglers, 99% CI)",
    paper="wang2019",
)
def _approx(outdir: Path, quick: bool) -> list[Path]:
    delta = 0.1
    fig, (ax_l, ax_r) = plt.subplots(1, 2, figsize=(14.5, 4.8))
    rows: dict[str, list] = {"panel": [], "series": [], "x": [], "y": [], "low": [], "high": []}

    def add(panel, series, x, y, lo=float("nan"), hi=float("nan")):
        for c, v in zip(rows, (panel, series, x, y, lo, hi)):
            rows[c].append(v)

    # left: exact failure probability of the d-FRC
    nmax, npts = (5000, 20) if quick else (20000, 40)
    for d, color in zip((2, 3, 4, 5), ("C0", "C1", "C2", "C3")):
        ns = np.unique(np.geomspace(10 * d, nmax, npts).astype(int) // d * d)
        ps = [float(dfrc_failure_probability(int(n), d, int(round(delta * n)))) for n in ns]
        ax_l.semilogx(ns, ps, color=color, label=f"d = {d} (exact)")
        for n, p in zip(ns, ps):
            add("left", f"d={d}", int(n), p)
    ns4, ps4 = [], []
    for n in np.unique(np.geomspace(20, nmax, int(1.5 * npts)).astype(int)):
        d = math.ceil(dfrc_theorem4_load(int(n), max(1, int(round(delta * n)))))
        n_d = int(n) // d * d
        if n_d > d:
            ns4.append(n_d)
            ps4.append(float(dfrc_failure_probability(n_d, d, int(round(delta * n_d)))))
    ax_l.semilogx(ns4, ps4, "k--", lw=1.2, label="Theorem 4: d = ceil(eq. (14))")
    for n, p in zip(ns4, ps4):
        add("left", "theorem4", n, p)
    trials = 300 if quick else 2000
    for n in (60, 240, 960):
        code = DFractionalRepetitionCode(n, 3)
        est = estimate_decoding_failure(code, int(round(delta * n)), trials, rng=n, level=0.99)
        ax_l.errorbar(
            n,
            est.value,
            yerr=[[est.value - est.low], [est.high - est.value]],
            fmt="o",
            color="C1",
            ms=4,
            capsize=3,
        )
        add("left", "d=3 Monte Carlo", n, est.value, est.low, est.high)
    ax_l.set_xlabel("n (workers), s = 0.1 n random stragglers")
    ax_l.set_ylabel("P(err > 0) of the group-sum decoder")
    ax_l.set_title("d-FRC (Wang et al. Def. 4): exact, and Monte Carlo (99% CI)", fontsize=10)
    ax_l.set_ylim(0, 1)
    ax_l.grid(True, alpha=0.3)
    ax_l.legend(fontsize=8)

    # right: error vs average load at n = 120, s = 24
    n, s = 120, 24
    trials = 100 if quick else 400
    series = []
    loads, errs = [], []
    for d in (1, 2, 3, 4, 5, 6):
        code = DFractionalRepetitionCode(n, d)
        loads.append(code.load)
        errs.append(estimate_mean_error(code, s, trials, rng=[1, d]))
    series.append(("d-FRC, group sum", "C0", "o", loads, errs))
    loads, errs = [], []
    for eps in (0.2, 0.1, 0.05, 0.02):
        code = BatchRaptorCode.theorem6(n, s, eps, rng=7)
        b = code.batches[0].size
        loads.append(b * float(theorem6_mean_degree(eps)))
        errs.append(estimate_mean_error(code, s, trials, rng=[2, int(1 / eps)]))
    series.append(("batch raptor (P_w), peeling", "C2", "s", loads, errs))
    loads, errs = [], []
    for mean_load in (1, 2, 3, 4, 6, 8):
        code = BernoulliGradientCode(n, mean_load / n, rng=mean_load)
        loads.append(code.expected_load)
        errs.append(estimate_mean_error(code, s, trials, rng=[3, mean_load]))
    series.append(("Bernoulli (Charles et al.), least squares", "C3", "^", loads, errs))
    # expander codes (Raviv et al. 2020): random d-regular graphs, both decoders, and the
    # spectral bound on the fixed decoder's error (worst case over straggler sets)
    bound_x, bound_y = [], []
    trials_lsq = 40 if quick else 150  # one least-squares solve (120 x 96) per trial
    for dec, color, marker in (("optimal", "C4", "D"), ("fixed", "C5", "v")):
        loads, errs = [], []
        for deg in (3, 4, 6, 8):
            code = ExpanderCode(random_regular_graph(n, deg, rng=deg), decoder=dec)
            loads.append(code.load)
            tr = trials_lsq if dec == "optimal" else trials
            errs.append(estimate_mean_error(code, s, tr, rng=[4, deg]))
            if dec == "fixed":
                bound_x.append(code.load)
                bound_y.append(code.error_bound(s) / n)
        series.append((f"expander (Raviv et al.), {dec} decoder", color, marker, loads, errs))
    # IS-GC (ignore stragglers): partitions not recovered by the largest disjoint survivor
    # set, for cyclic and hybrid repetition (FR coincides with the d-FRC series above)
    trials_is = 40 if quick else 150
    for label, color, marker, kw in (
        ("IS-GC cyclic repetition, largest partial sum", "C6", "P", {}),
        ("IS-GC hybrid (c1 = c/2, 10 groups), largest partial sum", "C7", "X", {"h": True}),
    ):
        loads, errs = [], []
        for c in (2, 3, 4, 6):
            if kw:
                code = ISGCCode(n, c - 1, "hybrid", c1=c // 2, groups=10)
            else:
                code = ISGCCode(n, c - 1, "cyclic")
            loads.append(code.load)
            errs.append(estimate_mean_error(code, s, trials_is, rng=[5, c, len(kw)]))
        series.append((label, color, marker, loads, errs))
    floor = 1e-5  # zero estimates and CLT limits below it are drawn at the floor
    for label, color, marker, ls, es in series:
        y = np.array([e.value for e in es]) / n
        lo = np.array([e.low for e in es]) / n
        hi = np.array([e.high for e in es]) / n
        yp, lop, hip = (np.maximum(v, floor) for v in (y, lo, hi))
        ax_r.errorbar(
            ls,
            yp,
            yerr=[yp - lop, hip - yp],
            marker=marker,
            color=color,
            label=label,
            ms=5,
            capsize=3,
        )
        zero = y <= 0
        if zero.any():
            ax_r.plot(np.asarray(ls)[zero], yp[zero], marker, mfc="white", color=color, ms=8)
        for x, a, b_, c in zip(ls, y, lo, hi):
            add("right", label, float(x), float(a), float(b_), float(c))
    ax_r.plot(bound_x, bound_y, "--", color="C5", lw=1, label="spectral bound, fixed decoder")
    for x, b_ in zip(bound_x, bound_y):
        add("right", "expander spectral bound (fixed decoder)", float(x), float(b_))
    ax_r.set_yscale("log")
    ax_r.set_ylim(floor / 2, 1)
    ax_r.text(
        0.02,
        0.02,
        f"open marker: no error in any trial (drawn at {floor:g})",
        transform=ax_r.transAxes,
        fontsize=8,
    )
    ax_r.set_xlabel("average load (partitions per worker)")
    ax_r.set_ylabel("mean err / n  (err = ||A_S^T u - 1||^2)")
    ax_r.set_title(f"n = {n}, s = {s} random stragglers (99% CI)", fontsize=10)
    ax_r.grid(True, alpha=0.3)
    ax_r.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return save_figure(fig, outdir, "approx_codes", data=rows)
