"""Validation at the public boundary: one place for the rules every module applies.

Each checker takes the value and the parameter's name and returns the value
normalised (a Python ``int``, ``float``, a ``numpy`` Generator) or raises a
:class:`ValueError` that names the parameter, the value, the rule it broke
and, where there are few, the valid choices. Nothing is clipped or defaulted.
Booleans are refused where a number is expected (``True`` is not seed 1, nor
a count of 1).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_generator",
    "check_choice",
    "check_int",
    "check_probability",
    "check_real",
]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (either end may be open-ended).

    Integral floats (``3.0``) are accepted; ``3.5``, strings, booleans and
    non-finite numbers are refused.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got the boolean {value!r}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)):
        if float(value) != int(float(value)):
            raise ValueError(f"{name} must be an integer, got {_show(value)}")
        v = int(float(value))
    else:
        raise ValueError(f"{name} must be an integer, got {_show(value)} ({type(value).__name__})")
    if (low is not None and v < low) or (high is not None and v > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(f"{name} must lie in [{lo}, {hi}], got {v}")
    return v


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """``value`` as a ``float`` in the interval given (open or closed at each end).

    NaN is always refused; infinities unless ``finite=False``; booleans and
    strings always.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {_show(value)}")
    v = float(value)
    if math.isnan(v) or (finite and math.isinf(v)):
        raise ValueError(f"{name} must be a finite real number, got {v}")
    bad_low = low is not None and (v <= low if low_open else v < low)
    bad_high = high is not None and (v >= high if high_open else v > high)
    if bad_low or bad_high:
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name} must lie in {lb}{lo}, {hi}{hb}, got {v:g}")
    return v


def check_probability(value: Any, name: str, *, open_low: bool = False, open_high: bool = False):
    """``value`` as a ``float`` in ``[0, 1]`` (ends open on request)."""
    return check_real(value, name, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """``value`` if it is one of ``choices``; the error lists them."""
    options = list(choices)
    try:
        ok = value in options
    except TypeError:  # unhashable or incomparable
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {options}, got {_show(value)}")
    return value


def as_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """``rng`` as a :class:`numpy.random.Generator`.

    Accepts None (fresh OS entropy), a non-negative int, a sequence of
    non-negative ints, a ``SeedSequence``, a ``BitGenerator`` or a
    ``Generator`` (returned as is). Booleans, negative seeds, floats and
    strings are refused with the parameter's name.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if rng is None:
        return np.random.default_rng()
    seeds = rng if isinstance(rng, Sequence) and not isinstance(rng, (str, bytes)) else [rng]
    for v in seeds:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise ValueError(
                f"{name} must be None, a non-negative int, a sequence of non-negative ints, a "
                f"SeedSequence, a BitGenerator or a numpy Generator, got {_show(rng)}"
            )
        if v < 0:
            raise ValueError(f"{name} seed must be a non-negative integer, got {int(v)}")
    return np.random.default_rng(rng)
