"""Figures: LDPC peeling on the erasure channel (finite-length waterfalls with the
density-evolution threshold marked, DE trajectories) and the batch raptor code's
condition (54) (Kadhe et al. 2019, Sec. IV-A; Wang et al. 2019, Theorem 6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gctheory.ldpc import (
    check_condition_54,
    de_fixed_point,
    de_trajectory,
    lt_residual_fraction,
    raptor_degree_distribution,
    regular_threshold,
    waterfall,
)
from gctheory.plots import figure, plt, save_figure

LAM, RHO = {3: 1.0}, {6: 1.0}


@figure(
    "ldpc_waterfall",
    description="Peeling block failure rate and residual erasure fraction of (3,6) codes vs "
    "erasure (straggler) probability for n = 1000..16000, 99% intervals, DE threshold marked",
    paper="kadhe2019",
)
def _waterfall(outdir: Path, quick: bool) -> list[Path]:
    ns = [1000, 2000, 4000, 8000, 16000]
    eps = np.linspace(0.37, 0.46, 10 if quick else 19)
    trials = 200 if quick else 1000
    pts = waterfall(ns, eps, 3, 6, trials, rng=20190905)
    th = regular_threshold(3, 6)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.3))
    for i, n in enumerate(ns):
        sel = [p for p in pts if p.n == n]
        x = np.array([p.eps for p in sel])
        f = np.array([p.failure.value for p in sel])
        lo = np.array([p.failure.low for p in sel])
        hi = np.array([p.failure.high for p in sel])
        ax1.errorbar(
            x, f, yerr=[f - lo, hi - f], fmt="o-", ms=3, capsize=2, color=f"C{i}", label=f"n = {n}"
        )
        r = np.array([p.residual.value for p in sel])
        ax2.plot(x, r, "o", ms=3, color=f"C{i}", label=f"n = {n}")
    fine = np.linspace(eps[0], eps[-1], 400)
    ax2.plot(
        fine,
        [de_fixed_point(LAM, RHO, e)[1] for e in fine],
        "k-",
        lw=1,
        label="density evolution (n = inf)",
    )
    for ax in (ax1, ax2):
        ax.axvline(th.eps, color="k", ls="--", lw=1)
        ax.set_xlabel("erasure (straggler) probability eps")
        ax.grid(alpha=0.3)
    ax1.text(
        th.eps + 0.001,
        0.25,
        f"DE threshold eps* = {th.eps:.4f}",
        rotation=90,
        va="center",
        fontsize=8,
        bbox={"facecolor": "white", "edgecolor": "none"},
    )
    ax1.set_ylabel("block failure rate of peeling")
    ax1.set_title(f"(3,6) codes, {trials} frames per point")
    ax1.legend(fontsize=8, loc="upper left")
    ax2.set_ylabel("fraction of variables left erased")
    ax2.set_title("residual erasures vs density evolution")
    ax2.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    data = {
        "n": [p.n for p in pts],
        "eps": [p.eps for p in pts],
        "failure": [p.failure.value for p in pts],
        "failure_low": [p.failure.low for p in pts],
        "failure_high": [p.failure.high for p in pts],
        "residual": [p.residual.value for p in pts],
        "residual_low": [p.residual.low for p in pts],
        "residual_high": [p.residual.high for p in pts],
        "de_residual": [de_fixed_point(LAM, RHO, p.eps)[1] for p in pts],
        "trials": [p.failure.trials for p in pts],
        "de_threshold": [th.eps] * len(pts),
    }
    return save_figure(fig, outdir, "ldpc_waterfall", data)


@figure(
    "ldpc_density_evolution",
    description="Density evolution x_l of the (3,6) ensemble for eps around the threshold, "
    "and eps*lambda(1-rho(1-x)) - x (the decoding tunnel closes at eps*)",
    paper="kadhe2019",
)
def _de(outdir: Path, quick: bool) -> list[Path]:
    th = regular_threshold(3, 6)
    eps_list = [0.38, 0.42, round(th.eps - 1e-4, 4), 0.43, 0.45]
    L = 400
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.3))
    data: dict[str, list] = {"curve": [], "eps": [], "index": [], "value": []}
    for i, e in enumerate(eps_list):
        x = de_trajectory(LAM, RHO, e, L)
        ax1.plot(np.arange(L + 1), x, color=f"C{i}", label=f"eps = {e}")
        data["curve"] += ["trajectory"] * (L + 1)
        data["eps"] += [e] * (L + 1)
        data["index"] += list(range(L + 1))
        data["value"] += [float(v) for v in x]
    ax1.set_xlabel("iteration l")
    ax1.set_ylabel("erasure probability x_l of a message")
    ax1.set_ylim(0, 0.46)
    ax1.set_title("density evolution, (3,6) ensemble")
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3)
    xs = np.linspace(0.0, 0.5, 501)
    for i, e in enumerate([0.38, 0.42, th.eps, 0.45]):
        g = e * (1 - (1 - xs) ** 5) ** 2 - xs
        tag = " (= eps*)" if e == th.eps else ""
        ax2.plot(xs, g, color=f"C{i}", label=f"eps = {e:.4f}{tag}")
        data["curve"] += ["tunnel"] * xs.size
        data["eps"] += [float(e)] * xs.size
        data["index"] += [float(v) for v in xs]
        data["value"] += [float(v) for v in g]
    ax2.axhline(0, color="k", lw=0.8)
    ax2.plot([th.x], [0], "k*", ms=9, label=f"critical x* = {th.x:.4f}")
    ax2.set_xlabel("x")
    ax2.set_ylabel("eps lambda(1 - rho(1 - x)) - x")
    ax2.set_ylim(-0.08, 0.04)
    ax2.set_title("fixed points: DE stalls where the curve touches 0")
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, outdir, "ldpc_density_evolution", data)


@figure(
    "wang2019_raptor_condition54",
    description="Condition (54) of Wang et al. 2019 for P_w: (1 - x) - exp(-c Omega'(x)) on "
    "[0, 1], c = (1-2eps)/(1-4eps); the first zero is where LT peeling stops",
    paper="wang2019",
)
def _raptor(outdir: Path, quick: bool) -> list[Path]:
    xs = np.linspace(0.0, 1.0, 1001)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    data: dict[str, list] = {"eps": [], "x": [], "margin": []}
    for i, e in enumerate([0.02, 0.05, 0.1, 0.2]):
        p = raptor_degree_distribution(e)
        c = (1 - 2 * e) / (1 - 4 * e)
        om = sum(k * float(v) * xs ** (k - 1) for k, v in p.items())
        mg = (1 - xs) - np.exp(-c * om)
        m54, _ = check_condition_54(p, c, 1 - e)
        res = lt_residual_fraction(p, c)
        ax.plot(
            xs,
            mg,
            color=f"C{i}",
            label=f"eps = {e}: min on [0, 1-eps] = {m54:.3g}, residual {res:.3g}",
        )
        ax.axvline(1 - e, color=f"C{i}", ls=":", lw=1)
        data["eps"] += [e] * xs.size
        data["x"] += [float(v) for v in xs]
        data["margin"] += [float(v) for v in mg]
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("recovered fraction x")
    ax.set_ylabel("(1 - x) - exp(-c Omega'(x))")
    ax.set_title("Theorem 6, condition (54): positive on [0, 1 - eps] (dotted)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, outdir, "wang2019_raptor_condition54", data)
