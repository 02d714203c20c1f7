"""Halbawi et al. 2017, Section 6: softmax regression with Pareto delays, as a simulated analogue.

The paper trains softmax regression on MNIST with n = 80 machines, delays
Pareto(t0 = 0.001, xi = 1.1), RS waiting for f_RS = 68 and cyclic MDS for
f_MDS = 33, against three uncoded schemes. gctheory reruns the protocol on the
digits data.
"""

from __future__ import annotations

import numpy as np

from paper_checks import Outcome, claim
from paper_checks._training_common import sklearn_missing

PAPER = "halbawi2017"


@claim(
    paper=PAPER,
    id="6-rs-outperforms-fig2",
    where="Section 6, Fig. 2",
    statement="The Reed-Solomon scheme (f = 68 of n = 80) reaches a lower test error at a fixed "
    "time than cyclic MDS (f = 33), wait-for-all, and uncoded waiting for 68 or 33",
    paper_value="RS best",
    slow=True,
)
def _rs_best(quick: bool) -> Outcome:
    if (o := sklearn_missing()) is not None:
        return o
    from gctheory.training import simulate

    common = dict(n=80, delay="pareto(0.001, 1.1)", iterations=40, rng=2017)
    schemes = {
        "wait for all": dict(scheme="gd"),
        "uncoded f=68": dict(scheme="ignore", K=68),
        "uncoded f=33": dict(scheme="ignore", K=33),
        "cyclic MDS f=33": dict(scheme="cyclic_mds", s=47),
        "RS f=68": dict(scheme="rs", s=12),
    }
    computed = {}
    for lab, kw in schemes.items():
        try:
            run = simulate(**common, **kw)
            computed[lab] = (
                f"mean time/iteration {np.mean(np.diff(run.time)):.4g}, loss after 40 iterations "
                f"{run.loss[-1]:.4f}"
            )
        except ValueError as exc:
            msg = str(exc)
            computed[lab] = "decoding failed: " + msg[msg.find("relative residual") :].split(";")[0]
    return Outcome(
        "not checkable",
        computed,
        "one seeded run per scheme (no interval: see cause)",
        cause="(1) Pareto with shape 1.1 has infinite variance, and so has every iteration "
        "time, so no confidence band over seeds means anything; (2) in double precision the "
        "RS decoder at n = 80 meets condition numbers ~1e10 and fails gctheory's exact-decoding "
        "residual check (1e-6) for some survivor sets (shown above when it happens); "
        "(3) the uncoded schemes lose almost nothing on IID partitions of the digits, so "
        "the accuracy ranking of Fig. 2 (MNIST, Nesterov steps) is not what the simulation "
        "can test",
    )
