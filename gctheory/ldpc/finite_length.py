"""Exact finite-length analysis of peeling on the regular ensemble (Di et al. 2002).

What this module computes
-------------------------
For the regular ``(l, r) = (d_v, d_c)`` ensemble of length ``n`` (the
configuration model, multi-edges kept, ``regular_ensemble(...,
multi_edges="keep")``), decoded by peeling on the Tanner multigraph, the exact
ensemble averages

* ``P(peeling fails | v erasures)`` and ``E[variables left erased | v erasures]``
  for every ``v = 0 .. n`` (the fixed-count model of Kadhe et al. 2019,
  Remark 3: ``v`` stragglers placed uniformly at random), and from them
* the block and bit erasure probabilities on BEC(``eps``), by mixing over
  ``v ~ Binomial(n, eps)``.

The method
----------
Only the erased variables matter: with ``v`` erasures their ``l v`` sockets
are matched uniformly and injectively to the ``m r`` check sockets (a
*constellation*). Peeling's outcome does not depend on the order of its steps,
so a constellation with a degree-1 check ``c`` peels iff the constellation
without ``c``'s variable peels; and the leftover stopping set is the same.
Classify a constellation by ``(t, s)``: ``t`` checks used, ``s`` of them of
degree one. Double counting the pairs (constellation, degree-1 check) gives
the recursion over the residual graph of Di, Proietti, Telatar, Richardson and
Urbanke (2002), here in the form

    s * A(v, t, s) = v * sum_{t', s'} A(v-1, t', s') K(v-1; t', s' -> t, s)

where ``K`` counts the ways to attach one more variable (``l`` labelled
sockets) to the free sockets of a constellation of state ``(t', s')`` such that
it hangs off a new degree-1 check, marking that check. ``K`` depends on the
state only through ``s'`` (degree-1 checks, ``r - 1`` free sockets each), the
free sockets of the degree->=2 checks, ``r (t' - s') - (l (v-1) - s')``, and
the unused checks ``m - t'``; this is what makes the state ``(v, t, s)``
sufficient. The same linear recursion carries three quantities, differing
only in their values on stopping sets (``s = 0``, ``v >= 1``): all
constellations (a check: they must sum to 1), the failing ones, and the sum
of their leftover sizes.

Arithmetic and cost
-------------------
``exact=True`` runs the recursion on Python integers (the counts themselves;
every division by ``s`` is exact, and the counts of all constellations are
checked to sum to ``(m r)! / (m r - l v)!`` at every ``v``) and returns
Fractions: about 1 s at ``n = 100`` and 13 s at ``n = 200`` for (3, 6). The
default runs it on normalised float64 probabilities, vectorised over
``(t, s)``: every term is non-negative, so there is no cancellation and the
relative rounding error stays below about ``10 n`` units in the last place
(measured: 5e-16 against the exact run at ``n = 200``); the failing mass is
carried directly, never as ``1 - P(success)``, so small failure
probabilities keep their relative accuracy. Cost: ``n`` layers of
``(m+1)^2`` states times the number of attachment patterns (8 for (3, 6)),
i.e. ``O(n^3)`` time and ``O(n^2)`` memory; about 1 s at ``n = 200`` and 9 s
at ``n = 400`` for (3, 6) (``benchmarks/bench_finite_length.py``). Larger
``n`` is refused with the alternatives: Monte Carlo
(:func:`~gctheory.ldpc.simulation.ensemble_failure_rate`) or the scaling law
(:mod:`gctheory.ldpc.scaling`).

References
----------
.. [1] C. Di, D. Proietti, I. E. Telatar, T. Richardson, R. Urbanke,
   "Finite-length analysis of low-density parity-check codes on the binary
   erasure channel", IEEE Trans. Inf. Theory 48(6), 2002.
.. [2] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Sec. 3.22 (finite-length analysis, stopping sets).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, overload

import numpy as np

from gctheory._validate import check_choice, check_int, check_probability, check_real

__all__ = [
    "ErasureProfile",
    "erasure_profile",
    "finite_length_cost",
]

# seconds per (state x attachment pattern x 10 operations), measured on one core: float64
# arrays; exact integers visit only the reachable states but their size grows like n
_SECONDS_PER_UNIT = 8e-9
_EXACT_SECONDS_PER_UNIT_AND_N = 4e-10
# the attachment patterns of a degree-dv variable grow like dv^5 (414,564 at dv = 40)
_MAX_DV = 20
#: largest check degree of the recursion (its attachment patterns hold binomials in dc)
_MAX_DC = 1000


@dataclass(frozen=True)
class _Pattern:
    """One way the new variable's ``l`` edges attach to a constellation.

    ``b1`` degree-1 checks touched (``e1`` edges), ``a2`` edges into degree>=2
    checks, ``n1`` new checks with one edge, ``n2`` new checks with ``e2 >= 2 n2``
    edges. ``const`` holds the factors that do not depend on the state.
    """

    b1: int
    a2: int
    n1: int
    n2: int
    const: int


def _poly_power_coeffs(base: list[int], power: int, upto: int) -> list[list[int]]:
    """Coefficient lists of ``base(x)^k`` for ``k = 0 .. power``, truncated at ``x^upto``."""
    out = [[1]]
    for _ in range(power):
        prev = out[-1]
        nxt = [0] * min(len(prev) + len(base) - 1, upto + 1)
        for i, a in enumerate(prev):
            if a:
                for j, b in enumerate(base):
                    if i + j <= upto and b:
                        nxt[i + j] += a * b
        out.append(nxt)
    return out


def _coef(table: list[list[int]], k: int, e: int) -> int:
    row = table[k]
    return row[e] if 0 <= e < len(row) else 0


def _patterns(l: int, r: int) -> list[_Pattern]:
    """All attachment patterns of a new variable of degree ``l`` (checks of degree ``r``)."""
    # ((1+x)^(r-1) - 1)^b: b touched degree-1 checks, >= 1 of their r-1 free sockets each
    g1 = [math.comb(r - 1, j) for j in range(r)]
    g1[0] = 0
    c1 = _poly_power_coeffs(g1, l, l)
    # ((1+x)^r - 1 - r x)^q: q new checks with >= 2 of their r sockets each
    g2 = [math.comb(r, j) for j in range(r + 1)]
    g2[0] = g2[1] = 0
    c2 = _poly_power_coeffs(g2, l, l)
    out = []
    for e1 in range(l + 1):
        for b1 in range(e1 + 1):
            w1 = _coef(c1, b1, e1)
            if not w1:
                continue
            for a2 in range(l - e1 + 1):
                rest = l - e1 - a2
                for n1 in range(1, rest + 1):
                    e2 = rest - n1
                    for n2 in range(e2 // 2 + 1):
                        w2 = _coef(c2, n2, e2)
                        if not w2:
                            continue
                        # socket choices x l! orders of u's sockets x n1 marks / (n1! n2!)
                        const = (
                            w1
                            * w2
                            * r**n1
                            * math.factorial(l)
                            * n1
                            // (math.factorial(n1) * math.factorial(n2))
                        )
                        out.append(_Pattern(b1, a2, n1, n2, const))
    return out


def _falling(x: np.ndarray, k: int) -> np.ndarray:
    """``x (x-1) ... (x-k+1)`` elementwise (1 for ``k = 0``)."""
    out = np.ones_like(x)
    for i in range(k):
        out = out * (x - i)
    return out


def finite_length_cost(n: int, dv: int, dc: int, *, exact: bool = False) -> float:
    """Predicted seconds of :func:`erasure_profile` (order of magnitude, one core).

    Parameters
    ----------
    n : int
        Code length.
    dv, dc : int
        Degrees.
    exact : bool
        Exact rational arithmetic (slower).

    Returns
    -------
    float
        Predicted seconds.

    Examples
    --------
    >>> from gctheory.ldpc import finite_length_cost
    >>> finite_length_cost(24, 3, 6) < 10
    True
    """
    n = check_int(n, "n", low=1)
    dv = check_int(dv, "dv", low=1, high=_MAX_DV)
    dc = check_int(dc, "dc", low=2, high=_MAX_DC)
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"exact must be True or False, got {exact!r}")
    m = n * dv // dc
    # in floats: a size past ~1e100 gives inf (an estimate, never an OverflowError)
    units = float(n) * float(m + 1) ** 2 * len(_patterns(dv, dc)) * 10
    return units * (_EXACT_SECONDS_PER_UNIT_AND_N * float(n) if exact else _SECONDS_PER_UNIT)


@dataclass(frozen=True)
class ErasureProfile:
    """Exact peeling failure and leftover for every number of erasures, regular ensemble.

    Attributes
    ----------
    n, dv, dc : int
        The regular ``(dv, dc)`` ensemble of length ``n``, configuration model with
        multi-edges kept, peeling on the multigraph.
    failure : tuple
        ``failure[v] = P(peeling fails | v erasures)``, ``v = 0 .. n`` (Fractions when exact).
    residual : tuple
        ``residual[v] = E[variables left erased | v erasures]``.
    exact : bool
        Whether the values are exact rationals.
    normalisation_error : float
        ``max_v |sum of all constellation probabilities - 1|`` carried through the same
        recursion (0 for exact arithmetic; rounding only otherwise).
    seconds : float
        Time the recursion took.

    Examples
    --------
    >>> from gctheory.ldpc import ErasureProfile, erasure_profile
    >>> prof = erasure_profile(12, 3, 6)
    >>> [round(float(p), 4) for p in prof.failure[:6]]
    [0.0, 0.0168, 0.0728, 0.1937, 0.438, 0.8417]
    >>> round(float(prof.block_erasure(0.3)), 4)
    0.4123
    """

    n: int
    dv: int
    dc: int
    failure: tuple
    residual: tuple
    exact: bool
    normalisation_error: float
    seconds: float
    ensemble: str = "keep"

    def block_given_erasures(self, t: int) -> Any:
        """``P(peeling fails)`` with exactly ``t`` erased variables placed uniformly."""
        return self.failure[check_int(t, "t", low=0, high=self.n)]

    def bit_given_erasures(self, t: int) -> Any:
        """Bit erasure probability ``E[left] / n`` with exactly ``t`` erasures."""
        return self.residual[check_int(t, "t", low=0, high=self.n)] / self.n

    def _mix(self, values: tuple, eps: Any) -> Any:
        if isinstance(eps, Fraction) and self.exact:
            if not 0 <= eps <= 1:
                raise ValueError(f"eps must lie in [0, 1], got {eps}")
            n = self.n
            return sum(
                math.comb(n, v) * eps**v * (1 - eps) ** (n - v) * values[v] for v in range(n + 1)
            )
        e = np.asarray(eps, dtype=float)
        scalar = e.ndim == 0
        flat = e.reshape(-1)
        for x in flat:
            check_probability(float(x), "eps")
        vals = np.array([float(x) for x in values])
        from scipy import stats  # lazy: scipy.stats costs ~0.5 s to import

        n = self.n
        pmf = np.zeros((flat.size, n + 1))
        # below 1e-300 the binomial law is (1, n eps, 0, ...) to double precision: the next
        # term C(n, 2) eps^2 underflows, and (1 - eps)^n rounds to 1. Written out there, since
        # scipy's pmf raises OverflowError near the smallest normal float (about 1e-307)
        tiny = flat < 1e-300
        if not tiny.all():
            pmf[~tiny] = stats.binom.pmf(np.arange(n + 1)[None, :], n, flat[~tiny][:, None])
        pmf[tiny, 0] = 1.0
        if n >= 1:
            pmf[tiny, 1] = n * flat[tiny]
        out = pmf @ vals
        return float(out[0]) if scalar else out.reshape(e.shape)

    @overload
    def block_erasure(self, eps: float) -> float: ...
    @overload
    def block_erasure(self, eps: np.ndarray) -> np.ndarray: ...
    @overload
    def block_erasure(self, eps: Any) -> Any: ...

    def block_erasure(self, eps: Any) -> Any:
        """Block erasure probability of peeling on BEC(``eps``) (array-valued for arrays).

        ``sum_v C(n, v) eps^v (1 - eps)^(n - v) P(fail | v)``; exact for Fraction ``eps``
        on an exact profile.
        """
        return self._mix(self.failure, eps)

    def bit_erasure(self, eps: Any) -> Any:
        """Bit erasure probability after peeling on BEC(``eps``): ``E[left] / n``."""
        out = self._mix(self.residual, eps)
        return out / self.n


def erasure_profile(
    n: int,
    dv: int,
    dc: int,
    *,
    exact: bool = False,
    multi_edges: str = "keep",
    max_seconds: float = 60.0,
) -> ErasureProfile:
    """Exact ensemble-average peeling failure for every number of erasures (Di et al. 2002).

    Parameters
    ----------
    n : int
        Code length; ``n * dv`` must be divisible by ``dc``.
    dv, dc : int
        Variable and check degrees of the regular ensemble, ``dv >= 1``, ``dc >= 2``.
    exact : bool, keyword-only
        Integer arithmetic and Fractions (reference, small ``n``) instead of float64.
    multi_edges : {"keep"}, keyword-only
        The ensemble: the recursion is exact for the configuration model with its
        multi-edges kept (and peeling on the multigraph). Simple graphs
        (``"resample"``) and mod-2 cancellation (``"cancel"``) are other ensembles
        the recursion does not describe and are refused.
    max_seconds : float, keyword-only
        Refuse at once when the predicted run time (:func:`finite_length_cost`) exceeds it.

    Returns
    -------
    ErasureProfile

    Raises
    ------
    ValueError
        For an ensemble the recursion does not cover or an ``n`` too large for the
        time allowed, naming the alternatives.

    Examples
    --------
    >>> from gctheory.ldpc import erasure_profile
    >>> prof = erasure_profile(12, 3, 6)
    >>> prof.n, len(prof.failure), round(float(prof.block_given_erasures(4)), 4)
    (12, 13, 0.438)
    """
    n = check_int(n, "n", low=1)
    dv = check_int(dv, "dv", low=1, high=_MAX_DV)
    dc = check_int(dc, "dc", low=2, high=_MAX_DC)
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"exact must be True or False, got {exact!r}")
    if multi_edges != "keep":
        check_choice(multi_edges, "multi_edges", ("keep", "resample", "cancel"))
        raise ValueError(
            f"multi_edges={multi_edges!r}: the exact recursion (Di et al. 2002) covers the "
            "configuration model with multi-edges kept (multi_edges='keep'), peeled on the "
            "multigraph; for simple graphs or mod-2 cancellation use Monte Carlo "
            "(gctheory.ldpc.ensemble_failure_rate) or, at large n, the scaling law "
            "(gctheory.ldpc.scaling_law_block_erasure)"
        )
    if (n * dv) % dc:
        raise ValueError(
            f"n*dv must be divisible by dc (m = n*dv/dc checks), got n={n}, dv={dv}, dc={dc}"
        )
    max_seconds = check_real(max_seconds, "max_seconds", low=0.0, low_open=True, finite=False)
    cost = finite_length_cost(n, dv, dc, exact=bool(exact))
    if cost > max_seconds:
        arith = "exact integer" if exact else "float64"
        faster = "exact=False (float64, ~1e-15 relative), " if exact else ""
        raise ValueError(
            f"n={n} is too large for the exact recursion in {arith} arithmetic within "
            f"max_seconds={max_seconds:g} (predicted {cost:.3g} s: O(n^3)); use {faster}a "
            "larger max_seconds, Monte Carlo (gctheory.ldpc.ensemble_failure_rate) or the "
            "scaling law (gctheory.ldpc.scaling_law_block_erasure)"
        )
    t0 = time.perf_counter()
    failure, residual, err = (_run_exact if exact else _run_float)(n, dv, dc)
    return ErasureProfile(
        n, dv, dc, tuple(failure), tuple(residual), bool(exact), err, time.perf_counter() - t0
    )


def _stopping_weights(n: int, l: int, r: int, m: int) -> list[list[int]]:
    """``Z(v, t) = C(m, t) N2(t, l v)``: socket sets of ``v`` variables on ``t`` checks, all >= 2.

    ``N2(t, e) = [x^e] ((1+x)^r - 1 - r x)^t``. Returned as ``w[v][t]`` (exact ints).
    """
    g2 = [math.comb(r, j) for j in range(r + 1)]
    g2[0] = g2[1] = 0
    powers = _poly_power_coeffs(g2, m, l * n)
    return [[math.comb(m, t) * _coef(powers, t, l * v) for t in range(m + 1)] for v in range(n + 1)]


def _run_float(n: int, l: int, r: int):
    m = n * l // r
    pats = _patterns(l, r)
    stop = _stopping_weights(n, l, r, m)
    T, S = np.meshgrid(np.arange(m + 1, dtype=float), np.arange(m + 1, dtype=float), indexing="ij")
    prev = np.zeros((3, m + 1, m + 1))
    prev[0, 0, 0] = 1.0  # v = 0: the empty constellation (peels, nothing left)
    failure, residual, err = [0.0], [0.0], 0.0
    mr = m * r
    for v in range(1, n + 1):
        F2 = r * (T - S) - (l * (v - 1) - S)  # free sockets of the degree>=2 checks
        new = np.zeros_like(prev)
        for p in pats:
            dt, ds = p.n1 + p.n2, p.n1 - p.b1
            W = p.const * _falling(S, p.b1) / math.factorial(p.b1)
            W = W * _falling(F2, p.a2) / math.factorial(p.a2) * _falling(m - T, dt)
            t_hi = m - dt
            s_lo, s_hi = p.b1, min(m, m - ds)
            if t_hi < 0 or s_hi < s_lo:
                continue
            src = (slice(0, t_hi + 1), slice(s_lo, s_hi + 1))
            dst = (slice(dt, t_hi + 1 + dt), slice(s_lo + ds, s_hi + 1 + ds))
            new[(slice(None),) + dst] += prev[(slice(None),) + src] * W[src]
        ff = math.prod(range(mr - l * v + 1, mr - l * (v - 1) + 1))  # (mr - l(v-1))_l
        new[:, :, 1:] *= v / (S[:, 1:] * ff)
        denom = math.comb(mr, l * v)
        z0 = np.array([float(Fraction(w, denom)) if w else 0.0 for w in stop[v]])
        new[0, :, 0] = z0
        new[1, :, 0] = z0
        new[2, :, 0] = v * z0
        err = max(err, abs(float(new[0].sum()) - 1.0))
        failure.append(float(new[1].sum()))
        residual.append(float(new[2].sum()))
        prev = new
    return failure, residual, err


def _run_exact(n: int, l: int, r: int):
    """The same recursion on the counts themselves (Python ints; divisions by s exact)."""
    m = n * l // r
    pats = _patterns(l, r)
    stop = _stopping_weights(n, l, r, m)
    prev = {(0, 0): (1, 0, 0)}  # (t, s) -> (all, failing, leftover mass)
    failure, residual = [Fraction(0)], [Fraction(0)]
    mr = m * r
    for v in range(1, n + 1):
        acc: dict[tuple[int, int], list[int]] = {}
        for (t1, s1), vals in prev.items():
            F2 = r * (t1 - s1) - (l * (v - 1) - s1)
            for p in pats:
                w = (
                    p.const
                    * math.comb(s1, p.b1)
                    * (math.comb(F2, p.a2) if F2 >= 0 else 0)
                    * math.perm(m - t1, p.n1 + p.n2)
                )
                if not w:
                    continue
                key = (t1 + p.n1 + p.n2, s1 - p.b1 + p.n1)
                slot = acc.setdefault(key, [0, 0, 0])
                for q in range(3):
                    slot[q] += vals[q] * w
        new: dict[tuple[int, int], tuple[int, int, int]] = {}
        for (t, s), sums in acc.items():
            quot = []
            for x in sums:
                num = v * x
                if num % s:  # the double counting makes this exact; anything else is a bug
                    raise ArithmeticError(f"s * A(v, t, s) not divisible at {(v, t, s)}")
                quot.append(num // s)
            new[(t, s)] = (quot[0], quot[1], quot[2])
        lv = math.factorial(l * v)
        for t, w in enumerate(stop[v]):
            if w:
                z = w * lv  # labelled: choose the socket sets, then match l v sockets
                new[(t, 0)] = (z, z, v * z)
        total = math.perm(mr, l * v)
        all_, fail, left = (sum(x[q] for x in new.values()) for q in range(3))
        if all_ != total:
            raise ArithmeticError(f"constellations at v={v} sum to {all_}, not {total}")
        failure.append(Fraction(fail, total))
        residual.append(Fraction(left, total))
        prev = new
    return failure, residual, 0.0
