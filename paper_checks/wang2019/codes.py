"""Wang, Liu, Shroff 2019 (approximate gradient codes): the construction claims.

Example 1 (batch raptor code with peeling), Remark 1 (d-FRC for d not dividing
n) and the two batch sizes of Theorem 6, recomputed with
:mod:`gctheory.codes.approximate`. Theorems 1-5 over their range are in
``wang2019/theorems.py``, Theorem 6's probability statement in
``wang2019/ldpc.py``, the load bounds in ``wang2019/load.py``.
"""

from __future__ import annotations

import math

import numpy as np

from gctheory.codes.approximate import (
    BatchRaptorCode,
    DFractionalRepetitionCode,
    estimate_decoding_failure,
    peeling_decode,
    recovery_error,
    theorem6_batch_size,
)
from paper_checks import Outcome, claim, seeded_pin
from paper_checks._framework.blas import single_threaded

PAPER = "wang2019"

# Example 1: batches {D1}, {D2}, {D3, D4}, {D5, D6}; worker task lists as printed
_BATCHES = [[0], [1], [2, 3], [4, 5]]
_H1 = np.array(
    [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 1, 0, 1]], bool
)
_H2 = _H1.copy()
_H2[2], _H2[3], _H2[5] = [0, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 0]
_PAPER_ORDER = [(1, 0), (0, 1), (2, 3), (3, 2)]  # (worker, batch), 0-based, from the text


def _judge_ex1(c: dict) -> Outcome:
    ok = (
        c["all batches recovered"]
        and [tuple(x) for x in c["ripple order"]] == _PAPER_ORDER
        and c["load"] == 4
        and c["max |estimate - sum|"] < 1e-12
    )
    cmp = (
        f"peeling on the received rows; ripple order {c['ripple order']} compared with the "
        f"narrative of Example 1 {_PAPER_ORDER} ((worker, batch), 0-based); load {c['load']}"
    )
    key = {"load": (c["load"], 0.0)}
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome("differs", c, cmp, "peeling does not follow Example 1", key=key)


_EX1 = {
    "all batches recovered": True,
    "ripple order": _PAPER_ORDER,
    "load": 4,
    "max |estimate - sum|": 1e-15,
}


@claim(
    paper=PAPER,
    id="example1-first-variant",
    where="Section 4.2, Example 1 (first case)",
    statement="n = 6, workers 5 and 6 straggle: peeling recovers the full gradient via the "
    "ripples g~2 -> g1, g~1 -> g2, g~3 -> g5+g6, g~4 -> g3+g4; computation load 4",
    paper_value={"recovered": "g1+...+g6", "load": 4},
    judge=_judge_ex1,
    examples=[(_EX1, "reproduced"), ({**_EX1, "ripple order": _PAPER_ORDER[::-1]}, "differs")],
)
@single_threaded
def _ex1(quick: bool) -> dict:
    code = BatchRaptorCode(_BATCHES, _H1)
    g = np.random.default_rng(1).standard_normal((6, 3))
    S = [0, 1, 2, 3]
    X, rec, order = peeling_decode(_H1[S], code.encode(g)[S])
    return {
        "all batches recovered": bool(rec.all()),
        "ripple order": [tuple(int(v) for v in x) for x in order],
        "load": code.load,
        "max |estimate - sum|": float(np.max(np.abs(X[rec].sum(0) - g.sum(0)))),
    }


def _judge_ex2(c: dict) -> Outcome:
    ok = (
        c["load"] == 2
        and tuple(c["missing partitions (0-based)"]) == (2, 3)
        and c["max |estimate - (g1+g2+g5+g6)|"] < 1e-12
    )
    cmp = (
        "estimate compared with g1+g2+g5+g6; err = ||A_S^T u - 1||^2 for peeling's u "
        f"({c['peeling err']}) and the least-squares optimum "
        f"({c['optimal err(A_S), eq. (5)']:.6g}); "
        f"missing {c['missing partitions (0-based)']}, load {c['load']}"
    )
    key = {"load": (c["load"], 0.0), "peeling err": (c["peeling err"], 1e-9)}
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome("differs", c, cmp, "Example 1's second case does not come out", key=key)


_EX2 = {
    "missing partitions (0-based)": (2, 3),
    "load": 2,
    "peeling err": 2.0,
    "optimal err(A_S), eq. (5)": 2.0,
    "max |estimate - (g1+g2+g5+g6)|": 1e-15,
}


@claim(
    paper=PAPER,
    id="example1-second-variant",
    where="Section 4.2, Example 1 (second case)",
    statement="with g~3 = g2, g~4 = g3+g4, g~6 = g1+g2 and workers 4 and 6 straggling, peeling "
    "recovers g1+g2+g5+g6 without g3, g4; the computation load drops from 4 to 2",
    paper_value={"recovered": "g1+g2+g5+g6", "load": 2},
    judge=_judge_ex2,
    examples=[(_EX2, "reproduced"), ({**_EX2, "load": 3}, "differs")],
)
@single_threaded
def _ex2(quick: bool) -> dict:
    code = BatchRaptorCode(_BATCHES, _H2)
    g = np.random.default_rng(2).standard_normal((6, 3))
    S = [0, 1, 2, 4]
    res = code.decode_detail(S, code.encode(g)[S])
    return {
        "missing partitions (0-based)": tuple(int(v) for v in res.unrecovered),
        "load": code.load,
        "peeling err": float(res.err),
        "optimal err(A_S), eq. (5)": round(recovery_error(code.A[S]), 12),
        "max |estimate - (g1+g2+g5+g6)|": float(
            np.max(np.abs(res.gradient - g[[0, 1, 4, 5]].sum(0)))
        ),
    }


def _judge_remark1(c: dict) -> Outcome:
    rows = c["codes"]
    ok = all(
        r["replicas"] == [r["d"]] and r["a complete group decodes exactly"] for r in rows.values()
    )
    loads = {k: r["max load kappa(A)"] for k, r in rows.items()}
    key = {f"{k} load": (v, 0.0) for k, v in loads.items()}
    cmp = (
        "every partition has d replicas and a complete group decodes exactly; loads "
        + ", ".join(f"{k}: {v}" for k, v in loads.items())
        + " (groups of floor(n/d) < n/d workers force kappa(A) = ceil(n/floor(n/d)) = d + 1 "
        "by pigeonhole, one more than with d | n)"
    )
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome("differs", c, cmp, "Remark 1's construction fails", key=key)


_R1 = {"n=10, d=3": {"d": 3, "replicas": [3], "a complete group decodes exactly": True,
                     "max load kappa(A)": 4}}  # fmt: skip


@claim(
    paper=PAPER,
    id="remark1-dfrc-any-n",
    where="Remark 1",
    statement="the d-FRC does not need d | n: groups of floor(n/d) workers, n mod d of them "
    "one larger",
    paper_value="construction for any n, d",
    judge=_judge_remark1,
    examples=[
        ({"codes": _R1}, "reproduced"),
        ({"codes": {"n=10, d=3": {**_R1["n=10, d=3"], "replicas": [2, 3]}}}, "differs"),
    ],
)
@single_threaded
def _remark1(quick: bool) -> dict:
    out = {}
    for n, d in [(10, 3), (1000, 3), (101, 4)]:
        code = DFractionalRepetitionCode(n, d, rng=n)
        reps = sorted(set(code.A.sum(axis=0).tolist()))
        first = np.arange(int(code.group_sizes[0]))
        out[f"n={n}, d={d}"] = {
            "d": d,
            "replicas": [int(r) for r in reps],
            "a complete group decodes exactly": bool(code.decoder_error(first) == 0),
            "max load kappa(A)": int(code.load),
        }
    return {"codes": out}


# ---------------------------------------------------------------------------
# Theorem 6's two batch sizes


def _judge_batch(c: dict) -> Outcome:
    rows = c["P(err > eps n)"]
    b, bn = c["b (definition)"], c["b (code name)"]
    holds = {
        lab: all(v["high"] < 0.05 for k, v in rows.items() if k.endswith(f"b={bb}"))
        for lab, bb in (("definition", b), ("name", bn))
    }
    fails = {
        lab: all(v["low"] > 0.5 for k, v in rows.items() if k.endswith(f"b={bb}"))
        for lab, bb in (("definition", b), ("name", bn))
    }
    key = {k: seeded_pin(v["value"]) for k, v in rows.items()}  # was rtol 0.5, atol 0.05
    cmp = (
        f"Monte Carlo ({c['trials']} straggler sets per code, eps = delta = {c['eps']}): the code "
        f"with the definition's b = ceil(1/ln(1/delta)) + 1 = {b} and with the name's "
        f"ceil(1/ln(1/delta)) = {bn}; the guarantee holds if the one-sided 99% upper limit of "
        "P(err > eps n) is below 0.05 at every n, fails if the lower limit is above 0.5; "
        + "; ".join(
            f"{k}: {v['value']:.3f} [{v['low']:.3f}, {v['high']:.3f}]" for k, v in rows.items()
        )
    )
    if holds["definition"] == holds["name"] and fails["definition"] == fails["name"]:
        return Outcome(
            "reproduced",
            c,
            cmp + "; the two readings behave alike, so the inconsistency is immaterial",
            key=key,
        )
    good = "definition" if holds["definition"] else "name"
    bad = "name" if good == "definition" else "definition"
    return Outcome(
        "differs",
        c,
        cmp,
        f"Theorem 6 names the code with batch size {bn} but defines b = {b}; only the "
        f"{good}'s b decodes as the theorem says: with the {bad}'s "
        + (
            f"b = {bn} (n batches of one partition, (1 - delta) n results) decoding misses more "
            "than eps n partitions almost always"
            if bad == "name"
            else f"b = {b} it fails"
        ),
        key=key,
    )


def _bex(v: float) -> dict:
    return {"value": v, "low": max(0.0, v - 0.02), "high": v + 0.02}


_BATCH_EX = {
    "eps": 0.1,
    "trials": 400,
    "b (definition)": 2,
    "b (code name)": 1,
    "P(err > eps n)": {"n=100, b=2": _bex(0.0), "n=100, b=1": _bex(1.0)},
}


@claim(
    paper=PAPER,
    id="thm6-batch-size",
    where="Theorem 6",
    statement="the batch raptor code of Theorem 6 is the (ceil(1/log(1/delta)), P_w)-batch "
    "raptor code (code name), with b = ceil(1/log(1/delta)) + 1 (definition)",
    paper_value="batch size ceil(1/log(1/delta)) = b - 1",
    judge=_judge_batch,
    examples=[
        (_BATCH_EX, "differs"),
        (
            {**_BATCH_EX, "P(err > eps n)": {"n=100, b=2": _bex(0.0), "n=100, b=1": _bex(0.0)}},
            "reproduced",
        ),
    ],
)
@single_threaded
def _batch(quick: bool) -> dict:
    eps, delta = 0.1, 0.1
    ns = [100, 300] if quick else [100, 300, 1000]
    trials = 150 if quick else 400
    rows = {}
    b = theorem6_batch_size(100, 10)
    for n in ns:
        s = int(delta * n)
        for bb in (b, b - 1):
            code = BatchRaptorCode.theorem6(n, s, eps, b=bb, rng=n + bb)
            est = estimate_decoding_failure(
                code, s, trials, threshold=eps * n, rng=[n, bb], level=0.98
            )
            rows[f"n={n}, b={bb}"] = {"value": est.value, "low": est.low, "high": est.high}
    return {
        "eps": eps,
        "trials": trials,
        "b (definition)": b,
        "b (code name)": b - 1,
        "P(err > eps n)": rows,
    }


# ---------------------------------------------------------------------------
# Section 3.2: how often the d-FRC of Theorem 4 fails in the experiments

# the experiments' settings: n = 30 or 60, 10% to 30% stragglers (Sections 5.2-5.3)
_EXPERIMENTS = [(n, f) for n in (30, 60) for f in (0.1, 0.2, 0.3)]


def _judge_failures(c: dict) -> Outcome:
    rows = c["per (n, s)"]
    agree = [k for k, r in rows.items() if 0.5 <= r["expected failures in 100"] < 2.5]
    key = {f"{k} P(fail)": (r["P(fail)"], 1e-9) for k, r in rows.items()}
    cmp = (
        "exact failure probability of the d-FRC with Theorem 4's load d = ceil((14)) (natural "
        "log) at each setting of the experiments, times 100 iterations (failures are "
        "independent across iterations: fresh stragglers each time); 'one or two' = expected "
        "count in [0.5, 2.5): "
        + "; ".join(
            f"{k}: d = {r['d']}, {r['expected failures in 100']:.2f} per 100, "
            f"P(1 or 2 in 100) = {r['P(1 or 2 failures in 100)']:.2f}"
            for k, r in rows.items()
        )
    )
    if len(agree) == len(rows):
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        f"one or two failures per 100 iterations only at {agree or 'no setting'}; elsewhere "
        + ", ".join(
            f"{k}: {r['expected failures in 100']:.1f}" for k, r in rows.items() if k not in agree
        ),
        key=key,
    )


def _fex(p: float, d: int = 2) -> dict:
    return {"d": d, "P(fail)": p, "expected failures in 100": 100 * p,
            "P(1 or 2 failures in 100)": 0.5}  # fmt: skip


@claim(
    paper=PAPER,
    id="sec3.2-one-or-two-failures-per-100",
    where="Section 3.2, after Theorem 4",
    statement="with the d-FRC (load (14)), during 100 iterations of the experiments only one "
    "or two iterations fail to decode",
    paper_value="1-2 failures per 100 iterations",
    judge=_judge_failures,
    examples=[
        ({"per (n, s)": {"n=60, s=6": _fex(0.0117, 3)}}, "reproduced"),
        ({"per (n, s)": {"n=60, s=6": _fex(0.0117, 3), "n=30, s=3": _fex(0.103)}}, "differs"),
    ],
)
@single_threaded
def _failures(quick: bool) -> dict:
    from scipy import stats

    from gctheory import load_bounds as lb

    rows = {}
    for n, f in _EXPERIMENTS:
        s = round(f * n)
        d = lb.frc_load(n, s).load
        p = float(lb.frc_failure_probability(n, s, d))
        rows[f"n={n}, s={s}"] = {
            "d": d,
            "P(fail)": p,
            "expected failures in 100": 100 * p,
            "P(1 or 2 failures in 100)": float(stats.binom(100, p).pmf([1, 2]).sum()),
        }
    return {"per (n, s)": rows}


# ---------------------------------------------------------------------------
# Table 1: the existing schemes' load and error


def _judge_mds_row(c: dict) -> Outcome:
    rows = c["codes"]
    ok = all(r["load"] == r["s"] + 1 and r["every s-set exact"] for r in rows.values())
    key = {f"{k} load": (r["load"], 0.0) for k, r in rows.items()}
    cmp = (
        "cyclic MDS codes built by gctheory.codes (Tandon et al., Algorithm 2): load (largest "
        "row support) against s + 1, error 0 from every set of s stragglers (exhaustive "
        "decoding): " + ", ".join(f"{k}: load {r['load']}" for k, r in rows.items())
    )
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome("differs", c, cmp, "a cyclic MDS code misses load s + 1 or error 0", key=key)


@claim(
    paper=PAPER,
    id="internal-table1-cyclic-mds-row",
    where="internal check of gctheory, standing in for Table 1 (row cyclic MDS) and Section 1",
    statement="gctheory's CyclicMDSCode (Tandon et al.'s construction [17]) has load s + 1 and "
    "decodes exactly from every set of s stragglers (a check of gctheory's implementation,"
    " not of the paper)",
    paper_value=("s + 1", 0),
    judge=_judge_mds_row,
    examples=[
        ({"codes": {"n=8, s=2": {"s": 2, "load": 3, "every s-set exact": True}}}, "reproduced"),
        ({"codes": {"n=8, s=2": {"s": 2, "load": 3, "every s-set exact": False}}}, "differs"),
    ],
)
@single_threaded
def _mds_row(quick: bool) -> dict:
    from gctheory.codes.base import verify_straggler_sets
    from gctheory.codes.tandon import CyclicMDSCode

    out = {}
    for n, s in [(8, 2), (12, 3)] + ([] if quick else [(16, 5)]):
        code = CyclicMDSCode(n, s, rng=n + s)
        out[f"n={n}, s={s}"] = {
            "s": s,
            "load": int(code.support.sum(axis=1).max()),
            "every s-set exact": bool(verify_straggler_sets(code, s, rng=0).ok),
        }
    return {"codes": out}


_BGC_LOG_EXPONENT = (0.75, 1.25)  # O(log n): the expected load grows like (ln n)^b, b ~ 1
_BGC_LAW_NS = tuple(10**k for k in range(2, 9))


def _judge_bgc(c: dict) -> Outcome:
    rows = c["per n"]
    err_r = [r["mean err / (n / ((n - s) ln n))"] for r in rows.values()]
    law = c["expected largest row load (exact law)"]
    b = _log_exponent(law)
    inside = c["sampled loads inside the exact law's 99% range"]
    lo, hi = _BGC_LOG_EXPONENT
    key = {f"n={n} mean err/n": seeded_pin(r["mean err / n"]) for n, r in rows.items()}
    key["exponent of ln n"] = (b, 0.001)
    cmp = (
        f"Bernoulli gradient codes, p = ln(n)/n: the expected largest row load (Definition 2) "
        f"from the exact law of the row loads (n i.i.d. Binomial(n, p) rows), n = "
        f"{min(law)}..{max(law)}: "
        + ", ".join(f"{v:.1f} (n = {n:.0e})" for n, v in law.items())
        + f"; fitted exponent of ln n {b:.3f}, judged against [{lo}, {hi}] (a constant gives "
        "0, log^2 n gives 2, sqrt(n) about 5 over this range); the sampled codes' loads at "
        f"n = {', '.join(str(n) for n in rows)} inside that law's 99% range: {inside}. Error, "
        f"s = {c['delta']} n, optimal (least-squares) decoding, {c['trials']} random straggler "
        "sets per code, the mean err(A_S) of eq. (5) over n/((n-s) ln n): "
        + ", ".join(
            f"{r['mean err / (n / ((n - s) ln n))']:.2f} (n = {n})" for n, r in rows.items()
        )
        + "; within a factor 2 over this range (a dense least squares per trial bounds n, so the "
        "error's rate is only checked for boundedness)"
    )
    ok_load = lo <= b <= hi and inside
    ok_err = max(err_r) <= 2 * min(err_r)
    if ok_load and ok_err:
        return Outcome("reproduced", c, cmp, key=key)
    why = []
    if not ok_load:
        why.append(f"the load grows like (ln n)^{b:.2f} (sampled loads in range: {inside})")
    if not ok_err:
        why.append(f"the error ratio drifts: {min(err_r):.2f}-{max(err_r):.2f}")
    return Outcome("differs", c, cmp, "; ".join(why), key=key)


def _log_exponent(law: dict) -> float:
    """The least-squares exponent b of ``load ~ c (ln n)^b`` over the rows of ``law``."""
    ln_n = np.log(np.log(np.array([float(n) for n in law])))
    return float(np.polyfit(ln_n, np.log([float(v) for v in law.values()]), 1)[0])


def _bgc_row(load_r: float, err_r: float) -> dict:
    return {"max load": 15, "max load / ln n": load_r, "mean err / n": 0.05,
            "mean err / (n / ((n - s) ln n))": err_r}  # fmt: skip


def _bgc_example(err_400: float, law: dict, b: float) -> dict:
    return {
        "delta": 0.1,
        "trials": 20,
        "per n": {100: _bgc_row(2.4, 0.7), 400: _bgc_row(2.2, err_400)},
        "expected largest row load (exact law)": law,
        "fitted exponent of ln n, expected load": b,
        "sampled loads inside the exact law's 99% range": True,
    }


_LOG_LAW = {10**k: 2.3 * k * math.log(10) for k in range(2, 9)}
_SQRT_LAW = {10**k: 10 ** (k / 2) for k in range(2, 9)}


def _expected_max_row_load(n: int) -> tuple[float, tuple[int, int]]:
    """E[max of n i.i.d. Binomial(n, ln(n)/n)] and its 0.5% and 99.5% quantiles: the largest
    row load of a Bernoulli gradient code, summed exactly over the support (floats)."""
    from scipy import stats

    p = math.log(n) / n
    top = min(n, int(60 * math.log(n)) + 60)  # P(row > top) < 1e-30 for these n
    L = np.arange(0, top + 1)
    log_F = stats.binom.logcdf(L, n, p)
    cdf_max = np.exp(n * log_F)  # P(max <= L)
    mean = float(np.sum(1.0 - cdf_max))
    q = (int(L[np.searchsorted(cdf_max, 0.005)]), int(L[np.searchsorted(cdf_max, 0.995)]))
    return mean, q


@claim(
    paper=PAPER,
    id="table1-bgc-row",
    where="Table 1 (row BGC), Section 1 and Section 2.1 (after Definition 3)",
    statement="the Bernoulli gradient code [2] has computation load O(log n) and error "
    "O(n/((n-s) log n)) with high probability",
    paper_value=("O(log n)", "O(n/((n-s) log n))"),
    judge=_judge_bgc,
    examples=[
        (_bgc_example(0.75, _LOG_LAW, 1.0), "reproduced"),
        (_bgc_example(3.0, _LOG_LAW, 1.0), "differs"),
        (_bgc_example(0.75, _SQRT_LAW, 6.6), "differs"),
        (_bgc_example(0.75, {n: math.log(n) ** 2 for n in _LOG_LAW}, 2.0), "differs"),
        (_bgc_example(0.75, {n: 7.0 for n in _LOG_LAW}, 0.0), "differs"),
    ],
)
@single_threaded
def _bgc(quick: bool) -> dict:
    from gctheory.codes.approximate import BernoulliGradientCode, recovery_error

    delta, trials = 0.1, 5 if quick else 10
    rows, inside = {}, True
    for n in (100, 200) if quick else (100, 200, 400):
        s = round(delta * n)
        code = BernoulliGradientCode(n, math.log(n) / n, rng=n)
        lo, hi = _expected_max_row_load(n)[1]
        inside = inside and lo <= code.load <= hi
        rng = np.random.default_rng(n + 1)
        errs = [
            recovery_error(code.A[np.sort(rng.permutation(n)[: n - s])].astype(float))
            for _ in range(trials)
        ]
        e = float(np.mean(errs))
        rows[n] = {
            "max load": code.load,
            "max load / ln n": code.load / math.log(n),
            "mean err / n": e / n,
            "mean err / (n / ((n - s) ln n))": (e / n) / (n / ((n - s) * math.log(n))),
        }
    law = {n: _expected_max_row_load(n)[0] for n in _BGC_LAW_NS}
    b = _log_exponent(law)
    return {
        "delta": delta,
        "trials": trials,
        "per n": rows,
        "expected largest row load (exact law)": law,
        "fitted exponent of ln n, expected load": b,
        "sampled loads inside the exact law's 99% range": bool(inside),
    }


def _judge_expander(c: dict) -> Outcome:
    # load d = O(n s/((n-s) eps)) at error eps (Definition 3 scale: err <= eps n) says the
    # product eps d (n-s)/s is bounded by one constant over all (n, s, d): judged as no growth
    # in d (the error falls at least like 1/d: within a factor 2 over d at each (n, s)) and
    # no growth in n at fixed s/n (largest n within a factor 2 of the smallest)
    rows = c["per (n, s)"]
    prod = {k: list(r.values()) for k, r in rows.items()}
    in_d = {k: max(v) / min(v) for k, v in prod.items()}
    by_frac: dict[str, dict[int, float]] = {}
    for k, v in prod.items():
        n, s = (int(x.split("=")[1]) for x in k.split(", "))
        by_frac.setdefault(f"s/n = {s / n:g}", {})[n] = max(v)
    in_n = {f: r[max(r)] / r[min(r)] for f, r in by_frac.items()}
    ok = max(in_d.values()) <= 2 and max(in_n.values()) <= 2
    top = max(max(v) for v in prod.values())
    key = {  # seeded: pinned at their precision (were rtol 0.3)
        "largest eps d (n-s)/s": seeded_pin(top),
        "largest spread over d": seeded_pin(max(in_d.values())),
    }
    cmp = (
        f"random d-regular bipartite multigraphs (sums of d permutations: expanders whp), "
        f"least-squares decoder, {c['trials']} straggler sets each; eps d (n-s)/s per (n, s) "
        f"over d = {c['d']}: "
        + "; ".join(f"{k}: " + ", ".join(f"{x:.3f}" for x in v) for k, v in prod.items())
        + "; spread over d "
        + ", ".join(f"{k} {x:.2f}" for k, x in in_d.items())
        + "; largest n over smallest at fixed s/n "
        + ", ".join(f"{k} {x:.2f}" for k, x in in_n.items())
        + f"; reproduced iff both <= 2 (largest product {top:.3f})"
    )
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    bad = [k for k, x in in_d.items() if x > 2] + [k for k, x in in_n.items() if x > 2]
    return Outcome(
        "differs",
        c,
        cmp,
        f"eps d (n-s)/s grows (by more than 2) at {bad}: the error does not fall like "
        "n s/((n-s) d)",
        key=key,
    )


def _expander_example(grow: float) -> dict:
    return {
        "trials": 12,
        "d": (4, 8),
        "per (n, s)": {
            "n=100, s=10": {4: 0.11, 8: 0.12},
            "n=400, s=40": {4: 0.12, 8: 0.12 * grow},
        },
    }


@claim(
    paper=PAPER,
    id="table1-expander-row",
    where="Table 1 (row expander graph code) and Sections 1, 2.1",
    statement="the expander-graph code [14] reaches error eps with computation load "
    "O(ns/((n-s) eps)) (one constant over n = 100..400, s/n = 0.1, 0.3, d = 4..32)",
    paper_value="load O(ns/((n-s) eps)) at error eps",
    judge=_judge_expander,
    examples=[(_expander_example(1.1), "reproduced"), (_expander_example(3.0), "differs")],
)
@single_threaded
def _expander(quick: bool) -> dict:
    from gctheory.codes.approximate import recovery_error

    trials = 6 if quick else 12
    ns = (100, 200) if quick else (100, 200, 400)
    ds = (4, 8, 16) if quick else (4, 8, 16, 32)
    rows = {}
    for n in ns:
        for frac in (0.1, 0.3):
            s = round(frac * n)
            row = {}
            for d in ds:
                rng = np.random.default_rng([n, s, d])
                # a random d-regular bipartite multigraph (sum of d random permutation
                # matrices): an expander with high probability; entries count multiple edges
                A = np.zeros((n, n))
                for _ in range(d):
                    A[np.arange(n), rng.permutation(n)] += 1
                errs = [
                    recovery_error(A[np.sort(rng.permutation(n)[: n - s])]) for _ in range(trials)
                ]
                row[d] = float(np.mean(errs)) / n * d * (n - s) / s
            rows[f"n={n}, s={s}"] = row
    return {"trials": trials, "d": ds, "per (n, s)": rows}
