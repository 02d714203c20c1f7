"""The theorem checks of zhang2020 find counterexamples when fed a broken statement."""

from __future__ import annotations

import math

import pytest

from paper_checks.zhang2020 import codes as codes
from paper_checks.zhang2020 import runtime as rt


def test_eqs21_22_hold_and_a_wrong_formula_is_flagged():
    assert rt.verify_eqs21_22(8, quad_points=1)["counterexample"] is None
    # H_n - H_k: decreasing in k, not an order statistic's mean
    bad = rt.verify_eqs21_22(
        8, eq21=lambda n, k, mean: mean * sum(1 / j for j in range(k + 1, n + 1)), quad_points=0
    )
    assert "not increasing" in bad["counterexample"]


def test_gc_tolerance_is_exactly_r_minus_1():
    assert codes.verify_gc_tolerance(5)["counterexample"] is None
    assert codes.verify_gc_tolerance(5, tolerance=lambda n, r: r)["counterexample"] is not None
    fewer = codes.verify_gc_tolerance(5, tolerance=lambda n, r: max(r - 2, 0))
    assert "still decode" in fewer["counterexample"]


def test_rank_of_intervals():
    est = {"G-LAG": (1.0, 0.9, 1.1), "GD": (2.0, 1.9, 2.1)}
    assert rt.rank(est) == ("best", [])
    assert rt.rank({**est, "LAG": (0.5, 0.4, 0.6)}) == ("beaten", ["LAG"])
    assert rt.rank({**est, "LAG": (1.05, 1.0, 1.2)})[0] == "unresolved"


def test_eq19_flags_a_too_fast_rate():
    pytest.importorskip("sklearn")  # the digits data, not a project module
    from paper_checks.zhang2020 import training as tr

    assert tr.verify_eq19((0.1,), 60)["counterexample"] is None
    # a rate ten times faster than (1 - mu/L) is not what GD achieves
    fast = tr.verify_eq19((0.1,), 60, bound=lambda k, g0, mu, L: (1 - 10 * mu / L) ** k * g0)
    assert fast["counterexample"] is not None
    assert math.isfinite(fast["smallest slack"])


def test_group_size_times_match_the_closed_forms():
    from paper_checks.zhang2020 import stragglers as st

    h = lambda j: sum(1 / i for i in range(1, j + 1))  # noqa: E731
    # one group of 12 with r = 3 is GC: the 10th of 12 Exp(mean 3), eq. (21)
    assert math.isclose(st.lagc_time(12, 3, 12, "exponential"), 3 * (h(12) - h(2)), rel_tol=1e-9)
    # groups of r = 3 are G-LAG: the max of 4 Exp(1) (min of 3 Exp(mean 3))
    assert math.isclose(st.lagc_time(12, 3, 3, "exponential"), h(4), rel_tol=1e-7)
    # a group smaller than r stores its partition only: load 2, the max of 6 Exp(1)
    assert math.isclose(st.lagc_time(12, 3, 2, "exponential"), h(6), rel_tol=1e-7)
    assert st.worst_case_tolerance(3, 12) == 2 and st.worst_case_tolerance(3, 1) == 0
