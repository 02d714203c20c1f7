"""Wang, Liu, Shroff 2019, Sections 5.2-5.3: training with the schemes, in simulated time.

The paper ran logistic regression on a supercomputer with s workers slowed by a
background thread. gctheory reruns it in simulated time
(:func:`gctheory.training.studies.WANG2019`): logistic regression on the digits
(digit >= 5), n = 30 (and 60) workers with times 1 + Exp(0.5) per unit load,
s workers slowed 5x each iteration, the same step 1/L for every scheme (the
paper: "the learning rate is fixed for all the experiments"); cyclic MDS (load
s + 1), d-FRC (load of Theorem 4), BRC (Theorem 6), forget-s, BGC and AsySG
(the server updates after every n - s results, with stale gradients).
Completion time = simulated time to reach training loss F* + 0.02 (the paper:
generalization AUC 0.8): a training-loss analogue of the AUC curves. Every
comparison is judged by confidence intervals (paired runs with common seeds
where two schemes are compared at the same n and s).
"""

from __future__ import annotations

import math
from typing import Any

from paper_checks import Outcome, claim, drift_pin, interval_pin
from paper_checks._framework.blas import single_threaded
from paper_checks._framework.common_training import SKLEARN_CAUSE, sklearn_missing
from paper_checks._framework.experiments import paper_experiment

PAPER = "wang2019"
PROPOSED = ("FRC", "BRC")
EXISTING = ("forget-s", "cyclic MDS", "BGC", "AsySG")
_KW = {
    "cyclic MDS": dict(scheme="cyclic_mds"),
    "FRC": dict(scheme="dfrc"),
    "BRC": dict(scheme="brc"),
    "forget-s": dict(scheme="ignore"),
    "BGC": dict(scheme="bgc"),
    "AsySG": dict(scheme="asysg"),
}


def _missing(c: dict) -> Outcome | None:
    if c.get("missing"):
        return Outcome("not checkable", c, cause=SKLEARN_CAUSE)
    return None


def _args(cfg: dict, label: str, n: int, s: int, target: float) -> dict[str, Any]:
    """:func:`simulate` keywords of one scheme with n workers and s stragglers."""
    kw = _KW[label]
    extra = {"K": n - s} if kw["scheme"] in ("ignore", "asysg") else {"s": s}
    return dict(cfg["common"], n=n, n_slow=s, target_loss=target, **kw, **extra)


def _iv(e) -> dict:
    return {"value": e.value, "low": e.low, "high": e.high}


def _fmt(v: dict) -> str:
    """Four significant digits: simulated times and ratios of seeded runs."""
    return f"{v['value']:.4g} [{v['low']:.4g}, {v['high']:.4g}]"


# ---------------------------------------------------------------------------
# Section 5.3: completion time versus the straggler fraction


def _judge_sensitivity(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    sens = c["T(30%)/T(10%)"]
    fb = c["T(FRC)/T(BRC) at s/n < 0.1"]
    prop_hi = max(sens[k]["high"] for k in PROPOSED)
    parts = {
        "(a) cyclic MDS and forget-s sensitive": all(
            sens[k]["low"] > prop_hi for k in ("cyclic MDS", "forget-s")
        ),
        "(b) FRC, BRC not sensitive (BRC only +10%)": all(sens[k]["high"] <= 1.2 for k in PROPOSED)
        and sens["BRC"]["low"] <= 1.10,
        "(c) FRC slightly faster than BRC for s/n < 0.1": fb["high"] < 1 and fb["low"] > 0.8,
    }
    # Monte Carlo ratios: pinned at their intervals' widths (they were rtol 0.3)
    key = {f"T(30%)/T(10%) {k}": drift_pin(v) for k, v in sens.items()}
    key["T(FRC)/T(BRC), s/n < 0.1"] = drift_pin(fb)
    cmp = (
        "ratio of mean completion times at 30% and 10% stragglers, conservative bounds "
        "from "
        "the two 95% intervals: "
        + "; ".join(f"{k} {_fmt(v)}" for k, v in sens.items())
        + f"; T(FRC)/T(BRC) at s = {c['s at s/n < 0.1']} of n = {c['n']}, paired: {_fmt(fb)}. "
        "(a) holds iff the lower bounds for cyclic MDS and forget-s exceed the upper "
        "bounds "
        "for FRC and BRC; (b) iff FRC's and BRC's upper bounds are at most 1.2 and BRC's "
        "lower "
        "bound at most 1.10; (c) iff the FRC/BRC ratio lies within (0.8, 1). Parts: "
        + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in parts.items())
    )
    if all(parts.values()):
        return Outcome("reproduced", c, cmp, key=key)
    bad = [k for k, v in parts.items() if not v]
    return Outcome("differs", c, cmp, f"not reproduced: {bad}", key=key)


def _rv(v: float, h: float = 0.05) -> dict:
    return {"value": v, "low": v - h, "high": v + h}


_SENS_EX = {
    "n": 30,
    "s at s/n < 0.1": 2,
    "T(30%)/T(10%)": {
        "cyclic MDS": _rv(2.0),
        "FRC": _rv(1.05),
        "BRC": _rv(1.1),
        "forget-s": _rv(1.6),
    },
    "T(FRC)/T(BRC) at s/n < 0.1": _rv(0.9),
}


paper_experiment(
    paper=PAPER,
    id="5.3-frc-brc-insensitive-to-stragglers",
    where="Section 5.3, Fig. 5",
    statement="'The cyclic MDS code and forget-s scheme are sensitive to the number of "
    "stragglers. "
    "[...] The job completion time of the proposed FRC and BRC are not sensitive to the "
    "straggler tolerance s [...]: the job completion time of BRC only increases 10% when "
    "the "
    "fraction of stragglers increases from 10% to 30%. Besides, when s/n < 0.1, the job "
    "completion time of FRC is slightly lower than that of BRC'",
    paper_value="(a) MDS, forget-s sensitive; (b) FRC, BRC not (BRC +10%); (c) FRC < BRC",
    experiment="Section 5.3: job completion time to AUC = 0.8 on the LIBSVM logistic regression, "
    "n = 30,"
    " 60, s/n = 10%-30%, MPI4py",
    lacks=(
        "the cluster's per-worker compute and network times and straggling (MPI4py on a "
        "cluster "
        "the paper does not describe)",
        "the LIBSVM data set (N = 19,264,097 samples, p = 1,163,024) is not named, and "
        "gctheory "
        "does not train on it",
        "the learning rate alpha ('fixed for all the experiment') is not given",
    ),
    analogue="analogue-5.3-frc-brc-insensitive-to-stragglers",
)


@claim(
    paper=PAPER,
    id="analogue-5.3-frc-brc-insensitive-to-stragglers",
    where="Section 5.3, Fig. 5: gctheory's simulated analogue, not the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "'The cyclic MDS code and forget-s scheme are sensitive to the number of "
    "stragglers. [...] The job completion time of the proposed FRC and BRC are not "
    "sensitive "
    "to the straggler tolerance s [...]: the job completion time of BRC only increases 10% "
    "when the fraction of stragglers increases from 10% to 30%. Besides, when s/n < 0.1, "
    "the "
    "job completion time of FRC is slightly lower than that of BRC'",
    paper_value="(a) MDS, forget-s sensitive; (b) FRC, BRC not (BRC +10%); (c) FRC < BRC",
    slow=True,
    judge=_judge_sensitivity,
    examples=[
        (_SENS_EX, "reproduced"),
        ({**_SENS_EX, "T(FRC)/T(BRC) at s/n < 0.1": _rv(1.2)}, "differs"),
        (
            {**_SENS_EX, "T(30%)/T(10%)": {**_SENS_EX["T(30%)/T(10%)"], "forget-s": _rv(1.0)}},
            "differs",
        ),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _sensitivity(quick: bool) -> dict:
    if sklearn_missing() is not None:
        return {"missing": True}
    from gctheory.training import reference_loss
    from gctheory.training.studies import WANG2019, estimate_paired_metric, study_wang2019

    r = study_wang2019(quick)
    sens = {lab: dict(zip(("value", "low", "high"), v)) for lab, v in r["sensitivity"].items()}
    cfg = WANG2019(quick)
    n = cfg["common"]["n"]
    s = math.ceil(0.1 * n) - 1  # the largest s with s/n < 0.1
    target = reference_loss("logistic") + cfg["eps"]
    fb = estimate_paired_metric(
        "time_to_target",
        cfg["trials"],
        _args(cfg, "FRC", n, s, target),
        _args(cfg, "BRC", n, s, target),
        rng=cfg["rng"],
    )
    return {
        "n": n,
        "s at s/n < 0.1": s,
        "T(30%)/T(10%)": sens,
        "T(FRC)/T(BRC) at s/n < 0.1": _iv(fb),
    }


def _judge_halve(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    rows = c["per fraction"]
    # pinned at the conservative interval of each reduction (it was rtol 0.5, atol 0.05)
    key = {
        f"reduction at {f}": interval_pin(
            {"value": r["reduction"], "low": r["reduction low"], "high": r["reduction high"]}
        )
        for f, r in rows.items()
    }
    cmp = "reduction = 1 - min(FRC, BRC) / min(other schemes), mean completion times: " + "; ".join(
        f"{f}: best of FRC/BRC {r['best proposed']:.4g}, best other ({r['best other']}) "
        f"{r['best other time']:.4g}, reduction {r['reduction']:.3f}"
        for f, r in rows.items()
    )
    if all(r["reduction"] >= 0.5 for r in rows.values()):
        return Outcome("reproduced", c, cmp, key=key)
    best = sorted({r["best other"] for r in rows.values()})
    if best != ["forget-s"]:
        return Outcome(
            "differs", c, cmp, f"FRC/BRC do not halve the time of the best other scheme ({best})",
            key=key,
        )  # fmt: skip
    return Outcome(
        "differs",
        c,
        cmp,
        "in the simulation forget-s finishes first: with IID partitions and the same step "
        "1/L "
        "for every scheme, dropping s of n partial gradients (rescaled by n/(n-s)) costs "
        "little accuracy, while every code pays its larger load; the paper attributes "
        "forget-s's slowness to the smaller step size it admits, which we do not impose",
        key=key,
    )


_HALVE_EX = {
    "per fraction": {
        "10%": {"best proposed": 100.0, "best other": "forget-s", "best other time": 80.0,
                "reduction": -0.25, "reduction low": -0.3, "reduction high": -0.2},
    }
}  # fmt: skip


paper_experiment(
    paper=PAPER,
    id="5.3-frc-brc-halve-completion-time",
    where="Section 5.3, Fig. 5 (and Section 6: '50% speed up')",
    statement="FRC and BRC reduce the completion time by 50% compared to the existing schemes "
    "(forget-s, cyclic MDS, BGC)",
    paper_value=0.5,
    experiment="Section 5.3: job completion time to AUC = 0.8 on the LIBSVM logistic regression, "
    "n = 30,"
    " 60, MPI4py",
    lacks=(
        "the cluster's per-worker compute and network times and straggling (MPI4py on a "
        "cluster "
        "the paper does not describe)",
        "the LIBSVM data set (N = 19,264,097 samples, p = 1,163,024) is not named, and "
        "gctheory "
        "does not train on it",
        "the learning rate alpha ('fixed for all the experiment') is not given",
    ),
    analogue="analogue-5.3-frc-brc-halve-completion-time",
)


@claim(
    paper=PAPER,
    id="analogue-5.3-frc-brc-halve-completion-time",
    where="Section 5.3, Fig. 5 (and Section 6: '50% speed up'): gctheory's simulated "
    "analogue, not "
    "the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "FRC and BRC reduce the completion time by 50% compared to the existing schemes "
    "(forget-s, cyclic MDS, BGC)",
    paper_value=0.5,
    slow=True,
    judge=_judge_halve,
    examples=[
        (_HALVE_EX, "differs"),
        (
            {
                "per fraction": {
                    "10%": {
                        "best proposed": 40.0,
                        "best other": "cyclic MDS",
                        "best other time": 100.0,
                        "reduction": 0.6,
                        "reduction low": 0.55,
                        "reduction high": 0.65,
                    }
                }
            },
            "reproduced",
        ),
        ({"missing": True}, "not checkable"),
    ],  # fmt: skip
)
@single_threaded
def _halve(quick: bool) -> dict:
    if sklearn_missing() is not None:
        return {"missing": True}
    from gctheory.training.studies import study_wang2019

    r = study_wang2019(quick)
    times = r["times"]
    rows = {}
    for f in r["config"]["fractions"]:
        mine = min(PROPOSED, key=lambda k: times[k][f].value)
        ours = times[mine][f]
        others = {lab: times[lab][f].value for lab in times if lab not in PROPOSED}
        best = min(others, key=others.get)
        theirs = times[best][f]
        rows[f"{round(100 * f)}%"] = {
            "best proposed": ours.value,
            "best other": best,
            "best other time": theirs.value,
            "reduction": 1 - ours.value / theirs.value,
            # conservative bounds from the two 95% intervals (the ledger pins it at them)
            "reduction low": 1 - ours.high / theirs.low,
            "reduction high": 1 - ours.low / theirs.high,
        }
    return {"per fraction": rows}


# ---------------------------------------------------------------------------
# Section 5.2: generalization error versus running time, n = 30 and 60, AsySG included


def _study_52(quick: bool) -> dict:
    """Completion times (paired with common seeds) at n = 30 and 60, 10% stragglers."""
    from gctheory.training import estimate_run_metric, reference_loss
    from gctheory.training.studies import WANG2019, estimate_paired_metric

    cfg = WANG2019(quick)
    target = reference_loss("logistic") + cfg["eps"]
    out: dict[str, Any] = {"fraction": 0.1, "trials": cfg["trials"], "per n": {}}
    for n in (30, 60):
        s = round(0.1 * n)
        times = {
            lab: _iv(estimate_run_metric(
                "time_to_target", cfg["trials"], rng=cfg["rng"], **_args(cfg, lab, n, s, target)
            ))
            for lab in PROPOSED + EXISTING
        }  # fmt: skip
        ratios = {
            f"{p}/{e}": _iv(
                estimate_paired_metric(
                    "time_to_target",
                    cfg["trials"],
                    _args(cfg, p, n, s, target),
                    _args(cfg, e, n, s, target),
                    rng=cfg["rng"],
                )
            )
            for p in PROPOSED
            for e in EXISTING
        }
        best_p = min(PROPOSED, key=lambda k: times[k]["value"])
        best_e = min(EXISTING, key=lambda k: times[k]["value"])
        sp = ratios[f"{best_p}/{best_e}"]
        out["per n"][n] = {
            "s": s,
            "completion time": times,
            "T(proposed)/T(existing), paired": ratios,
            "speed-up of the best proposed over the best existing": {
                "pair": f"{best_p}/{best_e}",
                "value": 1 / sp["value"],
                "low": 1 / sp["high"],
                "high": 1 / sp["low"],
            },
        }
    return out


_MEMO: dict[bool, dict] = {}


def _s52(quick: bool) -> dict:
    if sklearn_missing() is not None:
        return {"missing": True}
    if quick not in _MEMO:
        _MEMO[quick] = _study_52(quick)
    return _MEMO[quick]


def _judge_better(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    fails = {}
    key = {}
    for n, row in c["per n"].items():
        for pair, v in row["T(proposed)/T(existing), paired"].items():
            key[f"n={n} {pair}"] = drift_pin(v)
            if not v["high"] < 1:
                fails[f"n={n} {pair}"] = _fmt(v)
    cmp = (
        "time to the target loss (the analogue of a better AUC at equal time), "
        f"{c['fraction']:.0%} stragglers, n in {list(c['per n'])}: paired ratios "
        "T(FRC or BRC)/T(existing scheme), "
        "95% CI; reproduced iff every upper limit is below 1"
    )
    if not fails:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        "not faster than every existing scheme: " + "; ".join(f"{k} {v}" for k, v in fails.items()),
        key=key,
    )


def _ex52(ratio_frc_forget: float, sp30: float, sp60: float, forget: float = 100.0) -> dict:
    def row(sp):
        return {
            "s": 3,
            "completion time": {"FRC": _rv(80.0, 2), "BRC": _rv(90.0, 2),
                                "forget-s": _rv(forget, 2), "cyclic MDS": _rv(150.0, 2),
                                "BGC": _rv(160.0, 2), "AsySG": _rv(120.0, 2)},
            "T(proposed)/T(existing), paired": {"FRC/forget-s": _rv(ratio_frc_forget, 0.03),
                                                "BRC/AsySG": _rv(0.75, 0.03)},
            "speed-up of the best proposed over the best existing": {"pair": "FRC/forget-s",
                                                                     **_rv(sp, 0.05)},
        }  # fmt: skip

    return {"fraction": 0.1, "trials": 3, "per n": {30: row(sp30), 60: row(sp60)}}


paper_experiment(
    paper=PAPER,
    id="5.2-frc-brc-better-generalization",
    where="Section 5.2, Fig. 4",
    statement="FRC and BRC achieve significantly better generalization error (AUC versus running"
    " time) "
    "than the existing schemes (forget-s, cyclic MDS, BGC, AsySG), n = 30 and 60",
    paper_value="FRC, BRC better",
    experiment="Section 5.2: generalization AUC against running time on the LIBSVM logistic "
    "regression, "
    "n = 30, 60, s = 10%, 20% of n, MPI4py",
    lacks=(
        "the cluster's per-worker compute and network times and straggling (MPI4py on a "
        "cluster "
        "the paper does not describe)",
        "the LIBSVM data set (N = 19,264,097 samples, p = 1,163,024) is not named, and "
        "gctheory "
        "does not train on it",
        "the learning rate alpha ('fixed for all the experiment') is not given",
    ),
    analogue="analogue-5.2-frc-brc-better-generalization",
)


@claim(
    paper=PAPER,
    id="analogue-5.2-frc-brc-better-generalization",
    where="Section 5.2, Fig. 4: gctheory's simulated analogue, not the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "FRC and BRC achieve significantly better generalization error (AUC versus "
    "running time) than the existing schemes (forget-s, cyclic MDS, BGC, AsySG), n = 30 "
    "and 60",
    paper_value="FRC, BRC better",
    slow=True,
    judge=_judge_better,
    examples=[
        (_ex52(0.8, 1.25, 1.5), "reproduced"),
        (_ex52(1.2, 1.25, 1.5), "differs"),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _better(quick: bool) -> dict:
    return _s52(quick)


def _judge_slow(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    fast = {}
    key = {}
    for n, row in c["per n"].items():
        t = row["completion time"]
        for slow in ("forget-s", "AsySG"):
            key[f"n={n} T({slow})"] = interval_pin(t[slow])
            beaten = [p for p in PROPOSED if not t[slow]["low"] > t[p]["high"]]
            if beaten:
                fast[f"n={n} {slow}"] = f"{_fmt(t[slow])} vs " + ", ".join(
                    f"{p} {_fmt(t[p])}" for p in beaten
                )
    cmp = (
        "mean time to the target loss, 95% CI, same step size for every scheme: reproduced "
        "iff forget-s and AsySG are slower than both FRC and BRC at every n (disjoint "
        "intervals)"
    )
    if not fast:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        "not slower: " + "; ".join(f"{k}: {v}" for k, v in fast.items()) + ". With the same "
        "step size, forget-s loses only the s dropped partial gradients; the paper "
        "attributes "
        "the slowness to the smaller step size these schemes admit, which the simulation "
        "does "
        "not impose",
        key=key,
    )


paper_experiment(
    paper=PAPER,
    id="5.2-forget-s-asysg-slow",
    where="Section 5.2, Fig. 4",
    statement="both the forget-s scheme and AsySG converge slowly, since they do not use the "
    "full "
    "gradient and admit only a small step size",
    paper_value="forget-s, AsySG slowest",
    experiment="Section 5.2: generalization AUC against running time on the LIBSVM logistic "
    "regression, "
    "MPI4py",
    lacks=(
        "the cluster's per-worker compute and network times and straggling (MPI4py on a "
        "cluster "
        "the paper does not describe)",
        "the LIBSVM data set (N = 19,264,097 samples, p = 1,163,024) is not named, and "
        "gctheory "
        "does not train on it",
        "the learning rate alpha ('fixed for all the experiment') is not given",
    ),
    analogue="analogue-5.2-forget-s-asysg-slow",
)


@claim(
    paper=PAPER,
    id="analogue-5.2-forget-s-asysg-slow",
    where="Section 5.2, Fig. 4: gctheory's simulated analogue, not the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "both the forget-s scheme and AsySG converge slowly, since they do not use the "
    "full gradient and admit only a small step size",
    paper_value="forget-s, AsySG slowest",
    slow=True,
    judge=_judge_slow,
    examples=[
        (_ex52(0.8, 1.25, 1.5, forget=200.0), "reproduced"),
        (_ex52(0.8, 1.25, 1.5, forget=60.0), "differs"),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _slow(quick: bool) -> dict:
    return _s52(quick)


def _judge_speedup(c: dict) -> Outcome:
    if (o := _missing(c)) is not None:
        return o
    sp = {n: row["speed-up of the best proposed over the best existing"]
          for n, row in c["per n"].items()}  # fmt: skip
    (n1, a), (n2, b) = sorted(sp.items())
    key = {f"speed-up n={n}": interval_pin(v) for n, v in sp.items()}
    cmp = (
        "speed-up = T(best existing)/T(best of FRC, BRC), paired runs, 95% CI: "
        + "; ".join(f"n = {n}: {v['pair']} {_fmt(v)}" for n, v in sp.items())
        + f"; reproduced iff the n = {n2} interval lies above the n = {n1} one"
    )
    if a["high"] < 1 and b["high"] < 1:
        # a speed-up below 1 at both n: the proposed schemes are slower, nothing grows
        return Outcome(
            "differs",
            c,
            cmp,
            f"there is no speed-up to grow: the best of FRC, BRC is slower than the best existing "
            f"scheme at both n (speed-up {a['value']:.3g} at n = {n1}, {b['value']:.3g} at "
            f"n = {n2}, both intervals below 1)",
            key=key,
        )
    if b["low"] > a["high"]:
        return Outcome("reproduced", c, cmp, key=key)
    if b["high"] < a["low"]:
        return Outcome(
            "differs", c, cmp, f"the speed-up shrinks from n = {n1} to n = {n2}", key=key
        )
    return Outcome(
        "not checkable",
        c,
        cmp,
        f"the intervals at n = {n1} and n = {n2} overlap: the simulation cannot tell whether the "
        "speed-up grows",
        key=key,
    )


paper_experiment(
    paper=PAPER,
    id="5.2-speedup-grows-with-n",
    where="Section 5.2, Fig. 4",
    statement="when the number of workers increases (n = 30 to 60), FRC and BRC provide an even "
    "larger "
    "speed-up over the state of the art",
    paper_value="speed-up(60) > speed-up(30)",
    experiment="Section 5.2: speed-up in running time to a given AUC, n = 30 against n = 60, "
    "MPI4py",
    lacks=(
        "the cluster's per-worker compute and network times and straggling (MPI4py on a "
        "cluster "
        "the paper does not describe)",
        "the LIBSVM data set (N = 19,264,097 samples, p = 1,163,024) is not named, and "
        "gctheory "
        "does not train on it",
        "the learning rate alpha ('fixed for all the experiment') is not given",
    ),
    analogue="analogue-5.2-speedup-grows-with-n",
)


@claim(
    paper=PAPER,
    id="analogue-5.2-speedup-grows-with-n",
    where="Section 5.2, Fig. 4: gctheory's simulated analogue, not the paper's experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "when the number of workers increases (n = 30 to 60), FRC and BRC provide an "
    "even larger speed-up over the state of the art",
    paper_value="speed-up(60) > speed-up(30)",
    slow=True,
    judge=_judge_speedup,
    examples=[
        (_ex52(0.8, 1.25, 1.5), "reproduced"),
        (_ex52(0.8, 1.5, 1.2), "differs"),
        (_ex52(0.8, 1.25, 1.27), "not checkable"),
        (_ex52(0.8, 0.6, 0.9), "differs"),
        ({"missing": True}, "not checkable"),
    ],
)
@single_threaded
def _speedup(quick: bool) -> dict:
    return _s52(quick)
