"""Figures of issue 23 (skipped where matplotlib is not installed)."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")


def test_allocation_figure(tmp_path):
    from gctheory.plots.hetero import allocation_figure

    paths = allocation_figure(tmp_path, quick=True)
    csv = [p for p in paths if p.suffix == ".csv"][0].read_text().splitlines()
    assert csv[0].startswith("s,")
    # split loads beat equal loads up to s = n/2 on these two machine types (beyond, the
    # fast workers hit the cap of the whole dataset and proportional loads stop paying)
    rows = [dict(zip(csv[0].split(","), line.split(","))) for line in csv[1:]]
    assert all(float(r["split"]) < float(r["equal"]) for r in rows if int(r["s"]) <= 12)
