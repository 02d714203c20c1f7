"""Load plans (gctheory.delays.loadplan): how a layout's load reaches the measured ones."""

from __future__ import annotations

import numpy as np
import pytest

from gctheory.delays import make_trace
from gctheory.delays.loadplan import load_plans, resolve_load_model


def _trace():
    r, w = np.repeat(np.arange(4), 3), np.tile(np.arange(3), 4)
    return make_trace(np.r_[r, r], np.r_[w, w], np.r_[np.full(12, 0.2), np.full(12, 0.6)],
                      np.r_[np.full(12, 1.0), np.full(12, 3.0)])  # fmt: skip


def test_a_load_between_two_measured_ones_is_interpolated_and_combined():
    tr = _trace()
    model, slope, name = resolve_load_model(tr, "interpolate")
    assert name == "interpolate" and slope == pytest.approx(5.0)  # (3 - 1) / (0.6 - 0.2)
    lp = load_plans([0.2, 0.3, 0.8], [0, 1, 2], tr.loads, model, slope)
    assert lp.used == [0.2, 0.6] and lp.serve == {0.2: [0, 1], 0.6: [1, 2]}
    got = lp.combine({0.2: np.array([1.0, 1.0]), 0.6: np.array([3.0, 3.0])})
    # 0.3 is a quarter of the way to 0.6; 0.8 lies past it: 3 + slope x 0.2
    assert got.tolist() == pytest.approx([1.0, 1.5, 4.0])


def test_no_model_accepts_only_measured_loads_and_a_bad_model_is_named():
    tr = _trace()
    model, slope, _ = resolve_load_model(tr, None)
    with pytest.raises(ValueError, match="not a measured load"):
        load_plans([0.3], [1], tr.loads, model, slope)
    with pytest.raises(ValueError, match="load_model must be one of"):
        resolve_load_model(tr, 5)
    one = make_trace([0, 0], [0, 1], [0.2, 0.2], [1.0, 2.0])
    with pytest.raises(ValueError, match="affine.*needs >= 2 measured loads"):
        resolve_load_model(one, "affine")
