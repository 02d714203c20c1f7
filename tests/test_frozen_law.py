"""The frozen-law unpacker shared by the stationary mixture and the order statistics'
point calls: what it unpacks, what it refuses, and its example."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from scipy import stats

import gctheory._frozen_law as frozen_law
from gctheory._frozen_law import unpack_frozen


def test_a_scalar_law_is_unpacked_and_its_kernels_give_scipys_values():
    law = stats.gamma(3, loc=1.0, scale=2.0)
    p = unpack_frozen(law)
    assert p is not None and p.gen is law.dist
    # the shapes as scipy parsed them (the int stays an int); loc and scale as floats
    assert p.shapes == (3,) and type(p.shapes[0]) is int
    assert (p.loc, p.scale, p.a, p.b) == (1.0, 2.0, 0.0, math.inf)
    for t in (1.5, 3.0, 7.25, 30.0):  # inside the open support: scipy's value bit for bit
        z = np.asarray((t - p.loc) / p.scale)
        assert p.gen._sf(z, *p.shapes)[()] == law.sf(t)
        assert p.gen._cdf(z, *p.shapes)[()] == law.cdf(t)
    bounded = unpack_frozen(stats.beta(2.0, 3.0, loc=-1.0))
    assert bounded is not None and (bounded.a, bounded.b, bounded.loc) == (0.0, 1.0, -1.0)
    keyword = unpack_frozen(stats.gamma(a=2.5, scale=0.5))
    assert keyword is not None and keyword.shapes == (2.5,) and keyword.scale == 0.5


@pytest.mark.parametrize(
    "law",
    [
        stats.expon(scale=np.array([1.0, 2.0])),  # array parameters
        stats.gamma(np.array([2.0])),  # a one-element array is an array too
        stats.gamma(-1.0),  # shape outside the family's domain
        stats.expon(scale=0.0),  # scale <= 0
        stats.expon(scale=-1.0),
        object(),  # not a scipy law
        np.array([1.0, 2.0]),  # measured times
        stats.norm(2.0, 0.5).dist,  # a generator, not frozen
    ],
    ids=["array", "array-1", "domain", "scale-0", "scale-neg", "object", "ndarray", "unfrozen"],
)
def test_what_only_scipys_own_call_can_answer_is_refused(law):
    assert unpack_frozen(law) is None


def test_the_examples_run():
    # the doctests of tests/test_doctests.py cover the public modules only
    result = doctest.testmod(frozen_law, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0
