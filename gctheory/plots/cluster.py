"""Figure: measured iteration times of real runs on the predicted curves, versus s.

Real runs of :func:`gctheory.cluster.compare.sweep` on local worker processes
(n = 8, the numpy-only ``quadratic`` workload, injected shifted-exponential
waits that dominate the iteration): each point is a measured mean iteration
time with its 99% interval; each curve is gctheory.runtime's exact expected
time of the scheme's rule under the injected law plus the mean overhead
measured in that scheme's runs. The measured times are of this machine at
this moment (not reproducible bit for bit); the CSV keeps them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from gctheory.cluster.compare import law_mean, sweep
from gctheory.cluster.processes import can_start_processes
from gctheory.plots._base import figure, plt, save_figure

N = 8
LAW = "shifted_exp(0.005, 0.01)"  # seconds per partition
_COLUMNS = (
    "scheme",
    "s",
    "measured",
    "measured_low",
    "measured_high",
    "predicted",
    "predicted_low",
    "predicted_high",
    "law_mean",
    "overhead",
    "p_value",
    "agrees",
)


@figure(
    "cluster_measured_vs_predicted",
    description="real runs on n = 8 local worker processes: measured mean iteration time "
    "(99% intervals) of uncoded GD, cyclic-MDS and FRC versus s, on gctheory.runtime's "
    "predicted curves plus the measured overheads",
)
def _measured_vs_predicted(outdir: Path, quick: bool) -> list[Path]:
    ok, why = can_start_processes()
    if not ok:  # no worker processes here: nothing measured, nothing written
        print(f"cluster_measured_vs_predicted: not drawn: {why}", file=sys.stderr)
        return []
    mds_s = (1, 2, 3) if quick else (1, 2, 3, 4, 5)
    frc_s = (1, 3)
    cases = [{"scheme": "gd"}] + [{"scheme": "cyclic_mds", "s": s} for s in mds_s]
    cases += [{"scheme": "frc", "s": s} for s in frc_s]
    rows = sweep(cases, n=N, delay=LAW, iterations=20 if quick else 60, rng=11, level=0.99)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    styles = {"gd": ("C0", "uncoded GD"), "cyclic_mds": ("C1", "cyclic-MDS"), "frc": ("C2", "FRC")}
    curve_s = {"gd": [0], "cyclic_mds": list(range(0, N - 1)), "frc": [0, 1, 3]}
    for scheme, (color, label) in styles.items():
        mine = [r for r in rows if r["scheme"] == scheme]
        over = float(np.mean([r["overhead"] for r in mine]))
        ss = curve_s[scheme]
        pred = [1e3 * (law_mean(scheme, N, LAW, s=None if scheme == "gd" else s) + over)
                for s in ss]  # fmt: skip
        if scheme == "gd":
            ax.axhline(pred[0], color=color, lw=1, ls=":")
        else:
            ax.plot(ss, pred, "-", color=color, lw=1.2)
        x = np.array([r["s"] for r in mine], float)
        y = np.array([1e3 * r["measured"] for r in mine])
        err = np.array([[1e3 * (r["measured"] - r["measured_low"]) for r in mine],
                        [1e3 * (r["measured_high"] - r["measured"]) for r in mine]])  # fmt: skip
        ax.errorbar(x, y, yerr=err, fmt="o", color=color, capsize=3, label=f"{label} measured")
    ax.set_xlabel("stragglers tolerated s")
    ax.set_ylabel("mean iteration time (ms)")
    ax.set_title(f"n = {N} local workers, injected {LAW} per partition")
    ax.legend(fontsize=8)
    data = {key: [r[key] for r in rows] for key in _COLUMNS}
    return save_figure(fig, outdir, "cluster_measured_vs_predicted", data, digits=6)
