"""Checks of issue-16 sources on their computed numbers: each can fail, and its control bites."""

from __future__ import annotations

import pytest

import paper_checks.glasgow2021.optimal_decoding as gw
import paper_checks.kadhe2019bibd.designs as kb


@pytest.fixture(scope="module")
def glasgow_quick():
    return gw._random(True)


def test_glasgow_section5_control_rejects_the_wrong_target(glasgow_quick):
    c = glasgow_quick
    ctl = c["control"]
    assert not ctl["in regime"]  # p = 0.8 is outside conditions (1)-(4)
    assert ctl["r high"] < ctl["wrong target"]  # components break: E[alpha] surely < 1 - 6/n
    assert gw._judge_random(c).verdict == "reproduced"


def test_glasgow_section5_flips_on_the_computed_numbers(glasgow_quick):
    c = glasgow_quick
    (pt,) = c["points"]
    # a bound the draws cannot clear: the Clopper-Pearson end U is above 6/n + t
    tight = {**pt, "var upper bound": pt["U"] / 2}
    assert gw._judge_random({**c, "points": [tight]}).verdict == "not checkable"
    # a bound the Monte Carlo refutes: E[alpha] surely below it
    high = {**pt, "r lower bound": pt["r high"] + 0.01}
    assert gw._judge_random({**c, "points": [high]}).verdict == "differs"


def test_bibd_count_only_check_sees_its_control():
    c = kb._only_count(True)
    assert c["max spread"] <= c["tolerance"] < c["control spread"]
    assert kb._judge_only_count(c).verdict == "reproduced"
    assert kb._judge_only_count({**c, "max spread": c["control spread"]}).verdict == "differs"
