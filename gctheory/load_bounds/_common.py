"""What every load bound shares: the :class:`LoadBound` record, the regime warning, the
argument checks and the exact rounding of the mpmath closed forms to an integer load.

Private to :mod:`gctheory.load_bounds`, and at its bottom: it imports none of its
sibling modules. ``LoadBound`` and ``LoadBoundRegimeWarning`` are public through the
package.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

__all__ = ["LoadBound", "LoadBoundRegimeWarning"]


_DPS = 50  # mpmath digits for the closed forms (so the integer ceiling is exact)


class LoadBoundRegimeWarning(UserWarning):
    """A bound was evaluated outside the regime where its theorem (or closed form) holds.

    Examples
    --------
    >>> import warnings
    >>> from gctheory.load_bounds import LoadBoundRegimeWarning, exact_recovery_lower_bound
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     b = exact_recovery_lower_bound(10, 8)  # delta = 0.8: outside the theorem's regime
    >>> sorted({w.category.__name__ for w in caught})
    ['LoadBoundRegimeWarning']
    """


@dataclass(frozen=True)
class LoadBound:
    """A bound on (or an achievable value of) the computation load ``d``.

    Attributes
    ----------
    value : float
        The real-valued bound as the formula gives it (may be below 1 or
        negative where the formula is trivial or has broken down).
    load : int
        The smallest integer load the bound implies: ``ceil(value)`` for
        ``d >= value``, ``floor(value) + 1`` for a strict ``d > value``,
        never below 1 (a code with load 0 recovers nothing).
    kind : str
        ``"lower"`` (no code with a smaller load has the guarantee) or
        ``"achievable"`` (a construction with this load has it).
    source : str
        Paper, theorem and equation.
    regime : str
        Where the statement is valid.
    asymptotic : bool
        True if the statement only holds as ``n -> infinity`` (an O(.) or
        o(1) statement): at a finite ``n`` it is a guide, not a guarantee.
    strict : bool
        True if the bound reads ``d > value``.
    notes : tuple of str
        Regime problems found for these arguments (empty when in regime).

    Examples
    --------
    >>> from gctheory.load_bounds import LoadBound, worst_case_load
    >>> b = worst_case_load(10, 2)
    >>> b.value, b.load, b.kind, b.in_regime
    (3.0, 3, 'lower', True)
    """

    value: float
    load: int
    kind: str
    source: str
    regime: str
    asymptotic: bool = False
    strict: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def in_regime(self) -> bool:
        """True if no regime problem was found."""
        return not self.notes

    def __repr__(self) -> str:
        rel = ">" if self.strict else ">="
        rel = rel if self.kind == "lower" else "="
        flag = ", asymptotic" if self.asymptotic else ""
        bad = f", notes={list(self.notes)}" if self.notes else ""
        return (
            f"LoadBound(d {rel} {self.value:.6g} -> load {self.load}, {self.kind}, "
            f"{self.source}{flag}{bad})"
        )


# ---------------------------------------------------------------------------
# validation


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None


def _sequence(name: str, value: Any) -> Sequence | np.ndarray:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a sequence of integers, got {value!r}")
    if len(value) > 10**7:
        raise ValueError(f"{name} must have at most 10**7 entries, got {len(value)}")
    return value


def _check_ns(n: Any, s: Any) -> tuple[int, int]:
    n = _int("n", n)
    s = _int("s", s)
    if n < 2:
        raise ValueError(f"n must be at least 2 (n >= 2), got n={n}")
    if s < 0:
        raise ValueError(f"s must be non-negative (0 <= s < n), got s={s}")
    if s >= n:
        raise ValueError(f"s must be smaller than n (0 <= s < n), got s={s}, n={n}")
    return n, s


def _check_d(d: Any, n: int) -> int:
    d = _int("d", d)
    if d < 1:
        raise ValueError(f"d must be at least 1 (1 <= d <= n), got d={d}")
    if d > n:
        raise ValueError(f"d must not exceed n (1 <= d <= n), got d={d}, n={n}")
    return d


def _check_eps(eps: Any) -> Fraction:
    """eps as an exact Fraction; floats are read through their shortest repr (0.01 -> 1/100)."""
    if isinstance(eps, bool):
        raise ValueError(f"eps must be a real number in [0, 1), got {eps!r}")
    if isinstance(eps, np.integer):
        eps = int(eps)
    if isinstance(eps, (int, Fraction)):
        e = Fraction(eps)
    else:
        try:
            f = float(eps)
        except (TypeError, ValueError):
            raise ValueError(f"eps must be a real number in [0, 1), got {eps!r}") from None
        if not math.isfinite(f):
            raise ValueError(f"eps must be finite and in [0, 1), got {eps!r}")
        e = Fraction(repr(f))
    if not 0 <= e < 1:
        raise ValueError(f"eps must lie in [0, 1) (err(A_S) <= n always), got eps={float(e)!r}")
    return e


def _check_target(target: Any) -> Fraction:
    try:
        f = float(target)
    except (TypeError, ValueError):
        raise ValueError(f"target must be a probability in (0, 1), got {target!r}") from None
    if not (math.isfinite(f) and 0.0 < f < 1.0):
        raise ValueError(f"target must be a probability in (0, 1), got {target!r}")
    return Fraction(target) if isinstance(target, Fraction) else Fraction(repr(f))


def _emit(bound: LoadBound, warn: bool) -> LoadBound:
    if warn and bound.notes:
        warnings.warn(
            f"{bound.source}: " + "; ".join(bound.notes), LoadBoundRegimeWarning, stacklevel=3
        )
    return bound


def _snap(value: Any) -> Any:
    """``value`` (an mpf at ``_DPS`` digits) snapped to the nearest integer when within
    1e-30 of it, so that closed forms that are exact integers (e.g. eq. (13) at s = 1 is
    ln n / ln n = 1) are not pushed to the next integer by rounding."""
    r = mpmath.nint(value)
    return r if abs(value - r) < mpmath.mpf("1e-30") * max(1, abs(r)) else value


def _ceil(value: Any) -> int:
    return int(mpmath.ceil(_snap(value)))


def _lower_load(value: Any, strict: bool) -> int:
    """Smallest integer d with d >= value (or d > value), at least 1; value an mpf."""
    v = _snap(value)
    k = int(mpmath.floor(v)) + 1 if strict else int(mpmath.ceil(v))
    return max(1, k)
