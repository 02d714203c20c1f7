"""The four panels of the tradeoff atlas (:func:`gctheory.plots.tradeoff.plot_tradeoff`),
each drawn on the caller's axes from a TradeoffTable, and the styles they share.

(a) computation load versus stragglers with the lower bounds and, below it, the
approximate codes' failure probability; (b) communication versus load at the operating
point; (c) guaranteed and certified empirical ``s_kappa`` per generator family; (d)
expected iteration time versus ``s``. Nothing is computed here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["SCHEME_STYLE"]

#: colour and marker of each scheme, shared by every panel
SCHEME_STYLE: dict[str, tuple[str, str]] = {
    "uncoded": ("#000000", "_"),
    "ignore-s": ("#9a9a9a", "x"),
    "cyclic-mds": ("#1f77b4", "o"),
    "frc": ("#17becf", "s"),
    "reed-solomon": ("#9467bd", "^"),
    "ye-abbe": ("#d62728", "D"),
    "commfr-gc": ("#2ca02c", "P"),
    "d-frc": ("#ff7f0e", "v"),
    "batch-raptor": ("#8c564b", "X"),
    "bernoulli": ("#e377c2", "*"),
    "expander": ("#bcbd22", "h"),
    "bibd": ("#393b79", "p"),
}
_FAMILY_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "p", "<", ">", "d", "8")
_FADE = 0.22
_FLOOR = 1e-6  # failure probability 0 is drawn on this floor of the log axis

_BOUNDS = {  # name -> (label, colour, linestyle, column)
    "exact": ("worst case s + 1 (every straggler set)", "k", "-", "load"),
    "thm3": ("Wang Thm 3, eq. (13) (asymptotic)", "0.45", "--", "load_value"),
    "thm3-finite": ("Thm 3, finite n, P(fail) ≤ ε", "0.45", "-", "load"),
    "thm5": ("Wang Thm 5 as stated (asymptotic)", "#a0522d", "--", "load_value"),
    "thm5-eq52": ("Thm 5, proof eq. (52) (asymptotic)", "#a0522d", "-.", "load_value"),
    "thm5-finite": ("Thm 5, finite n, P(err > error·k) ≤ ε", "#a0522d", "-", "load"),
}


def _style(name: str) -> tuple[str, str]:
    return SCHEME_STYLE.get(name, ("#333333", "o"))


def _label(name: str, faded: set[str]) -> str:
    """A scheme's entry in the figure's legend; every artist of the scheme carries it."""
    return name + (" (dominated)" if name in faded else "")


def _rows(table: Any, scheme: str, **where: Any) -> list[dict[str, Any]]:
    rows = [r for r in table.rows if r["scheme"] == scheme]
    for k, v in where.items():
        rows = [r for r in rows if r[k] == v]
    return sorted(rows, key=lambda r: (r["s"], r["m"]))


def _main_rows(table: Any, scheme: str) -> list[dict[str, Any]]:
    """The sweep rows of a scheme (its Gaussian rows for the generator-based schemes)."""
    m = table.parameters.get("m")
    rows = [r for r in _rows(table, scheme) if r["generator"] in (None, "gaussian")]
    if scheme in ("ye-abbe", "commfr-gc"):
        rows = [r for r in rows if r["m"] == m]
    return rows


def _finite(v: Any) -> bool:
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def _panel_load(ax: Any, axf: Any, table: Any, schemes: Sequence[str], faded: set[str]) -> None:
    n = table.parameters["n"]
    for name, (label, colour, ls, col) in _BOUNDS.items():
        rows = _rows(table, f"bound:{name}")
        if not rows:
            continue
        s = np.array([r["s"] for r in rows])
        y = np.array([r[col] for r in rows], dtype=float)
        ok = np.array([bool(r["covered"]) for r in rows])
        lw = 2.2 if name == "exact" else 1.1
        ax.plot(s, np.where(ok, y, np.nan), color=colour, ls=ls, lw=lw, label=label, zorder=2)
        if (~ok).any():
            ax.plot(
                s,
                np.where(~ok, y, np.nan),
                color=colour,
                ls=":",
                lw=lw,
                zorder=2,
                label="_caption:dotted: outside the theorem's regime",
            )
    for name in schemes:
        rows = [r for r in _main_rows(table, name) if _finite(r["load"])]
        if not rows:
            continue
        colour, marker = _style(name)
        a = _FADE if name in faded else 1.0
        ax.plot(
            [r["s"] for r in rows],
            [r["load"] for r in rows],
            color=colour,
            marker=marker,
            ms=4,
            lw=1.2,
            alpha=a,
            zorder=3,
            gid=f"a:{name}",
            label=_label(name, faded),
        )
        frows = [r for r in rows if r["kind"] == "approximate" and r["failure"] is not None]
        if frows:
            x = np.array([r["s"] for r in frows])
            y = np.array([max(r["failure"], _FLOOR) for r in frows])
            lo = np.array([max(r["failure_low"], _FLOOR) for r in frows])
            hi = np.array([max(r["failure_high"], _FLOOR) for r in frows])
            eb = axf.errorbar(
                x,
                y,
                yerr=[y - lo, hi - y],
                color=colour,
                marker=marker,
                ms=4,
                lw=1,
                capsize=2,
                alpha=a,
                label=_label(name, faded),
            )
            eb.lines[0].set_gid(f"a-failure:{name}")
    ax.set_yscale("log")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(0.8, n * 1.3)
    ax.set_ylabel("partitions per worker (load d, k = n)")
    ax.set_title(
        "(a) computation load versus stragglers (dotted: outside the theorem's regime; "
        "bounds: legend below)",
        fontsize=10,
    )
    ax.tick_params(labelbottom=False)
    eps = table.parameters.get("eps")
    if eps:
        axf.axhline(eps, color="0.3", lw=0.8, ls="--", label="_caption:ε = ")
        axf.text(n - 1, eps, f" ε = {eps:g}", va="bottom", ha="right", fontsize=7)
    axf.set_yscale("log")
    axf.set_ylim(_FLOOR / 2, 1.5)
    axf.set_xlim(-0.5, n - 0.5)
    axf.set_xlabel(
        f"stragglers s   (below: approximate codes' failure; P = 0 drawn at {_FLOOR:g}; "
        "bars: 99% CI)"
    )
    axf.set_ylabel("P(err > error·k)", fontsize=8)


def _panel_comm(ax: Any, table: Any, schemes: Sequence[str], faded: set[str]) -> None:
    s0 = table.parameters["s"]
    b = _rows(table, "bound:ye-abbe", s=s0)
    if b:
        ax.plot(
            [r["load_value"] for r in b],
            [r["communication"] for r in b],
            "k-",
            lw=2,
            label=f"Ye-Abbe bound l/k ≥ (s + m)/n, s = {s0}",
            zorder=2,
        )
    for name in schemes:
        rows = [r for r in _rows(table, name, s=s0) if r["generator"] in (None, "gaussian")]
        if not rows:
            continue
        colour, marker = _style(name)
        a = _FADE if name in faded else 1.0
        ax.plot(
            [r["load"] for r in rows],
            [r["communication"] for r in rows],
            color=colour,
            marker=marker,
            ms=7 if len(rows) == 1 else 5,
            lw=1,
            alpha=a,
            zorder=3,
            ls="-" if len(rows) > 1 else "none",
            gid=f"b:{name}",
            label=_label(name, faded),
        )
        for r in rows:
            if r["scheme"] in ("ye-abbe", "commfr-gc") and r["m"] in (1, 2, 4, 8, 16):
                ax.annotate(
                    f"m={r['m']}",
                    (r["load"], r["communication"]),
                    fontsize=6,
                    xytext=(3, 3),
                    textcoords="offset points",
                    color=colour,
                    alpha=a,
                )
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ax.set_xlabel("partitions per worker (load)")
    ax.set_ylabel("message length / gradient (1/m)")
    ax.set_title(f"(b) communication versus computation at s = {s0}", fontsize=10)
    if b:
        ax.legend(handles=ax.lines[:1], fontsize=7, loc="lower left")


def _panel_stability(ax: Any, table: Any, faded: set[str]) -> None:
    p = table.parameters
    n = p["n"]
    fams = [f for f in str(p.get("generators", "")).split(",") if f]
    fam_marker = {f: _FAMILY_MARKERS[i % len(_FAMILY_MARKERS)] for i, f in enumerate(fams)}
    handles = ax.plot([0, n - 1], [0, n - 1], color="0.7", ls=":", lw=1, label="s_κ = s")
    width = max(0.5, n / 50)  # horizontal spread of the families at one s
    for si, name in enumerate(("ye-abbe", "commfr-gc")):
        rows = _main_rows(table, name)
        if not rows:
            continue
        colour, _ = _style(name)
        a = _FADE if name in faded else 1.0
        g = [r for r in rows if r["s_kappa_guaranteed"] is not None]
        if g:
            handles += ax.plot(
                [r["s"] for r in g],
                [r["s_kappa_guaranteed"] for r in g],
                color=colour,
                ls="--",
                lw=1.3,
                alpha=a,
                label=f"{name}: Theorem 2 (Gaussian)",
                gid=f"c:{name}:theorem2",
            )
        for fi, fam in enumerate(fams):
            off = (fi - (len(fams) - 1) / 2) * width / max(1, len(fams)) + (si - 0.5) * width
            _stability_family(ax, table, name, fam, fam_marker[fam], off, colour, a)
    for fam in fams:
        handles += ax.plot([], [], ls="none", marker=fam_marker[fam], color="0.3", label=fam)
    ax.axhline(-1, color="0.8", lw=0.6, label="_caption:−1: even cond(G) > κ")
    ax.text(n - 1, -1, "−1: even cond(G) > κ", fontsize=7, va="bottom", ha="right", color="0.4")
    ax.set_xlim(-1, n)
    ax.set_xlabel("stragglers s the code is built for")
    ax.set_ylabel("s_κ: stragglers decodable with cond ≤ κ")
    ax.set_title(
        f"(c) stability at κ = {p['kappa']:g}, m = {p['m']}\n(filled: certified "
        "empirical low end, hollow: high end; colour: scheme, marker: generator)",
        fontsize=10,
    )
    ax.legend(handles=handles, fontsize=6.5, loc="upper left", ncol=2)


def _stability_family(
    ax: Any, table: Any, name: str, fam: str, marker: str, off: float, colour: str, a: float
) -> None:
    """Panel (c): one generator family's certified empirical s_kappa interval in ``name``."""
    fr = [
        r
        for r in _rows(table, name, generator=fam, m=table.parameters["m"])
        if r["s_kappa_low"] is not None
    ]
    if not fr:
        return
    x = np.array([r["s"] for r in fr]) + off
    lo = np.array([r["s_kappa_low"] for r in fr], dtype=float)
    hi = np.array([r["s_kappa_high"] for r in fr], dtype=float)
    ax.vlines(
        x,
        lo,
        hi,
        color=colour,
        lw=1,
        alpha=0.6 * a,
        label="_caption:filled: certified empirical low end, hollow: high end",
    )
    ax.plot(
        x,
        lo,
        ls="none",
        color=colour,
        marker=marker,
        ms=4.5,
        alpha=a,
        gid=f"c:{name}:{fam}",
        label=fam,
    )
    ax.plot(
        x[hi > lo],
        hi[hi > lo],
        ls="none",
        marker=marker,
        ms=4.5,
        mfc="none",
        color=colour,
        alpha=a,
        label=fam,
    )


def _panel_time(ax: Any, table: Any, schemes: Sequence[str], faded: set[str]) -> None:
    p = table.parameters
    n = p["n"]
    for name in schemes:
        rows = [r for r in _main_rows(table, name) if _finite(r["time"])]
        if not rows:
            continue
        colour, marker = _style(name)
        a = _FADE if name in faded else 1.0
        if name == "uncoded":
            ax.axhline(
                rows[0]["time"],
                color=colour,
                lw=1,
                ls="--",
                alpha=a,
                gid="d:uncoded",
                label=_label(name, faded),
            )
            continue
        _time_series(ax, name, rows, colour, marker, a, _label(name, faded))
    _time_labels(ax, p, n)


def _time_series(
    ax: Any, name: str, rows: list[dict[str, Any]], colour: str, marker: str, a: float, label: str
) -> None:
    """Panel (d): one scheme's exact times, its trace band or Monte Carlo points, its optima."""
    ax.plot(
        [r["s"] for r in rows],
        [r["time"] for r in rows],
        color=colour,
        lw=1.3,
        alpha=a,
        gid=f"d:{name}",
        label=label,
    )
    band = [r for r in rows if r["time_mc"] is None and _finite(r["time_low"])]
    if band:  # a measured trace: bootstrap interval over its rounds
        ax.fill_between(
            [r["s"] for r in band],
            [r["time_low"] for r in band],
            [r["time_high"] for r in band],
            color=colour,
            alpha=0.18 * a,
            lw=0,
            label=label,
        )
    mc = [r for r in rows if _finite(r["time_mc"])]
    if mc:
        y = np.array([r["time_mc"] for r in mc])
        ax.errorbar(
            [r["s"] for r in mc],
            y,
            yerr=[
                y - np.array([r["time_low"] for r in mc]),
                np.array([r["time_high"] for r in mc]) - y,
            ],
            ls="none",
            marker=marker,
            ms=4,
            mfc="none",
            color=colour,
            capsize=2,
            alpha=a,
            label=label,
        )
    for r in rows:
        if r["time_optimal"]:
            ax.plot(
                [r["s"]],
                [r["time"]],
                marker="*",
                ms=13,
                color=colour,
                mec="k",
                mew=0.6,
                alpha=a,
                zorder=5,
                label=label,
            )


def _time_labels(ax: Any, p: dict[str, Any], n: int) -> None:
    """Panel (d): log axis, labels and the title naming the delay model or the trace."""
    ax.set_yscale("log")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("stragglers s")
    trace = str(p["delay"]).startswith("trace:")
    ax.set_ylabel(
        "expected iteration time " + ("(s)" if trace else "(the delay model's time unit)")
    )
    tau = p.get("tau") or 0
    ax.set_title(
        (
            "(d) iteration time on the measured trace\n(bands: 99% bootstrap over rounds; "
            "stars: optima)"
            if trace
            else f"(d) iteration time, delay {p['delay']}"
            + (f", τ = {tau:g}" if tau else "")
            + "\n(lines exact; points Monte Carlo, 99% CI; stars: optima)"
        ),
        fontsize=10,
    )
