"""Halbawi et al. 2017: the smaller statements of Sections 2, 4, 5 and the Appendix.

The (s+1)-fold load of Section 2.2, the n - 1 look-up values of Section 4.1,
eq. (18) against eq. (2), the requirement d_l >= 2 of Appendix 8.2, and the two
steps of the proof of Proposition 1 (Appendix 8.4): ``f = (1 - alpha) n`` and
the limits of its first two factors.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from gctheory.codes.reed_solomon import ReedSolomonCode, rs_inverse_table
from gctheory.order_stats import halbawi_proposition1_error
from gctheory.runtime import halbawi_f
from paper_checks import Outcome, claim
from paper_checks.halbawi2017.theorems import decodes, violations_outcome

PAPER = "halbawi2017"


def _grid(nmax: int):
    for n in range(1, nmax + 1):
        for k in range(1, nmax + 1):
            for w in range(1, k + 1):
                if n * w >= k:
                    yield n, k, w


# ---------------------------------------------------------------------------
# Section 2.2


def _judge_load(c: dict) -> Outcome:
    bad = c["instances with w/k < (s+1)/n"]
    cmp = (
        f"exhaustive over {c['instances']:,} (n, k, w) with n, k <= {c['nmax']}: the RS scheme "
        f"tolerates s = floor(wn/k) - 1 (eq. (2)) and carries w/k of the work, i.e. "
        f"{c['smallest load factor / (s+1)']:.4g}..{c['largest load factor / (s+1)']:.4g} times "
        f"(s+1)/n; the factor is exactly s + 1 on the {c['instances with k | wn']:,} instances "
        "with k | wn and larger (by less than (s+2)/(s+1)) on the others"
    )
    return violations_outcome(c, bad, cmp, f"w/k < (s+1)/n on {bad} instances")


@claim(
    paper=PAPER,
    id="sec2.2-load-factor",
    where="Section 2.2",
    statement="a scheme tolerating s stragglers gives each worker a fraction w/k >= (s+1)/n "
    "of the work: its computation load increases by a factor of (s+1) over uncoded",
    paper_value="w/k >= (s+1)/n",
    judge=_judge_load,
    examples=[
        (
            {
                "instances": 10,
                "nmax": 4,
                "instances with w/k < (s+1)/n": 0,
                "instances with k | wn": 4,
                "smallest load factor / (s+1)": 1.0,
                "largest load factor / (s+1)": 1.9,
            },
            "reproduced",
        ),
        (
            {
                "instances": 10,
                "nmax": 4,
                "instances with w/k < (s+1)/n": 2,
                "instances with k | wn": 4,
                "smallest load factor / (s+1)": 0.8,
                "largest load factor / (s+1)": 1.9,
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _load(quick: bool) -> dict:
    nmax = 40 if quick else 80
    count = bad = exact = 0
    lo, hi = math.inf, 0.0
    for n, k, w in _grid(nmax):
        count += 1
        s = n * w // k - 1  # eq. (2), attained (halbawi2017:eq2-bound-attained)
        ratio = Fraction(w, k) / Fraction(s + 1, n)
        bad += int(ratio < 1)
        exact += int(ratio == 1)
        lo, hi = min(lo, float(ratio)), max(hi, float(ratio))
    return {
        "instances": count,
        "nmax": nmax,
        "instances with w/k < (s+1)/n": bad,
        "instances with k | wn": exact,
        "smallest load factor / (s+1)": lo,
        "largest load factor / (s+1)": hi,
    }


# ---------------------------------------------------------------------------
# Section 4.1


def _judge_lookups(c: dict) -> Outcome:
    bad = c["n with a count other than n - 1"]
    cmp = (
        f"for every n = 2..{c['nmax']}: the distinct values among (1 - alpha^m)^-1, "
        f"m = 1..n-1 (smallest gap between two of them {c['smallest gap']:.2e}), and the "
        f"differences i_l - i_j mod n met by {c['survivor sets']:,} random survivor sets all "
        "lie in 1..n-1, so Algorithm 3 needs only the table"
    )
    n_bad = len(bad) + c["differences outside 1..n-1"]
    return violations_outcome(
        c, n_bad, cmp, f"counts differ from n - 1 for n in {bad[:5]}, or a difference is 0 mod n"
    )


@claim(
    paper=PAPER,
    id="sec4.1-n-minus-1-lookups",
    where="Section 4.1, after eq. (14)",
    statement="with alpha a primitive n-th root of unity there are only n - 1 distinct values "
    "of (1 - alpha^(i_l - i_j))^-1, so the master can precompute {(1 - alpha^i)^-1}, "
    "i = 1..n-1, and decode by look-ups",
    paper_value="n - 1",
    judge=_judge_lookups,
    examples=[
        (
            {
                "nmax": 10,
                "n with a count other than n - 1": [],
                "smallest gap": 0.01,
                "survivor sets": 5,
                "differences outside 1..n-1": 0,
            },
            "reproduced",
        ),
        (
            {
                "nmax": 10,
                "n with a count other than n - 1": [4],
                "smallest gap": 0.0,
                "survivor sets": 5,
                "differences outside 1..n-1": 0,
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _lookups(quick: bool) -> dict:
    nmax = 100 if quick else 400
    rng = np.random.default_rng(41)
    bad, gap, outside, sets = [], math.inf, 0, 0
    for n in range(2, nmax + 1):
        vals = rs_inverse_table(n)[1:]  # (1 - alpha^m)^-1, m = 1..n-1
        # all lie on Re = 1/2; distinct iff their imaginary parts are
        im = np.sort(vals.imag)
        g = float(np.min(np.diff(im))) if n > 2 else math.inf
        gap = min(gap, g)
        distinct = 1 + int(np.sum(np.diff(im) > 1e-9)) if n > 2 else 1
        if distinct != n - 1 or np.max(np.abs(vals.real - 0.5)) > 1e-9:
            bad.append(n)
        F = rng.permutation(n)[: max(2, n // 2)]
        diff = (F[:, None] - F[None, :]) % n
        outside += int(np.any(diff[~np.eye(len(F), dtype=bool)] == 0))
        sets += 1
    return {
        "nmax": nmax,
        "n with a count other than n - 1": bad,
        "smallest gap": gap,
        "survivor sets": sets,
        "differences outside 1..n-1": outside,
    }


# ---------------------------------------------------------------------------
# eq. (18) against eq. (2), and the proof of Proposition 1


def _judge_eq18(c: dict) -> Outcome:
    bad, fbad = c["instances where (18) != n - s of (2)"], c["instances where halbawi_f differs"]
    cmp = (
        f"exact (Fraction) over {c['instances']:,} (n, k, w), n, k <= {c['nmax']}, alpha = w/k: "
        "f(alpha) = ceil((1-alpha) n) + 1 against n - (floor(wn/k) - 1); gctheory's halbawi_f "
        "(float alpha) "
        + ("agrees on every instance" if not fbad else f"differs on {fbad} instances")
    )
    return violations_outcome(c, bad, cmp, f"eq. (18) and eq. (2) disagree on {bad} instances")


@claim(
    paper=PAPER,
    id="eq18-equals-eq2",
    where="Section 5, eq. (18), against eq. (2)",
    statement="for alpha = w/k the number of machines needed for recovery is "
    "f(alpha) = ceil((1 - alpha) n) + 1, i.e. n - s with s of eq. (2)",
    paper_value="f = ceil((1-alpha) n) + 1",
    judge=_judge_eq18,
    examples=[
        (
            {
                "instances": 9,
                "nmax": 3,
                "instances where (18) != n - s of (2)": 0,
                "instances where halbawi_f differs": 0,
            },
            "reproduced",
        ),
        (
            {
                "instances": 9,
                "nmax": 3,
                "instances where (18) != n - s of (2)": 3,
                "instances where halbawi_f differs": 0,
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _eq18(quick: bool) -> dict:
    nmax = 40 if quick else 80
    count = bad = fbad = 0
    for n, k, w in _grid(nmax):
        count += 1
        alpha = Fraction(w, k)
        f18 = math.ceil((1 - alpha) * n) + 1
        f2 = n - (n * w // k - 1)
        bad += int(f18 != f2)
        fbad += int(halbawi_f(w / k, n) != f18)
    return {
        "instances": count,
        "nmax": nmax,
        "instances where (18) != n - s of (2)": bad,
        "instances where halbawi_f differs": fbad,
    }


def _judge_f_prop1(c: dict) -> Outcome:
    off = c["f of (2) minus (1-alpha)n where alpha n is an integer"]
    cmp = (
        f"over {c['instances']:,} (n, k, w) with k | wn (n, k <= {c['nmax']}), f = n - s of "
        f"eq. (2) minus (1 - alpha) n takes the values {sorted(set(off))}"
    )
    if set(off) == {0}:
        return Outcome("reproduced", c, cmp, key={"offsets": str(sorted(set(off)))})
    return Outcome(
        "differs",
        c,
        cmp,
        "eq. (2) (and eq. (18)) give f = (1 - alpha) n + 1, one machine more than the proof's "
        "f = (1 - alpha) n; the limit (19) is the same for both (halbawi2017:prop1-limit checks "
        "both indexings)",
        key={"offsets": str(sorted(set(off)))},
    )


@claim(
    paper=PAPER,
    id="app8.4-f-from-eq2",
    where="Appendix 8.4 (proof of Proposition 1)",
    statement="(2) implies that the number of machines we wait for is f = (1 - alpha) n",
    paper_value="f = (1-alpha) n",
    judge=_judge_f_prop1,
    examples=[
        (
            {
                "instances": 5,
                "nmax": 3,
                "f of (2) minus (1-alpha)n where alpha n is an integer": (1, 1, 1),
            },
            "differs",
        ),
        (
            {
                "instances": 5,
                "nmax": 3,
                "f of (2) minus (1-alpha)n where alpha n is an integer": (0, 0),
            },
            "reproduced",
        ),
    ],  # fmt: skip
)
def _f_prop1(quick: bool) -> dict:
    nmax = 30 if quick else 60
    off = []
    for n, k, w in _grid(nmax):
        if (w * n) % k == 0:
            off.append(n - (n * w // k - 1) - (n - n * w // k))
    return {
        "instances": len(off),
        "nmax": nmax,
        "f of (2) minus (1-alpha)n where alpha n is an integer": tuple(sorted(set(off))),
    }


def _judge_factors(c: dict) -> Outcome:
    rows = c["rows"]
    to_printed = max(max(abs(r["first"] / math.exp(-r["xi"]) - 1),
                         abs(r["second"] / math.exp(r["xi"]) - 1)) for r in rows)  # fmt: skip
    to_inv = max(max(abs(r["first"] / math.exp(-1 / r["xi"]) - 1),
                     abs(r["second"] / math.exp(1 / r["xi"]) - 1)) for r in rows)  # fmt: skip
    product = max(abs(r["displayed expression / exact"] - 1) for r in rows)
    cmp = (
        f"the two factors at n = {c['n']:.0e}, alpha = {c['alpha']} for xi in "
        f"{[r['xi'] for r in rows]}: largest relative distance {to_printed:.3g} from the "
        f"printed limits e^(-xi), e^(xi) and {to_inv:.2e} from e^(-1/xi), e^(1/xi); the "
        f"displayed product is within {product:.1e} of the exact order statistic"
    )
    key = {"distance from printed limits": (to_printed, 1e-3)}
    if to_printed <= 1e-3:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        f"(1 - 1/(xi m))^m -> e^(-1/xi), not e^(-xi) (the factors tend to e^(-1/xi) and "
        f"e^(1/xi), within {to_inv:.1e} here); they cancel either way, so eq. (19) is unaffected",
        key=key,
    )


@claim(
    paper=PAPER,
    id="app8.4-factor-limits",
    where="Appendix 8.4 (proof of Proposition 1)",
    statement="in the Stirling form of E[T_delay^(f)], the first two factors "
    "(1 - 1/(xi(alpha n + 1)))^(alpha n + 1/2) and (1 - 1/(xi(n+1)))^(-n-1/2) converge to "
    "e^(-xi) and e^(xi)",
    paper_value="e^(-xi), e^(xi)",
    judge=_judge_factors,
    examples=[
        (
            {
                "n": 1e8,
                "alpha": 0.15,
                "rows": [
                    {
                        "xi": 1.1,
                        "first": math.exp(-1 / 1.1),
                        "second": math.exp(1 / 1.1),
                        "displayed expression / exact": 1.0,
                    }
                ],
            },
            "differs",
        ),
        (
            {
                "n": 1e8,
                "alpha": 0.15,
                "rows": [
                    {
                        "xi": 1.1,
                        "first": math.exp(-1.1),
                        "second": math.exp(1.1),
                        "displayed expression / exact": 1.0,
                    }
                ],
            },
            "reproduced",
        ),
    ],  # fmt: skip
)
def _factors(quick: bool) -> dict:
    n, alpha = 1e8, 0.15
    rows = []
    for xi in (1.1, 2.0, 3.0):
        m = alpha * n + 1
        first = math.exp((alpha * n + 0.5) * math.log1p(-1 / (xi * m)))
        second = math.exp((-n - 0.5) * math.log1p(-1 / (xi * (n + 1))))
        third = (1 - (1 - alpha) * n / (n + 1 - 1 / xi)) ** (-1 / xi)
        nn = 10**6
        exact = halbawi_proposition1_error(1.0, xi, alpha, nn, f=round((1 - alpha) * nn)).exact
        mm = alpha * nn + 1
        disp = (
            math.exp((alpha * nn + 0.5) * math.log1p(-1 / (xi * mm)))
            * math.exp((-nn - 0.5) * math.log1p(-1 / (xi * (nn + 1))))
            * (1 - (1 - alpha) * nn / (nn + 1 - 1 / xi)) ** (-1 / xi)
        )
        rows.append({"xi": xi, "first": first, "second": second, "third": third,
                     "displayed expression / exact": disp / exact})  # fmt: skip
    return {"n": n, "alpha": alpha, "rows": rows}


# ---------------------------------------------------------------------------
# Appendix 8.2


def _judge_dl(c: dict) -> Outcome:
    bad = c["instances where (d_l >= 2) != (one straggler tolerated)"]
    cmp = (
        f"exhaustive over {c['instances']:,} RS codes (n, k <= {c['nmax']}): every single "
        f"straggler tolerated (1 in the row space of every n - 1 rows of B, least squares) "
        f"exactly when d_l = floor(nw/k) >= 2 ({c['codes with d_l >= 2']:,} codes)"
    )
    return violations_outcome(c, len(bad), cmp, f"the two disagree on {bad}")


@claim(
    paper=PAPER,
    id="app8.2-dl-at-least-2",
    where="Appendix 8.2",
    statement="according to (2), d_l = floor(nw/k) >= 2 is required to tolerate a positive "
    "number of stragglers",
    paper_value="d_l >= 2",
    judge=_judge_dl,
    examples=[
        (
            {
                "instances": 5,
                "nmax": 3,
                "codes with d_l >= 2": 2,
                "instances where (d_l >= 2) != (one straggler tolerated)": [],
            },
            "reproduced",
        ),
        (
            {
                "instances": 5,
                "nmax": 3,
                "codes with d_l >= 2": 2,
                "instances where (d_l >= 2) != (one straggler tolerated)": [(3, 2, 1)],
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _dl(quick: bool) -> dict:
    nmax = 8 if quick else 12
    bad, count, dl2 = [], 0, 0
    for n, k, w in _grid(nmax):
        if n < 2:
            continue
        count += 1
        code = ReedSolomonCode(n, k, w)
        B = code.B
        tolerated = all(decodes(B, F) for F in itertools.combinations(range(n), n - 1))
        dl = n * w // k
        dl2 += int(dl >= 2)
        if (dl >= 2) != tolerated:
            bad.append((n, k, w))
    return {
        "instances": count,
        "nmax": nmax,
        "codes with d_l >= 2": dl2,
        "instances where (d_l >= 2) != (one straggler tolerated)": bad,
    }
