"""kadhe2019 paper checks: compute helpers, and theorem searches flagging counterexamples."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from gctheory import ldpc
from gctheory.codes.commfr import commfr_code
from gctheory.codes.ye_abbe import YeAbbeCode
from gctheory.conditioning import kappa_condition
from paper_checks._framework.range_search import search
from paper_checks.kadhe2019.codes import _worst_commfr_pattern, decode_blocks
from paper_checks.kadhe2019.ldpc import _right_regular
from paper_checks.kadhe2019.theorems import (
    eq8_evaluate,
    lemma1_bound,
    lemma1_evaluate,
    thm1_evaluate,
    thm2_evaluate,
)


def test_search_refines_and_reports_counterexamples():
    # statement "x <= 10" on integers: slack (10 - x)/10, refinement walks up to the edge
    def evaluate(x):
        return x <= 10, (10 - x) / 10, f"x = {x}"

    out = search(evaluate, [0, 4], lambda x: [x + 3], rounds=3, top=1)
    # grid 0, 4; then 7 (from 4), 10 (from 7), 13 (from 10): one step per round
    assert out["grid points"] == 2 and out["refined points"] == 3
    assert out["instances"] == 4 and out["smallest slack"] == 0.0 and out["at"]["point"] == 10
    assert out["counterexample count"] == 1 and out["counterexamples"][0]["point"] == 13


def test_decoder_solves_min_m_s_blocks_commfr_and_n_minus_s_ye_abbe():
    code = commfr_code(18, 18, 9, 3, family="systematic", rng=1)  # m = 3, s = 6
    assert decode_blocks(code, _worst_commfr_pattern(code)) == [3, 3]  # min(m, s), 2 groups
    assert decode_blocks(code, [0]) == [1]  # one erased systematic coordinate: a 1 x 1 solve
    ya = YeAbbeCode(12, 3, 3, V="gaussian", rng=0)
    assert decode_blocks(ya, [0, 1, 2]) == [9]  # the (n - s) x (n - s) system V_T


def test_right_regular_ensemble_is_a_distribution_near_capacity():
    lam = _right_regular(6, 12)
    assert sum(lam.values()) == 1  # exact Fractions
    assert all(v > 0 for v in lam.values())
    R = float(ldpc.design_rate(lam, {6: Fraction(1)}))
    th = ldpc.bec_threshold({d: float(v) for d, v in lam.items()}, {6: 1.0})
    assert th.eps < 1 - R and th.eps / (1 - R) > 0.95  # close to capacity, never above


def test_theorem1_check_flags_a_broken_statement():
    point = (4, 2, 2, 1, "gaussian", 0)  # a [4, 2, 3] Gaussian code, two groups
    assert thm1_evaluate(point)[0] is True
    ok, slack, detail = thm1_evaluate(point, lambda n, k, N, K, delta: (k * N // n, K, delta))
    assert ok is False and "every s-set decodes False" in detail


def test_lemma1_check_flags_a_smaller_constant():
    # square matrices: P(cond > x n) ~ 2/x, Chen-Dongarra's bound 6.414/(sqrt(2 pi) x) = 2.56/x
    assert lemma1_evaluate((16, 16, 30.0), 4000)[0] is True
    ok, slack, _ = lemma1_evaluate((16, 16, 30.0), 4000, lambda u, v, x: lemma1_bound(u, v, x, 4.0))
    assert ok is False and slack < 0  # C = 4 < 5.013, below Chen-Dongarra's own lower limit


def test_theorem2_check_flags_a_perturbed_bound():
    assert thm2_evaluate((1, 3, 0.5, 1.01), 3000)[0] is True
    assert thm2_evaluate((1, 3, 0.5, 1.01), 3000, scale=0.05)[0] is False


def test_eq8_check_flags_a_weakened_condition():
    assert eq8_evaluate((3, 5, 0.1, 1 + 1e-9))[0] is True
    half = lambda s, m, e: kappa_condition(s, m, e) * 0.5  # noqa: E731
    assert eq8_evaluate((3, 5, 0.1, 1 + 1e-9), half)[0] is False
    assert np.isfinite(eq8_evaluate((3, 5, 0.1, 1.5))[1])
