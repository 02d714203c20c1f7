"""The communication axis of the atlas drawn: predicted iteration time against bandwidth
per code, the crossovers marked (:func:`gctheory.tradeoff.communication.communication_atlas`,
after Ye and Abbe 2018 and Kadhe et al. 2019)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from gctheory.plots._base import Drawing, _axes, _legend, _Recorder, figure, save_figure
from gctheory.runtime.link import BYTES_PER_MBIT

__all__ = [
    "communication_atlas_data",
    "plot_communication_atlas",
    "save_communication_atlas",
    "network_study_data",
    "plot_network_study",
]


def communication_atlas_data(atlas: Any) -> dict[str, list[Any]]:
    """The numbers behind the figure: one column per code's mean and interval, by bandwidth
    (bytes per second and Mbit/s), and the best code.

    Parameters
    ----------
    atlas : CommunicationAtlas
        From :func:`gctheory.tradeoff.communication.communication_atlas`.

    Returns
    -------
    dict
        Column name -> values.
    """
    data: dict[str, list[Any]] = {
        "bandwidth_bytes_per_s": list(atlas.bandwidths),
        "bandwidth_mbit_per_s": [b / BYTES_PER_MBIT for b in atlas.bandwidths],
    }
    for m in atlas.ms:
        data[f"time_m{m}"] = list(atlas.times[m])
        data[f"low_m{m}"] = list(atlas.low[m])
        data[f"high_m{m}"] = list(atlas.high[m])
    data["best_m"] = list(atlas.best)
    return data


def _label(atlas: Any, m: int) -> str:
    if m == 1:
        return "cyclic-MDS (m = 1)"
    fam = "Ye-Abbe" if atlas.parameters["family"] == "ye-abbe" else "CommFR-GC"
    return f"{fam} m = {m}, load (s + {m})/n"


def plot_communication_atlas(atlas: Any, *, ax: Any = None) -> Drawing:
    """Predicted mean iteration time against uplink bandwidth (Mbit/s, log scale) for each
    code, with its interval where Monte Carlo, and each crossover as a dotted vertical line
    (its interval shaded).

    Parameters
    ----------
    atlas : CommunicationAtlas
        From :func:`gctheory.tradeoff.communication.communication_atlas`.
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure by default).

    Returns
    -------
    Drawing
        The figure, its axes, the artists drawn and the data behind them.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from gctheory.runtime import BYTES_PER_MBIT, Link
    >>> from gctheory.tradeoff.communication import communication_atlas
    >>> from gctheory.plots.communication import plot_communication_atlas
    >>> a = communication_atlas(1.0, 12, 2, d=10**5, link=Link(up=1.0),
    ...                         bandwidths=[1e6, 1e7, 1e8])
    >>> len(plot_communication_atlas(a).artists) > 3
    True
    >>> plt.close("all")
    """
    ax = _axes(ax, (6.4, 4.2))
    rec = _Recorder(ax.figure)
    x = [b / BYTES_PER_MBIT for b in atlas.bandwidths]
    colors = {}
    for m in atlas.ms:
        (line,) = ax.plot(x, atlas.times[m], marker="o", ms=3, label=_label(atlas, m))
        colors[m] = line.get_color()
        if any(lo < hi for lo, hi in zip(atlas.low[m], atlas.high[m], strict=True)):
            ax.fill_between(x, atlas.low[m], atlas.high[m], color=colors[m], alpha=0.2)
    for m, c in atlas.crossovers.items():
        if c.bandwidth is None:
            continue
        b = c.bandwidth / BYTES_PER_MBIT
        ax.axvline(b, color=colors[m], ls=":", label=f"crossover m = {m}: {b:.3g} Mbit/s")
        if c.low is not None and c.high is not None and c.low < c.high:
            ax.axvspan(c.low / BYTES_PER_MBIT, c.high / BYTES_PER_MBIT, color=colors[m], alpha=0.15)
    p = atlas.parameters
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("uplink bandwidth (Mbit/s)" + (", shared by all" if p["shared"] else ""))
    ax.set_ylabel("predicted mean iteration time (s, log)")
    ax.set_title(f"n = {p['n']}, s = {p['s']}, d = {p['d']} numbers", fontsize=10)
    _legend(ax, fontsize=8)
    return rec.done({"time": ax}, communication_atlas_data(atlas))


def save_communication_atlas(atlas: Any, outdir: Path | str, name: str) -> list[Path]:
    """Draw ``atlas`` and write ``name.png``, ``name.svg`` and ``name.csv`` in ``outdir``.

    Parameters
    ----------
    atlas : CommunicationAtlas
        From :func:`gctheory.tradeoff.communication.communication_atlas`.
    outdir : str or pathlib.Path
        The folder (created if missing).
    name : str
        File stem.

    Returns
    -------
    list of pathlib.Path
        The written files.
    """
    drawn = plot_communication_atlas(atlas)
    return save_figure(drawn.figure, outdir, name, drawn.data)


def network_study_data(
    study: dict[str, Any],
    curves: dict[int, list[float]],
    mbits: list[float],
    lower: dict[int, list[float]] | None = None,
) -> dict[str, list[Any]]:
    """The numbers behind :func:`plot_network_study`: the predicted curves by bandwidth
    (and their lower ends, a shared card's serial copies), then the measured points (a row
    per code and bandwidth; blank where not measured)."""
    rows = study["rows"]
    data: dict[str, list[Any]] = {
        "bandwidth_mbit_per_s": [*mbits, *(r["bandwidth_mbit"] for r in rows)]
    }
    blank = [None] * len(rows)
    for m, ys in curves.items():
        data[f"predicted_m{m}"] = [*ys, *blank]
    for m, ys in (lower or {}).items():
        data[f"predicted_serial_m{m}"] = [*ys, *blank]
    for key in ("m", "measured_s", "measured_low", "measured_high", "predicted_s"):
        data[key] = [None] * len(mbits) + [r[key] for r in rows]
    return data


def plot_network_study(
    study: dict[str, Any],
    curves: dict[int, list[float]],
    mbits: list[float],
    *,
    lower: dict[int, list[float]] | None = None,
    ax: Any = None,
) -> Drawing:
    """Measured mean iteration times (99% intervals) of real runs over rate-limited links
    on each code's predicted curve against bandwidth (``lower``: a shared card's bracket,
    shaded down to it), the crossover marked
    (:func:`gctheory.cluster.network_study.network_study` and
    :func:`~gctheory.cluster.network_study.predicted_curves`).
    """
    ax = _axes(ax, (6.4, 4.2))
    rec = _Recorder(ax.figure)
    for m, ys in curves.items():
        name = "cyclic-MDS (m = 1)" if m == 1 else f"Ye-Abbe m = {m}"
        what = "predicted, copies together" if lower else "predicted"
        (line,) = ax.plot(mbits, ys, label=f"{name}: {what}")
        if lower and m in lower:
            ax.fill_between(mbits, lower[m], ys, color=line.get_color(), alpha=0.2, lw=0,
                            label=f"{name}: down to copies one after another")  # fmt: skip
        pts = [r for r in study["rows"] if r["m"] == m]
        x = [r["bandwidth_mbit"] for r in pts]
        y = [r["measured_s"] for r in pts]
        err = [
            [r["measured_s"] - r["measured_low"] for r in pts],
            [r["measured_high"] - r["measured_s"] for r in pts],
        ]
        ax.errorbar(
            x, y, yerr=err, fmt="o", color=line.get_color(), capsize=3, label=f"{name}: measured"
        )
    for (m, c), ls in zip(study["crossover"].items(), (":", "--", "-.")):
        b = c["model_mbit"]
        if b is not None:
            ax.axvline(b, color="gray", ls=ls, label=f"model crossover m = {m}: {b:.3g} Mbit/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    card = study.get("shared", False)
    ax.set_xlabel(f"{'the master card' if card else 'per-worker link'} rate (Mbit/s, tbf)")
    ax.set_ylabel("mean iteration time (s)")
    ax.set_title(
        f"{'one shared card' if card else 'per-worker links'}: n = {study['n']}, "
        f"s = {study['s']}\nmessage {8 * study['d']} bytes (m = 1), 1/m of it (Ye-Abbe)",
        fontsize=10,
    )
    _legend(ax, fontsize=8)
    return rec.done({"time": ax}, network_study_data(study, curves, mbits, lower))


def _draw_study(kind: str, name: str, outdir: Path, quick: bool) -> list[Path]:
    import numpy as np

    from gctheory.cluster.network import network_available
    from gctheory.cluster.network_study import predicted_curves, standard_study

    ok, why = network_available()
    if not ok:  # no namespaces here: nothing measured, nothing drawn
        print(f"{name}: not drawn: {why}", file=sys.stderr)
        return []
    study = standard_study(kind, 8 if quick else 16)
    mbits = [float(x) for x in np.geomspace(2.0, 2000.0, 31)]
    lower = predicted_curves(study, mbits, "serial") if study["shared"] else None
    drawn = plot_network_study(study, predicted_curves(study, mbits), mbits, lower=lower)
    return save_figure(drawn.figure, outdir, name, drawn.data)


@figure(
    "comm_network_measured_vs_predicted",
    description="real runs over rate-limited per-worker links (network namespaces, tbf; "
    "needs root): measured mean iteration time of cyclic-MDS and Ye-Abbe m = 2 and m = 4 "
    "on the link model's predicted curves against bandwidth, the crossovers marked",
    slow=True,
)
def _network_study_figure(outdir: Path, quick: bool) -> list[Path]:
    return _draw_study("per-worker", "comm_network_measured_vs_predicted", outdir, quick)


@figure(
    "comm_network_shared_measured_vs_predicted",
    description="real runs over one rate-limited card at the master (network namespaces, "
    "tbf on the master's uplink; needs root): measured mean iteration time of cyclic-MDS "
    "and Ye-Abbe m = 2 on the shared-link predicted curves against the card's rate, the "
    "crossover marked",
    slow=True,
)
def _network_shared_figure(outdir: Path, quick: bool) -> list[Path]:
    return _draw_study("shared", "comm_network_shared_measured_vs_predicted", outdir, quick)
