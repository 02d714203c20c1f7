"""Kadhe et al. 2019, Section V (EC2): time per iteration and the AUC-vs-time ordering, simulated.

EC2 cannot be rerun. gctheory's analogue (:func:`gctheory.training.studies.KADHE2019`):
n = 60 workers, logistic regression on the digits, per-unit-load computing time
0.1 + Exp(0.1), 3 workers slowed 10x each iteration, uploading a full gradient
takes 1 time unit (a message of length d/m takes 1/m), decoding costs 1e-6 time
units per multiply-add of the code's own decoder; s = 3, m = 2; CommFR-GC on a
systematic Gaussian [5, 2] MDS code, Ye-Abbe with a Gaussian V (the Vandermonde
V does not decode at n = 60), Tandon cyclic MDS, naive and ignore-stragglers.
Every comparison is judged by confidence intervals of paired runs (common seeds).
"""

from __future__ import annotations

from paper_checks import Outcome, claim, interval_pin
from paper_checks._framework.blas import single_threaded
from paper_checks._framework.common_training import SKLEARN_CAUSE, sklearn_missing
from paper_checks._framework.experiments import paper_experiment

PAPER = "kadhe2019"
CODES = ("Tandon cyclic MDS", "Ye-Abbe (Gaussian V)")


def _missing(c: dict) -> Outcome | None:
    if c.get("missing"):
        return Outcome("not checkable", c, cause=SKLEARN_CAUSE)
    return None


def _judge_lowest(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    mw = c["mean time per iteration"]
    cf = mw["CommFR-GC"]
    ok = all(cf["high"] < mw[k]["low"] for k in CODES)
    cmp = (
        "mean simulated time per iteration, 95% CI; reproduced iff CommFR-GC's interval "
        "lies "
        "below those of the other gradient codes ("
        + ", ".join(
            f"{k} {v['value']:.3g} [{v['low']:.3g}, {v['high']:.3g}]" for k, v in mw.items()
        )
        + ")"
    )
    key = {f"{k} mean": interval_pin(v) for k, v in mw.items()}  # was rtol 0.2
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    slower = [k for k in CODES if not cf["high"] < mw[k]["low"]]
    return Outcome("differs", c, cmp, f"CommFR-GC not clearly faster than {slower}", key=key)


def _est(v: float, h: float = 0.03) -> dict:
    return {"value": v, "low": v - h, "high": v + h}


_LOW_EX = {
    "mean time per iteration": {
        "Tandon cyclic MDS": _est(3.62),
        "Ye-Abbe (Gaussian V)": _est(3.36),
        "CommFR-GC": _est(1.6),
    }
}


def _mean_waits(quick: bool) -> dict:
    from gctheory.training.studies import study_kadhe2019

    r = study_kadhe2019(quick)
    out = {
        "mean time per iteration": {
            lab: {"value": e.value, "low": e.low, "high": e.high}
            for lab, e in r["mean_wait"].items()
        },
        "Ye-Abbe with Vandermonde V": r["ye_abbe_vandermonde"],
    }
    return out


paper_experiment(
    paper=PAPER,
    id="V-commfr-lowest-iteration-time-model",
    where="Section V, Fig. 2",
    statement="CommFR-GC has a lower mean time per iteration than the other gradient codes",
    paper_value="CommFR-GC lowest",
    experiment="Section V, Fig. 2: mean time per iteration, n = 60 t2.micro workers on EC2, "
    "Amazon Employee Access",
    lacks=(
        "EC2 t2.micro's network/compute ratio and straggling (the upload time of a full "
        "gradient, the straggler slowdown)",
        "the workers' computing time per unit load on t2.micro (the simulation's is a model)",
    ),
    analogue="analogue-V-commfr-lowest-iteration-time-model",
)


@claim(
    paper=PAPER,
    id="analogue-V-commfr-lowest-iteration-time-model",
    where="Section V, Fig. 2: gctheory's simulated analogue, not the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "CommFR-GC has a lower mean time per iteration than the other gradient codes",
    paper_value="CommFR-GC lowest",
    judge=_judge_lowest,
    examples=[
        (_LOW_EX, "reproduced"),
        (
            {
                "mean time per iteration": {
                    **_LOW_EX["mean time per iteration"],
                    "CommFR-GC": _est(3.5),
                }
            },
            "differs",
        ),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _commfr_lowest(quick: bool) -> dict:
    if sklearn_missing() is not None:
        return {"missing": True}
    return _mean_waits(quick)


# the unreported constants: the upload time of a full gradient (comm_time, in units of the
# model's mean per-unit-load computing time 0.2) and how much slower a straggler runs; EC2
# t2.micro's network/compute ratio and straggling are not in the paper
_SETTINGS = ((0.1, 10.0), (1.0, 10.0), (3.0, 10.0), (0.1, 2.0), (1.0, 2.0), (3.0, 2.0))
_SPREAD = 0.1  # reductions spreading wider than this across the settings: set by the constants


def _judge_16(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    red = c["reduction vs the best other code, per (comm_time, slowdown)"]
    vals = [r["value"] for r in red.values()]
    spread = max(vals) - min(vals)
    target = 0.1602
    key = {f"reduction at {k}": interval_pin(v) for k, v in red.items()}  # was rtol 0.3
    cmp = (
        "1 - T(CommFR-GC)/T(best other code), paired runs (common seeds), 95% CI, at each "
        "setting of the constants the paper does not report (upload time of a full "
        "gradient, "
        "straggler slowdown): "
        + "; ".join(
            f"{k}: {v['value']:.3f} [{v['low']:.3f}, {v['high']:.3f}] vs {v['best other']}"
            for k, v in red.items()
        )
        + f"; the figure is taken as set by those constants if the reductions spread over more "
        f"than {_SPREAD}"
    )
    inside = [k for k, v in red.items() if v["low"] <= target <= v["high"]]
    if spread > _SPREAD:
        where = (
            f"{target} falls inside the range"
            if min(vals) <= target <= max(vals)
            else f"{target} lies {'below' if target < min(vals) else 'above'} this model's range, "
            "which other choices of the constants (or EC2's decoding and network costs) "
            "move"
        )
        return Outcome(
            "not checkable",
            c,
            cmp,
            f"the simulated reduction moves from {min(vals):.3f} to {max(vals):.3f} (spread "
            f"{spread:.3f}) with constants the paper does not report ({where}): the EC2 figure "
            "measures t2.micro's network/compute ratio and straggling, not the scheme "
            "alone",
            key=key,
        )
    if inside:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        f"the reduction stays within {min(vals):.3f}-{max(vals):.3f} whatever the constants, "
        f"away from {target}",
        key=key,
    )


def _red(v: float, best: str = "Ye-Abbe (Gaussian V)") -> dict:
    return {"value": v, "low": v - 0.01, "high": v + 0.01, "best other": best}


_16_KEY = "reduction vs the best other code, per (comm_time, slowdown)"
_16_EX = {_16_KEY: {"(0.1, 10.0)": _red(0.57), "(3.0, 2.0)": _red(0.2)}}


@claim(
    paper=PAPER,
    id="V-16pct-on-ec2",
    where="Section V and abstract",
    statement="CommFR-GC reduces the mean time per iteration by 16.02% compared to prior "
    "gradient coding schemes (EC2, n = 60)",
    paper_value=0.1602,
    judge=_judge_16,
    examples=[
        (_16_EX, "not checkable"),
        ({_16_KEY: {"(0.1, 10.0)": _red(0.5), "(3.0, 2.0)": _red(0.45)}}, "differs"),
        ({_16_KEY: {"(0.1, 10.0)": _red(0.16), "(3.0, 2.0)": _red(0.165)}}, "reproduced"),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _sixteen(quick: bool) -> dict:
    if sklearn_missing() is not None:
        return {"missing": True}
    from gctheory.training.studies import KADHE2019, estimate_paired_metric

    cfg = KADHE2019(quick)
    trials = cfg["trials"]
    red = {}
    for ct, sd in _SETTINGS[::2] if quick else _SETTINGS:
        common = {**cfg["common"], "comm_time": ct, "slowdown": sd}
        cf = {**common, **cfg["schemes"]["CommFR-GC"]}
        per = {}
        for other in CODES:
            ob = {**common, **cfg["schemes"][other]}
            per[other] = estimate_paired_metric(
                "mean_wait", trials, cf, ob, op="ratio", rng=cfg["rng"]
            )
        best = max(per, key=lambda k: per[k].value)  # the largest ratio: the best other code
        r = per[best]
        red[f"({ct}, {sd})"] = {
            "value": 1 - r.value,
            "low": 1 - r.high,
            "high": 1 - r.low,
            "best other": best,
        }
    return {_16_KEY: red}


def _judge_ordering(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    rows = c["T(CommFR-GC)/T(other) to reach each loss level"]
    right = {o: all(v["high"] < 1 for v in per.values()) for o, per in rows.items()}
    # was rtol 0.2: each paired ratio at its interval's width
    key = {f"{o} at {lvl}": interval_pin(v) for o, per in rows.items() for lvl, v in per.items()}
    cmp = (
        "training loss versus simulated time (the analogue of validation AUC versus time): "
        "ratio of the times CommFR-GC and each other scheme take to reach the losses of "
        "the "
        f"naive scheme after {c['iterations at the levels']} iterations, paired runs, 95% CI; "
        "'CommFR-GC's curve on the left' iff every ratio's upper limit is below 1"
    )
    if all(right.values()):
        return Outcome("reproduced", c, cmp, key=key)
    not_left = [o for o, ok in right.items() if not ok]
    detail = "; ".join(
        f"{o}: " + ", ".join(f"{v['value']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
                             for v in rows[o].values())
        for o in not_left
    )  # fmt: skip
    return Outcome(
        "differs",
        c,
        cmp,
        f"CommFR-GC is not to the left of {not_left} ({detail})",
        key=key,
    )


def _ratio(v: float) -> dict:
    return {"value": v, "low": v - 0.02, "high": v + 0.02}


_ORD_EX = {
    "iterations at the levels": [5, 10],
    "T(CommFR-GC)/T(other) to reach each loss level": {
        "naive": {"level 1": _ratio(0.45), "level 2": _ratio(0.44)},
        "ignore stragglers": {"level 1": _ratio(0.9), "level 2": _ratio(0.9)},
    },
}


paper_experiment(
    paper=PAPER,
    id="V-fig3-commfr-curve-leftmost",
    where="Section V, Fig. 3",
    statement="the AUC-versus-time curve of CommFR-GC is always on the left of those of the "
    "other "
    "schemes: it reaches the target generalization error faster",
    paper_value="CommFR-GC leftmost",
    experiment="Section V: logistic regression on Amazon Employee Access, n = 60 t2.micro workers"
    " on "
    "EC2, AUC against time",
    lacks=(
        "EC2 t2.micro's network/compute ratio and straggling (the upload time of a full "
        "gradient,"
        " the straggler slowdown)",
        "the Amazon Employee Access model (d = 241,915) is not trained by gctheory",
        "the learning rate is not given",
    ),
    analogue="analogue-V-fig3-commfr-curve-leftmost",
)


@claim(
    paper=PAPER,
    id="analogue-V-fig3-commfr-curve-leftmost",
    where="Section V, Fig. 3: gctheory's simulated analogue, not the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "the AUC-versus-time curve of CommFR-GC is always on the left of those of the "
    "other schemes: it reaches the target generalization error faster",
    paper_value="CommFR-GC leftmost",
    judge=_judge_ordering,
    examples=[
        (_ORD_EX, "reproduced"),
        (
            {
                **_ORD_EX,
                "T(CommFR-GC)/T(other) to reach each loss level": {
                    **_ORD_EX["T(CommFR-GC)/T(other) to reach each loss level"],
                    "ignore stragglers": {"level 1": _ratio(1.02), "level 2": _ratio(0.99)},
                },
            },
            "differs",
        ),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _ordering(quick: bool) -> dict:
    if sklearn_missing() is not None:
        return {"missing": True}
    from gctheory.training import repeat_runs
    from gctheory.training.studies import KADHE2019, estimate_paired_metric

    cfg = KADHE2019(quick)
    common, trials, seed = cfg["common"], cfg["trials"], cfg["rng"]
    its = common["iterations"]
    at = [its // 3, 2 * its // 3]
    # the loss levels: the naive (exact, uncoded) scheme's mean loss after those iterations
    naive = repeat_runs(trials, rng=seed, **common, **cfg["schemes"]["naive"])
    levels = {f"level {i + 1}": float(max(r.loss[t] for r in naive)) for i, t in enumerate(at)}
    rows = {}
    for other, kw in cfg["schemes"].items():
        if other == "CommFR-GC":
            continue
        rows[other] = {}
        for name, lvl in levels.items():
            a = {**common, **cfg["schemes"]["CommFR-GC"], "target_loss": lvl}
            b = {**common, **kw, "target_loss": lvl}
            r = estimate_paired_metric("time_to_target", trials, a, b, op="ratio", rng=seed)
            rows[other][name] = {"value": r.value, "low": r.low, "high": r.high}
    return {
        "iterations at the levels": at,
        "loss levels": levels,
        "T(CommFR-GC)/T(other) to reach each loss level": rows,
    }
