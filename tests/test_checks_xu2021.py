"""The theorem checks of xu2021 find counterexamples when fed a broken statement."""

from __future__ import annotations

import pytest

from paper_checks.xu2021 import runtime as rt
from paper_checks.xu2021 import theorems as th


def test_lemma1_holds_tightly_and_a_bound_without_delta_is_flagged():
    ok = th.verify_lemma1(30)
    assert ok["counterexample"] is None
    assert ok["smallest slack"] < 1e-9  # the adversarial deviations attain delta^2
    no_delta = th.verify_lemma1(30, bounds=lambda N, K, b2, s2: ((N - K) / (N * K) * s2, s2 / K))
    assert no_delta["counterexample"] is not None


def test_lemma1_monte_carlo_twin_contains_the_exact_value():
    out = th.verify_lemma1(5, mc=4000)
    assert out["Monte Carlo twins"]
    for row in out["Monte Carlo twins"]:
        assert row["MC low (99%)"] <= row["exact"] <= row["MC high (99%)"]


def test_p_monotonicity_holds_and_a_reversed_direction_is_flagged():
    assert rt.verify_p_monotonicity(100)["counterexample"] is None
    rev = rt.verify_p_monotonicity(100, directions={"t": -1})
    assert rev["counterexample"] is not None


@pytest.mark.parametrize("which", ["thm1", "prop1", "thm2"])
def test_convergence_bound_check_flags_a_shrunk_bound(which):
    pytest.importorskip("sklearn")  # the digits data, not a project module
    consts = th._constants(True)
    pt = {"N": 10, "K": 7, "c": 3, "m": 32, "eta factor": 1.0, "T": 15}
    good = th.evaluate_point(which, pt, 2, consts)
    assert good["LHS high"] < good["bound"]
    paper = th.THEOREMS[which][3]
    bad = th.evaluate_point(which, pt, 2, consts, bound=lambda p: 0.01 * paper(p))
    out = th.summarise_bound_rows([good, bad], 2)
    assert out["counterexample"] is not None and out["smallest slack"] < 0
