"""Ledger pins catch drift at the precision of their computation, not at a fraction of it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from paper_checks import drift_pin, interval_pin, seeded_pin
from paper_checks._framework.ledger import LEDGER_PATH

LEDGER = Path(LEDGER_PATH)


def _pins(tree: object, path: str = ""):
    if isinstance(tree, dict):
        if {"value", "rtol", "atol"} <= set(tree):
            yield path, tree
            return
        for k, v in tree.items():
            yield from _pins(v, f"{path}/{k}")


def _loose(pin: dict) -> bool:
    v, rtol, atol = pin["value"], pin["rtol"], pin["atol"]
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    return rtol >= 0.3 or (abs(v) > 1e-6 and atol >= abs(v))


def test_no_pin_in_the_ledger_is_looser_than_a_tenth_of_its_value():
    loose = [p for p, pin in _pins(json.loads(LEDGER.read_text())) if _loose(pin)]
    assert not loose, f"pins that let a 30% drift or a sign change pass: {loose}"


def test_the_loose_pin_rule_flags_what_the_ledger_used_to_hold():
    # negative control: the rule catches the shapes of pin this test was written against
    assert _loose({"value": 0.68, "rtol": 0.3, "atol": 0.0})
    assert _loose({"value": 1.64, "rtol": 0.0, "atol": 1.86})
    assert not _loose({"value": 0.68, "rtol": 1e-4, "atol": 1e-12})
    assert not _loose({"value": 0.0, "rtol": 1e-9, "atol": 1e-12})


def test_seeded_pin_tolerates_rounding_only():
    value, rtol, atol = seeded_pin(0.1045)
    assert math.isclose(0.1045 * (1 + 1e-6), value, rel_tol=rtol, abs_tol=atol)
    assert not math.isclose(0.1045 * 1.01, value, rel_tol=rtol, abs_tol=atol)
    with pytest.raises(ValueError, match="value"):
        seeded_pin(float("nan"))


def test_drift_pin_keeps_narrow_intervals_and_tightens_wide_ones():
    assert drift_pin((1.0, 0.9, 1.1)) == interval_pin((1.0, 0.9, 1.1))
    value, rtol, atol = drift_pin((0.09, -0.04, 0.22))  # interval wider than the value
    assert (value, rtol) == (0.09, 1e-4) and atol < 1e-9
