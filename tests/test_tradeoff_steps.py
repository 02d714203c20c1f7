"""The named steps of ``tradeoff`` (gctheory.tradeoff.compute, .sweep), each on its own."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from gctheory.tradeoff.compute import (
    _BGC_MAX_N,
    _check_n,
    _delay_model,
    _infinite_time_notes,
    _scheme_tasks,
    _schemes_asked,
    _schemes_kept,
)
from gctheory.tradeoff.sweep import check_s_list, m_values_at, spread


def test_spread_keeps_both_ends_and_every_value_when_few():
    assert spread([5, 1, 3, 3], 10) == [1, 3, 5]
    assert spread(list(range(11)), 3) == [0, 5, 10]


def test_check_s_list_sorts_dedupes_and_refuses_out_of_range_and_empty():
    assert check_s_list([3, 1, 3], 5, "s_values") == [1, 3]
    with pytest.raises(ValueError, match="s_values"):
        check_s_list([5], 5, "s_values")
    with pytest.raises(ValueError, match="at least one"):
        check_s_list([], 5, "s_values")


def test_panel_2_keeps_only_m_with_s_plus_m_at_most_n():
    assert m_values_at(6, 2, 2, None, quick=True) == [1, 2, 4]  # 8 > 6 - 2 left out


def test_n_above_the_largest_is_refused_by_name():
    assert _check_n(2) == 2
    with pytest.raises(ValueError, match="n must be at most"):
        _check_n(10**4 + 1)


def test_schemes_are_checked_deduplicated_and_left_out_with_a_note():
    assert _schemes_asked(["frc", "cyclic-mds", "frc"], {}) == ["frc", "cyclic-mds"]
    with pytest.raises(ValueError, match="scheme"):
        _schemes_asked(["no-such-scheme"], {})
    names, notes = _schemes_kept(["bernoulli", "frc"], {}, _BGC_MAX_N + 1)
    assert names == ["frc"] and notes[0].startswith("bernoulli: left out above n")
    names, notes = _schemes_kept(["bernoulli", "frc"], {}, _BGC_MAX_N)
    assert names == ["bernoulli", "frc"] and notes == []


class _Ctx:
    m, sweep, mc_s = 2, (0, 1, 3), frozenset({1})


def test_monte_carlo_only_schemes_run_at_the_monte_carlo_points_only():
    tasks = _scheme_tasks(["bernoulli", "frc", "ye-abbe"], _Ctx(), 1, [1, 2, 4])
    assert [t for t in tasks if t[0] == "bernoulli"] == [("bernoulli", 1, 2)]
    assert [t for t in tasks if t[0] == "frc"] == [("frc", 0, 2), ("frc", 1, 2), ("frc", 3, 2)]
    # panel 2: the generator-based scheme at the operating point, every m but the sweep's
    assert ("ye-abbe", 1, 1) in tasks and ("ye-abbe", 1, 4) in tasks


def test_the_infinite_time_note_flips_with_one_finite_time():
    model = _delay_model(stats.pareto(0.5), 4)
    rows = [{"time": math.inf}, {"time": None}]
    assert "finite only when more" in _infinite_time_notes(rows, model)[0]
    assert _infinite_time_notes([*rows, {"time": 1.0}], model) == []
    assert _infinite_time_notes(rows, _delay_model(None, 4)) == []  # no time axis
