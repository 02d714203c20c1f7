"""The ledger of expected verdicts: a changed verdict or key number fails the run."""

from __future__ import annotations

import json

import pytest

from gctheory.cli import main
from paper_checks import Outcome, interval_pin
from paper_checks._framework.ledger import (
    LEDGER_PATH,
    compare_ledger,
    format_diffs,
    load_ledger,
    updated_ledger,
)
from paper_checks._framework.registry import Claim, run_claims
from tests._shared_runs import use_claims_once


def _claims(value):
    def check(quick):
        ok = value == 4
        return Outcome(
            "reproduced" if ok else "differs",
            value,
            cause="" if ok else "not four",
            key={"x": (value, 0.01), "label": "four" if ok else "other"},
        )

    return [Claim("wang2019", "a", "Sec. 1", "two and two", 4, check)]


def test_update_then_compare_is_clean():
    res = run_claims(_claims(4))
    led = updated_ledger(res, {}, quick=False)
    assert led["wang2019:a"]["verdict"] == "reproduced"
    assert led["wang2019:a"]["key"]["x"] == {"value": 4, "rtol": 0.01, "atol": 0.0}
    assert compare_ledger(res, led, quick=False, complete=True) == []


def test_changed_verdict_and_key_numbers_are_reported():
    led = updated_ledger(run_claims(_claims(4)), {}, quick=False)
    diffs = compare_ledger(run_claims(_claims(5)), led, quick=False, complete=True)
    assert [(d.claim, d.expected, d.got) for d in diffs] == [
        ("wang2019:a", "reproduced", "differs")
    ]
    assert "not four" in diffs[0].why
    # same verdict, key number outside its tolerance
    led["wang2019:a"]["key"]["x"]["value"] = 4.1
    diffs = compare_ledger(run_claims(_claims(4)), led, quick=False, complete=True)
    assert len(diffs) == 1 and "rtol 0.01" in diffs[0].why
    # a quick run compares verdicts only
    assert compare_ledger(run_claims(_claims(4)), led, quick=True, complete=True) == []
    assert "wang2019:a" in format_diffs(diffs)


def test_new_and_removed_claims_are_differences():
    res = run_claims(_claims(4))
    diffs = compare_ledger(res, {}, quick=False, complete=True)
    assert diffs[0].why == "new claim"
    led = {"xu2021:gone": {"verdict": "reproduced"}, **updated_ledger(res, {}, quick=False)}
    diffs = compare_ledger(res, led, quick=False, complete=True)
    assert [d.claim for d in diffs] == ["xu2021:gone"]
    assert compare_ledger(res, led, quick=False, complete=False) == []


def test_quick_verdict_is_recorded_only_where_it_differs():
    led = updated_ledger(run_claims(_claims(4)), {}, quick=False)
    led2 = updated_ledger(run_claims(_claims(5)), led, quick=True)
    assert led2["wang2019:a"] == {**led["wang2019:a"], "quick_verdict": "differs"}
    assert compare_ledger(run_claims(_claims(5)), led2, quick=True, complete=True) == []


def test_committed_ledger_names_every_registered_claim():
    import paper_checks

    ledger = load_ledger()
    keys = {c.key for c in paper_checks.all_claims()}
    assert keys == set(ledger), (
        f"claims without a ledger entry: {sorted(keys - set(ledger))}; "
        f"ledger entries without a claim: {sorted(set(ledger) - keys)}"
    )


def test_editing_one_verdict_fails_reproduce_with_a_diff(tmp_path, capsys, monkeypatch):
    # both runs report the same seeded claims: each is computed once in the process, the
    # test is about the comparison with the ledger
    use_claims_once(monkeypatch)
    ledger = json.loads(LEDGER_PATH.read_text())
    key = "halbawi2017:fig2-f-rs"
    assert key in ledger
    flipped = {"reproduced": "differs"}.get(ledger[key]["verdict"], "reproduced")
    ledger[key]["verdict"] = flipped
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(ledger))
    argv = ["reproduce", "--quick", "--no-figures", "--paper", "halbawi2017"]
    code = main([*argv, "--outdir", str(tmp_path), "--ledger", str(path)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{key}: expected {flipped}" in err
    # and the committed ledger passes the same run
    assert main([*argv, "--outdir", str(tmp_path)]) == 0


def _mc_claims(value, low, high):
    """A claim whose key number is a Monte Carlo estimate, pinned at its interval."""

    def check(quick):
        est = {"value": value, "low": low, "high": high}
        return Outcome("reproduced", est, key={"mean": interval_pin(est)})

    return [Claim("wang2019", "mc", "Sec. 5", "a simulated mean", 1.0, check)]


def test_interval_pin_fails_a_drift_beyond_the_interval():
    led = updated_ledger(run_claims(_mc_claims(1.00, 0.98, 1.02)), {}, quick=False)
    pin = led["wang2019:mc"]["key"]["mean"]
    assert (pin["value"], pin["rtol"]) == (1.0, 0.0) and pin["atol"] == pytest.approx(0.04)
    # a rerun inside the interval's width passes ...
    assert compare_ledger(run_claims(_mc_claims(1.03, 1.01, 1.05)), led, quick=False,
                          complete=True) == []  # fmt: skip
    # ... one beyond it fails, though the old pin (rtol 0.3) let it pass
    diffs = compare_ledger(run_claims(_mc_claims(1.05, 1.03, 1.07)), led, quick=False,
                           complete=True)  # fmt: skip
    assert len(diffs) == 1 and "atol 0.04" in diffs[0].why
    old = {"wang2019:mc": {"verdict": "reproduced",
                           "key": {"mean": {"value": 1.0, "rtol": 0.3, "atol": 0.0}}}}  # fmt: skip
    assert compare_ledger(run_claims(_mc_claims(1.05, 1.03, 1.07)), old, quick=False,
                          complete=True) == []  # fmt: skip


def test_interval_pin_reads_every_form_and_refuses_a_broken_interval():
    from types import SimpleNamespace

    assert interval_pin((2.0, 1.5, 3.0)) == (2.0, 0.0, 1.5)
    assert interval_pin({"value": 2.0, "low": 1.5, "high": 3.0}) == (2.0, 0.0, 1.5)
    # an object with value/low/high (gctheory.montecarlo.Estimate)
    assert interval_pin(SimpleNamespace(value=2.0, low=1.5, high=3.0)) == (2.0, 0.0, 1.5)
    for bad in ((2.0, 2.5, 3.0), (2.0, float("nan"), 3.0), (2.0, 1.0)):
        with pytest.raises(ValueError, match="estimate"):
            interval_pin(bad)
