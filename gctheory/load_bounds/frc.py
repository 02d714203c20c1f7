"""The d-fractional repetition code (d-FRC, Definition 4 and Remark 1 of [1]): the load
Theorem 4 proves sufficient (eq. (14)), its worker groups, its failure probability
computed *exactly* (inclusion-exclusion over its groups, Appendix D, eqs. (37)-(38),
also when ``d`` does not divide ``n``), its Monte Carlo twin, the smallest load meeting
a target, and the exact law of its error ``err(A_S)``.

Theorem 4's eq. (14) is not base-free and uses ``ln``.

.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from gctheory._validate import check_choice
from gctheory.load_bounds._common import (
    _DPS,
    LoadBound,
    _ceil,
    _check_d,
    _check_ns,
    _check_target,
    _emit,
    _int,
)
from gctheory.load_bounds.group_failure import (
    _PMF_MAX_S,
    _group_failure,
    _tail_binomials,
)

if TYPE_CHECKING:  # the Monte Carlo engine (and scipy.special) load only when an MC runs
    from gctheory.montecarlo import Estimate

__all__ = [
    "frc_load",
    "frc_group_sizes",
    "frc_failure_probability",
    "frc_failure_mc",
    "frc_min_load",
    "frc_error_pmf",
]


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
    warn : bool
        Issue a :class:`LoadBoundRegimeWarning` outside the regime (the notes say it anyway).

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

    Examples
    --------
    >>> from gctheory.load_bounds import frc_load
    >>> b = frc_load(1000, 100)
    >>> round(b.value, 4), b.load
    (3.3622, 4)
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
        notes: tuple[str, ...] = ()
        if n * L <= mpmath.e**2:
            notes = (
                f"n ln(1/delta)={float(n * L):.3g} <= e^2: the proof's remainder "
                "1/ln(n ln(1/delta)) is not small, eq. (14) guarantees nothing here",
            )
        b = LoadBound(float(value), load, "achievable", src, regime, asymptotic=True, notes=notes)
    return _emit(b, warn)


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

    Parameters
    ----------
    n : int
        Workers.
    d : int
        Load, ``1 <= d <= n``.
    rounding : {"ceil", "floor"}
        How the number of groups is rounded when ``d`` does not divide ``n``.

    Returns
    -------
    tuple of int
        The group sizes, summing to ``n``.

    Examples
    --------
    >>> from gctheory.load_bounds import frc_group_sizes
    >>> frc_group_sizes(12, 3), frc_group_sizes(10, 3)
    ((3, 3, 3, 3), (3, 3, 2, 2))
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


def frc_failure_probability(n: int, s: int, d: int, rounding: str = "ceil") -> Fraction | float:
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

    Returns
    -------
    fractions.Fraction or float
        Exact where cheap, else a float.

    Examples
    --------
    >>> from gctheory.load_bounds import frc_failure_probability
    >>> frc_failure_probability(6, 2, 2)
    Fraction(1, 5)
    >>> f"{float(frc_failure_probability(100, 10, 3)):.4g}"
    '0.04157'
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

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Load.
    trials : int
        Monte Carlo trials.
    rng : None, int or numpy.random.Generator
        Seed.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks; results do not depend on it.
    level : float
        Confidence level.
    rounding : {"ceil", "floor"}
        As in :func:`frc_group_sizes`.

    Returns
    -------
    Estimate
        ``P(some group straggles entirely)``, Wilson interval.

    Examples
    --------
    >>> from gctheory.load_bounds import frc_failure_mc, frc_failure_probability
    >>> est = frc_failure_mc(100, 10, 3, 4000, rng=0)
    >>> est.contains(float(frc_failure_probability(100, 10, 3)))
    True
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    from gctheory.order_stats import _check_mc_args  # lazy: it imports scipy.stats

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
    from gctheory.montecarlo import estimate_probability  # lazy: see the imports above

    return estimate_probability(event, trials, rng=rng, level=level, executor=executor)


def frc_min_load(n: int, s: int, target: float, rounding: str = "ceil") -> int:
    """Smallest ``d`` whose d-FRC fails with exact probability ``<= target``.

    Bisection over ``d`` with :func:`frc_failure_probability` (exact for small
    problems, the saddle-point float beyond), which is non-increasing in ``d``; the
    FRC with ``d = n`` never fails. Achievability at the user's ``n``, to set beside
    the lower bounds.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    target : float
        Largest acceptable failure probability.
    rounding : {"ceil", "floor"}
        As in :func:`frc_group_sizes`.

    Returns
    -------
    int
        The smallest load ``d``.

    Examples
    --------
    >>> from gctheory.load_bounds import frc_min_load
    >>> frc_min_load(100, 10, 0.01)
    4
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


_PMF_MAX_TERMS = 10**5


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

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Load.
    rounding : {"ceil", "floor"}
        As in :func:`frc_group_sizes`.

    Returns
    -------
    dict of int to fractions.Fraction
        ``{err: probability}``.

    Examples
    --------
    >>> from gctheory.load_bounds import frc_error_pmf
    >>> frc_error_pmf(6, 2, 2)
    {0: Fraction(4, 5), 2: Fraction(1, 5)}
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    nums, den = _frc_error_counts(n, s, d, rounding)
    return {err: Fraction(num, den) for err, num in nums.items()}


def _frc_error_counts(n: int, s: int, d: int, rounding: str = "ceil") -> tuple[dict[int, int], int]:
    """:func:`frc_error_pmf` as ``({err: numerator}, C(n, s))``: sums of these integers give
    exact tail probabilities without a Fraction (and its gcd) per term."""
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
    # P(Y = j) tails[0] = sum_{j' >= j} prod_i (-1)^{j'_i - j_i} C(j'_i, j_i) S_{j'} is a product
    # of one-dimensional binomial transforms, so it is taken one axis at a time: each line
    # of S along the axis holds the coefficients of a polynomial V(z), and the transform is
    # V(z - 1) (a Taylor shift by additions only). O(|S| x line length) integer additions
    # where the pairwise double sum cost O(|S|^2) products (about 40x at n = 1000).
    for axis in range(len(sizes)):
        lines: dict[tuple[int, ...], dict[int, int]] = {}
        for jp, val in S.items():
            lines.setdefault(jp[:axis] + jp[axis + 1 :], {})[jp[axis]] = val
        S = {}
        for rest, line in lines.items():
            shifted = _taylor_shift_minus_one([line.get(t, 0) for t in range(max(line) + 1)])
            for t, v in enumerate(shifted):
                S[rest[:axis] + (t,) + rest[axis:]] = v
    nums: dict[int, int] = {}
    for j, num in S.items():
        if num:
            err = sum(a * k for a, k in zip(sizes, j))
            nums[err] = nums.get(err, 0) + num
    return {e: v for e, v in sorted(nums.items()) if v}, tails[0]


def _taylor_shift_minus_one(v: list[int]) -> list[int]:
    """Coefficients of ``V(z - 1)`` for ``V(z) = sum_t v[t] z^t``: ``out[j] = sum_{t >= j}
    (-1)^(t - j) C(t, j) v[t]``, exactly, by repeated synthetic division (additions only)."""
    a = list(v)
    top = len(a) - 1
    for i in range(top):
        for j in range(top - 1, i - 1, -1):
            a[j] -= a[j + 1]
    return a


def _frc_error_tail(
    n: int, s: int, d: int, threshold: float, rounding: str = "ceil"
) -> tuple[int, int, int]:
    """``(N_above, N_mean, C(n, s))``: ``P(err > threshold) = N_above / C(n, s)`` and
    ``E[err] = N_mean / C(n, s)`` for the d-FRC, exactly the sums of
    :func:`_frc_error_counts` (``N_above = sum_{e > threshold} nums[e]``, ``N_mean = sum_e e
    nums[e]``) without the whole law of err.

    The law is ``P(Y = j) C(n, s) = sum_{t >= j} prod_i (-1)^(t_i - j_i) C(t_i, j_i) S_t``
    with ``Y_i`` the number of lost groups of size ``a_i`` and ``S_t = prod_i C(x_i, t_i)
    C(n - m_t, s - m_t)``, ``m_t = sum_i a_i t_i`` (Appendix D of Wang et al. 2019). Only
    ``P(err <= c) = sum_{j : sum a_i j_i <= c} P(Y = j)``, ``c = floor(threshold)``, is
    needed, and along one axis ``sum_{j <= min(c, t)} (-1)^(t - j) C(t, j)`` is ``[t = 0]``
    for ``t <= c`` and ``(-1)^(t - c) C(t - 1, c)`` beyond. So the longest axis (the
    ``ceil(n/d)``-ish groups of size ``d``; the other size has fewer than ``d`` groups) is
    summed with these weights, O(its length) per point of the others, and only the other
    axes are transformed (a Taylor shift stopped after the ``floor(c / a_i) + 1`` needed
    coefficients): O(|S| (1 + c / a)) big-integer additions where the whole law costs
    O(|S| x line length). ``E[err] C(n, s) = sum_i a_i x_i C(n - a_i, s - a_i)`` (linearity:
    a group is lost with probability ``C(n - a, s - a) / C(n, s)``).
    """
    counts = [(a, x) for a, x in sorted(_frc_counts(n, d, rounding).items()) if x]
    tails = _tail_binomials(n, s)
    den = tails[0]
    mean = sum(a * x * tails[a] for a, x in counts if a <= s)
    c = math.floor(threshold)
    lens = [min(x, s // a) + 1 for a, x in counts]
    long = max(range(len(counts)), key=lambda i: lens[i])
    others = [i for i in range(len(counts)) if i != long]
    combs = [_binomial_row(x, lens[i] - 1) for i, (_, x) in enumerate(counts)]
    a_long = counts[long][0]
    if len(others) <= 1:  # what _frc_counts gives: at most two sizes
        return den - _below_two_sizes(counts, lens, combs, long, others, tails, s, c), mean, den
    # R[rest][t_long]: S transformed along every other axis, rest = (j_i for i in others)
    R: dict[tuple[int, ...], list[int]] = {}
    for rest_t in itertools.product(*(range(lens[i]) for i in others)):
        m0 = sum(counts[i][0] * t for i, t in zip(others, rest_t))
        if m0 > s:
            continue
        f = math.prod(combs[i][t] for i, t in zip(others, rest_t))
        top = min(lens[long] - 1, (s - m0) // a_long)
        R[rest_t] = [f * combs[long][t] * tails[m0 + a_long * t] for t in range(top + 1)]
    for axis_pos, i in enumerate(others):
        keep = min(lens[i] - 1, c // counts[i][0])  # coefficients j_i <= c / a_i only
        lines: dict[tuple[int, ...], dict[int, list[int]]] = {}
        for rest_t, vec in R.items():
            key = rest_t[:axis_pos] + rest_t[axis_pos + 1 :]
            lines.setdefault(key, {})[rest_t[axis_pos]] = vec
        R = {}
        for key, line in lines.items():
            width = max(len(v) for v in line.values())
            for t_long in range(width):
                col = [line[t][t_long] if t in line and t_long < len(line[t]) else 0
                       for t in range(max(line) + 1)]  # fmt: skip
                out = _taylor_shift_minus_one_head(col, keep)
                for j, v in enumerate(out):
                    vec = R.setdefault(key[:axis_pos] + (j,) + key[axis_pos:], [])
                    vec.extend([0] * (t_long + 1 - len(vec)))
                    vec[t_long] = v
    below = 0
    for rest_j, vec in R.items():
        room = c - sum(counts[i][0] * j for i, j in zip(others, rest_j))
        if room < 0:
            continue
        cl = room // a_long
        total = vec[0] if vec else 0  # t = 0: weight 1; 1 <= t <= cl: weight 0
        w = 1  # C(t - 1, cl) at t = cl + 1
        for t in range(cl + 1, len(vec)):
            total += w * vec[t] if (t - cl) % 2 == 0 else -w * vec[t]
            w = w * t // (t - cl)
        below += total
    return den - below, mean, den


def _below_two_sizes(
    counts: list[tuple[int, int]],
    lens: list[int],
    combs: list[list[int]],
    long: int,
    others: list[int],
    tails: tuple[int, ...],
    s: int,
    c: int,
) -> int:
    """``P(err <= c) C(n, s)`` of :func:`_frc_error_tail` for one or two group sizes, with
    both axes' signs and binomials folded into one moderate integer weight per point ``t``:
    ``sum_t S_t V_t``, ``V_t = sum_{j_B <= t_B} (-1)^(t_B - j_B) C(t_B, j_B) w(t_L;
    c_L(j_B))``, so each point costs one product with its big binomial ``C(n - m, s - m)``
    and no big-integer transform is taken."""
    a_long, L = counts[long][0], lens[long]
    comb_long = combs[long]
    if others:
        a_b, len_b, comb_b = counts[others[0]][0], lens[others[0]], combs[others[0]]
    else:
        a_b, len_b, comb_b = 0, 1, [1]
    weights: dict[int, list[int]] = {}  # c_L -> [w(t; c_L) for t < L]

    def w_row(cl: int) -> list[int]:
        row = weights.get(cl)
        if row is None:
            row = [1] + [0] * (L - 1)  # t = 0: 1; 1 <= t <= cl: 0
            w = 1  # C(t - 1, cl) at t = cl + 1
            for t in range(cl + 1, L):
                row[t] = w if (t - cl) % 2 == 0 else -w
                w = w * t // (t - cl)
            weights[cl] = row
        return row

    below = 0
    for tb in range(len_b):
        m0 = a_b * tb
        if m0 > s:
            break
        top = min(L - 1, (s - m0) // a_long)
        V = [0] * (top + 1)
        cb = 1  # C(tb, jb)
        for jb in range(tb + 1):
            room = c - a_b * jb
            if room < 0:
                break
            coef = cb if (tb - jb) % 2 == 0 else -cb
            row = w_row(room // a_long)
            for t in range(top + 1):
                if row[t]:
                    V[t] += coef * row[t]
            cb = cb * (tb - jb) // (jb + 1)
        f = comb_b[tb]
        for t in range(top + 1):
            if V[t]:
                below += (f * comb_long[t] * V[t]) * tails[m0 + a_long * t]
    return below


def _binomial_row(x: int, top: int) -> list[int]:
    """``[C(x, 0), ..., C(x, top)]`` by the exact recurrence ``C(x, t+1) = C(x, t)(x-t)/(t+1)``."""
    out = [1]
    for t in range(top):
        out.append(out[-1] * (x - t) // (t + 1))
    return out


def _taylor_shift_minus_one_head(v: list[int], keep: int) -> list[int]:
    """The first ``keep + 1`` coefficients of :func:`_taylor_shift_minus_one` (``V(z - 1)``):
    pass ``i`` of the synthetic division fixes coefficient ``i``, so ``keep + 1`` passes."""
    a = list(v)
    top = len(a) - 1
    for i in range(min(top, keep + 1)):
        for j in range(top - 1, i - 1, -1):
            a[j] -= a[j + 1]
    return a[: keep + 1]
