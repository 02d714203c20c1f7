"""Halbawi et al. 2017, Section 6 / Figure 2: which scheme trains fastest, a simulated analogue.

The paper trains softmax regression on MNIST (12000 examples) with n = 80
machines, Pareto(t0 = 0.001, xi = 1.1) delays, RS waiting for f_RS = 68 and
cyclic MDS for f_MDS = 33, against waiting for all and uncoded waiting for 68
or 33, and reports RS best "for the same training time". The analogue here:

- time per iteration: the paper's own model, eq. (17), exact at n = 80
  (Vannman order statistic + c_g N alpha with N c_g = 0.035 of Figure 3,
  alpha = (n - f + 1)/n for the coded schemes and 1/n uncoded; decoding offline,
  c_m = 0, where f_RS = 68 is the optimum: halbawi2017:fig2-f-rs);
- progress per iteration: the simulator on the digits data (softmax, step 1/L).
  RS, cyclic MDS and wait-for-all recover the exact gradient (the codes are exact;
  halbawi2017:fig2-n80-f68 checks RS at 30 digits; in double precision the n = 80
  RS decoder loses ~6 digits), so their iterates are those of full gradient
  descent; the uncoded schemes' iterates come from seeded runs that average the
  fastest f of the 80 partial gradients (with IID delays, a uniformly random set).

The comparison is at the times RS completes 25, 50 and 100 iterations, on the
training loss (the simulator has no held-out set; the paper plots test error).
"""

from __future__ import annotations

import math

from gctheory.runtime import halbawi_expected_time
from paper_checks import Outcome, claim
from paper_checks._framework.common_training import sklearn_missing
from paper_checks._framework.experiments import paper_experiment

PAPER = "halbawi2017"
N, T0, XI, N_CG = 80, 0.001, 1.1, 0.035
SCHEMES = {  # label: (f waited for, coded)
    "RS f=68": (68, True),
    "cyclic MDS f=33": (33, True),
    "wait for all": (80, True),
    "uncoded f=68": (68, False),
    "uncoded f=33": (33, False),
}
BUDGETS = (25, 50, 100)  # RS iterations


def iteration_time(f: int, coded: bool) -> float:
    """eq. (17) with c_m = 0: coded schemes carry alpha = (n-f+1)/n of the data, uncoded 1/n."""
    t = halbawi_expected_time(f, N, t0=T0, xi=XI, n_cg=0.0, decoding="none")
    return t + N_CG * ((N - f + 1) / N if coded else 1 / N)


def _judge(c: dict) -> Outcome:
    if c.get("missing"):
        return Outcome("not checkable", c, cause=c["missing"])
    rows = c["loss at the budget"]
    beaten, unresolved = [], []
    for b, row in rows.items():
        rs = row["RS f=68"][0]
        for lab, (val, lo, hi) in row.items():
            if lab == "RS f=68":
                continue
            if hi < rs:
                beaten.append(f"{lab} ({val:.4f} [{lo:.4f}, {hi:.4f}] vs RS {rs:.4f} at {b})")
            elif lo <= rs:
                unresolved.append(f"{lab} at {b}")
    times = "; ".join(f"{lab} {t:.4g}" for lab, t in c["time per iteration, eq. (17)"].items())
    cmp = (
        f"simulated analogue: time per iteration from eq. (17) at n = 80 ({times}); training "
        f"loss at the times RS completes {', '.join(str(b) for b in BUDGETS)} iterations, "
        f"exact schemes on the full-gradient path, uncoded ones over {c['seeds']} seeded runs "
        "(95% CLT interval); reproduced iff RS's loss is below every other scheme's "
        "interval "
        "at every budget, differs if some scheme's interval lies below RS's loss"
    )
    key = {"schemes below RS": (len(beaten), 0)}
    if beaten:
        return Outcome(
            "differs",
            c,
            cmp,
            "in the paper's own time model a cheaper iteration outweighs an inexact "
            "gradient: "
            + "; ".join(beaten)
            + " (on IID digits partitions the average of the fastest f partial gradients is "
            "nearly the full gradient; the paper's MNIST/Nesterov runs may differ)",
            key=key,
        )
    if unresolved:
        return Outcome("not checkable", c, cmp, "intervals overlap RS: " + ", ".join(unresolved),
                       key=key)  # fmt: skip
    return Outcome("reproduced", c, cmp, key=key)


def _example(uncoded33: tuple[float, float, float]) -> dict:
    row = {"RS f=68": (0.6, 0.6, 0.6), "cyclic MDS f=33": (0.9, 0.9, 0.9),
           "wait for all": (2.2, 2.2, 2.2), "uncoded f=68": (0.65, 0.64, 0.66),
           "uncoded f=33": uncoded33}  # fmt: skip
    return {
        "time per iteration, eq. (17)": {"RS f=68": 0.0113},
        "seeds": 4,
        "loss at the budget": {"t = 1.13": row},
    }


paper_experiment(
    paper=PAPER,
    id="6-rs-outperforms-fig2",
    where="Section 6, Fig. 2; abstract; Section 1",
    statement="for the same training time the Reed-Solomon scheme (f = 68 of n = 80) reaches a "
    "lower "
    "error than cyclic MDS (f = 33), wait-for-all, and uncoded waiting for 68 or 33 "
    "(simulated analogue: eq. (17) times, training loss on the digits)",
    paper_value="RS best",
    experiment="Section 6: softmax regression on MNIST (12,000 training examples), n = 80, Pareto"
    " "
    "delays, test error against time",
    lacks=(
        "the MATLAB cluster's measured delays (only the Pareto model's t0, xi are given, "
        "not the "
        "run's realisation)",
        "the step size and Nesterov parameters are not given, nor c_g, c_m for the run",
        "the test error is measured on MNIST's 10,000 test images; gctheory's simulator "
        "has no "
        "test set",
    ),
    analogue="analogue-6-rs-outperforms-fig2",
)


@claim(
    paper=PAPER,
    id="analogue-6-rs-outperforms-fig2",
    where="Section 6, Fig. 2; abstract; Section 1: gctheory's simulated analogue, not the "
    "paper's "
    "experiment",
    statement="in gctheory's simulated analogue (not the paper's experiment): "
    "for the same training time the Reed-Solomon scheme (f = 68 of n = 80) reaches a "
    "lower error than cyclic MDS (f = 33), wait-for-all, and uncoded waiting for 68 or 33 "
    "(simulated analogue: eq. (17) times, training loss on the digits)",
    paper_value="RS best",
    slow=True,
    judge=_judge,
    examples=[
        (_example((0.45, 0.44, 0.46)), "differs"),
        (_example((0.7, 0.69, 0.71)), "reproduced"),
        (_example((0.6, 0.55, 0.65)), "not checkable"),
        ({"missing": "no scikit-learn"}, "not checkable"),
    ],
)
def _rs_best(quick: bool) -> dict:
    if (o := sklearn_missing()) is not None:
        return {"missing": o.cause}
    from gctheory.training import estimate_run_metric, simulate

    seeds = 2 if quick else 3
    times = {lab: iteration_time(f, coded) for lab, (f, coded) in SCHEMES.items()}
    t_rs = times["RS f=68"]
    budgets = {b: b * t_rs for b in BUDGETS}
    iters = {lab: {b: int(math.floor(t / times[lab] + 1e-9)) for b, t in budgets.items()}
             for lab in SCHEMES}  # fmt: skip
    most = {lab: max(v.values()) for lab, v in iters.items()}
    longest_exact = max(most[lab] for lab in SCHEMES if SCHEMES[lab][1])
    exact_path = simulate("gd", n=N, iterations=longest_exact, rng=2017).loss
    out: dict = {}
    for b, t in budgets.items():
        row = {}
        for lab, (f, coded) in SCHEMES.items():
            i = iters[lab][b]
            if coded:
                v = float(exact_path[i])
                row[lab] = (v, v, v)
                continue
            est = estimate_run_metric("final_loss", seeds, rng=2017, scheme="ignore", K=f, n=N,
                                      iterations=i,
                                      delay="pareto(scale=0.001, shape=1.1)")  # fmt: skip
            row[lab] = (est.value, est.low, est.high)
        out[f"t = {t:.4g} ({b} RS iterations)"] = row
    return {
        "time per iteration, eq. (17)": times,
        "iterations by the largest budget": {lab: most[lab] for lab in SCHEMES},
        "seeds": seeds,
        "loss at the budget": out,
    }
