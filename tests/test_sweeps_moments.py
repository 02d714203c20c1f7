"""Sweeps' combined means: higher sums merged exactly, Hall's interval as the engine gives it,
and files of the previous format read with a named fallback."""

from __future__ import annotations

import csv
import io
import warnings

import numpy as np
import pytest

from gctheory.montecarlo import UnreliableEstimateWarning, mean_of_samples
from gctheory.montecarlo.summaries import Moments
from gctheory.sweeps import collect, combine, grid, read_stats
from gctheory.sweeps.stats import _estimate, merge_rows
from gctheory.sweeps.statsfile import (
    FORMAT_V1,
    HEADER,
    HEADER_V1,
    Higher,
    Row,
    _check,
    read_rows,
)


def _rows(parts: list[np.ndarray]) -> list[Row]:
    rows = []
    for b, x in enumerate(parts):
        m = Moments.of(x)
        rows.append(Row("k", (b,), m.n, None, float(np.sum(x)), m.m2, 0.0, 0, "runtime", "{}",
                        Higher(m.m3, m.m4, m.lo, m.hi, m.top)))  # fmt: skip
    return rows


def _split(x: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
    return np.split(x, np.cumsum(sizes)[:-1])


def test_merged_higher_sums_equal_the_pooled_samples_far_from_zero():
    # values around 1e8 with unit spread: raw power sums would cancel to nothing
    rng = np.random.default_rng(3)
    x = 1e8 + rng.exponential(1.0, 3000)
    merged = merge_rows(_rows(_split(x, [7, 500, 1, 900, 1592])))
    whole = Moments.of(x)
    assert merged.higher is not None and merged.sum_sq_dev is not None
    # the rows' means are sums / trials, rounded at 1e8: ~1e-8 of the unit deviations
    assert merged.sum_sq_dev == pytest.approx(whole.m2, rel=1e-7)
    assert merged.higher.m3 == pytest.approx(whole.m3, rel=1e-5)
    assert merged.higher.m4 == pytest.approx(whole.m4, rel=1e-7)
    # the control: raw power sums merged by addition lose the spread entirely
    raw2 = sum(float(np.sum(p * p)) for p in _split(x, [7, 500, 1, 900, 1592]))
    naive = raw2 - float(np.sum(x)) ** 2 / x.size
    assert abs(naive - whole.m2) > 0.5 * whole.m2
    assert merged.higher.top == whole.top
    assert (merged.higher.lo, merged.higher.hi) == (whole.lo, whole.hi)


@pytest.mark.parametrize("level", [0.9, 0.99])
def test_the_combined_mean_gets_the_engines_interval(level):
    x = np.random.default_rng(4).lognormal(0.0, 1.0, 400)
    combined = _estimate(merge_rows(_rows(_split(x, [100, 100, 150, 50]))), level, "wilson")
    direct = mean_of_samples(x, level=level)
    assert combined is not None and combined.method == "hall" == direct.method
    assert combined.low == pytest.approx(direct.low, rel=1e-12)
    assert combined.high == pytest.approx(direct.high, rel=1e-12)
    # a skewed sample: Hall's interval leans right of the normal one (the control: it is
    # not the symmetric interval the rows' two sums alone would give)
    assert combined.high - combined.value > 1.05 * (combined.value - combined.low)


def test_a_heavy_tail_warns_through_the_combined_rows():
    x = np.random.default_rng(5).pareto(0.8, 4000) + 1.0  # infinite mean
    with pytest.warns(UnreliableEstimateWarning, match="heavy tail"):
        est = _estimate(merge_rows(_rows(_split(x, [1000] * 4))), 0.95, "wilson")
    assert est is not None and est.diagnostics is not None
    assert est.diagnostics.tail_index_low is not None and est.diagnostics.tail_index_low <= 1


def _runtime():
    return grid("runtime", scheme="frc", n=12, s=2, batch_size=200)


def test_collected_rows_hold_the_higher_sums(tmp_path):
    path = tmp_path / "s.csv"
    stat = collect(_runtime(), path, max_trials=600).stats[0]
    assert path.read_text().splitlines()[0] == HEADER
    assert stat.sum_cube_dev is not None and stat.sum_quart_dev is not None
    assert stat.estimate is not None and stat.estimate.method == "hall"
    assert all(r.higher is not None and len(r.higher.top) == 100 for r in read_rows(path))


def _as_v1(path, out):
    rows = read_rows(path)
    out.write_text(HEADER_V1 + "\n" + "".join(r.line(FORMAT_V1) for r in rows))


def test_an_old_file_is_read_with_the_normal_interval_and_a_warning_naming_why(tmp_path):
    new, old = tmp_path / "new.csv", tmp_path / "old.csv"
    collect(_runtime(), new, max_trials=400)
    _as_v1(new, old)
    with pytest.warns(UnreliableEstimateWarning, match="gctheory-stats/1.*no third and fourth"):
        stat = read_stats(old)[0]
    assert stat.estimate is not None and stat.estimate.method == "clt"
    assert stat.sum_cube_dev is None
    with warnings.catch_warnings():  # the control: the new file's mean does not warn so
        warnings.simplefilter("error", UnreliableEstimateWarning)
        assert read_stats(new)[0].estimate.method == "hall"
    # appending keeps the old file's format; combining writes the new format, rows
    # without higher sums, and the mean still says why its interval is normal
    with pytest.warns(UnreliableEstimateWarning, match="gctheory-stats/1"):
        collect(_runtime(), old, max_trials=600)
    assert old.read_text().splitlines()[0] == HEADER_V1
    assert [r.trials for r in read_rows(old)] == [200, 200, 200]
    out = tmp_path / "combined.csv"
    with pytest.warns(UnreliableEstimateWarning, match="gctheory-stats/1"):
        combine([old], out)
        assert read_stats(out)[0].estimate.method == "clt"
    assert out.read_text().splitlines()[0] == HEADER


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda f: f[:7] + ["", *f[8:]], "all set or all empty"),
        (lambda f: f[:11] + [";".join(reversed(f[11].split(";"))), *f[12:]], "descending"),
        (lambda f: f[:10] + ["-1.0", *f[11:]], "min <= mean <= max"),
    ],
)
def test_a_row_with_bad_higher_sums_is_refused_by_name(tmp_path, edit, message):
    path = tmp_path / "s.csv"
    collect(_runtime(), path, max_trials=200)
    fields = read_rows(path)[0].fields()
    bad = edit(fields[:-1])
    buf = io.StringIO()  # a valid checksum over the edited fields: the check is the rule's
    csv.writer(buf, lineterminator="\n").writerow([*bad, _check(bad)])
    path.write_text(HEADER + "\n" + buf.getvalue())
    with pytest.raises(ValueError, match=f"row 2: .*{message}"):
        read_stats(path)


def test_a_shifted_runtime_estimate_keeps_its_summary_shifted():
    from scipy import stats

    from gctheory.runtime import scheme_time_mc

    base = scheme_time_mc("frc", stats.expon(), 12, s=2, trials=300, rng=1)
    shifted = scheme_time_mc("frc", stats.expon(), 12, s=2, trials=300, tau=0.5, rng=1)
    assert base.diagnostics is not None and shifted.diagnostics is not None
    m0, m1 = base.diagnostics.moments, shifted.diagnostics.moments
    c = shifted.value - base.value
    assert c > 0 and m1.mean == pytest.approx(m0.mean + c)
    assert (m1.m2, m1.m3, m1.m4) == (m0.m2, m0.m3, m0.m4)
    assert m1.top == pytest.approx([t + c for t in m0.top])
    assert (shifted.low - c, shifted.high - c) == pytest.approx((base.low, base.high))
