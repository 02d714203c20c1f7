"""Figure: coverage of every interval estimator against its stated level.

Each point is one estimator of :mod:`gctheory.calibration` at one stated level:
the fraction of seeds whose interval contained the exact truth, with that fraction's own
99% Clopper-Pearson interval. A calibrated estimator sits on the diagonal (or above it,
for a conservative one); a point whose bar lies below the diagonal covers less than it
says. The figure computes nothing of its own: the coverages come from
:func:`gctheory.calibration.coverage_curve`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gctheory.calibration import coverage_curve, studies
from gctheory.plots._base import figure, plt, save_figure

LEVELS = (0.8, 0.9, 0.95, 0.99)
GROUPS = ("montecarlo", "tails", "delays", "tradeoff")
#: seeds per point: the quick figure is a smoke test of the studies (nothing judges it),
#: the full one the record
QUICK_SEEDS, FULL_SEEDS = 10, 400
#: studies the quick figure leaves to the full one: the Weibull shape's interval needs the
#: Monte Carlo law of the shape's estimate at each grid shape it touches (4,000 fits each,
#: cached per process), 10 of the quick figure's 13 s of CPU whatever the seeds
QUICK_SKIPS = ("delays-weibull-shape",)
TITLES = {
    "montecarlo": "engine (gctheory.montecarlo)",
    "tails": "proposals (gctheory.tails)",
    "delays": "fitted laws (gctheory.delays)",
    "tradeoff": "atlas time (gctheory.tradeoff)",
}


@figure(
    "calibration_coverage",
    description="Coverage of every interval estimator (engine, tails proposals, fitted-law "
    "intervals, the atlas's Monte Carlo time) against its stated level 0.8..0.99, over "
    "seeds on cases with exact truths, with 99% Clopper-Pearson bars, against the diagonal",
)
def _coverage(outdir: Path, quick: bool) -> list[Path]:
    seeds = range(QUICK_SEEDS if quick else FULL_SEEDS)
    table = studies()
    data: dict[str, list] = {
        k: [] for k in ("study", "group", "level", "covered", "runs", "coverage", "low", "high")
    }
    fig, axes = plt.subplots(1, len(GROUPS), figsize=(4.2 * len(GROUPS), 4.2), sharey=True)
    for ax, group in zip(axes, GROUPS):
        names = [n for n, s in table.items() if s.group == group]
        if quick:
            names = [n for n in names if n not in QUICK_SKIPS]
        width = 0.012
        offsets = (np.arange(len(names)) - (len(names) - 1) / 2) * width / max(1, len(names) - 1)
        for off, name in zip(offsets, names):
            curve = coverage_curve(table[name], LEVELS, seeds)
            x = np.array(LEVELS) + off
            y = np.array([c.fraction for c in curve])
            err = [y - [c.low for c in curve], [c.high for c in curve] - y]
            ax.errorbar(x, y, yerr=err, fmt="o", ms=3, capsize=2, label=name)
            for c in curve:
                for k, v in zip(
                    data,
                    (name, group, c.level, c.covered, c.runs, c.fraction, c.low, c.high),
                ):
                    data[k].append(v)
        ax.plot([0.75, 1.0], [0.75, 1.0], "k--", lw=0.8, label="stated = actual")
        ax.set_xlim(0.76, 1.0)
        ax.set_ylim(0.55, 1.01)
        ax.set_xticks(LEVELS)
        ax.set_xlabel("stated level")
        ax.set_title(TITLES[group], fontsize=9)
        ax.legend(fontsize=6, loc="lower right")
    axes[0].set_ylabel(f"coverage over {len(seeds)} seeds (99% interval)")
    fig.tight_layout()
    return save_figure(
        fig, outdir, "calibration_coverage", data, digits={"coverage": 6, "low": 6, "high": 6}
    )
