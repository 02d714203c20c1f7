"""The coverage study of every interval-reporting function (gctheory.coverage_study) and
its committed table (figures/coverage_study.csv, shown in docs/coverage.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gctheory.coverage_study import (
    REPLICATIONS,
    CaseResult,
    cases,
    read_csv,
    run_case,
    verdict,
)

TABLE = Path(__file__).resolve().parent.parent / "figures" / "coverage_study.csv"
CASES = {c.name: c for c in cases()}


def test_the_study_covers_every_interval_function_on_three_kinds_of_law():
    functions = {c.function for c in CASES.values()}
    for f in ("estimate_probability", "estimate_mean", "importance_sampling",
              "estimate_splitting", "delays.fit_law", "mean_of_samples (cluster.compare)",
              "sweeps combined (4 batches)"):  # fmt: skip
        assert f in functions
    for f in ("estimate_mean", "mean_of_samples (cluster.compare)", "sweeps combined (4 batches)"):
        kinds = {c.kind for c in CASES.values() if c.function == f}
        assert {"light", "skewed", "heavy"} <= kinds


def test_a_small_case_covers_and_a_wrong_truth_is_a_shortfall():
    case = CASES["probability p=0.3 n=50"]
    res = run_case(case, range(60))
    assert res.runs == 60 and verdict(res) == "ok"
    wrong = dataclasses.replace(case, truth=0.45)  # the negative control
    assert verdict(run_case(wrong, range(60))) == "SHORT, no warning"


def test_verdict_flags_a_warned_shortfall():
    r = CaseResult("x", "f", "law", "heavy", 0.95, 340, 400, 0.80, 0.89, 390)
    assert verdict(r) == "short, warned"
    assert verdict(dataclasses.replace(r, warned=10)) == "SHORT, no warning"
    assert verdict(dataclasses.replace(r, high=0.96)) == "ok"


def test_the_committed_table_has_every_case_and_no_unflagged_shortfall():
    table = {r.name: r for r in read_csv(TABLE)}
    assert set(table) == set(CASES)
    for r in table.values():
        assert r.runs >= REPLICATIONS
        assert verdict(r) != "SHORT, no warning", r


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_committed_table_recomputes(name):
    # the same seeds: the coverage recomputed lies in the committed one's interval
    committed = {r.name: r for r in read_csv(TABLE)}[name]
    res = run_case(CASES[name], range(committed.runs))
    assert committed.low <= res.fraction <= committed.high
    assert verdict(res) == verdict(committed)
