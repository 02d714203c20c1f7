"""The papers' training comparisons, as seeded studies (shared by paper checks and figures).

Each ``study_*`` function reruns one paper's comparison with the simulator of
:mod:`gctheory.training` and returns plain numbers and :class:`Estimate`s;
``paper_checks`` judge them and ``gctheory.plots.training`` draws them. Runs
are memoised per process, so a check and a figure with the same settings share
their runs. ``quick=True`` is the CI size.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from gctheory import montecarlo
from gctheory.training.runs import _METRICS, _memo_run, _metric, reference_loss, repeat_runs

__all__ = [
    "estimate_paired_metric",
    "loss_curves",
    "XU2021",
    "ZHANG2020",
    "WANG2019",
    "KADHE2019",
    "study_xu2021_time",
    "study_xu2021_bias",
    "study_xu2021_partial",
    "study_xu2021_scaling",
    "study_zhang2020",
    "study_wang2019",
    "study_kadhe2019",
    "HALBAWI2017",
    "kadhe2019_loss_curves",
    "wang2019_loss_curves",
    "halbawi2017_loss_curves",
]


def _paired_sampler(
    a: dict[str, Any], b: dict[str, Any], metric: str, op: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    out = np.empty(size)
    rngs = [rng] if size == 1 else rng.spawn(size)
    for i, g in enumerate(rngs):
        state = g.bit_generator.state
        va = _metric(_memo_run(a, g), metric, a.get("target_loss"))
        g.bit_generator.state = state  # the same seed for both: common random numbers
        vb = _metric(_memo_run(b, g), metric, b.get("target_loss"))
        out[i] = {"ratio": va / vb, "difference": va - vb, "relative": (va - vb) / vb}[op]
    return out


def estimate_paired_metric(
    metric: str,
    trials: int,
    a: dict[str, Any],
    b: dict[str, Any],
    *,
    op: str = "ratio",
    rng: Any = None,
    level: float = 0.95,
    executor: Any = None,
) -> montecarlo.Estimate:
    """Mean of ``op(metric(run_a), metric(run_b))`` over seeded pairs of runs.

    Both runs of a pair use the same seed (common random numbers: the same
    partition and the same delay draws when the schemes consume randomness
    alike), which makes the comparison far more precise than two independent
    estimates. ``op``: ``ratio`` (a / b), ``difference`` (a - b), ``relative``
    ((a - b) / b). ``a`` and ``b`` are :func:`simulate` keyword dicts.
    Goes through :func:`gctheory.montecarlo.estimate_mean`, one pair per chunk.
    """
    if op not in ("ratio", "difference", "relative"):
        raise ValueError(f"op must be 'ratio', 'difference' or 'relative', got {op!r}")
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}")
    if metric == "time_to_target" and None in (a.get("target_loss"), b.get("target_loss")):
        raise ValueError("metric 'time_to_target' needs target_loss in both a and b")
    sampler = functools.partial(_paired_sampler, dict(a), dict(b), metric, op)
    return montecarlo.estimate_mean(
        sampler, trials, rng=rng, level=level, chunk_size=1, executor=executor
    )


def loss_curves(
    schemes: dict[str, dict[str, Any]],
    trials: int,
    *,
    rng: Any = None,
    points: int = 150,
    level: float = 0.95,
    gap: float | None = None,
    own_grid: bool = False,
) -> dict[str, dict[str, np.ndarray]]:
    """Mean training loss versus simulated time per scheme, with pointwise CLT bands.

    ``schemes`` maps a label to :func:`simulate` keywords. Every scheme gets
    the same seeds. The grid runs to the shortest final time over all runs
    (``own_grid``: over the scheme's own runs), so every point averages live
    runs. ``gap``: subtract this (F*) from the losses (optimality gap). Also
    returns the mean cumulative communication on the grid.
    """
    from gctheory.training.runs import loss_band

    runs = {lab: repeat_runs(trials, rng=rng, **kw) for lab, kw in schemes.items()}
    t_all = min(r.time[-1] for rs in runs.values() for r in rs)
    out = {}
    for lab, rs in runs.items():
        t_end = min(r.time[-1] for r in rs) if own_grid else t_all
        grid = np.linspace(0.0, t_end, points)
        mean, low, high = loss_band(rs, grid, level=level)
        comm = np.mean(
            [
                np.concatenate([[0.0], np.cumsum(r.comm)])[
                    np.clip(np.searchsorted(r.time, grid, side="right") - 1, 0, None)
                ]
                for r in rs
            ],
            axis=0,
        )
        sub = 0.0 if gap is None else gap
        out[lab] = {"time": grid, "mean": mean - sub, "low": low - sub, "high": high - sub}
        out[lab]["comm"] = comm
    return out


# ---------------------------------------------------------------------------
# Xu et al. 2021, Section V


def XU2021(quick: bool) -> dict[str, Any]:
    """Section V-B: N = 10, K = 7, X ~ 0.05 + Exp(0.02), h = 10, non-IID(3), softmax on digits."""
    return {
        "common": dict(
            n=10,
            delay="shifted_exp(0.05, 0.02)",
            persist=10,
            partition=3,
            iterations=150 if quick else 200,
        ),
        "K": 7,
        "trials": 3 if quick else 4,
        "rng": 2021,
    }


def study_xu2021_time(quick: bool) -> dict[str, Any]:
    """Time saving of LGC-SGD over Full-SGD for the same iterations, and the loss it reaches."""
    from scipy import stats

    from gctheory.order_stats import expected_order_statistic

    cfg = XU2021(quick)
    c, K, R, seed = cfg["common"], cfg["K"], cfg["trials"], cfg["rng"]
    gd = dict(scheme="gd", **c)
    lgc = dict(scheme="lgc", K=K, **c)
    ks = dict(scheme="ignore", K=K, **c)
    ratio = estimate_paired_metric("total_time", R, lgc, gd, op="ratio", rng=seed)
    gap_lgc = estimate_paired_metric("final_loss", R, lgc, gd, op="relative", rng=seed)
    gap_ks = estimate_paired_metric("final_loss", R, ks, gd, op="relative", rng=seed)
    dist = stats.expon(loc=0.05, scale=0.02)
    theory = 1 - expected_order_statistic(dist, K, c["n"]) / expected_order_statistic(
        dist, c["n"], c["n"]
    )
    return {
        "saving": 1 - ratio.value,
        "saving_low": 1 - ratio.high,
        "saving_high": 1 - ratio.low,
        "saving_order_stats": theory,
        "loss_gap_lgc": gap_lgc,
        "loss_gap_ksgd": gap_ks,
        "config": cfg,
    }


def study_xu2021_bias(quick: bool) -> dict[str, Any]:
    """Excess final loss of K-SGD and LGC-SGD over Full-SGD under non-IID(c), h = 10 (and h = 1)."""
    cfg = XU2021(quick)
    c, K, R, seed = dict(cfg["common"]), cfg["K"], cfg["trials"], cfg["rng"]
    out: dict[str, Any] = {"config": cfg, "rows": []}
    cases = [(10, 1), (10, 2), (10, 3)] + ([] if quick else [(1, 1), (1, 3)])
    for h, cls in cases:
        base = {**c, "partition": cls, "persist": h}
        gd = dict(scheme="gd", **base)
        row: dict[str, Any] = {"c": cls, "h": h}
        names = ("ignore", "lgc") if h == 10 else ("ignore",)
        for name in names:
            row[name] = estimate_paired_metric(
                "final_loss", R, dict(scheme=name, K=K, **base), gd, op="difference", rng=seed
            )
        out["rows"].append(row)
    return out


def study_xu2021_scaling(quick: bool) -> dict[int, dict[str, float]]:
    """Section V-C.3: time saving of LGC over Full-SGD for N = 10, 20, 40 with K = 0.7 N.

    Paired seeds, same iterations (the saving does not depend on the loss, so
    runs are short, with independent draws every iteration); beside each
    estimate the exact order-statistic value ``1 - E[X(K:N)] / E[X(N:N)]``
    for X ~ 0.05 + Exp(0.02).
    """
    from scipy import stats

    from gctheory.order_stats import expected_order_statistic

    dist = stats.expon(loc=0.05, scale=0.02)
    R = 6 if quick else 16
    out: dict[int, dict[str, float]] = {}
    for N in (10, 20, 40):
        K = round(0.7 * N)
        # h = 1: the expected iteration time does not depend on h, and 100 independent
        # draws make the ratio of total times (a ratio of sums) nearly unbiased for
        # the ratio of expected times; with h = 10 a short run holds only 10 draws
        c = dict(n=N, delay="shifted_exp(0.05, 0.02)", persist=1, partition=3, iterations=100)
        ratio = estimate_paired_metric(
            "total_time", R, dict(scheme="lgc", K=K, **c), dict(scheme="gd", **c), rng=2021
        )
        exact = 1 - expected_order_statistic(dist, K, N) / expected_order_statistic(dist, N, N)
        out[N] = {"K": K, "saving": 1 - ratio.value, "low": 1 - ratio.high,
                  "high": 1 - ratio.low, "order_stats": exact}  # fmt: skip
    return out


def study_xu2021_partial(quick: bool) -> dict[str, Any]:
    """Section V-C.2: LGC with stragglers' partial work (s = 4 blocks), with/without eq. (6).

    A straggler processes ``r = floor(4 T_(K) / T_i)`` of its 4 blocks before
    the update arrives. Returns the excess final loss over Full-SGD (paired
    seeds) of K-SGD, LGC with complete delayed gradients, and LGC with partial
    work with and without the linear scaling of eq. (6).
    """
    cfg = XU2021(quick)
    c, K, R, seed = cfg["common"], cfg["K"], cfg["trials"], cfg["rng"]
    gd = dict(scheme="gd", **c)
    variants = {
        "K-SGD": dict(scheme="ignore", K=K),
        "LGC, complete delayed gradients": dict(scheme="lgc", K=K),
        "LGC, partial work, linear scaling (eq. (6))": dict(
            scheme="lgc", K=K, partial_work=True, blocks=4
        ),
        "LGC, partial work, no scaling": dict(
            scheme="lgc", K=K, partial_work=True, blocks=4, linear_scaling=False
        ),
    }
    return {
        "config": cfg,
        "excess": {
            lab: estimate_paired_metric("final_loss", R, {**c, **kw}, gd, op="difference", rng=seed)
            for lab, kw in variants.items()
        },
    }


# ---------------------------------------------------------------------------
# Zhang & Simeone 2020


def ZHANG2020(quick: bool) -> dict[str, Any]:
    """n = 12 workers, redundancy r = 3; GC tolerates s = r - 1 = 2; LAGC: 2 groups of 6."""
    return {
        "common": dict(n=12, iterations=3000),
        "schemes": {
            "GD": dict(scheme="gd"),
            "GC": dict(scheme="cyclic_mds", s=2),
            "LAG": dict(scheme="lag"),
            "G-GD": dict(scheme="ggd", r=3),
            "G-LAG": dict(scheme="glag", r=3),
            "LAGC": dict(scheme="lagc", r=3, groups=2),
        },
        "delays": {"exponential": "exp(1)", "Pareto": "pareto(scale=1, shape=2.5)"},
        "eps": 0.3 if quick else 0.25,
        "trials": 2 if quick else 6,
        "rng": 2020,
    }


def study_zhang2020(quick: bool) -> dict[str, Any]:
    """Time and communication to an optimality gap eps, per scheme and delay distribution."""
    cfg = ZHANG2020(quick)
    target = reference_loss("softmax") + cfg["eps"]
    res: dict[str, Any] = {"config": cfg, "target": target}
    for dname, delay in cfg["delays"].items():
        rows = {}
        for lab, kw in cfg["schemes"].items():
            args = dict(delay=delay, target_loss=target, **cfg["common"], **kw)
            rows[lab] = {
                m: _estimate(m, cfg["trials"], cfg["rng"], args)
                for m in ("time_to_target", "comm", "comp")
            }
        res[dname] = rows
    return res


def _estimate(metric: str, trials: int, seed: int, kwargs: dict[str, Any]) -> montecarlo.Estimate:
    from gctheory.training.runs import estimate_run_metric

    return estimate_run_metric(metric, trials, rng=seed, **kwargs)


# ---------------------------------------------------------------------------
# Wang, Liu, Shroff 2019, Section 5.3


def WANG2019(quick: bool) -> dict[str, Any]:
    """n = 30 workers, s = fraction * n background stragglers slowed 5x; logistic regression."""
    schemes = {
        "cyclic MDS": dict(scheme="cyclic_mds"),
        "FRC": dict(scheme="dfrc"),
        "BRC": dict(scheme="brc"),
        "forget-s": dict(scheme="ignore"),
    }
    if not quick:
        schemes["BGC"] = dict(scheme="bgc")
    return {
        "common": dict(
            n=30, model="logistic", delay="shifted_exp(1, 0.5)", slowdown=5.0, iterations=3000
        ),
        "schemes": schemes,
        "fractions": (0.1, 0.3) if quick else (0.1, 0.2, 0.3),
        "eps": 0.02,
        "trials": 2 if quick else 3,
        "rng": 2019,
    }


def study_wang2019(quick: bool) -> dict[str, Any]:
    """Completion time to a fixed loss versus the straggler fraction, per scheme."""
    cfg = WANG2019(quick)
    target = reference_loss("logistic") + cfg["eps"]
    res: dict[str, Any] = {"config": cfg, "target": target, "times": {}}
    for lab, kw in cfg["schemes"].items():
        res["times"][lab] = {}
        for f in cfg["fractions"]:
            args = _wang_args(cfg, kw, f, target)
            res["times"][lab][f] = _estimate("time_to_target", cfg["trials"], cfg["rng"], args)
    lo, hi = cfg["fractions"][0], cfg["fractions"][-1]
    res["sensitivity"] = {lab: _ratio_bounds(t[hi], t[lo]) for lab, t in res["times"].items()}
    return res


def _wang_args(cfg: dict[str, Any], kw: dict[str, Any], f: float, target: float) -> dict[str, Any]:
    """:func:`simulate` keywords of one scheme at straggler fraction ``f`` (s = round(f n))."""
    n = cfg["common"]["n"]
    s = int(round(f * n))
    extra = {"K": n - s} if kw["scheme"] == "ignore" else {"s": s}
    return dict(n_slow=s, target_loss=target, **cfg["common"], **kw, **extra)


def wang2019_loss_curves(quick: bool) -> dict[str, Any]:
    """Optimality gap versus simulated time of forget-s, cyclic MDS, BGC, FRC and BRC (Fig. 4).

    Wang et al. 2019, Section 5.3, Fig. 4 plots AUC versus running time for
    n = 30 with 10% or 20% stragglers. These are the runs of
    :func:`study_wang2019` (same settings and seeds, memoised; BGC is added in
    quick mode, where the study leaves it out): each run stops at the target
    loss ``F* + eps``, so a curve ends where its scheme reaches the target.
    Returns ``{"config", "target", "gap_target", "curves": {fraction: curves}}``
    with the curves of :func:`loss_curves` (``gap=F*``).
    """
    cfg = WANG2019(quick)
    fstar = reference_loss("logistic")
    target = fstar + cfg["eps"]
    order = ("forget-s", "cyclic MDS", "BGC", "FRC", "BRC")
    kws = {**cfg["schemes"], "BGC": dict(scheme="bgc")}
    fractions = (0.1,) if quick else (0.1, 0.2)
    curves = {
        f: loss_curves(
            {lab: _wang_args(cfg, kws[lab], f, target) for lab in order},
            cfg["trials"],
            rng=cfg["rng"],
            gap=fstar,
            own_grid=True,
        )
        for f in fractions
    }
    return {"config": cfg, "target": target, "gap_target": cfg["eps"], "curves": curves}


def _ratio_bounds(a: montecarlo.Estimate, b: montecarlo.Estimate) -> tuple[float, float, float]:
    """a/b with conservative bounds from the two intervals (low_a/high_b, high_a/low_b)."""
    lo = a.low / b.high if b.high > 0 else math.nan
    hi = a.high / b.low if b.low > 0 else math.inf
    return a.value / b.value, lo, hi


# ---------------------------------------------------------------------------
# Kadhe, Koyluoglu, Ramchandran 2019, Section V


def KADHE2019(quick: bool) -> dict[str, Any]:
    """n = 60 as on EC2; s = 3, m = 2 (CommFR on a systematic Gaussian MDS [5, 2] code)."""
    return {
        "common": dict(
            n=60,
            model="logistic",
            delay="shifted_exp(0.1, 0.1)",
            n_slow=3,
            slowdown=10.0,
            comm_time=1.0,
            decode_time_per_op=1e-6,
            iterations=10 if quick else 30,
        ),
        "schemes": {
            "naive": dict(scheme="gd"),
            "ignore stragglers": dict(scheme="ignore", K=57),
            "Tandon cyclic MDS": dict(scheme="cyclic_mds", s=3),
            "Ye-Abbe (Gaussian V)": dict(
                scheme="ye_abbe", s=3, m=2, code_options={"V": "gaussian"}
            ),
            "CommFR-GC": dict(scheme="commfr", s=3, m=2),
        },
        "trials": 3 if quick else 6,
        "rng": 2019,
    }


def study_kadhe2019(quick: bool) -> dict[str, Any]:
    """Mean simulated time per iteration per scheme (computation + upload + decoding)."""
    cfg = KADHE2019(quick)
    res: dict[str, Any] = {"config": cfg, "mean_wait": {}}
    for lab, kw in cfg["schemes"].items():
        args = dict(**cfg["common"], **kw)
        res["mean_wait"][lab] = _estimate("mean_wait", cfg["trials"], cfg["rng"], args)
    # the Vandermonde Ye-Abbe code of the same (l, m, s): does it decode at n = 60?
    try:
        run = _memo_run(
            dict(**cfg["common"], scheme="ye_abbe", s=3, m=2), np.random.default_rng(cfg["rng"])
        )
        res["ye_abbe_vandermonde"] = f"decoded, mean time {np.mean(np.diff(run.time)):.4g}"
    except ValueError as exc:
        res["ye_abbe_vandermonde"] = f"fails to decode: {str(exc).split(';')[0][-90:]}"
    return res


def kadhe2019_loss_curves(quick: bool) -> dict[str, dict[str, np.ndarray]]:
    """Training loss versus simulated time of the schemes of :func:`study_kadhe2019`.

    The same settings and seeds as the mean-iteration-time study (memoised
    runs: n = 60, s = 3, m = 2; naive, ignore stragglers, Tandon cyclic MDS,
    Ye-Abbe with a Gaussian V -- the Vandermonde V does not decode at n = 60 --
    and CommFR-GC), mean and 95% band over seeds (Kadhe et al. 2019, Section V).
    """
    cfg = KADHE2019(quick)
    schemes = {lab: dict(**cfg["common"], **kw) for lab, kw in cfg["schemes"].items()}
    return loss_curves(schemes, cfg["trials"], rng=cfg["rng"], own_grid=True)


# ---------------------------------------------------------------------------
# Halbawi, Azizan, Salehi, Hassibi 2017, Section 6


def HALBAWI2017(quick: bool) -> dict[str, Any]:
    """Section 6 scaled to n = 40: Pareto(t0 = 0.001, xi = 1.1) delays, softmax on the digits.

    The paper runs n = 80 with f_RS = 68 and f_MDS = 33. At n = 80 gctheory's
    RS decoder (Algorithm 3 in double precision) meets condition numbers ~1e10
    and fails its exact-decoding residual check (1e-6) for some survivor sets
    (see the check ``halbawi2017/6-rs-outperforms-fig2``); at n = 40 every
    scheme decodes (largest relative residual ~1e-10 over 300 random survivor
    sets). The waiting fractions are the paper's: f_RS = 0.85 n = 34 (load
    w = n - f + 1 = 7) and f_MDS = ceil(33 n / 80) = 17 (load 24). In the
    simulator a worker's time is its load times its Pareto draw (the paper's
    eq. (17) adds a load-independent Pareto delay to the compute time
    ``c_g N alpha``), so with the same seeds RS's clock is exactly 7 times that
    of the uncoded scheme waiting for the same f (the same draws), and MDS's
    about 24 times (its random construction shifts the draws); the partitions
    are IID, on which the uncoded schemes lose little.
    """
    n = 40
    f_rs, f_mds = round(68 * n / 80), math.ceil(33 * n / 80)
    return {
        "common": dict(
            n=n, delay="pareto(scale=0.001, shape=1.1)", iterations=100 if quick else 200
        ),
        "schemes": {
            "uncoded, wait for all": dict(scheme="gd"),
            f"uncoded, fastest f={f_rs}": dict(scheme="ignore", K=f_rs),
            f"uncoded, fastest f={f_mds}": dict(scheme="ignore", K=f_mds),
            f"Tandon MDS, f={f_mds}": dict(scheme="cyclic_mds", s=n - f_mds),
            f"Reed-Solomon, f={f_rs}": dict(scheme="rs", s=n - f_rs),
        },
        "trials": 2 if quick else 5,
        "rng": 2017,
    }


def halbawi2017_loss_curves(quick: bool) -> dict[str, dict[str, np.ndarray]]:
    """Training loss versus simulated time of Halbawi et al. 2017, Section 6's schemes.

    Settings :func:`HALBAWI2017`; mean and pointwise 95% band over seeds. The
    band is over the loss at a fixed time, a bounded quantity, so it is
    meaningful although Pareto(1.1) iteration times have infinite variance.
    """
    cfg = HALBAWI2017(quick)
    schemes = {lab: dict(**cfg["common"], **kw) for lab, kw in cfg["schemes"].items()}
    return loss_curves(schemes, cfg["trials"], rng=cfg["rng"], own_grid=True)
