"""Heterogeneity-aware gradient codes (issue 23, part 4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gctheory.codes.base import verify_straggler_sets
from gctheory.codes.heterogeneous import HeterogeneousGradientCode, measured_split, stripe_support


@pytest.mark.parametrize(
    ("means", "k", "s"),
    [
        ([1, 1, 2, 2, 4, 4], 6, 1),
        ([1, 1, 2, 2, 4, 4], 6, 2),
        ([1, 3, 1, 3, 1, 3, 1], 7, 3),
        ([1, 2, 3, 4, 5], 10, 1),
        ([1, 1, 1, 1], 4, 0),
    ],
)
def test_decodes_every_straggler_set(means, k, s):
    d = measured_split(means, k, s)
    assert d.sum() == (s + 1) * k and d.min() >= 1 and d.max() <= k
    code = HeterogeneousGradientCode(d, k, s, rng=1)
    chk = verify_straggler_sets(code)
    assert chk.exhaustive and chk.ok, chk
    assert (code.support.sum(axis=0) == s + 1).all()


def test_loads_follow_speed():
    d = measured_split([1, 1, 2, 2, 4, 4], 12, 2)
    assert list(d) == sorted(d, reverse=True)
    assert d[0] / d[-1] == pytest.approx(4, rel=0.35)
    # risk penalises the erratic worker
    d2 = measured_split([1, 1], 10, 0, sds=[0.0, 1.0], risk=1.0)
    assert d2[0] > d2[1]
    # the cap d_i <= k holds for a very fast worker
    d3 = measured_split([0.01, 1, 1, 1], 4, 1)
    assert d3.max() <= 4 and d3.sum() == 8


def test_beats_uniform_loads_on_heterogeneous_workers():
    means = np.array([1.0] * 4 + [3.0] * 4)
    laws = [stats.expon(loc=0.5 * m, scale=0.5 * m) for m in means]
    k, s = 8, 1
    het = HeterogeneousGradientCode(measured_split(means, k, s), k, s, rng=2)
    uni = HeterogeneousGradientCode([2] * 8, k, s, rng=2)
    assert het.expected_time(laws) < 0.8 * uni.expected_time(laws)


def test_bad_input():
    with pytest.raises(ValueError, match="k must be >="):
        measured_split([1, 1, 1, 1], 1, 1)
    with pytest.raises(ValueError, match="means must be positive"):
        measured_split([1, -1], 4, 0)
    with pytest.raises(ValueError, match="loads must add up"):
        stripe_support([2, 2, 1], 4)
    with pytest.raises(ValueError, match="s \\+ 1 = 3"):
        HeterogeneousGradientCode([2, 2, 2, 2], 4, 2)
    code = HeterogeneousGradientCode([2, 2, 2, 2], 4, 1, rng=0)
    with pytest.raises(ValueError, match="one law per worker"):
        code.expected_time([stats.expon()] * 3)
