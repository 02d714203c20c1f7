"""Figures of gctheory.plots.sgc: partial-straggler fractions and the Lambda runtimes."""

import csv

import pytest

from gctheory.plots import all_figures


def _maker(name):
    (m,) = [f for f in all_figures() if f.name == name]
    return m


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_partial_fraction_figure(tmp_path):
    from scipy import stats

    from gctheory.codes.partial import PartialPlacement

    paths = _maker("partial-fraction-vs-deadline").make(tmp_path, True)
    assert sorted(p.suffix for p in paths) == [".csv", ".png", ".svg"]
    rows = _rows(tmp_path / "partial-fraction-vs-deadline.csv")
    cyc = [r for r in rows if r["scheme"].startswith("cyclic repetition")]
    exact = PartialPlacement.cyclic(12, 2).expected_fraction(float(cyc[10]["deadline"]),
                                                             stats.expon(loc=1.0))  # fmt: skip
    assert float(cyc[10]["fraction"]) == pytest.approx(exact, rel=1e-9)
    assert len({r["scheme"] for r in rows}) == 6


def test_runtime_figure_without_data_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GCTHEORY_DELAYS_DATA", str(tmp_path / "absent.csv"))
    assert _maker("sgc-runtime-lambda").make(tmp_path, True) == []
    assert "skipped" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_runtime_figure_quick_matches_the_documented_table(tmp_path, monkeypatch):
    from gctheory.plots._base import raster_only

    monkeypatch.delenv("GCTHEORY_DELAYS_DATA", raising=False)  # the packaged measurements
    with raster_only():  # as `gctheory figures --quick`: its CSV is what is read here
        assert _maker("sgc-runtime-lambda").make(tmp_path, True)
    got = {(r["rules"], r["scheme"]): r for r in _rows(tmp_path / "sgc-runtime-lambda.csv")}
    # docs/sgc.md, "Results on the shared profile" (full search)
    assert float(got[("paper", "GC")]["runtime"]) == pytest.approx(27.2442, abs=1e-4)
    assert got[("paper", "M-SGC")]["params"] == "1 2 27"
    assert float(got[("scripts", "SR-SGC")]["runtime"]) == pytest.approx(26.7464, abs=1e-4)
    assert float(got[("paper", "no coding")]["runtime"]) == pytest.approx(31.6008, abs=1e-4)
