"""wang2019 paper checks: compute helpers, and theorem searches flagging counterexamples."""

from __future__ import annotations

import math

import numpy as np

from gctheory import load_bounds as lb
from paper_checks.wang2019.ldpc import c54_evaluate, thm6_evaluate
from paper_checks.wang2019.theorems import (
    _max_disjoint,
    _projective_plane,
    lemma1_evaluate,
    lemma1_minima,
    lemma2_evaluate,
    lemma3_evaluate,
    stirling_evaluate,
    thm1_evaluate,
    thm3_evaluate,
    thm4_evaluate,
    thm5_evaluate,
)


def test_lemma1_minima_small_case():
    # n = 4, d = 2, s = 2: the FRC-like rows {1,2},{1,2},{3,4},{3,4} fail only when both
    # holders of a block straggle, 2 of C(4, 2) = 6 sets (enumeration by hand)
    m = lemma1_minima(4, 2, 2)
    assert m["C(n, s)"] == 6 and m["min over A"] == 2 and m["min over U"] == 2
    assert lemma1_evaluate((4, 2, 2))[0] is True
    # a perturbed statement (the minimum over U one set smaller) is flagged
    assert lemma1_evaluate((4, 2, 2), lambda u: u - 1)[0] is False


def test_lemma2_planes_and_a_broken_bound():
    P = _projective_plane(2)  # the Fano plane: 7 points, 7 lines of 3 points
    assert P.shape == (7, 7) and (P.sum(axis=0) == 3).all() and (P.sum(axis=1) == 3).all()
    assert _max_disjoint(P) == 1  # any two lines meet
    assert _max_disjoint(np.kron(np.eye(3, dtype=np.int8), P)) == 3
    assert lemma2_evaluate(("planes", 2, 9, 0))[0] is True  # 9 >= floor(63/9) = 7
    assert lemma2_evaluate(("planes", 2, 9, 0), lambda n, d: n // d)[0] is False


def test_theorem1_check_flags_a_lower_bound_above_the_frc_load():
    assert thm1_evaluate((1000, 100))[0] is True
    doubled = lambda n, s: 2 * lb.exact_recovery_lower_bound(n, s, warn=False).value  # noqa: E731
    ok, slack, _ = thm1_evaluate((1000, 100), doubled)
    assert ok is False and slack < 0
    assert thm1_evaluate(("limit", "every delta"))[0] is True  # sympy: (14)/(13) -> 1


def test_theorem3_4_5_checks_flag_perturbed_statements():
    assert thm3_evaluate((1000, 100))[0] is True
    assert thm3_evaluate((1000, 100), floor=0.99)[0] is False  # bound 0.927 at load 2
    assert thm4_evaluate((1000, 0.1))[0] is True
    # one load less than eq. (14): P(fail) 0.29 > the proof's (g) = 0.12
    one_less = lambda n, s: lb.frc_load(n, s, warn=False).load - 1  # noqa: E731
    ok, slack, _ = thm4_evaluate((1000, 0.1), one_less)
    assert ok is False and slack < 0
    assert thm5_evaluate((1000, 100, 0.2))[0] is True
    assert thm5_evaluate((1000, 100, 0.2), target=1.01)[0] is False


def test_lemma3_truncated_sum_fails_where_many_groups_straggle():
    ok, _, d = lemma3_evaluate((400, 200, 2, "1"))
    assert ok is False and d["truncated sum"] > 1e6  # partial sums far above 1
    assert lemma3_evaluate((1000, 100, 4, "proof: k = n^0.6"))[0] is True


def test_condition54_and_stirling():
    assert c54_evaluate(0.1)[0] is True
    assert c54_evaluate(0.1, overhead_scale=0.5)[0] is False  # half the overhead: (54) fails
    ok, slack, _ = stirling_evaluate(10)
    # log 10! - log(sqrt(20 pi)(10/e)^10) ~ 1/120 (Stirling series), the upper gap far smaller
    assert ok and 0 < slack < 1 / 120


def test_theorem6_counterexample_where_condition53_fails():
    ok, slack, d = thm6_evaluate((0.2, 0.35), 600, 110)
    assert ok is False and d["(53)"] == "fails" and d["LT residual"] > 0.2
    assert math.isclose(slack, (0.2 - d["LT residual"]) / 0.2, rel_tol=1e-4)


def test_submultiplicative_step_flags_a_smaller_norm():
    from paper_checks._framework.range_search import search
    from paper_checks.wang2019.theorems import _sub_grid, submultiplicative_evaluate

    grid = _sub_grid(True)
    ok = search(submultiplicative_evaluate, grid)
    assert ok["counterexample count"] == 0 and ok["instances"] == len(grid)
    fro = search(lambda p: submultiplicative_evaluate(p, "frobenius"), grid)
    assert fro["counterexample count"] == 0  # ||g||_F >= ||g||_2: holds a fortiori
    broken = search(lambda p: submultiplicative_evaluate(p, "mean gradient"), grid)
    assert broken["counterexample count"] > 0


def test_appD_step_f_breaks_with_a_smaller_cut():
    """Step (f)'s bound needs k = n^0.6; with k = n^0.2 the first dropped term exceeds it."""
    from paper_checks.wang2019.proofs import stepf_evaluate

    assert stepf_evaluate((10**6, 0.1))[0] is True
    assert stepf_evaluate((10**6, 0.1), k_exp=0.2)[0] is False
