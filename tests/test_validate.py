"""The shared validators name the parameter, the rule and the value."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gctheory._validate import as_generator, check_choice, check_int, check_real


def test_check_int():
    assert check_int(3, "n") == 3 and check_int(np.int64(3), "n") == 3 and check_int(3.0, "n") == 3
    for bad, msg in [
        (True, "boolean"),
        (3.5, "must be an integer"),
        ("3", "must be an integer"),
        (math.nan, "must be an integer"),
    ]:
        with pytest.raises(ValueError, match=f"n {msg}" if msg != "boolean" else msg):
            check_int(bad, "n")
    with pytest.raises(ValueError, match=r"s must lie in \[0, 9\], got 10"):
        check_int(10, "s", low=0, high=9)


def test_check_real():
    assert check_real(0.5, "eps", low=0, high=1, low_open=True) == 0.5
    with pytest.raises(ValueError, match=r"eps must lie in \(0, 1\), got 0"):
        check_real(0, "eps", low=0, high=1, low_open=True, high_open=True)
    with pytest.raises(ValueError, match="kappa must be a real number, got 'big'"):
        check_real("big", "kappa")
    with pytest.raises(ValueError, match="finite"):
        check_real(math.nan, "x", finite=False)
    assert check_real(math.inf, "x", finite=False) == math.inf


def test_check_choice_lists_the_choices():
    with pytest.raises(ValueError, match=r"family must be one of \['a', 'b'\], got 'c'"):
        check_choice("c", "family", ["a", "b"])
    with pytest.raises(ValueError, match="family must be one of"):
        check_choice([1], "family", ["a"])


def test_as_generator():
    g = np.random.default_rng(1)
    assert as_generator(g) is g
    assert as_generator(5).integers(100) == np.random.default_rng(5).integers(100)
    for bad in (True, -1, 1.5, "seed", [1, -2], [1, True]):
        with pytest.raises(ValueError, match="rng"):
            as_generator(bad)
