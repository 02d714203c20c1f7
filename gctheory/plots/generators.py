"""Figure: every generator family side by side: certified worst-case condition
number and exact empirical s_kappa versus n, Ye-Abbe and CommFR-GC panels.

Every number comes from :func:`gctheory.codes.stability.compare_generators`;
certified intervals are drawn as bars (a bar to the top of the axis: no upper
bound could be certified in float64).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.ticker import MaxNLocator

from gctheory.codes.stability import compare_generators
from gctheory.generators import GENERATOR_FAMILIES
from gctheory.plots._base import Drawing, _figure, _Recorder, figure, plt, save_figure

KAPPA = 1000.0
YA_S = 2  # Ye-Abbe: fixed s, the regime of the published polynomial growth rates
M = 2  # CommFR-GC: [s + 2, 2] group code, s = n / 4

_STYLE = {
    "gaussian": ("C0", "o"),
    "vandermonde-equispaced": ("C3", "v"),
    "vandermonde-chebyshev": ("C1", "^"),
    "vandermonde-roots-of-unity": ("C4", "D"),
    "chebyshev-vandermonde": ("C2", "s"),
    "legendre": ("C8", "P"),
    "rotation-embedding": ("C6", "x"),
    "circulant-embedding": ("C9", "*"),
    "rkrp": ("C7", "h"),
}


def study(quick: bool) -> dict[str, list]:
    """The data of the figure: one row per (scheme, family, n)."""
    ns_ya = list(range(8, (32 if quick else 64) + 1, 8))
    ns_cf = list(range(8, (32 if quick else 64) + 1, 8))
    data: dict[str, list] = {k: [] for k in (
        "scheme", "family", "n", "s", "m", "worst_low", "worst_high", "certified", "s_kappa",
        "s_kappa_exact", "theorem2", "decoding_error")}  # fmt: skip
    runs = [("ye-abbe", n, YA_S) for n in ns_ya] + [("commfr", n, n // 4) for n in ns_cf]
    for scheme, n, s in runs:
        # no time limit: every search here is an enumeration of at most 2,016 subsets, and a
        # clock would make the figure depend on the machine's load
        rows = compare_generators(n, s, M, schemes=(scheme,), kappa=KAPPA, time_limit=math.inf)
        for r in rows:
            sk = -1 if r.s_kappa is None else r.s_kappa
            t2 = "" if r.theorem2 is None else r.theorem2
            values = (r.scheme, r.family, r.n, r.s, r.m, r.worst_lower, r.worst_upper, r.exact,
                      sk, r.s_kappa_exact, t2, r.decoding_error)  # fmt: skip
            for key, v in zip(data, values):
                data[key].append(v)
    return data


@figure(
    "stability_generators",
    description="every generator family side by side: certified worst-case kappa (bars: "
    "certified intervals) and exact empirical s_kappa vs n, Ye-Abbe (s = 2) and CommFR-GC "
    "([n/4 + 2, 2] code), Theorem 2's Gaussian guarantee beside them",
    paper="kadhe2019",
)
def make(outdir: Path, quick: bool) -> list[Path]:
    data = study(quick)
    fig = plt.figure(figsize=(12, 9.2), layout="constrained")
    plot_stability_generators(data, fig=fig)
    return save_figure(fig, outdir, "stability_generators", data)


def plot_stability_generators(
    data: dict[str, list] | None = None, *, fig: Any = None, quick: bool = True
) -> Drawing:
    """Every generator family side by side, Ye-Abbe (left) and CommFR-GC (right):
    certified worst-case condition number (top; bars: certified intervals) and exact
    empirical s_kappa (bottom) versus n, with Theorem 2's Gaussian guarantee.

    ``data`` is :func:`study`'s table (computed with ``quick`` when not given); draws
    four panels and one legend on ``fig``.

    Parameters
    ----------
    data : dict, optional
        The study's table (computed when not given).
    fig : matplotlib.figure.Figure, optional
        The figure to draw on (a new one by default).
    quick : bool
        Smaller grids and fewer Monte Carlo trials.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_stability_generators
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_stability_generators()  # doctest: +SKIP
    >>> len(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    if data is None:
        data = study(quick)
    fig = _figure(fig, (12, 9.2))
    rec = _Recorder(fig)
    axes = fig.subplots(2, 2)
    rows = list(zip(*data.values()))
    keys = list(data)
    col = {k: i for i, k in enumerate(keys)}
    for j, scheme in enumerate(("ye-abbe", "commfr")):
        ax_k, ax_s = axes[0, j], axes[1, j]
        top = 1e17
        for fam in GENERATOR_FAMILIES:
            color, marker = _STYLE[fam]
            pts = [r for r in rows if r[col["scheme"]] == scheme and r[col["family"]] == fam]
            pts = [r for r in pts if np.isfinite(r[col["worst_low"]])]
            if not pts:
                continue
            n = np.array([r[col["n"]] for r in pts], dtype=float)
            lo = np.array([r[col["worst_low"]] for r in pts])
            hi = np.array([min(r[col["worst_high"]], top) for r in pts])
            off = (GENERATOR_FAMILIES.index(fam) - 4) * 0.25  # side by side at each n
            ax_k.vlines(n + off, lo, hi, color=color, lw=2, label="_caption:Bars: certified")
            ax_k.semilogy(n + off, lo, marker=marker, color=color, ms=4, ls="-", lw=0.8,
                          label=fam)  # fmt: skip
            sk = [r[col["s_kappa"]] for r in pts]
            ax_s.plot(n + off, sk, marker=marker, color=color, ms=4, lw=0.8, label=fam)
        t2 = [(r[col["n"]], r[col["theorem2"]]) for r in rows
              if r[col["scheme"]] == scheme and r[col["family"]] == "gaussian"]  # fmt: skip
        t2 = [(n, v) for n, v in t2 if v != ""]
        if t2:
            ax_s.plot(*zip(*t2), "k--", lw=1.5, label="Theorem 2 (Gaussian, eps = 1e-3)")
        ax_k.axhline(KAPPA, color="grey", ls=":", lw=1, label=f"kappa = {KAPPA:g}")
        ax_k.axhline(1e10, color="grey", ls="--", lw=0.8, label="1e10: float64 keeps < 6 digits")
        ax_k.set_ylim(1, top)
        ax_k.set_ylabel("worst-case condition number (certified)")
        ax_s.set_ylabel(f"empirical s_kappa, kappa = {KAPPA:g} (-1: cond(G) > kappa)")
        ax_s.yaxis.set_major_locator(MaxNLocator(integer=True))  # s_kappa is an integer
        for ax in (ax_k, ax_s):
            ax.set_xlabel("n (workers)")
            ax.grid(alpha=0.3, which="both")
        what = (
            f"Ye-Abbe: (n - {YA_S}) x n matrix V, s = {YA_S}"
            if scheme == "ye-abbe"
            else f"CommFR-GC: [s + {M}, {M}] group code, s = n/4"
        )
        ax_k.set_title(what, fontsize=10)
    entries: dict[str, Any] = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(lab, h)
    fig.legend(entries.values(), entries.keys(), fontsize=8, ncol=4, loc="outside lower center")
    fig.suptitle(
        "Which generator? Bars: certified [lower, upper] worst case (to the top: float64 "
        "cannot bound it); markers: the lower end",
        fontsize=10,
    )
    return rec.done({f"{k}_{s}": axes[i, j] for i, k in enumerate(("condition", "s_kappa"))
                     for j, s in enumerate(("ye-abbe", "commfr"))})  # fmt: skip
