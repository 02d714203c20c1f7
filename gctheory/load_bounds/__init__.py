"""Lower bounds on the computation load of gradient codes, and the codes that meet them.

The computation load ``d`` of a gradient code is the number of data partitions
each worker stores (Definition 2 of [1]). This module answers, for given ``n``
workers and ``s`` stragglers: how large must ``d`` be to recover the gradient

- exactly for *every* straggler set (worst case: Tandon et al. ``d >= s + 1``;
  Ye-Abbe ``l / k >= (s + m) / n``, eq. (1) of [2]; Halbawi et al.
  ``s <= floor(w n / k) - 1``, eq. (2) of [3]);
- exactly with high probability over a uniformly random straggler set
  (Theorem 3 of [1], eq. (13), and the fixed point (29) of its proof);
- with error at most ``eps * n`` with high probability (Theorem 5 of [1] as
  stated, and eq. (52) of its proof: the two differ);

and which construction gets there: the d-fractional repetition code (d-FRC,
Definition 4 and Theorem 4 of [1], eq. (14)), whose failure probability is
computed *exactly* (inclusion-exclusion over its groups, Appendix D, eqs.
(37)-(38), also when ``d`` does not divide ``n``, Remark 1), and the batch
raptor code's parameters (Theorem 6 of [1]).

Besides the paper's asymptotic closed forms, the module gives *finite-n*
lower bounds that follow exactly from the paper's own proof steps: the
single-column bound (eq. (26), left-hand side, valid for every code of load
``d``), the union bound over a set of columns with pairwise disjoint supports
(eqs. (23)-(24)), Lemma 2 made constructive (:func:`disjoint_support_columns`),
and the exact law of the number of all-zero columns among such a set (the
random variable ``Y(I_d*)`` of Appendix E). Logarithms are natural; every
closed form of Theorems 3 and 5 is base-free (a ratio of logarithms), but
Theorem 4's eq. (14) and Theorem 6's ``b`` are not, and use ``ln``.

References
----------
.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (eq. (1), the bound of Ye and Abbe, ICML 2018).
.. [3] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", 2017 (eq. (2), after Tandon
   et al., ICML 2017).
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from gctheory._validate import check_choice, check_real
from gctheory.montecarlo import Estimate, estimate_probability, seed_sequence
from gctheory.order_stats import _check_mc_args

__all__ = [
    "LoadBound",
    "LoadBoundRegimeWarning",
    "BRCParameters",
    "worst_case_load",
    "halbawi_load",
    "halbawi_max_stragglers",
    "exact_recovery_lower_bound",
    "approximate_recovery_lower_bound",
    "frc_load",
    "frc_group_sizes",
    "group_failure_probability",
    "frc_failure_probability",
    "frc_failure_mc",
    "frc_min_load",
    "frc_error_pmf",
    "single_column_lower_bound",
    "union_lower_bound",
    "zero_column_count_pmf",
    "zero_column_tail_lower_bound",
    "min_load_lower_bound",
    "disjoint_support_columns",
    "matrix_union_lower_bound",
    "brc_parameters",
    "brc_condition_54_margin",
    "all_bounds",
    "load_curves",
    "AchievedLoad",
    "achieved_load_mc",
]

_DPS = 50  # mpmath digits for the closed forms (so the integer ceiling is exact)


class LoadBoundRegimeWarning(UserWarning):
    """A bound was evaluated outside the regime where its theorem (or closed form) holds."""


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


def _sequence(name: str, value: Any) -> Sequence:
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
    if isinstance(eps, (int, np.integer, Fraction)):
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


# ---------------------------------------------------------------------------
# worst-case (exact recovery for every straggler set)


def worst_case_load(n: int, s: int, m: int = 1, k: int | None = None) -> LoadBound:
    """Minimum load for exact recovery under *every* set of ``s`` stragglers.

    ``l / k >= (s + m) / n`` (Ye and Abbe, eq. (1) of Kadhe et al. 2019), with
    ``k`` data partitions (default ``n``) and communication saving ``m``
    (default 1); with ``m = 1``, ``k = n`` this is Tandon et al.'s ``d >= s + 1``.

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``) and stragglers (``0 <= s < n``).
    m : int
        Communication saving, ``1 <= m <= n - s``.
    k : int, optional
        Number of data partitions (``k >= 1``); default ``n``.

    Returns
    -------
    LoadBound
        ``value = k (s + m) / n``, ``load = ceil(value)``. Exact (not asymptotic),
        valid for every ``n, s``; achieved by cyclic-MDS / FRC codes (Tandon)
        and by Ye-Abbe / CommFR-GC codes when the divisibility conditions hold.
    """
    n, s = _check_ns(n, s)
    m = _int("m", m)
    if m < 1:
        raise ValueError(f"m must be at least 1, got m={m}")
    if s + m > n:
        raise ValueError(f"s + m must not exceed n (the server needs m results), got {s}+{m}>{n}")
    k = n if k is None else _int("k", k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    v = Fraction(k * (s + m), n)
    src = "Tandon et al. 2017, d >= s + 1" if (m == 1 and k == n) else "Ye-Abbe, Kadhe eq. (1)"
    return LoadBound(
        float(v),
        max(1, math.ceil(v)),
        "lower",
        src,
        "every n >= 2, 0 <= s < n, 1 <= m <= n - s (worst case over straggler sets)",
    )


def halbawi_max_stragglers(n: int, k: int, w: int) -> int:
    """Largest tolerable ``s = floor(w n / k) - 1`` (Halbawi et al. 2017, eq. (2)).

    ``n`` workers, ``k`` partitions, ``w`` partitions per worker (``1 <= w <= k``).
    """
    n = _int("n", n)
    if n < 2:
        raise ValueError(f"n must be at least 2 (n >= 2), got n={n}")
    k = _int("k", k)
    w = _int("w", w)
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    if not 1 <= w <= k:
        raise ValueError(f"w must satisfy 1 <= w <= k, got w={w}, k={k}")
    return (w * n) // k - 1


def halbawi_load(n: int, s: int, k: int | None = None) -> LoadBound:
    """Smallest ``w`` with ``s <= floor(w n / k) - 1`` (Halbawi et al. 2017, eq. (2)).

    The integer load is found by searching ``w`` directly in eq. (2) (not by
    the closed form), so its agreement with :func:`worst_case_load` (``m = 1``)
    is a check. ``value = k (s + 1) / n`` is the real threshold. Exact, valid
    for every ``n >= 2``, ``0 <= s < n``, ``k >= 1`` (default ``k = n``).
    """
    n, s = _check_ns(n, s)
    k = n if k is None else _int("k", k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    # eq. (2) searched directly, by bisection (floor(w n / k) - 1 grows with w); w = k works
    lo, hi = 1, k
    while lo < hi:
        mid = (lo + hi) // 2
        if (mid * n) // k - 1 >= s:
            hi = mid
        else:
            lo = mid + 1
    w = lo
    return LoadBound(
        float(Fraction(k * (s + 1), n)),
        w,
        "lower",
        "Halbawi et al. 2017, eq. (2)",
        "every n >= 2, 0 <= s < n, k >= 1 (worst case); achieved by the RS code of [3]",
    )


# ---------------------------------------------------------------------------
# closed forms of Wang et al. 2019 (asymptotic)


def _decreasing_note(a: Any, L: Any) -> str | None:
    """The closed forms read (a + 2 ln L) / L with L = ln(1/delta); d/dL < 0 iff a + 2 ln L > 2."""
    if a + 2 * mpmath.log(L) < 2:
        return (
            f"the closed form decreases as s grows here (ln(1/delta)={float(L):.4g} < "
            f"exp((2 - a)/2)={float(mpmath.exp((2 - a) / 2)):.4g}): the substitution "
            "d0 ~ log(n)/log(1/delta) of its derivation has broken down at this n; "
            "see min_load_lower_bound for a finite-n bound"
        )
    return None


def exact_recovery_lower_bound(
    n: int, s: int, form: str = "theorem", *, warn: bool = True
) -> LoadBound:
    """Minimum load of a code whose decoding fails with probability o(1) (Wang et al., Thm 3).

    ``s = delta n`` stragglers chosen uniformly at random; the code must
    recover the gradient exactly (``err(A_S) = 0``) with probability
    ``1 - o(1)`` as ``n -> infinity``.

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``), stragglers (``0 <= s < n``).
    form : {"theorem", "proof"}
        ``"theorem"``: eq. (13), ``d >= log(n log^2(1/delta) / log^2 n) / log(1/delta)``.
        ``"proof"``: the proof's eq. (29), the strict ``d > d0`` with
        ``d0 = log(n e log^2(1/delta) / log^2 n) / log(1/delta)`` (the extra
        ``e`` comes from ``delta^d0 n / d0^2 -> 1/e``; (13) drops it, so (13) is
        lower by ``1 / log(1/delta)``).
    warn : bool
        Emit :class:`LoadBoundRegimeWarning` when out of regime (default True).

    Returns
    -------
    LoadBound
        Asymptotic lower bound. Regime: ``s = Omega(1)`` (for ``s = 0``,
        ``d* = 1`` exactly), ``delta = Omega(1/n)``. The closed form is only
        meaningful where it increases with ``s``; it decreases (and can go
        negative) when ``2 ln ln(1/delta) < 2 - a`` with ``a = ln n - 2 ln ln n``
        (+1 for the proof form), e.g. ``delta > 0.55`` at ``n = 1000``: a
        warning says so.
    """
    n, s = _check_ns(n, s)
    if form not in ("theorem", "proof"):
        raise ValueError(f"form must be 'theorem' or 'proof', got {form!r}")
    src = "Wang et al. 2019, Theorem 3, eq. (13)"
    if form == "proof":
        src = "Wang et al. 2019, proof of Theorem 3, eq. (29)"
    regime = "s = Omega(1), delta = s/n in [Omega(1/n), Theta(1)], n -> infinity"
    if s == 0:
        return LoadBound(1.0, 1, "lower", src, regime, asymptotic=False)
    with mpmath.workdps(_DPS):
        L = mpmath.log(mpmath.mpf(n) / s)
        a = mpmath.log(n) - 2 * mpmath.log(mpmath.log(n)) + (1 if form == "proof" else 0)
        value = (a + 2 * mpmath.log(L)) / L
        note = _decreasing_note(a, L)
        strict = form == "proof"
        b = LoadBound(
            float(value),
            _lower_load(value, strict),
            "lower",
            src,
            regime,
            asymptotic=True,
            strict=strict,
            notes=(note,) if note else (),
        )
    return _emit(b, warn)


def approximate_recovery_lower_bound(
    n: int, s: int, eps: float, form: str = "theorem", *, warn: bool = True
) -> LoadBound:
    """Minimum load of an eps-approximate gradient code (Wang et al. 2019, Thm 5).

    The code must satisfy ``P[err(A_S) > eps n] = o(1)`` (eq. (7)).

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``), stragglers (``0 <= s < n``).
    eps : float
        Error level in ``[0, 1)``; the theorem assumes ``eps < O(1/log^2 n)``
        (a :class:`LoadBoundRegimeWarning` is emitted for ``eps >= 1/ln^2 n``,
        i.e. reading the O-constant as 1).
    form : {"theorem", "proof"}
        ``"theorem"``: Theorem 5 as stated,
        ``d >= log(n log^2(1/delta) / ((2 eps n + 4) log^2 n)) / log(1/delta)``.
        ``"proof"``: eq. (52) of Appendix E, with ``c = eps n``:
        ``d >= log(n log^2(1/delta) / ((2c + 4) log^2(n / (2c + 4)))) / log(1/delta)``.
        The two differ in the inner ``log^2``: ``log^2 n`` versus
        ``log^2(n/(2c+4))``; the proof's is the larger bound. The paper's
        example (Sec. 4.1, ``n = 1000, s = 100``: "0.01-approximate needs 2")
        matches the proof's eq. (52) (1.20 -> 2), not the statement (0.67 -> 1).
    warn : bool
        Emit warnings when out of regime (default True).

    Returns
    -------
    LoadBound
        Asymptotic lower bound. Regime: ``0 <= eps < O(1/log^2 n)``,
        ``s = Omega(1)``, and the proof assumes ``d = o(s)``.
    """
    n, s = _check_ns(n, s)
    e = _check_eps(eps)
    if form not in ("theorem", "proof"):
        raise ValueError(f"form must be 'theorem' or 'proof', got {form!r}")
    src = (
        "Wang et al. 2019, Theorem 5 (as stated)"
        if form == "theorem"
        else "Wang et al. 2019, proof of Theorem 5, eq. (52)"
    )
    regime = "0 <= eps < O(1/log^2 n), s = Omega(1), d = o(s), n -> infinity"
    if s == 0:
        return LoadBound(1.0, 1, "lower", src, regime)
    notes = []
    with mpmath.workdps(_DPS):
        lnn = mpmath.log(n)
        e_mp = mpmath.mpf(e.numerator) / e.denominator
        if e_mp >= 1 / lnn**2:
            notes.append(f"eps={float(e):g} >= 1/ln^2(n)={float(1 / lnn**2):.4g}")
        c4 = 2 * e_mp * n + 4
        if form == "proof":
            if c4 >= n:
                raise ValueError(
                    f"eq. (52) needs n > 2 eps n + 4 (log^2(n/(2c+4)) > 0), got n={n}, eps={eps}"
                )
            a = mpmath.log(n / c4) - 2 * mpmath.log(mpmath.log(n / c4))
        else:
            a = mpmath.log(n / c4) - 2 * mpmath.log(lnn)
        L = mpmath.log(mpmath.mpf(n) / s)
        value = (a + 2 * mpmath.log(L)) / L
        note = _decreasing_note(a, L)
        if note:
            notes.append(note)
        if value >= s:
            notes.append(
                f"bound {float(value):.4g} >= s={s}: the proof's assumption d = o(s) fails"
            )
        b = LoadBound(
            float(value),
            _lower_load(value, False),
            "lower",
            src,
            regime,
            asymptotic=True,
            notes=tuple(notes),
        )
    return _emit(b, warn)


def frc_load(n: int, s: int, form: str = "theorem", *, warn: bool = True) -> LoadBound:
    """The d-FRC load that Theorem 4 of Wang et al. 2019 proves sufficient (eq. (14)).

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``), stragglers (``0 <= s < n``).
    form : {"theorem", "proof"}
        ``"theorem"``: eq. (14), ``d = max{1, ln(n ln(1/delta)) / ln(1/delta)}``
        (natural logarithms: the formula is not base-free).
        ``"proof"``: the choice at the start of Appendix D,
        ``d = 1 + ln(n) / ln(1/delta)`` (the proof uses both choices).

    Returns
    -------
    LoadBound
        ``kind="achievable"``, ``load = ceil(value)``: the FRC with this load
        fails with probability ``o(1)`` as ``n -> infinity``. At a finite ``n``
        use :func:`frc_failure_probability` for the exact failure probability
        and :func:`frc_min_load` for the smallest sufficient ``d``. A
        :class:`LoadBoundRegimeWarning` is emitted (unless ``warn=False``)
        when ``n ln(1/delta) <= e^2``, where the proof's remainder
        ``1/ln(n ln(1/delta))`` is not small (e.g. ``s >= n - 7``).
    """
    n, s = _check_ns(n, s)
    if form not in ("theorem", "proof"):
        raise ValueError(f"form must be 'theorem' or 'proof', got {form!r}")
    src = "Wang et al. 2019, Theorem 4, eq. (14)"
    if form == "proof":
        src = "Wang et al. 2019, proof of Theorem 4 (Appendix D), d = 1 + log n / log(1/delta)"
    regime = "delta = s/n fixed or o(1), n -> infinity (failure probability o(1))"
    if s == 0:
        return LoadBound(1.0, 1, "achievable", src, regime)
    with mpmath.workdps(_DPS):
        L = mpmath.log(mpmath.mpf(n) / s)
        if form == "theorem":
            value = max(mpmath.mpf(1), mpmath.log(n * L) / L)
        else:
            value = 1 + mpmath.log(n) / L
        load = max(1, _ceil(value))
        # the proof's remainder (n/d) delta^d = 1/ln(n ln(1/delta)) at eq. (14)'s d must be small
        notes = ()
        if n * L <= mpmath.e**2:
            notes = (
                f"n ln(1/delta)={float(n * L):.3g} <= e^2: the proof's remainder "
                "1/ln(n ln(1/delta)) is not small, eq. (14) guarantees nothing here",
            )
        b = LoadBound(float(value), load, "achievable", src, regime, asymptotic=True, notes=notes)
    return _emit(b, warn)


# ---------------------------------------------------------------------------
# exact failure probabilities


def frc_group_sizes(n: int, d: int, rounding: str = "ceil") -> tuple[int, ...]:
    """Sizes of the worker groups of the d-FRC (Definition 4 and Remark 1 of Wang et al.).

    All workers of a group hold the same block of data partitions; the blocks
    partition the data. When ``d`` divides ``n`` there are ``n/d`` groups of
    ``d`` workers (the ``d`` copies of Definition 4, read column-wise). When it
    does not (Remark 1), the workers and the data are split as evenly as
    possible into ``q`` groups and ``q`` blocks:

    - ``rounding="ceil"`` (default): ``q = ceil(n/d)``, so every worker holds at
      most ``d`` partitions (the load is ``d``) and some groups have fewer than
      ``d`` workers;
    - ``rounding="floor"``: ``q = floor(n/d)``, so every block has at least
      ``d`` replicas but some workers hold more than ``d`` partitions (the
      literal reading of Remark 1's group sizes, at load ``ceil(n/q)``).

    Returns the group sizes, largest first.
    """
    n = _int("n", n)
    if n < 2:
        raise ValueError(f"n must be at least 2 (n >= 2), got n={n}")
    d = _check_d(d, n)
    if rounding not in ("ceil", "floor"):
        raise ValueError(f"rounding must be 'ceil' or 'floor', got {rounding!r}")
    q = -(-n // d) if rounding == "ceil" else n // d
    if q > _MAX_LISTED_GROUPS:
        raise ValueError(
            f"n: the d-FRC with n = {n}, d = {d} has {q} groups; listing them takes about "
            f"{8 * q / 2**30:.3g} GiB (at most {_MAX_LISTED_GROUPS} groups are listed; "
            "frc_failure_probability works with their counts at any n)"
        )
    base, extra = divmod(n, q)
    return tuple([base + 1] * extra + [base] * (q - extra))


_MAX_LISTED_GROUPS = 10**7


def _tail_binomials(n: int, s: int) -> list[int]:
    """[C(n - m, s - m) for m = 0..s] by the exact recurrence C(N-1,S-1) = C(N,S) S / N."""
    out = [math.comb(n, s)]
    for m in range(s):
        out.append(out[-1] * (s - m) // (n - m))
    return out


def _poly_prod_one_minus(sizes: Sequence[int] | Counter, degree: int) -> list[int]:
    """Coefficients of prod_g (1 - z^{a_g}), truncated at ``degree`` (exact integers);
    ``sizes`` a list of group sizes or a Counter ``{size: number of groups}``."""
    poly = [0] * (degree + 1)
    poly[0] = 1
    counts = sizes if isinstance(sizes, Counter) else Counter(sizes)
    for a, x in counts.items():
        # (1 - z^a)^x = sum_j (-1)^j C(x, j) z^{a j}
        factor = {a * j: (-1) ** j * math.comb(x, j) for j in range(0, min(x, degree // a) + 1)}
        new = [0] * (degree + 1)
        for i, c in enumerate(poly):
            if c:
                for m, f in factor.items():
                    if i + m > degree:
                        break
                    new[i + m] += c * f
        poly = new
    return poly


# Exact integer inclusion-exclusion costs about s * (terms per factor) big-integer
# operations; beyond this many it takes seconds to hours, and the float path answers.
_EXACT_BUDGET = 4 * 10**6


_EXACT_MAX_S = 3000  # beyond, even the s big-integer binomials C(n-m, s-m) take seconds


def _exact_cost(s: int, counts: Counter) -> int:
    if s > _EXACT_MAX_S:
        return _EXACT_BUDGET + 1
    return s * sum(min(x, s // a) + 1 for a, x in counts.items())


def _clog1p(w: np.ndarray) -> np.ndarray:
    """Complex ``log(1 + w)`` accurate for small ``|w|`` (numpy's complex ``log1p`` is not:
    it returns 0 for ``-1e-20``)."""
    a, b = w.real, w.imag
    return 0.5 * np.log1p(a * (2 + a) + b * b) + 1j * np.arctan2(b, 1 + a)


def _cexpm1(w: np.ndarray) -> np.ndarray:
    """Complex ``exp(w) - 1`` accurate for small ``|w|``."""
    a, b = w.real, w.imag
    return np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2 + 1j * np.exp(a) * np.sin(b)


def _saddle_coefficient(n: int, s: int, g: Any) -> float:
    """``[z^s] (1+z)^n g(z) / C(n, s)`` for a polynomial ``g`` with non-negative
    coefficients, in floating point.

    On the circle ``|z| = r = s/(n-s)`` (the saddle point of ``(1+z)^n / z^s``) the
    weights ``C(n, j) r^j / (1+r)^n`` are the Binomial(n, s/n) law, peaked at ``j = s``,
    so the Cauchy integral, a mean over ``N`` equally spaced points, gives the
    coefficient with a relative error of about ``1e-13 sqrt(n)``: every coefficient is
    non-negative and the one wanted carries a share ``~1/sqrt(n)`` of the total. ``N``
    covers the whole degree ``n`` (no aliasing) while ``n + 1 <= 64 sigma + 256``
    (``sigma`` the law's standard deviation); beyond, the aliased terms lie 32
    standard deviations out, below ``e^-500`` of the one wanted. The
    cost is ``O(min(n, sqrt(n)))``: ``n = 10**9`` takes milliseconds.
    """
    z, log_w = _saddle_circle(n, s)
    with np.errstate(divide="ignore", under="ignore"):  # log 0 = -inf: a zero term
        return _saddle_finish(n, s, float(np.real(np.mean(np.exp(log_w + g(z))))))


_MAX_CIRCLE = 1 << 22


def _saddle_circle(n: int, s: int) -> tuple[np.ndarray, np.ndarray]:
    """The points ``z`` of :func:`_saddle_coefficient`'s circle and the log of the
    weight ``(1+z)^n z^-s r^s / (1+r)^n`` at each."""
    p = s / n
    r = s / (n - s)
    sigma = math.sqrt(n * p * (1 - p))
    size = 1 << max(6, math.ceil(math.log2(min(n + 1, 64 * sigma + 256))))
    if size > _MAX_CIRCLE:
        raise ValueError(
            f"n: at n = {n}, s = {s} the float path needs {size} points on its circle "
            f"({48 * size / 2**30:.3g} GiB), more than {_MAX_CIRCLE}; n s (n - s) / n must be "
            f"below about {(_MAX_CIRCLE / 64) ** 2:.3g}"
        )
    theta = 2 * np.pi * (np.arange(size) + 0.5) / size  # never z = -1
    z = r * np.exp(1j * theta)
    return z, n * _clog1p((z - r) / (1 + r)) - 1j * s * theta


def _saddle_finish(n: int, s: int, mean: float) -> float:
    return math.exp(math.log(mean) - _log_binom_pmf_at_mean(n, s)) if mean > 0 else 0.0


def _stirlerr(k: int) -> float:
    """``log k! - ((k + 1/2) log k - k + log(2 pi)/2)``, accurate to a few ulps."""
    if k >= 10:
        return _stirling_series(float(k))
    return math.lgamma(k + 1) - (k + 0.5) * math.log(k) + k - 0.5 * math.log(2 * math.pi)


def _stirling_series(x: float) -> float:
    coef = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
    inv2, acc = 1.0 / (x * x), 0.0
    for c in reversed(coef):
        acc = acc * inv2 + c
    return acc / x


def _log_binom_pmf_at_mean(n: int, s: int) -> float:
    """``log P(Binomial(n, s/n) = s)`` without cancellation (Loader's saddle-point form,
    exact at the mean: ``-log(2 pi s (n-s)/n)/2 + e(n) - e(s) - e(n-s)``, ``e`` the
    Stirling error); scipy's ``binom.logpmf`` is off by about 1e-11 here."""
    return (
        -0.5 * math.log(2 * math.pi * s * (n - s) / n)
        + _stirlerr(n)
        - _stirlerr(s)
        - _stirlerr(n - s)
    )


def _group_failure_float(n: int, s: int, counts: Counter) -> float:
    """P(some group fully straggles) for ``counts = {size: number of groups}``:
    ``[z^s] (1+z)^n (1 - prod_a (1 - u_a)^{x_a}) / C(n, s)``, ``u_a = (z/(1+z))^a`` (the
    generating function of the straggler sets that fill a group has non-negative
    coefficients; ``1 - prod`` is evaluated as ``-expm1(sum x_a log1p(-u_a))``, so
    nothing cancels when the probability is tiny)."""
    if s == n:
        return 1.0

    def g(z: np.ndarray) -> np.ndarray:  # log of 1 - prod_a (1 - t^a)^{x_a}, t = z/(1+z)
        log_t = np.log(z) - _clog1p(z)
        acc = np.zeros_like(z)
        for a, x in counts.items():
            la = a * log_t  # log t^a
            small = la.real < math.log(0.5)
            term = np.empty_like(z)
            term[small] = _clog1p(-np.exp(la[small]))
            # |t^a| >= 1/2: log(1 - t^a) = log(-t^a) + log1p(-t^-a)
            big = ~small
            term[big] = la[big] + 1j * np.pi + _clog1p(-np.exp(-la[big]))
            acc += x * term
        # log(1 - e^acc): -expm1 where acc is small, acc + log(expm1(-acc)) where it is large
        out = np.empty_like(z)
        lo = acc.real < 0.5
        out[lo] = np.log(-_cexpm1(acc[lo]))
        out[~lo] = acc[~lo] + np.log(_cexpm1(-acc[~lo]))
        return out

    return min(1.0, _saddle_coefficient(n, s, g))


def group_failure_probability(n: int, s: int, group_sizes: Sequence[int]) -> Fraction | float:
    """P(some group has all its workers among ``s`` uniformly random stragglers).

    ``group_sizes`` are the sizes of pairwise *disjoint* sets of workers among
    ``n``. By inclusion-exclusion (Appendix D of Wang et al. 2019, eqs.
    (37)-(38), with hypergeometric terms ``C(n - m, s - m) / C(n, s)`` for a
    union of groups of total size ``m``)::

        P = - sum_{m >= 1} f_m C(n - m, s - m) / C(n, s),
        sum_m f_m z^m = prod_g (1 - z^{a_g}),

    computed in exact integer arithmetic (a :class:`~fractions.Fraction`) while that
    costs at most a few million big-integer operations (``n`` up to about ``10**4``;
    ``n = 1000`` takes a millisecond). Beyond, the same probability is the coefficient
    ``[z^s] (1+z)^n (1 - prod_g (1 - (z/(1+z))^{a_g})) / C(n, s)`` of a polynomial with
    non-negative coefficients, evaluated as a Cauchy integral at the saddle point
    (a ``float``, relative error about ``1e-13 sqrt(n)``, tested against the exact
    value): ``n = 10**6`` answers in milliseconds.

    This is the failure probability of any code that fails iff a whole group
    straggles (the d-FRC), and the union lower bound of eqs. (23)-(24) when the
    groups are column supports.
    """
    n, s = _check_ns(n, s)
    sizes = [_int("group size", a) for a in _sequence("group_sizes", group_sizes)]
    if any(a < 1 for a in sizes):
        raise ValueError(f"group sizes must be positive, got {sizes[:10]}")
    if sum(sizes) > n:
        raise ValueError(f"disjoint groups must fit in n={n} workers, sizes sum to {sum(sizes)}")
    return _group_failure(n, s, Counter(sizes))


def _group_failure(n: int, s: int, counts: Counter) -> Fraction | float:
    """:func:`group_failure_probability` for ``counts = {group size: number of groups}``."""
    counts = Counter({a: x for a, x in counts.items() if a <= s and x})  # larger never fail
    if s == 0 or not counts:
        return Fraction(0)
    if _exact_cost(s, counts) > _EXACT_BUDGET:
        return _group_failure_float(n, s, counts)
    poly = _poly_prod_one_minus(counts, s)
    tails = _tail_binomials(n, s)
    num = -sum(poly[m] * tails[m] for m in range(1, s + 1) if poly[m])
    return Fraction(num, tails[0])


def frc_failure_probability(n: int, s: int, d: int, rounding: str = "ceil") -> Fraction:
    """Exact failure probability ``P(err(A_S^FRC) > 0)`` of the d-FRC (Wang et al. 2019).

    ``s`` stragglers uniformly at random among ``n`` workers; decoding fails
    iff every worker of some group straggles (Appendix D, eqs. (37)-(38)). For
    ``d`` dividing ``n`` there are ``n/d`` groups of size ``d``; otherwise see
    :func:`frc_group_sizes` (Remark 1). Exact :class:`fractions.Fraction`.

    Parameters
    ----------
    n, s, d : int
        ``n >= 2``, ``0 <= s < n``, ``1 <= d <= n``.
    rounding : {"ceil", "floor"}
        How to split when ``d`` does not divide ``n`` (see :func:`frc_group_sizes`).
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    return _group_failure(n, s, _frc_counts(n, d, rounding))


def _frc_counts(n: int, d: int, rounding: str) -> Counter:
    """``{group size: number of groups}`` of :func:`frc_group_sizes`, without listing them."""
    check_choice(rounding, "rounding", ("ceil", "floor"))
    q = -(-n // d) if rounding == "ceil" else n // d
    base, extra = divmod(n, q)
    return Counter({base + 1: extra, base: q - extra})


def _group_event(rng: np.random.Generator, size: int, *, sizes: tuple[int, ...], s: int):
    """``size`` draws of 'some group fully straggles' (multivariate hypergeometric counts)."""
    counts = rng.multivariate_hypergeometric(np.asarray(sizes, dtype=np.int64), s, size=size)
    return (counts == np.asarray(sizes)).any(axis=1)


_MAX_MC_GROUPS, _MAX_MC_WORKERS = 10**6, 10**8


def frc_failure_mc(
    n: int,
    s: int,
    d: int,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    rounding: str = "ceil",
) -> Estimate:
    """Monte Carlo twin of :func:`frc_failure_probability` (through gctheory.montecarlo).

    Each trial draws the number of stragglers in every FRC group (a
    multivariate hypergeometric draw of ``s`` among the ``n`` workers) and
    records whether some group straggled entirely. Returns an
    :class:`~gctheory.montecarlo.Estimate` with a Wilson interval at ``level``.
    ``rng`` is keyword-only; ``executor`` is any Executor, an int (process
    pool) or None (serial); results are identical either way.
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    _check_mc_args(trials, level, None)
    q = sum(_frc_counts(n, d, rounding).values())
    if n > _MAX_MC_WORKERS:
        raise ValueError(
            f"n must be <= {_MAX_MC_WORKERS} for the Monte Carlo twin (numpy's hypergeometric "
            f"sampler), got {n}: use frc_failure_probability at this size"
        )
    if q > _MAX_MC_GROUPS:
        raise ValueError(
            f"n: each Monte Carlo trial draws the stragglers of all {q} FRC groups "
            f"({8 * q / 2**20:.3g} MiB per trial); at most {_MAX_MC_GROUPS} groups: use "
            "frc_failure_probability, exact or to 1e-11, at this size"
        )
    sizes = frc_group_sizes(n, d, rounding)
    event = functools.partial(_group_event, sizes=sizes, s=s)
    return estimate_probability(event, trials, rng=rng, level=level, executor=executor)


def frc_min_load(n: int, s: int, target: float, rounding: str = "ceil") -> int:
    """Smallest ``d`` whose d-FRC fails with exact probability ``<= target``.

    Bisection over ``d`` with :func:`frc_failure_probability` (exact for small
    problems, the saddle-point float beyond), which is non-increasing in ``d``; the
    FRC with ``d = n`` never fails. Achievability at the user's ``n``, to set beside
    the lower bounds.
    """
    n, s = _check_ns(n, s)
    t = _check_target(target)
    check_choice(rounding, "rounding", ("ceil", "floor"))
    # P(fail) is non-increasing in d (checked exhaustively for every n <= 60, every s and
    # both roundings in tests/test_load_bounds.py), so the first d meeting the target is
    # found by bisection: O(log n) evaluations instead of a scan.
    lo, hi = 1, n  # the FRC with d = n never fails: hi meets the target
    while lo < hi:
        mid = (lo + hi) // 2
        if frc_failure_probability(n, s, mid, rounding) <= t:
            hi = mid
        else:
            lo = mid + 1
    return lo


_PMF_MAX_S, _PMF_MAX_TERMS = 10**5, 10**5


def frc_error_pmf(n: int, s: int, d: int, rounding: str = "ceil") -> dict[int, Fraction]:
    """Exact law of ``err(A_S)`` for the d-FRC under ``s`` uniform stragglers.

    A group whose workers all straggle loses its block; every other block is
    received, so (with the group-sum decoder or the least-squares decoder of
    eq. (4), which coincide here) ``err(A_S)`` of eq. (5) is the number of lost
    partitions, the sum of the lost groups' block sizes. The joint law of the
    number of lost groups of each size follows from inclusion-exclusion
    (``P(Y = j) = sum_{j' >= j} prod (-1)^{j'-j} C(j', j) S_{j'}``, ``S`` the
    hypergeometric sums of Appendix D). Returns ``{err value: probability}``
    (exact Fractions, summing to 1); ``P(err > 0)`` equals
    :func:`frc_failure_probability`.
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    if s > _PMF_MAX_S:
        raise ValueError(
            f"s must be <= {_PMF_MAX_S} for the exact law of err (it sums s big-integer "
            f"binomials and every combination of lost groups), got {s}; "
            "frc_failure_probability gives P(err > 0) at any size"
        )
    counts = sorted(_frc_counts(n, d, rounding).items())
    combos = math.prod(min(x, s // a) + 1 for a, x in counts)
    if combos > _PMF_MAX_TERMS:
        raise ValueError(
            f"d: the exact law of err here sums over {combos} combinations of lost groups "
            f"(more than {_PMF_MAX_TERMS}); refused before starting"
        )
    sizes = [a for a, _ in counts]
    mult = [x for _, x in counts]
    tails = _tail_binomials(n, s)
    ranges = [range(0, min(x, s // a) + 1) for a, x in counts]
    S = {}
    for jp in itertools.product(*ranges):
        m = sum(j * a for j, a in zip(jp, sizes))
        if m <= s:
            S[jp] = math.prod(math.comb(x, j) for x, j in zip(mult, jp)) * tails[m]
    pmf: dict[int, Fraction] = {}
    for j in S:
        num = 0
        for jp, val in S.items():
            if all(b >= a for a, b in zip(j, jp)):
                sign = (-1) ** sum(b - a for a, b in zip(j, jp))
                num += sign * math.prod(math.comb(b, a) for a, b in zip(j, jp)) * val
        if num:
            err = sum(a * k for a, k in zip(sizes, j))
            pmf[err] = pmf.get(err, Fraction(0)) + Fraction(num, tails[0])
    return dict(sorted(pmf.items()))


# ---------------------------------------------------------------------------
# finite-n lower bounds from the proof steps


def single_column_lower_bound(n: int, s: int, d: int) -> Fraction:
    """``C(n - d, s - d) / C(n, s)``, the left side of eq. (26) of Wang et al. 2019 (exact).

    The probability that a column with support ``d`` is all-zero in ``A_S``.
    A code with load ``d`` (at most ``d`` non-zeros per row) has a column with
    at most ``d`` non-zeros (``n d`` non-zeros over ``n`` columns), so *every*
    such code fails (``err(A_S) >= 1``) with at least this probability: a
    rigorous finite-n bound needing neither Lemma 1 nor Lemma 2. Its
    asymptotic form is ``(1 + o(1)) delta^d``.
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    if d > s:
        return Fraction(0)
    if d <= 10**4:  # C(n-d, s-d)/C(n, s) = prod_{i<d} (s-i)/(n-i): d factors, exact
        return Fraction(math.prod(range(s - d + 1, s + 1)), math.prod(range(n - d + 1, n + 1)))
    # beyond, in mpmath: log-gammas with the digits their size needs
    with mpmath.workdps(30 + len(str(n))):
        log_p = (
            mpmath.loggamma(s + 1)
            - mpmath.loggamma(s - d + 1)
            - mpmath.loggamma(n + 1)
            + mpmath.loggamma(n - d + 1)
        )
        return float(mpmath.exp(log_p))


def union_lower_bound(n: int, s: int, d: int) -> Fraction:
    """Eq. (24) of Wang et al. 2019: P(one of ``t = floor(n/d^2)`` disjoint columns is all-zero).

    By Lemma 2 every ``A`` in ``U_n^d`` has ``t`` columns with pairwise
    disjoint supports of size ``d``; by Lemma 1 (and eq. (23)) every code of
    load ``d`` fails with probability at least this exact inclusion-exclusion
    sum ``sum_k (-1)^{k+1} C(t,k) C(n - kd, s - kd) / C(n, s)``. A finite-n
    bound, exact; it inherits Lemma 1, whose column step is asserted rather
    than proved in the paper.
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    t = n // (d * d)
    return _group_failure(n, s, Counter({d: t})) if t else Fraction(0)


def zero_column_count_pmf(n: int, s: int, sizes: Sequence[int]) -> list[Fraction]:
    """Exact law of ``Y``, the number of all-zero columns among disjoint-support columns.

    ``Y(I_d*)`` of Appendix E of Wang et al. 2019, computed exactly instead of
    through Chebyshev's inequality: ``P(Y = j) = sum_{k >= j} (-1)^{k-j} C(k, j) S_k``
    with ``S_k`` the k-th inclusion-exclusion sum. Returns ``[P(Y=0), ..., P(Y=t)]``.
    """
    n, s = _check_ns(n, s)
    sizes = [_int("size", a) for a in _sequence("sizes", sizes)]
    if any(a < 1 for a in sizes) or sum(sizes) > n:
        raise ValueError(f"sizes must be positive and sum to at most n={n}, got {sizes[:10]}")
    if not sizes:
        return [Fraction(1)]
    if s > _PMF_MAX_S or len(sizes) > 10**4:
        raise ValueError(
            f"s must be <= {_PMF_MAX_S} and sizes at most 10**4 long for this exact law "
            f"(s big-integer binomials, len(sizes)^2 sums), got s = {s}, {len(sizes)} sizes"
        )
    t = len(sizes)
    tails = _tail_binomials(n, s)
    total = tails[0]
    # S_k = sum over k-subsets of groups of C(n - m, s - m): generating function prod (1 + y z^a)
    by_k: list[dict[int, int]] = [{0: 1}]
    for a in sizes:
        nxt = [dict(x) for x in by_k] + [{}]
        for k, poly in enumerate(by_k):
            for m, c in poly.items():
                if m + a <= s:
                    nxt[k + 1][m + a] = nxt[k + 1].get(m + a, 0) + c
        by_k = nxt
    S = [sum(c * tails[m] for m, c in poly.items()) for poly in by_k]
    pmf = []
    for j in range(t + 1):
        num = sum((-1) ** (k - j) * math.comb(k, j) * S[k] for k in range(j, t + 1))
        pmf.append(Fraction(num, total))
    return pmf


def zero_column_tail_lower_bound(n: int, s: int, d: int, c: float) -> Fraction:
    """Exact ``P(Y > c)`` for ``t = floor(n/d^2)`` disjoint columns of support ``d``.

    ``err(A_S)`` is at least the number of all-zero columns of ``A_S``, so by
    Lemmas 1-2 every code of load ``d`` has ``P[err(A_S) > c] >= P(Y > c)``
    (eqs. (41)-(45) of Wang et al. 2019, evaluated exactly instead of through
    Chebyshev's inequality). With equal sizes ``S_k = C(t, k) C(n - kd, s - kd)``
    and ``P(Y = j) = sum_k (-1)^(k-j) C(k, j) S_k / C(n, s)``; only ``j <= c``
    is summed. For ``c < 0`` this is 1; for ``0 <= c < 1`` it is eq. (24).
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    c = check_real(c, "c")
    t = n // (d * d)
    if c < 0:
        return Fraction(1)
    if t == 0:
        return Fraction(0)
    kmax = min(t, s // d)
    if math.floor(c) >= kmax:
        return Fraction(0)
    if kmax * (math.floor(c) + 1) > _TAIL_BUDGET or _exact_cost(s, Counter({d: t})) > _EXACT_BUDGET:
        return _zero_column_tail_float(n, s, d, t, math.floor(c), kmax)
    tails = _tail_binomials(n, s)
    S = [math.comb(t, k) * tails[k * d] for k in range(kmax + 1)]
    below = 0
    for j in range(min(kmax, math.floor(c)) + 1):
        below += sum((-1) ** (k - j) * math.comb(k, j) * S[k] for k in range(j, kmax + 1))
    return 1 - Fraction(below, tails[0])


_TAIL_BUDGET = 2 * 10**5


def _zero_column_tail_float(n: int, s: int, d: int, t: int, c: int, kmax: int) -> float:
    """``P(Y > c)`` in floating point: ``P(Y = j) = [z^s] (1+z)^n C(t, j) u^j (1-u)^(t-j)
    / C(n, s)`` with ``u = (z/(1+z))^d`` (non-negative coefficients), summed over the
    shorter side of ``c`` (absolute error about ``1e-13 sqrt(n)``)."""
    upper = kmax - c <= max(c + 1, 2000)  # the upper tail directly: no 1 - (1 - tiny)
    js = range(c + 1, kmax + 1) if upper else range(0, c + 1)
    z, log_w = _saddle_circle(n, s)
    if len(js) * len(z) > 10**9:
        raise ValueError(
            f"c: P(Y > c) sums {len(js)} terms over {len(z)} points here (n = {n}, s = {s}, "
            f"d = {d}): too many to answer in seconds; refused"
        )
    with np.errstate(divide="ignore", under="ignore"):
        return _zero_column_tail_sum(n, s, d, t, js, upper, z, log_w)


def _zero_column_tail_sum(n, s, d, t, js, upper, z, log_w) -> float:
    log_u = d * (np.log(z) - _clog1p(z))
    small = log_u.real < math.log(0.5)
    log_1mu = np.empty_like(z)
    log_1mu[small] = _clog1p(-np.exp(log_u[small]))
    log_1mu[~small] = log_u[~small] + 1j * np.pi + _clog1p(-np.exp(-log_u[~small]))
    base = log_w + t * log_1mu
    step = log_u - log_1mu
    ratio = np.exp(step)  # term_{j+1} / term_j = (t - j)/(j + 1) u/(1-u)
    # start at the largest term on the real axis (the mode of Binomial(t, u(r))) and
    # walk both ways by the ratio, so no term that matters underflows
    u_r = (s / n) ** d
    mode = min(max(math.floor((t + 1) * u_r), js[0]), js[-1])
    log_c = math.lgamma(t + 1) - math.lgamma(mode + 1) - math.lgamma(t - mode + 1)
    anchor = np.exp(base + log_c + mode * step)
    total = anchor.copy()
    term = anchor
    for j in range(mode, js[-1]):
        term = term * ratio * ((t - j) / (j + 1))
        total += term
    term = anchor
    for j in range(mode, js[0], -1):
        term = term / ratio * (j / (t - j + 1))
        total += term
    part = _saddle_finish(n, s, float(np.real(np.mean(total))))
    return min(1.0, part) if upper else max(0.0, 1.0 - part)


def min_load_lower_bound(n: int, s: int, target: float, eps: float = 0.0) -> LoadBound:
    """A finite-n lower bound on the load for ``P[err(A_S) > eps n] <= target``.

    Smallest ``d`` at which the exact proof-step bounds no longer exceed
    ``target``: for every smaller load, every code (within Lemma 1's reduction)
    fails more often than ``target``. The bound used at load ``d`` is the
    largest of the single-column bound (eq. (26), only if ``eps n < 1``), the
    union bound (eq. (24), if ``eps n < 1``) and the exact ``P(Y > eps n)`` of
    :func:`zero_column_tail_lower_bound`.

    Returns
    -------
    LoadBound
        Not asymptotic: valid at this ``n`` for the stated ``target``.
    """
    n, s = _check_ns(n, s)
    t = _check_target(target)
    e = _check_eps(eps)
    c = e * n
    for d in range(1, n + 1):
        lb = union_lower_bound(n, s, d) if c < 1 else zero_column_tail_lower_bound(n, s, d, c)
        if c < 1:
            lb = max(lb, single_column_lower_bound(n, s, d))
        if lb <= t:
            break
    return LoadBound(
        float(d),
        d,
        "lower",
        "Wang et al. 2019, eqs. (23)-(26) and (41)-(45) evaluated exactly",
        f"finite n; failure probability <= {float(t):g} at error <= eps n; relies on Lemma 1",
    )


# ---------------------------------------------------------------------------
# Lemma 2, constructive


def disjoint_support_columns(A: Any) -> np.ndarray:
    """Columns of ``A`` with pairwise disjoint supports, found greedily (Lemma 2, Wang et al.).

    Greedy by smallest remaining conflict degree (two columns conflict if
    some row has non-zeros in both): pick a column, drop it and its
    conflicting columns, repeat (the procedure of Appendix B, eqs. (19)-(20),
    with a min-degree choice). For ``A`` in ``U_n^d`` (every row and column
    with exactly ``d`` non-zeros) each pick removes at most ``1 + d(d-1)``
    columns, so the result has at least ``ceil(n / (d^2 - d + 1)) >=
    floor(n / d^2)`` columns, as Lemma 2 states. All-zero columns are kept
    (their empty supports are disjoint from every other).

    Returns the sorted column indices.
    """
    A = np.asarray(A)
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"A must be a non-empty 2-D array, got shape {A.shape}")
    supp = (A != 0).astype(np.int64)
    conflict = (supp.T @ supp) > 0
    np.fill_diagonal(conflict, False)
    alive = np.ones(A.shape[1], dtype=bool)
    chosen = []
    while alive.any():
        deg = np.where(alive, (conflict & alive).sum(axis=1), np.iinfo(np.int64).max)
        j = int(np.argmin(deg))
        chosen.append(j)
        alive[j] = False
        alive &= ~conflict[j]
    return np.array(sorted(chosen), dtype=np.int64)


def matrix_union_lower_bound(A: Any, s: int) -> Fraction:
    """Exact lower bound on ``P(err(A_S) > 0)`` for a given coding matrix ``A`` (eq. (23)).

    Rows are workers; ``s`` uniformly random rows straggle. The columns of
    :func:`disjoint_support_columns` have disjoint supports, so the
    probability that one of them is all-zero in ``A_S`` is an exact
    inclusion-exclusion (:func:`group_failure_probability`); an all-zero column
    forces ``err(A_S) >= 1``, so this lower-bounds the failure probability of
    ``A`` itself (no lemma needed). Equal to it for the d-FRC.
    """
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[0] < 2:
        raise ValueError(f"A must be a 2-D array with at least 2 rows (workers), got {A.shape}")
    s = _int("s", s)
    if not 0 <= s < A.shape[0]:
        raise ValueError(f"s must satisfy 0 <= s < n = {A.shape[0]} (rows of A), got {s}")
    n = A.shape[0]
    cols = disjoint_support_columns(A)
    sizes = (A[:, cols] != 0).sum(axis=0)
    if (sizes == 0).any():
        return Fraction(1)
    return group_failure_probability(n, s, [int(a) for a in sizes])


# ---------------------------------------------------------------------------
# Theorem 6: batch raptor code parameters


@dataclass(frozen=True)
class BRCParameters:
    """Parameters of Theorem 6 of Wang et al. 2019 (batch raptor code).

    Attributes
    ----------
    b : int
        Batch size ``ceil(1/ln(1/delta)) + 1`` (the theorem's code name writes
        ``ceil(1/ln(1/delta))`` without the ``+1``; the definition and the
        proof's eq. (53) use ``b`` with it).
    D : int
        ``floor(1/eps)``.
    u : Fraction
        ``2 eps (1 - 2 eps) / (1 - 4 eps)^2``.
    degree_distribution : tuple of Fraction
        ``(p_1, ..., p_{D+1})`` of eq. (17); sums to 1 exactly.
    average_degree : Fraction
        ``sum_k k p_k = (u + H_{D-1} + (D+1)/D) / (u + 1)`` (batches per worker).
    average_load : Fraction
        ``b * average_degree`` (data partitions per worker, on average).
    max_load : int
        ``b * (D + 1)``.
    condition_53 : bool
        Whether ``n (1 - 2 eps) / (b (1 - 4 eps)) < n - s`` (eq. (53)) holds.
    """

    b: int
    D: int
    u: Fraction
    degree_distribution: tuple[Fraction, ...] = field(repr=False)
    average_degree: Fraction
    average_load: Fraction
    max_load: int
    condition_53: bool

    def __repr__(self) -> str:
        return (
            f"BRCParameters(b={self.b}, D={self.D}, u={float(self.u):.6g}, "
            f"average_degree={float(self.average_degree):.6g}, "
            f"average_load={float(self.average_load):.6g}, max_load={self.max_load}, "
            f"condition_53={self.condition_53})"
        )


_MAX_D = 10**4  # exact Fractions with denominators lcm(1..D): ~0.1 s at D = 1e4


def brc_parameters(n: int, s: int, eps: float) -> BRCParameters:
    """Batch size, degree distribution and average load of Theorem 6 of Wang et al. 2019.

    Regime: ``0 < eps < 1/4`` (so ``u`` is defined and positive) and
    ``1 <= s < n``; the guarantee ``P(err > c) < e^{-c0 n}`` is asymptotic and
    needs eq. (53) (checked, ``condition_53``) and eq. (54)
    (:func:`brc_condition_54_margin`). Natural logarithm in ``b``.
    """
    n, s = _check_ns(n, s)
    e = _check_eps(eps)
    if not 0 < e < Fraction(1, 4):
        raise ValueError(f"eps must lie in (0, 1/4) for Theorem 6 (u > 0), got eps={eps}")
    if s == 0:
        raise ValueError("s must be at least 1 for Theorem 6 (b = ceil(1/ln(n/s)) + 1)")
    if 1 / e > _MAX_D + 1:
        raise ValueError(
            f"eps must be >= 1/{_MAX_D + 1} here, got {float(e):.3g}: the degree distribution "
            f"of eq. (17) has D + 1 = floor(1/eps) + 1 exact terms"
        )
    with mpmath.workdps(_DPS):
        b = _ceil(1 / mpmath.log(mpmath.mpf(n) / s)) + 1
    D = math.floor(1 / e)
    u = 2 * e * (1 - 2 * e) / (1 - 4 * e) ** 2
    p = [u / (u + 1)]
    p += [1 / (k * (k - 1) * (u + 1)) for k in range(2, D + 1)]
    p.append(1 / (D * (u + 1)))
    avg = sum((k * pk for k, pk in enumerate(p, start=1)), Fraction(0))
    cond = n * (1 - 2 * e) / (b * (1 - 4 * e)) < n - s
    return BRCParameters(b, D, u, tuple(p), avg, b * avg, b * (D + 1), bool(cond))


def brc_condition_54_margin(eps: float, points: int = 2001) -> float:
    """Smallest ``(1 - x) - exp(-(1-2eps)/(1-4eps) * Omega'(x))`` on ``[0, 1 - eps]``.

    Eq. (54) of Wang et al. 2019 requires it to be positive (the peeling
    decoder then recovers a ``1 - eps`` fraction of batches). ``Omega'`` is the
    derivative of the generating function of eq. (17), evaluated as a finite
    sum; the minimum is over ``points`` equally spaced ``x`` (x = 0 excluded,
    where both sides equal 1 only if u = 0). Float arithmetic.
    """
    e = _check_eps(eps)
    if not 0 < e < Fraction(1, 4):
        raise ValueError(f"eps must lie in (0, 1/4) for Theorem 6, got eps={eps}")
    points = _int("points", points)
    if not 2 <= points <= 10**7:
        raise ValueError(f"points must lie in [2, 10**7], got {points}")
    params = brc_parameters(10, 1, e)  # b is irrelevant here; p depends on eps only
    p = np.array([float(x) for x in params.degree_distribution])
    x = np.linspace(0.0, 1.0 - float(e), points)[1:]
    k = np.arange(1, len(p) + 1)
    omega_prime = (p * k * x[:, None] ** (k - 1)).sum(axis=1)
    beta = float((1 - 2 * e) / (1 - 4 * e))
    return float(np.min((1 - x) - np.exp(-beta * omega_prime)))


# ---------------------------------------------------------------------------
# everything at once (for the CLI and the figure)


def all_bounds(
    n: int, s: int, eps: float = 0.01, target: float = 0.01
) -> list[tuple[str, LoadBound, Fraction | None]]:
    """Every bound and achievable load for ``(n, s)``, without warnings.

    Returns ``(label, bound, frc_failure)`` triples, where ``frc_failure`` is
    the exact d-FRC failure probability at the bound's integer load (what a
    user would get by building the FRC with that many partitions per worker),
    or None where that is not meaningful. Regime problems are in each
    bound's ``notes``.
    """
    n, s = _check_ns(n, s)
    eps, target = float(_check_eps(eps)), float(_check_target(target))
    rows: list[tuple[str, LoadBound]] = [
        ("worst case (Tandon / Ye-Abbe m=1)", worst_case_load(n, s)),
        ("worst case (Halbawi eq. 2)", halbawi_load(n, s)),
        ("exact whp, Thm 3 eq. (13)", exact_recovery_lower_bound(n, s, warn=False)),
        ("exact whp, Thm 3 proof eq. (29)", exact_recovery_lower_bound(n, s, "proof", warn=False)),
        ("eps=0, Thm 5 as stated", approximate_recovery_lower_bound(n, s, 0, warn=False)),
        (
            f"eps={eps:g}, Thm 5 as stated",
            approximate_recovery_lower_bound(n, s, eps, warn=False),
        ),
    ]
    if 2 * _check_eps(eps) * n + 4 < n:
        rows.append(
            (
                f"eps={eps:g}, Thm 5 proof eq. (52)",
                approximate_recovery_lower_bound(n, s, eps, "proof", warn=False),
            )
        )
    rows += [
        (f"finite-n, P(fail)<={target:g}, eps=0", min_load_lower_bound(n, s, target)),
        (f"finite-n, P(err>eps n)<={target:g}", min_load_lower_bound(n, s, target, eps)),
        ("FRC, Thm 4 eq. (14)", frc_load(n, s, warn=False)),
        ("FRC, Thm 4 proof d=1+log n/log(1/delta)", frc_load(n, s, "proof", warn=False)),
    ]
    d_frc = frc_min_load(n, s, target)
    rows.append(
        (
            f"FRC exact, smallest d with P(fail)<={target:g}",
            LoadBound(
                float(d_frc),
                d_frc,
                "achievable",
                "exact inclusion-exclusion, Wang et al. 2019 App. D (37)-(38)",
                "finite n, exact",
            ),
        )
    )
    return [(label, b, frc_failure_probability(n, s, b.load)) for label, b in rows]


def load_curves(
    n: int, s_values: Sequence[int], eps: float = 0.01, target: float = 0.01
) -> dict[str, list]:
    """The columns behind Figure 2 of Wang et al. 2019, regenerated (and extended).

    For each ``s`` in ``s_values``: the real-valued bounds (worst case ``s+1``,
    eq. (13), eq. (29), Theorem 5 as stated and eq. (52) at ``eps``), their
    integer loads, the finite-n lower bounds at ``target`` (``eps = 0`` and
    ``eps``), Theorem 4's FRC load and the exact smallest d-FRC load with
    failure probability ``<= target``; and whether eq. (13) is in its
    decreasing (broken-down) region. No warnings are emitted.
    """
    n = _int("n", n)
    s_values = [_int("s_values entry", v) for v in _sequence("s_values", s_values)]
    cols: dict[str, list] = {
        k: []
        for k in (
            "s",
            "worst_case",
            "thm3_eq13",
            "thm3_eq29",
            "thm5_stated",
            "thm5_eq52",
            "thm3_eq13_load",
            "thm5_eq52_load",
            "finite_n_lb_eps0",
            "finite_n_lb_eps",
            "frc_eq14_load",
            "frc_exact_min_load",
            "eq13_decreasing",
        )
    }
    proof_ok = 2 * _check_eps(eps) * n + 4 < n
    for s in s_values:
        _check_ns(n, s)
        t3 = exact_recovery_lower_bound(n, s, warn=False)
        t5 = approximate_recovery_lower_bound(n, s, eps, warn=False)
        p52 = approximate_recovery_lower_bound(n, s, eps, "proof", warn=False) if proof_ok else None
        cols["s"].append(int(s))
        cols["worst_case"].append(worst_case_load(n, s).load)
        cols["thm3_eq13"].append(t3.value)
        cols["thm3_eq29"].append(exact_recovery_lower_bound(n, s, "proof", warn=False).value)
        cols["thm5_stated"].append(t5.value)
        cols["thm5_eq52"].append(p52.value if p52 else float("nan"))
        cols["thm3_eq13_load"].append(t3.load)
        cols["thm5_eq52_load"].append(p52.load if p52 else -1)
        cols["finite_n_lb_eps0"].append(min_load_lower_bound(n, s, target).load)
        cols["finite_n_lb_eps"].append(min_load_lower_bound(n, s, target, eps).load)
        cols["frc_eq14_load"].append(frc_load(n, s, warn=False).load)
        cols["frc_exact_min_load"].append(frc_min_load(n, s, target))
        cols["eq13_decreasing"].append(int(not t3.in_regime))
    return cols


# ---------------------------------------------------------------------------
# achievability of the constructions of gctheory.codes.approximate, by Monte Carlo


@dataclass(frozen=True)
class AchievedLoad:
    """One construction's load and its Monte Carlo ``P(err(A_S) > eps n)``.

    Attributes
    ----------
    family : str
        ``"frc"``, ``"brc"`` or ``"bgc"``.
    parameter : float
        The family's knob: ``d`` (FRC), batch size ``b`` (BRC with Theorem 6's
        ``P_w``), expected load ``p n`` (BGC).
    max_load : int
        ``kappa(A)`` of Definition 2 (the most partitions any worker holds).
    mean_load : float
        Partitions per worker, averaged over workers.
    estimate : Estimate
        ``P(err > eps n)`` under ``s`` uniform stragglers, with the code's own decoder.
    """

    family: str
    parameter: float
    max_load: int
    mean_load: float
    estimate: Estimate


def _build_code(family: str, n: int, s: int, eps: Fraction, parameter: int, rng: Any):
    from gctheory.codes import approximate as ap  # lazy: codes sit beside this module

    if family == "frc":
        return ap.DFractionalRepetitionCode(n, parameter, rng=rng)
    if family == "brc":
        return ap.BatchRaptorCode.theorem6(n, s, eps, b=parameter, rng=rng)
    return ap.BernoulliGradientCode(n, min(1.0, parameter / n), rng=rng)


def achieved_load_mc(
    family: str,
    n: int,
    s: int,
    eps: float,
    target: float,
    trials: int,
    *,
    parameters: Sequence[int] | None = None,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.98,
) -> tuple[AchievedLoad | None, list[AchievedLoad]]:
    """Smallest-load member of a code family whose ``P(err > eps n)`` is ``<= target``.

    Scans ``parameters`` (increasing; default ``1, 2, ...``) of the family
    (``"frc"``: the d-FRC of :mod:`gctheory.codes.approximate`, Definition 4 /
    Remark 1, group-sum decoder; ``"brc"``: the batch raptor code with
    Theorem 6's ``P_w(eps)`` and batch size ``b = parameter``, peeling
    decoder; ``"bgc"``: the Bernoulli gradient code with ``p = parameter/n``,
    least-squares decoder), builds one random code per value and estimates
    its failure probability through :mod:`gctheory.montecarlo`. A member is
    accepted when the *upper* confidence limit is ``<= target`` (at the
    two-sided ``level``, i.e. one-sided ``(1 + level)/2``): conservative.

    Parameters for which the family cannot be built (a BRC with fewer
    batches ``n/b`` than its largest degree ``D + 1``) are skipped.

    Returns ``(first accepted or None, every member tried)``. Monte Carlo:
    BRC peeling costs about 4 ms per trial at ``n = 100``; BGC least squares
    tens of ms.
    """
    if family not in ("frc", "brc", "bgc"):
        raise ValueError(f"family must be 'frc', 'brc' or 'bgc', got {family!r}")
    n, s = _check_ns(n, s)
    e = _check_eps(eps)
    tgt = _check_target(target)
    _check_mc_args(trials, level, None)
    if family == "brc" and not 0 < e < Fraction(1, 4):
        raise ValueError(f"eps must lie in (0, 1/4) for the BRC of Theorem 6, got eps={eps}")
    from gctheory.codes.approximate import estimate_decoding_failure

    params = list(parameters) if parameters is not None else list(range(1, n + 1))
    seeds = seed_sequence(rng).spawn(2 * len(params))
    tried = []
    for i, par in enumerate(params):
        try:
            code = _build_code(family, n, s, e, int(par), np.random.default_rng(seeds[2 * i]))
        except ValueError:  # e.g. a BRC batch size leaving fewer batches than the top degree
            continue
        est = estimate_decoding_failure(
            code,
            s,
            trials,
            threshold=float(e * n),
            rng=np.random.default_rng(seeds[2 * i + 1]),
            level=level,
            executor=executor,
        )
        loads = np.asarray(code.support).sum(axis=1)
        row = AchievedLoad(family, float(par), int(loads.max()), float(loads.mean()), est)
        tried.append(row)
        if est.high <= tgt:
            return row, tried
    return None, tried
