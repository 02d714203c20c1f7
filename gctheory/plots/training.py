"""Figures of the training simulations: loss versus simulated time, with bands.

Every number drawn comes from :mod:`gctheory.training.studies` (the same
seeded runs the paper checks judge); nothing is computed here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gctheory.plots import figure, plt, save_figure


def _long(curves: dict, keys: tuple[str, ...], extra: dict | None = None) -> dict[str, list]:
    data: dict[str, list] = {"scheme": []}
    for k in (*(extra or {}), *keys):
        data[k] = []
    for lab, c in curves.items():
        m = len(c[keys[0]])
        data["scheme"] += [lab] * m
        for k, v in (extra or {}).items():
            data[k] += [v] * m
        for k in keys:
            data[k] += [float(x) for x in c[k]]
    return data


def _band(ax, c, label):
    (line,) = ax.plot(c["time"], c["mean"], label=label)
    ax.fill_between(c["time"], c["low"], c["high"], color=line.get_color(), alpha=0.25, lw=0)


@figure(
    "training-xu2021-loss-vs-time",
    description="Training loss vs simulated time: Full-SGD, K-SGD, LGC-SGD (N=10, K=7, "
    "X ~ 0.05 + Exp(0.02), non-IID(3), h=10), mean and 95% band over seeds",
    paper="xu2021",
)
def _xu(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import XU2021, loss_curves

    cfg = XU2021(quick)
    c, K = cfg["common"], cfg["K"]
    schemes = {
        "Full-SGD": dict(scheme="gd", **c),
        "K-SGD": dict(scheme="ignore", K=K, **c),
        "LGC-SGD": dict(scheme="lgc", K=K, **c),
    }
    curves = loss_curves(schemes, cfg["trials"], rng=cfg["rng"], own_grid=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    for lab, cv in curves.items():
        _band(ax, cv, lab)
    ax.set_xlabel("simulated wall-clock time")
    ax.set_ylabel("training loss (softmax, digits)")
    ax.set_title("Xu et al. 2021, Fig. 4 analogue: N=10, K=7, non-IID(3), h=10")
    ax.legend()
    return save_figure(
        fig, outdir, "training-xu2021-loss-vs-time", _long(curves, ("time", "mean", "low", "high"))
    )


@figure(
    "training-zhang2020-gap-and-comm-vs-time",
    description="Optimality gap and cumulative communication vs simulated time for GD, GC, LAG, "
    "G-GD, G-LAG, LAGC under exponential and Pareto computing times (n=12, r=3)",
    paper="zhang2020",
    slow=True,
)
def _zhang(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training import reference_loss
    from gctheory.training.studies import ZHANG2020, loss_curves

    cfg = ZHANG2020(quick)
    Fs = reference_loss("softmax")
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    data: dict[str, list] = {}
    for row, (dname, delay) in enumerate(cfg["delays"].items()):
        schemes = {
            lab: dict(delay=delay, target_loss=Fs + cfg["eps"], **cfg["common"], **kw)
            for lab, kw in cfg["schemes"].items()
        }
        curves = loss_curves(schemes, cfg["trials"], rng=cfg["rng"], gap=Fs, own_grid=True)
        for lab, cv in curves.items():
            _band(axes[row, 0], cv, lab)
            axes[row, 1].plot(cv["time"], cv["comm"], label=lab)
        axes[row, 0].set_yscale("log")
        axes[row, 0].set_ylabel(f"optimality gap F - F* ({dname})")
        axes[row, 1].set_ylabel(f"communication load ({dname})")
        part = _long(curves, ("time", "mean", "low", "high", "comm"), {"delay": dname})
        for k, v in part.items():
            data.setdefault(k, []).extend(v)
    for ax in axes[1]:
        ax.set_xlabel("simulated wall-clock time")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"Zhang & Simeone 2020 schemes, runs stop at gap {cfg['eps']} (mean, 95% band)")
    return save_figure(fig, outdir, "training-zhang2020-gap-and-comm-vs-time", data)


@figure(
    "training-wang2019-time-vs-straggler-fraction",
    description="Completion time (to loss F* + 0.02) vs fraction of stragglers, n = 30: cyclic "
    "MDS, FRC, BRC, forget-s, BGC (mean, 95% CI)",
    paper="wang2019",
    slow=True,
)
def _wang(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import study_wang2019

    r = study_wang2019(quick)
    fig, ax = plt.subplots(figsize=(6, 4))
    data: dict[str, list] = {"scheme": [], "fraction": [], "mean": [], "low": [], "high": []}
    for lab, per in r["times"].items():
        fr = np.array(list(per))
        est = list(per.values())
        m = np.array([e.value for e in est])
        err = np.array([[e.value - e.low for e in est], [e.high - e.value for e in est]])
        ax.errorbar(100 * fr, m, yerr=err, marker="o", capsize=3, label=lab)
        data["scheme"] += [lab] * len(fr)
        data["fraction"] += [float(f) for f in fr]
        data["mean"] += [float(e.value) for e in est]
        data["low"] += [float(e.low) for e in est]
        data["high"] += [float(e.high) for e in est]
    ax.set_xlabel("stragglers (% of n = 30 workers, slowed 5x)")
    ax.set_ylabel("simulated completion time")
    ax.set_title("Wang et al. 2019, Fig. 5 analogue")
    ax.legend(fontsize=8)
    return save_figure(fig, outdir, "training-wang2019-time-vs-straggler-fraction", data)


@figure(
    "training-kadhe2019-iteration-time",
    description="Mean simulated time per iteration (n = 60, s = 3, m = 2) of naive, "
    "ignore-stragglers, cyclic MDS, Ye-Abbe and CommFR-GC, with 95% CIs",
    paper="kadhe2019",
)
def _kadhe(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import study_kadhe2019

    r = study_kadhe2019(quick)
    labs = list(r["mean_wait"])
    est = [r["mean_wait"][k] for k in labs]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    y = np.arange(len(labs))
    ax.barh(y, [e.value for e in est], xerr=[e.half_width for e in est], capsize=3)
    ax.set_yticks(y, labs)
    ax.set_xlabel("mean simulated time per iteration")
    ax.set_title("Kadhe et al. 2019, Sec. V analogue (model, not EC2)")
    data = {
        "scheme": labs,
        "mean": [e.value for e in est],
        "low": [e.low for e in est],
        "high": [e.high for e in est],
    }
    return save_figure(fig, outdir, "training-kadhe2019-iteration-time", data)


def _loss_figure(ax, curves: dict, logx: bool = False) -> None:
    for lab, cv in curves.items():
        # a log time axis cannot show t = 0: draw from the grid's second point
        _band(ax, {k: v[1:] for k, v in cv.items()} if logx else cv, lab)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("simulated wall-clock time")
    ax.grid(alpha=0.3)


@figure(
    "training-kadhe2019-loss-vs-time",
    description="Training loss vs simulated time (n = 60, s = 3, m = 2): naive, ignore "
    "stragglers, Tandon cyclic MDS, Ye-Abbe (Gaussian V; the Vandermonde V does not decode at "
    "n = 60), CommFR-GC; mean and 95% band over seeds (the runs of the iteration-time figure)",
    paper="kadhe2019",
)
def _kadhe_loss(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import KADHE2019, kadhe2019_loss_curves

    cfg = KADHE2019(quick)
    curves = kadhe2019_loss_curves(quick)
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    _loss_figure(ax, curves)
    ax.set_ylabel("training loss (logistic, digits >= 5)")
    ax.set_title(
        f"Kadhe et al. 2019, Sec. V analogue: n = 60, s = 3, m = 2, {cfg['trials']} seeds\n"
        "(Ye-Abbe uses a Gaussian V: the Vandermonde V does not decode at n = 60)",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return save_figure(
        fig,
        outdir,
        "training-kadhe2019-loss-vs-time",
        _long(curves, ("time", "mean", "low", "high")),
    )


@figure(
    "training-wang2019-loss-vs-time",
    description="Optimality gap vs simulated time (n = 30, 10% and 20% stragglers slowed 5x, "
    "logistic regression): forget-s, cyclic MDS, BGC, FRC, BRC; runs stop at gap 0.02; "
    "mean and 95% band over seeds (quick: 10% only)",
    paper="wang2019",
)
def _wang_loss(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import wang2019_loss_curves

    r = wang2019_loss_curves(quick)
    fracs = list(r["curves"])
    fig, axes = plt.subplots(
        1, len(fracs), figsize=(max(7.0, 5.5 * len(fracs)), 4.2), sharey=True, layout="constrained",
        squeeze=False,
    )  # fmt: skip
    data: dict[str, list] = {}
    for ax, f in zip(axes[0], fracs, strict=True):
        curves = r["curves"][f]
        _loss_figure(ax, curves)
        ax.set_yscale("log")
        ax.axhline(r["gap_target"], color="grey", ls=":", lw=1)
        ax.set_title(f"{round(100 * f)}% stragglers (s = {round(f * 30)} of n = 30)", fontsize=10)
        part = _long(curves, ("time", "mean", "low", "high"), {"fraction": f})
        for k, v in part.items():
            data.setdefault(k, []).extend(v)
    axes[0, 0].set_ylabel("optimality gap F - F* (logistic, digits >= 5)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(
        f"Wang et al. 2019, Fig. 4 analogue: runs stop at gap {r['gap_target']} "
        f"(dotted), mean and 95% band over {r['config']['trials']} seeds",
        fontsize=10,
    )
    return save_figure(fig, outdir, "training-wang2019-loss-vs-time", data)


@figure(
    "training-halbawi2017-loss-vs-time",
    description="Training loss vs simulated time, Pareto(0.001, 1.1) delays, n = 40 (at n = 80 "
    "the RS decoder fails its residual check): uncoded wait-all, fastest 34, fastest 17, Tandon "
    "MDS f = 17, Reed-Solomon f = 34; mean and 95% band over seeds (time = load x draw, so a "
    "code's clock is ~its load times the uncoded clock at the same f)",
    paper="halbawi2017",
)
def _halbawi_loss(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import HALBAWI2017, halbawi2017_loss_curves

    cfg = HALBAWI2017(quick)
    curves = halbawi2017_loss_curves(quick)
    fig, ax = plt.subplots(figsize=(7, 4.8), layout="constrained")
    _loss_figure(ax, curves, logx=True)
    ax.set_ylabel("training loss (softmax, digits)")
    ax.set_title(
        f"Halbawi et al. 2017, Sec. 6 analogue: n = 40 (paper: 80), Pareto(0.001, 1.1), "
        f"{cfg['trials']} seeds\n"
        "n = 40 because at n = 80 the RS decoder fails its 1e-6 residual check in double "
        "precision\ntime = load x Pareto draw: RS's clock is 7x, MDS's ~24x that of uncoded at "
        "the same f (same seeds)",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    return save_figure(
        fig,
        outdir,
        "training-halbawi2017-loss-vs-time",
        _long(curves, ("time", "mean", "low", "high")),
    )
