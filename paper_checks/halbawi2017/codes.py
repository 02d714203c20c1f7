"""Halbawi et al. 2017 (Reed-Solomon gradient codes): the code-construction claims.

Each check recomputes with :mod:`gctheory.codes.reed_solomon`; the paper's
printed values appear only as ``paper_value`` and in the judges' comparisons.
The theorems checked over their whole parameter range (eq. (2), Proposition 2,
Corollary 1, Lemma 1 with Algorithm 4) are in ``halbawi2017/theorems.py``.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp

from gctheory.codes.reed_solomon import (
    ReedSolomonCode,
    mask_matrix,
    row_balanced_mask_matrix,
    rs_decoding_vector,
    rs_inverse_table,
    rs_polynomials,
)
from gctheory.runtime import halbawi_optimal_f
from paper_checks import Outcome, claim
from paper_checks._framework.blas import single_threaded
from paper_checks.halbawi2017.runtime import N_CG_FIG3, T0, XI

PAPER = "halbawi2017"

# eq. (5) as printed, one string per row
EQ5 = ("1110", "1110", "1101", "1101", "1011", "1011", "0111", "0111")
# eqs. (7)-(10) as printed: the zeros of t_1..t_4 as powers of alpha
EQS7_10 = ((6, 7), (4, 5), (2, 3), (0, 1))


def _judge_eq5(c: dict) -> Outcome:
    rows = tuple(c["rows"])
    ok = rows == EQ5 and all(w == 6 for w in c["column weights"])
    bad = [i for i, (a, b) in enumerate(zip(rows, EQ5)) if a != b]
    return Outcome(
        "reproduced" if ok else "differs",
        c,
        "entrywise equality of the 8 x 4 mask with eq. (5); every column of weight nw/k = 6",
        ""
        if ok
        else f"Algorithm 1 gives rows {bad} different from eq. (5), column weights "
        f"{list(c['column weights'])}",
        key={"rows": "/".join(rows)},
    )


@claim(
    paper=PAPER,
    id="eq5-mask",
    where="Section 3.1, eq. (5) and Algorithm 1",
    statement="RowBalancedMaskMatrix(8, 4, 6, 0) generates the mask M of eq. (5), each column "
    "of weight nw/k = 6",
    paper_value=EQ5,
    judge=_judge_eq5,
    examples=[
        ({"rows": EQ5, "column weights": (6, 6, 6, 6)}, "reproduced"),
        ({"rows": ("1110",) * 8, "column weights": (8, 8, 8, 0)}, "differs"),
    ],
)
def _eq5(quick: bool) -> dict:
    M = row_balanced_mask_matrix(8, 4, 6, 0)
    return {
        "rows": tuple("".join(str(int(v)) for v in r) for r in M),
        "column weights": tuple(int(x) for x in M.sum(axis=0)),
    }


def _judge_eqs7_10(c: dict) -> Outcome:
    zeros = tuple(tuple(z) for z in c["zeros (powers of alpha)"])
    ok = zeros == EQS7_10 and c["t_j(0) == 1"]
    cause = ""
    if not ok:
        cause = (
            f"Algorithm 2's polynomials vanish at powers {zeros} (eqs. (7)-(10): {EQS7_10}); "
            f"constant terms all 1: {c['t_j(0) == 1']}"
        )
    return Outcome(
        "reproduced" if ok else "differs",
        c,
        "roots of the computed t_j (numpy.roots) mapped to powers of alpha = exp(2 pi i/8)",
        cause,
        key={"zeros": str(zeros), "t_j(0) == 1": bool(c["t_j(0) == 1"])},
    )


@claim(
    paper=PAPER,
    id="eqs7-10-polynomials",
    where="Section 3.3, eqs. (7)-(10) and Algorithm 2",
    statement="for M of eq. (5) the columns of B are t_1..t_4 with zeros at alpha^{6,7}, "
    "alpha^{4,5}, alpha^{2,3} and {1, alpha}, scaled so that t_j(0) = 1",
    paper_value=EQS7_10,
    judge=_judge_eqs7_10,
    examples=[
        ({"zeros (powers of alpha)": EQS7_10, "t_j(0) == 1": True}, "reproduced"),
        ({"zeros (powers of alpha)": ((0, 1),) * 4, "t_j(0) == 1": True}, "differs"),
        ({"zeros (powers of alpha)": EQS7_10, "t_j(0) == 1": False}, "differs"),
    ],
)
def _eqs7_10(quick: bool) -> dict:
    T = rs_polynomials(mask_matrix(8, 4, 3))
    zeros = []
    for j in range(4):
        roots = np.roots(T[::-1, j])  # np.roots wants the leading coefficient first
        idx = sorted(int(round(np.angle(r) / (2 * np.pi / 8))) % 8 for r in roots)
        zeros.append(tuple(idx))
    return {"zeros (powers of alpha)": tuple(zeros), "t_j(0) == 1": bool(np.all(T[0] == 1))}


_EQ14_TOL = 1e-12  # double precision on f <= 60 products of table entries


def _judge_eq14(c: dict) -> Outcome:
    worst = c["max relative deviation from mpmath (40 digits)"]
    ok = worst < _EQ14_TOL
    return Outcome(
        "reproduced" if ok else "differs",
        c,
        f"Algorithm 3's vector vs the first row of G_F^-1 solved in mpmath at 40 digits: "
        f"largest relative deviation {worst:.1e} < {_EQ14_TOL:g} (the survivors indexed "
        "consistently: Algorithm 3's loop mixes l = 1..f with j = 0..f-1)",
        "" if ok else f"Algorithm 3 deviates from the first row of G_F^-1 by {worst:.1e}",
        key={"cases": len(c["cases (n, f)"])},
    )


@claim(
    paper=PAPER,
    id="eq14-alg3-first-row",
    where="Section 4.1, eqs. (12)-(14), Algorithm 3",
    statement="a_l = prod_{j != l} (1 - alpha^{i_l - i_j})^{-1} is the first row of G_F^{-1}, "
    "so a^T G_F = e_1 (eq. (12)), which gives a^T B_F = 1 since t_j(0) = 1",
    paper_value="a^T G_F = e_1",
    judge=_judge_eq14,
    examples=[
        (
            {"cases (n, f)": [(20, 8)], "max relative deviation from mpmath (40 digits)": 4e-15},
            "reproduced",
        ),
        (
            {"cases (n, f)": [(20, 8)], "max relative deviation from mpmath (40 digits)": 0.3},
            "differs",
        ),
    ],
)
def _eq14(quick: bool) -> dict:
    rng = np.random.default_rng(14)
    worst = 0.0
    cases = [(20, 8), (33, 17)] if quick else [(20, 8), (33, 17), (64, 40), (101, 60)]
    with mp.workdps(40):
        for n, f in cases:
            F = [int(i) for i in rng.permutation(n)[:f]]
            a = rs_decoding_vector(F, n)
            alpha = mp.exp(2j * mp.pi / n)
            G = mp.matrix(f, f)
            for r, i in enumerate(F):
                for col in range(f):
                    G[r, col] = alpha ** (i * col)
            ref = mp.lu_solve(G.T, mp.matrix([1] + [0] * (f - 1)))
            rel = max(abs(complex(ref[i]) - a[i]) for i in range(f)) / max(
                abs(complex(ref[i])) for i in range(f)
            )
            worst = max(worst, float(rel))
    return {"cases (n, f)": cases, "max relative deviation from mpmath (40 digits)": worst}


def _judge_fig2_n80(c: dict) -> Outcome:
    f_opt = c["f_opt of (17), n = 80 (c_m = 0)"]
    decodes = c["max |a^T G_F - e_1| at 30 digits"] < 1e-20 and c["t_j(0) = 1 for all j"]
    ok = f_opt == F_RS_PRINTED and c["f"] == f_opt and decodes
    cmp = (
        f"f derived, not typed: the exact optimum of (17) at n = 80 with Section 6's t0, xi and "
        f"Figure 3's N c_g = 0.035 (Figure 2 gives no c_g) is f = {f_opt}, so s = n - f = "
        f"{c['s']} and, with k = n, w = s + 1 = {c['w']}; the code (80, 80, {c['w']}) waits for "
        f"f = {c['f']}; exact recovery from one random f-set checked at 30 digits (residual "
        f"{c['max |a^T G_F - e_1| at 30 digits']:.1e} < 1e-20); double precision loses digits "
        f"to the size of B (max |B| = {c['max |B|']:.2e}; relative error up to "
        f"{c['float64 relative error, max']:.1e} over the random survivor sets)"
    )
    key = {"f_opt of (17)": (f_opt, 0), "f": (c["f"], 0)}
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    if not decodes:
        cause = (
            f"the code built for the derived f = {c['f']} does not decode exactly (30-digit "
            f"residual {c['max |a^T G_F - e_1| at 30 digits']:.1e})"
        )
    else:
        cause = (
            f"the optimum of (17) at n = 80 is f = {f_opt}, not {F_RS_PRINTED}: an RS code "
            f"with w = {c['w']} waits for {c['f']} machines"
        )
    return Outcome("differs", c, cmp, cause, key=key)


F_RS_PRINTED = 68  # Figure 2 caption: compared with, never computed from


@claim(
    paper=PAPER,
    id="fig2-n80-f68",
    where="Section 6, Fig. 2",
    statement="the RS scheme on n = 80 machines, with f obtained by optimising (17), recovers "
    "the full gradient from the fastest f_RS = 68 (k = n = 80; w = s + 1 follows from f)",
    paper_value="f_RS = 68 of n = 80",
    judge=_judge_fig2_n80,
    examples=[
        (
            {
                "f_opt of (17), n = 80 (c_m = 0)": 68,
                "w": 13,
                "s": 12,
                "f": 68,
                "max |a^T G_F - e_1| at 30 digits": 1e-29,
                "t_j(0) = 1 for all j": True,
                "float64 relative error, max": 4e-5,
                "max |B|": 3e9,
            },
            "reproduced",
        ),
        (
            {
                "f_opt of (17), n = 80 (c_m = 0)": 70,
                "w": 11,
                "s": 10,
                "f": 70,
                "max |a^T G_F - e_1| at 30 digits": 1e-29,
                "t_j(0) = 1 for all j": True,
                "float64 relative error, max": 4e-5,
                "max |B|": 3e9,
            },
            "differs",
        ),
        (
            {
                "f_opt of (17), n = 80 (c_m = 0)": 68,
                "w": 13,
                "s": 12,
                "f": 68,
                "max |a^T G_F - e_1| at 30 digits": 1e-3,
                "t_j(0) = 1 for all j": True,
                "float64 relative error, max": 4e-5,
                "max |B|": 3e9,
            },
            "differs",
        ),
    ],  # fmt: skip
)
def _fig2(quick: bool) -> dict:
    # f from the paper's own optimisation (17) (Section 6's t0, xi; Figure 3's N c_g), then
    # s = n - f and, with k = n, w = k (s + 1) / n = s + 1: nothing is solved from the printed 68
    f_opt = halbawi_optimal_f(80, t0=T0, xi=XI, n_cg=N_CG_FIG3, decoding="none").f
    w = 80 - f_opt + 1
    code = ReedSolomonCode(80, 80, w)
    rng = np.random.default_rng(80)
    g = rng.standard_normal((80, 4))
    Y = code.encode(g)
    errs = []
    trials = 20 if quick else 200
    for _ in range(trials):
        F = list(rng.permutation(80)[: code.f])
        res = code.decode_detail(F, Y[F], check=False, on_noise="ignore")  # error measured below
        errs.append(np.max(np.abs(res.gradient - g.sum(0))) / np.max(np.abs(g.sum(0))))
    # exact arithmetic for one set: B = G T with T[0, :] = 1 (Algorithm 2), so a^T B_F = 1
    # iff a^T G_F = e_1 (eq. (12)); check Algorithm 3's products at 30 digits
    F = [int(i) for i in rng.permutation(80)[: code.f]]
    with mp.workdps(30):
        alpha = mp.exp(2j * mp.pi / 80)
        pw = [alpha**m for m in range(80)]
        inv = [None] + [1 / (1 - pw[m]) for m in range(1, 80)]
        a = []
        for l in F:
            p = mp.mpf(1)
            for j in F:
                if j != l:
                    p *= inv[(l - j) % 80]
            a.append(p)
        resid = 0
        for col in range(code.f):
            tot = mp.fsum(al * pw[(i * col) % 80] for al, i in zip(a, F))
            resid = max(resid, abs(tot - (1 if col == 0 else 0)))
    return {
        "f_opt of (17), n = 80 (c_m = 0)": int(f_opt),
        "w": int(w),
        "s": int(code.s),
        "f": int(code.f),
        "max |a^T G_F - e_1| at 30 digits": float(resid),
        "t_j(0) = 1 for all j": bool(np.all(code.polynomials[0] == 1)),
        "float64 relative error, median": float(np.median(errs)),
        "float64 relative error, max": float(np.max(errs)),
        "max |B|": float(np.abs(code.B).max()),
    }


_SLOPE_WINDOW = (1.9, 2.1)  # O(f^2): an operation-count exponent of 2 (a generic solve: 3)


class _CountingTable(np.ndarray):
    """An ``rs_inverse_table`` that counts the entries read from it (and from arrays
    derived from it by ufuncs, such as its logarithm): Algorithm 3's table look-ups,
    counted rather than timed, so the verdict is the same on every machine."""

    reads = 0

    def __getitem__(self, index):
        out = super().__getitem__(index)
        _CountingTable.reads += int(np.size(out))
        return out


def _judge_alg3_time(c: dict) -> Outcome:
    slope = c["fitted exponent"]
    lo, hi = _SLOPE_WINDOW
    ok = lo <= slope <= hi
    reads = c["table look-ups"]
    return Outcome(
        "reproduced" if ok else "differs",
        c,
        f"table look-ups of Algorithm 3 (rs_decoding_vector) for f = {c['f'][0]}..{c['f'][-1]} "
        f"(n = {c['n']}): {reads[0]}..{reads[-1]}; log-log slope {slope:.3f}, judged against "
        f"[{lo}, {hi}]",
        "" if ok else f"the number of operations grows like f^{slope:.2f}, not f^2",
        key={"fitted exponent": (slope, 0.01)},
    )


@claim(
    paper=PAPER,
    id="internal-alg3-quadratic-time",
    where="internal check of gctheory, standing in for Section 1.2 (contribution 2), Section 4, "
    "Algorithm 3",
    statement="gctheory's implementation of Algorithm 3 (rs_decoding_vector) reads the inverse "
    "table f (f - 1) times: operation-count exponent 2 (a check of gctheory's code, not of "
    "the paper)",
    paper_value=2,
    judge=_judge_alg3_time,
    examples=[
        (
            {
                "f": [500, 2000],
                "n": 4000,
                "table look-ups": [250000, 4000000],
                "fitted exponent": 2.0,
            },
            "reproduced",
        ),
        (
            {"f": [500, 2000], "n": 4000, "table look-ups": [1.25e8, 8e9], "fitted exponent": 3.0},
            "differs",
        ),
    ],  # fmt: skip
)
def _alg3_time(quick: bool) -> dict:
    # the operation count, not the time: CPU timings on a shared machine gave exponents
    # 1.8..2.1 from run to run; the count is exact and the same everywhere
    fs = [250, 500, 1000, 2000]
    n = 4000
    rng = np.random.default_rng(3)
    table = rs_inverse_table(n).view(_CountingTable)
    reads = []
    for f in fs:
        _CountingTable.reads = 0
        a = rs_decoding_vector(rng.permutation(n)[:f], n, table=table)
        assert a.shape == (f,)
        reads.append(int(_CountingTable.reads))
    slope = float(np.polyfit(np.log(fs), np.log(reads), 1)[0])
    return {"f": fs, "n": n, "table look-ups": reads, "fitted exponent": slope}


# The paper's comparison (Section 4): Algorithm 3 in O(f^2) "compared to previous works [18]
# where the decoding time is usually O(f^3)". Both decoders solve the same system
# G_F^T a = e_1 (eq. (12)): Algorithm 3, and the generic solve [18] uses (Gaussian
# elimination with partial pivoting, LAPACK's getrf/getrs). The verdict counts the
# multiply-adds each one executes (Algorithm 3's table look-ups; the elimination's row
# updates, counted from the slices it updates), so it is the same on every machine and
# under any load; wall times of Algorithm 3 and LAPACK's solve are reported beside it,
# never judged (on a loaded machine their exponents moved from 2.1 to 2.5).
_F3_FS = (64, 128, 256, 512)
_F3_GAP = 0.5  # the exponents must differ by at least half of the stated 1


def _judge_f3(c: dict) -> Outcome:
    a, g = c["count exponent, Algorithm 3"], c["count exponent, generic solve"]
    ratio = c["generic / Algorithm 3 multiply-adds, per f"]
    fs = list(ratio)
    grows = ratio[fs[-1]] > ratio[fs[0]]
    ok = g - a >= _F3_GAP and grows and ratio[fs[-1]] > 1
    cmp = (
        f"multiply-adds counted while computing one decoding vector at n = {c['n']}, "
        f"f = {fs[0]}..{fs[-1]}: log-log exponent {a:.3f} for Algorithm 3 (table look-ups), "
        f"{g:.3f} for the generic solve of [18] (Gaussian elimination with partial pivoting); "
        "generic/Algorithm 3 count "
        + ", ".join(f"{r:.1f} (f = {f})" for f, r in ratio.items())
        + f"; reproduced iff the exponents differ by >= {_F3_GAP} and the ratio grows with f "
        "(wall times reported as information only)"
    )
    key = {"count exponent gap": (g - a, 0.001)}
    if ok:
        return Outcome("reproduced", c, cmp, key=key)
    return Outcome(
        "differs",
        c,
        cmp,
        f"Algorithm 3's operation count does not grow one power of f slower than the generic "
        f"solve's (exponents {a:.2f} and {g:.2f})",
        key=key,
    )


def _f3_example(a: float, g: float, r: tuple) -> dict:
    return {
        "n": 2000,
        "count exponent, Algorithm 3": a,
        "count exponent, generic solve": g,
        "generic / Algorithm 3 multiply-adds, per f": dict(zip(_F3_FS, r)),
    }


def _elimination_solve_counted(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """``A x = b`` by Gaussian elimination with partial pivoting (what LAPACK's getrf and
    getrs do, unblocked), with the number of multiply-adds it executed, counted from the
    sizes of the slices each step updates."""
    A = np.array(A, dtype=complex)
    x = np.array(b, dtype=complex)
    f = x.size
    ops = 0
    for k in range(f - 1):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        if p != k:
            A[[k, p]] = A[[p, k]]
            x[[k, p]] = x[[p, k]]
        m = A[k + 1 :, k] / A[k, k]
        update = np.outer(m, A[k, k + 1 :])
        A[k + 1 :, k + 1 :] -= update
        x[k + 1 :] -= m * x[k]
        ops += int(update.size) + int(m.size)
    for i in range(f - 1, -1, -1):
        tail = A[i, i + 1 :]
        x[i] = (x[i] - tail @ x[i + 1 :]) / A[i, i]
        ops += int(tail.size)
    return x, ops


def _best_time(fn, repeats: int = 3) -> float:
    import time

    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


@claim(
    paper=PAPER,
    id="alg3-quadratic-time",
    where="Section 1.2 (contribution 2), Section 4, Algorithm 3",
    statement="each decoding vector is computed in O(f^2) time, an improvement over the O(f^3) "
    "decoding of previous works [18] (operations counted against a generic solve of the "
    "same system)",
    paper_value="O(f^2) vs O(f^3)",
    judge=_judge_f3,
    examples=[
        (_f3_example(2.0, 2.98, (10.4, 21.0, 42.3, 84.9)), "reproduced"),
        (_f3_example(2.9, 3.0, (1.2, 1.1, 1.2, 1.1)), "differs"),
        (_f3_example(2.0, 2.3, (1.2, 1.3, 1.5, 1.7)), "differs"),
    ],
)
@single_threaded
def _f3(quick: bool) -> dict:
    n = 2000
    table = rs_inverse_table(n)
    counting = table.view(_CountingTable)
    rng = np.random.default_rng(4)
    alpha = np.exp(2j * np.pi / n)
    ca, cg, ta, tg, residual = [], [], [], [], 0.0
    for f in _F3_FS:
        F = np.sort(rng.permutation(n)[:f])
        GT = (alpha ** np.outer(F, np.arange(f))).T  # G_F^T, eq. (12)
        e1 = np.zeros(f, complex)
        e1[0] = 1
        _CountingTable.reads = 0
        a = rs_decoding_vector(F, n, table=counting)
        ca.append(int(_CountingTable.reads))
        x, ops = _elimination_solve_counted(GT, e1)
        cg.append(ops)
        residual = max(residual, float(np.abs(GT @ x - e1).max()))
        assert a.shape == x.shape == (f,)
        ta.append(_best_time(lambda F=F: rs_decoding_vector(F, n, table=table)))
        tg.append(_best_time(lambda GT=GT, e1=e1: np.linalg.solve(GT, e1)))
    lf = np.log(_F3_FS)
    return {
        "n": n,
        "count exponent, Algorithm 3": float(np.polyfit(lf, np.log(ca), 1)[0]),
        "count exponent, generic solve": float(np.polyfit(lf, np.log(cg), 1)[0]),
        "generic / Algorithm 3 multiply-adds, per f": {f: b / a for f, a, b in zip(_F3_FS, ca, cg)},
        "multiply-adds, Algorithm 3": dict(zip(_F3_FS, ca)),
        "multiply-adds, generic solve": dict(zip(_F3_FS, cg)),
        "largest residual of the counted elimination": residual,
        "wall time exponent, Algorithm 3 (information)": float(np.polyfit(lf, np.log(ta), 1)[0]),
        "wall time exponent, LAPACK solve (information)": float(np.polyfit(lf, np.log(tg), 1)[0]),
    }
