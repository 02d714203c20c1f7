"""The approx_codes figure: its new series (graph assignment, SGC, Margulis, BIBD) and CSV."""

from __future__ import annotations

import csv
import math

import pytest

from gctheory.codes import bibd_error
from gctheory.delays._threads import blas_single_thread
from gctheory.plots._base import raster_only


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    from gctheory.plots import all_figures

    (maker,) = [f for f in all_figures() if f.name == "approx_codes"]
    out = tmp_path_factory.mktemp("approx")
    # as `gctheory figures --quick` runs it (threaded BLAS: 4x slower here; no SVG)
    with blas_single_thread(), raster_only():
        maker.make(out, True)
    with (out / "approx_codes.csv").open() as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == ["panel", "series", "x", "y", "low", "high"]  # no run times
        return list(reader)


def _series(rows, panel, start):
    return [r for r in rows if r["panel"] == panel and r["series"].startswith(start)]


def test_families_at_particular_n_are_points_at_those_n(rows):
    for dec in ("optimal", "fixed"):
        pts = _series(rows, "lower-right", "Margulis expander")
        pts = [r for r in pts if dec in r["series"]]
        assert pts and all(math.isqrt(int(float(r["x"]))) ** 2 == int(float(r["x"])) for r in pts)
        assert all(float(r["low"]) <= float(r["y"]) <= float(r["high"]) for r in pts)
    bound = {
        float(r["x"]): float(r["y"]) for r in _series(rows, "lower-right", "Margulis spectral")
    }
    fixed = _series(rows, "lower-right", "Margulis expander (n = m^2 only, d = 8), fixed")
    assert all(float(r["high"]) <= bound[float(r["x"])] for r in fixed)  # under the bound
    pg = _series(rows, "lower-right", "BIBD PG")
    assert [int(float(r["x"])) for r in pg] == [7, 13, 31, 57, 133]  # q^2 + q + 1, q prime
    for r, q in zip(pg, (2, 3, 5, 7, 11)):
        v = q * q + q + 1  # symmetric: b = v, r = q + 1, lambda = 1
        exact = bibd_error(v, v, q + 1, 1, round(0.2 * v)) / v  # closed form, Kadhe et al.
        assert float(r["y"]) == pytest.approx(float(exact), rel=1e-9)
    ag = _series(rows, "lower-right", "BIBD AG")
    assert [int(float(r["x"])) for r in ag] == [9, 25, 49, 121]  # q^2


def test_graph_assignment_and_sgc_at_n_120(rows):
    ga = _series(rows, "lower-left", "graph assignment")
    assert [float(r["x"]) for r in ga] == [3, 4, 5, 6, 8]  # normalised load 2n/k = d
    y = [float(r["y"]) for r in ga]
    assert y[0] > y[-1]  # more redundancy, less error
    sgc = _series(rows, "lower-left", "SGC")
    assert [float(r["x"]) for r in sgc] == [2, 3, 4, 6, 8]
    assert all(0 < float(r["low"]) <= float(r["y"]) <= float(r["high"]) for r in sgc)
