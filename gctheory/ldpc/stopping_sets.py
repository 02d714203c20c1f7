"""Small stopping sets of the regular ensemble and the error floor they put under peeling.

What this module computes
-------------------------
Peeling fails exactly when the erased set contains a non-empty stopping set
(a set of variables no check sees exactly once). Below the threshold the
large-scale failure (the waterfall) dies out exponentially in ``n`` and what
is left is the *floor*: erasure sets that happen to cover a small stopping
set. With ``N_s`` the number of stopping sets of size ``s`` of a code,

    P_B(eps) <= sum_s E[N_s] eps^s,

and for small ``eps`` the first terms are the floor (the union bound over
small stopping sets, Di et al. 2002, Sec. IV; Amraoui, Montanari and Urbanke
2007, Sec. III; Richardson and Urbanke 2008, Sec. 3.24).

* Configuration model (``multi_edges="keep"``, multigraph stopping sets):
  ``E[N_s] = C(n, s) coef(((1+x)^r - r x)^m, x^(s l)) / C(m r, s l)`` (Di et
  al. 2002; Orlitsky, Viswanathan and Zhang 2005): the ``s l`` sockets of the
  ``s`` variables occupy a uniform set of check sockets, and no check may hold
  exactly one of them.
* Simple graphs (``multi_edges="resample"``): the same count restricted to
  stopping sets whose ``s`` variables meet every check at most once each (the
  only ones a simple graph can have), by a recursion over the incidence
  pattern; conditioning on simplicity changes this expectation by a factor
  ``1 + O(1/n)`` only, since the pattern is ``O(1)`` edges.

For (3, 6) the smallest stopping sets of a simple graph are pairs of variables
with the same three checks, ``E[N_2] ~ 13.9 / n``; in the multigraph also a
triple edge (``s = 1``) and pairs joined through double edges count.

References
----------
.. [1] C. Di, D. Proietti, I. E. Telatar, T. Richardson, R. Urbanke,
   "Finite-length analysis of low-density parity-check codes on the binary
   erasure channel", IEEE Trans. Inf. Theory 48(6), 2002.
.. [2] A. Orlitsky, K. Viswanathan, J. Zhang, "Stopping set distribution of
   LDPC code ensembles", IEEE Trans. Inf. Theory 51(3), 2005.
.. [3] A. Amraoui, A. Montanari, R. Urbanke, "How to find good finite-length
   codes: from art towards science", European Trans. Telecomm. 18, 2007.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_choice, check_int, check_probability

__all__ = [
    "error_floor",
    "expected_stopping_sets",
]


def _truncated_power_coeff(m: int, r: int, degree: int) -> int:
    """``coef(((1+x)^r - r x)^m, x^degree)`` exactly, for ``degree`` small against ``m r``.

    ``(1+x)^r - r x = 1 + g(x)`` with ``g = (1+x)^r - 1 - r x = O(x^2)``, so only the
    terms ``C(m, k) g^k`` with ``2k <= degree`` contribute.
    """
    g = [math.comb(r, j) for j in range(r + 1)]
    g[0] = g[1] = 0
    total = 0
    power = [1]  # g^0
    for k in range(degree // 2 + 1):
        if k:
            nxt = [0] * min(len(power) + r, degree + 1)
            for i, a in enumerate(power):
                if a:
                    for j, b in enumerate(g):
                        if b and i + j <= degree:
                            nxt[i + j] += a * b
            power = nxt
        if degree < len(power):
            total += math.comb(m, k) * power[degree]
    return total


@functools.cache
def _simple_pattern_weight(s: int, l: int, r: int, columns: int) -> int:
    """Sum over 0/1 matrices (``s`` labelled rows of sum ``l``; ``columns`` labelled columns,
    each of sum in [2, r]) of ``prod_columns (r)_(column sum)``: the socket choices at the
    checks of a simple stopping set of size ``s`` spread over ``columns`` given checks."""
    # state: counts of rows by remaining degree 0..l
    start = tuple([0] * l + [s])
    states: dict[tuple[int, ...], int] = {start: 1}
    for _ in range(columns):
        nxt: dict[tuple[int, ...], int] = {}
        for st, w in states.items():
            for take in _choices(st, l):
                k = sum(take)
                if not 2 <= k <= r:
                    continue
                ways = math.perm(r, k)
                for d in range(1, l + 1):
                    ways *= math.comb(st[d], take[d - 1])
                new = list(st)
                for d in range(1, l + 1):
                    new[d] -= take[d - 1]
                    new[d - 1] += take[d - 1]
                key = tuple(new)
                nxt[key] = nxt.get(key, 0) + w * ways
        states = nxt
    return states.get(tuple([s] + [0] * l), 0)


def _simple_count_work(s: int, l: int) -> float:
    """Rough number of inner steps of :func:`_simple_pattern_weight` (states x picks x columns)."""
    return math.comb(s + l, l) * (s / l + 1) ** l * (s * l / 2)


_SIMPLE_WORK_LIMIT = 3e5  # about a second


def _choices(st: tuple[int, ...], l: int):
    """All ways to pick ``take[d-1] <= st[d]`` rows of each remaining degree ``d >= 1``."""
    ranges = [range(st[d] + 1) for d in range(1, l + 1)]
    return (list(t) for t in np.ndindex(*[len(rg) for rg in ranges]))


def expected_stopping_sets(
    n: int, dv: int, dc: int, s: int, *, multi_edges: str = "resample", exact: bool = False
) -> Any:
    """Expected number of stopping sets of size ``s`` of a code of the regular ensemble.

    Parameters
    ----------
    n, dv, dc : int
        The regular ``(dv, dc)`` ensemble of length ``n`` (``n dv`` divisible by ``dc``).
    s : int
        Stopping-set size, ``1 <= s <= 12`` (small sets: the floor).
    multi_edges : {"resample", "keep"}, keyword-only
        Simple graphs (to ``1 + O(1/n)``) or the configuration-model multigraph (exact).
        ``"cancel"`` is another ensemble (weight-1 columns) and is refused.
    exact : bool, keyword-only
        Return a Fraction instead of a float.

    Returns
    -------
    float or fractions.Fraction
        ``E[N_s]``.

    Examples
    --------
    >>> from gctheory.ldpc import expected_stopping_sets
    >>> f"{expected_stopping_sets(100, 3, 6, 2):.4g}"
    '0.136'
    """
    n = check_int(n, "n", low=1)
    dv = check_int(dv, "dv", low=1)
    dc = check_int(dc, "dc", low=2)
    s = check_int(s, "s", low=1, high=min(n, 12))
    check_choice(multi_edges, "multi_edges", ("resample", "keep", "cancel"))
    if multi_edges == "cancel":
        raise ValueError(
            "multi_edges='cancel' leaves weight-1 columns whose stopping sets this count does not "
            "describe; use 'resample' (simple graphs) or 'keep' (the configuration model), or "
            "Monte Carlo (gctheory.ldpc.ensemble_failure_rate)"
        )
    if (n * dv) % dc:
        raise ValueError(f"n*dv must be divisible by dc, got n={n}, dv={dv}, dc={dc}")
    m = n * dv // dc
    sockets = s * dv
    if sockets > m * dc:
        return Fraction(0) if exact else 0.0
    if multi_edges == "keep":
        num = math.comb(n, s) * _truncated_power_coeff(m, dc, sockets)
        val = Fraction(num, math.comb(m * dc, sockets))
    else:
        if _simple_count_work(s, dv) > _SIMPLE_WORK_LIMIT:
            raise ValueError(
                f"counting simple stopping sets of size s={s} with dv={dv} enumerates too many "
                "incidence patterns; use a smaller s (sets of size s contribute "
                f"O(n^(s (1 - dv/2))) to the floor) or multi_edges='keep', whose count bounds "
                "this one from above"
            )
        total = 0
        for cols in range(1, sockets // 2 + 1):
            if cols > m:
                break
            w = _simple_pattern_weight(s, dv, dc, cols)
            if w:
                total += math.comb(m, cols) * w  # the checks, then the pattern on them
        num = math.comb(n, s) * math.factorial(dv) ** s * total
        val = Fraction(num, math.perm(m * dc, sockets))
    return val if exact else float(val)


def error_floor(
    n: int,
    dv: int,
    dc: int,
    eps: Any,
    *,
    multi_edges: str = "resample",
    max_size: int | None = None,
) -> Any:
    """Union-bound error floor ``sum_{s <= max_size} E[N_s] eps^s`` of peeling.

    An upper bound on the probability that the erasure set contains a stopping
    set of size at most ``max_size``, and for small ``eps`` (where the sum is
    small) the floor of the block erasure probability (Di et al. 2002; Amraoui,
    Montanari and Urbanke 2007). ``eps`` may be an array. By default the sizes
    with ``s dv <= 18`` (``s <= 6`` for ``dv = 3``): larger sets contribute
    ``O(n^(s (1 - dv/2)))``, far below the leading terms.

    Parameters
    ----------
    n : int
        Code length.
    dv, dc : int
        Degrees.
    eps : float or array_like
        Erasure probability.
    multi_edges : str
        Which ensemble (see :func:`gctheory.ldpc.regular_ensemble`).
    max_size : int, optional
        Largest stopping-set size in the sum.

    Returns
    -------
    float or numpy.ndarray
        The union bound, with the shape of ``eps``.

    Examples
    --------
    >>> from gctheory.ldpc import error_floor
    >>> f"{error_floor(1000, 3, 6, 0.1):.3g}"
    '0.000139'
    """
    n = check_int(n, "n", low=1)
    dv_ = check_int(dv, "dv", low=1)
    check_int(dc, "dc", low=2)
    if max_size is None:
        max_size = max(1, min(12, 18 // dv_))
    max_size = check_int(max_size, "max_size", low=1, high=12)
    e = check_array(eps, "eps", min_size=0, bools=False)  # True is no probability
    for v in e.reshape(-1):
        check_probability(float(v), "eps")
    coeffs = [
        expected_stopping_sets(n, dv, dc, s, multi_edges=multi_edges)
        for s in range(1, min(max_size, n) + 1)
    ]
    out = sum(c * e ** (s + 1) for s, c in enumerate(coeffs))
    return float(out) if np.ndim(out) == 0 else out
