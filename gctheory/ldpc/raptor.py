"""LT / batch raptor codes of Wang et al. 2019, Theorem 6: degree distribution, conditions, peeling.

References
----------
.. [1] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", 2019, Theorem 6, eqs. (17), (53)-(55), Algorithm 1.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import optimize, sparse

from gctheory._validate import as_generator, check_int, check_probability
from gctheory.ldpc.ensembles import Distribution, _check_distribution
from gctheory.ldpc.peeling import _as_parity_check, _peel_prepared, _resolve_backend
from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability

__all__ = [
    "RaptorParameters",
    "check_condition_54",
    "lt_residual_fraction",
    "raptor_code_matrix",
    "raptor_degree_distribution",
    "raptor_failure_rate",
    "raptor_parameters",
    "raptor_residual_rate",
]


@dataclass(frozen=True)
class RaptorParameters:
    """Parameters of Theorem 6 of Wang et al. 2019 for error ``eps`` and straggler ratio ``delta``.

    Attributes
    ----------
    eps, delta : float
        Target error (fraction of batches allowed unrecovered) and ``s/n``.
    D : int
        ``floor(1/eps)``.
    u : float
        ``2 eps (1 - 2 eps) / (1 - 4 eps)^2``.
    b : int
        ``ceil(1/ln(1/delta)) + 1`` (natural logarithm).
    overhead_needed : float
        ``(1 - 2 eps)/(1 - 4 eps)``: received results per batch that (54) uses.
    overhead : float
        ``b (1 - delta)``: received results per batch actually available.
    condition_53 : bool
        ``n(1 - 2eps)/(b(1 - 4eps)) < n - s``, i.e. ``overhead_needed < overhead``.
    mean_degree : float
        ``sum_k k p_k`` (batches per worker); load in partitions is ``b`` times it.
    """

    eps: float
    delta: float
    D: int
    u: float
    b: int
    overhead_needed: float
    overhead: float
    condition_53: bool
    mean_degree: float


def raptor_degree_distribution(eps: float) -> dict[int, Any]:
    """The degree distribution ``P_w`` of Wang et al. 2019, Theorem 6, eq. (17).

    ``p_1 = u/(u+1)``, ``p_k = 1/(k(k-1)(u+1))`` for ``2 <= k <= D``,
    ``p_{D+1} = 1/(D(u+1))``, with ``D = floor(1/eps)`` and ``u = 2 eps (1 -
    2 eps)/(1 - 4 eps)^2``. Defined for ``0 < eps < 1/4`` (``u`` has a pole at
    1/4). Exact (Fractions) when ``eps`` is a :class:`fractions.Fraction`.
    """
    if isinstance(eps, Fraction):
        e: Any = eps
    else:
        e = check_probability(eps, "eps")
    if not (0 < e < Fraction(1, 4)):
        raise ValueError(f"eps must be in (0, 1/4) for Theorem 6's P_w, got {eps!r}")
    D = math.floor(1 / e)
    u = 2 * e * (1 - 2 * e) / (1 - 4 * e) ** 2
    p: dict[int, Any] = {1: u / (u + 1)}
    for k in range(2, D + 1):
        p[k] = 1 / (k * (k - 1) * (u + 1))
    p[D + 1] = 1 / (D * (u + 1))
    return p


def raptor_parameters(eps: float, delta: float) -> RaptorParameters:
    """``D``, ``u``, ``b`` and conditions (53)-(54) of Wang et al. 2019, Theorem 6.

    ``delta = s/n`` in (0, 1), ``eps`` in (0, 1/4).
    """
    eps = check_probability(eps, "eps")
    delta = float(delta)
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1) (delta = s/n), got {delta!r}")
    p = raptor_degree_distribution(eps)
    D = max(p) - 1
    u = 2 * eps * (1 - 2 * eps) / (1 - 4 * eps) ** 2
    b = math.ceil(1 / math.log(1 / delta)) + 1
    need = (1 - 2 * eps) / (1 - 4 * eps)
    have = b * (1 - delta)
    mean = sum(k * float(f) for k, f in p.items())
    return RaptorParameters(eps, delta, D, u, b, need, have, bool(need < have), mean)


def _omega_prime(p: dict[int, float], x: np.ndarray) -> np.ndarray:
    return sum(k * float(f) * x ** (k - 1) for k, f in p.items()) + 0 * x


def check_condition_54(
    p: Distribution, overhead: float, x_max: float, *, grid: int = 20001
) -> tuple[float, float]:
    """Check ``exp(-overhead * Omega'(x)) < 1 - x`` on ``[0, x_max]`` (Wang et al. 2019, eq. (54)).

    ``Omega(x) = sum_k p_k x^k`` is the generating function of the worker
    degree distribution. Returns ``(margin, x_at)``: the minimum of ``(1 - x) -
    exp(-overhead Omega'(x))`` over the interval (grid, then refined with a
    bounded scalar minimiser) and where it occurs. The condition holds iff
    ``margin > 0``.
    """
    p = _check_distribution("p", p, 1)
    overhead = float(overhead)
    if not (overhead > 0 and math.isfinite(overhead)):
        raise ValueError(f"overhead must be a positive number, got {overhead!r}")
    x_max = check_probability(x_max, "x_max")

    def margin(x):
        x = np.asarray(x, dtype=float)
        return (1 - x) - np.exp(-overhead * _omega_prime(p, x))

    xs = np.linspace(0.0, x_max, grid)
    mv = margin(xs)
    i = int(np.argmin(mv))
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, grid - 1)]
    best_x, best = float(xs[i]), float(mv[i])
    if hi > lo:
        r = optimize.minimize_scalar(
            lambda t: float(margin(t)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}
        )
        if r.fun < best:
            best_x, best = float(r.x), float(r.fun)
    return best, best_x


def lt_residual_fraction(p: Distribution, overhead: float) -> float:
    """Asymptotic fraction of input symbols (batches) left unrecovered by LT peeling.

    With ``overhead`` received results per input symbol and worker degree
    distribution ``p``, the recovered fraction ``x`` grows while
    ``exp(-overhead Omega'(x)) < 1 - x`` (the and-or tree / ripple analysis
    behind Wang et al. 2019, eq. (54), [11] there); peeling stops at the first
    root ``x*`` of ``(1 - x) - exp(-overhead Omega'(x))``, leaving ``1 - x*``.
    """
    p = _check_distribution("p", p, 1)
    overhead = float(overhead)
    if not (overhead > 0 and math.isfinite(overhead)):
        raise ValueError(f"overhead must be a positive number, got {overhead!r}")

    def margin(x):
        return (1 - x) - np.exp(-overhead * _omega_prime(p, np.asarray(x, dtype=float)))

    xs = np.linspace(0.0, 1.0, 100001)
    mv = margin(xs)
    if mv[0] <= 0:  # no degree-1 symbols: peeling never starts
        return 1.0
    j = int(np.flatnonzero(mv <= 0)[0])  # mv[-1] = -exp(-overhead Omega'(1)) < 0
    x_star = optimize.brentq(lambda t: float(margin(t)), xs[j - 1], xs[j], xtol=1e-15)
    return float(1.0 - x_star)


def raptor_code_matrix(n: int, b: int, p: Distribution, *, rng: Any = None) -> sparse.csr_matrix:
    """Random coding matrix of a ``(b, P)``-batch raptor code (Wang et al. 2019, Definition 5).

    ``n`` workers, ``K = n / b`` batches; worker ``k`` draws a degree ``d`` from
    ``p`` and a uniform ``d``-subset of the batches. Row ``k`` is the 0/1
    indicator of that subset (the batch-level view of ``A^BRC``; each batch
    stands for ``b`` partitions). A degree above ``K`` is refused. Subsets are
    drawn with replacement and rows with a repeated batch are redrawn, which
    gives exactly the uniform distribution on ``d``-subsets.
    """
    n = check_int(n, "n", low=1)
    b = check_int(b, "b", low=1)
    if n % b:
        raise ValueError(f"b must divide n (K = n/b batches), got n={n}, b={b}")
    p = _check_distribution("p", p, 1)
    K = n // b
    if max(p) > K:
        raise ValueError(f"p has degree {max(p)} > K = n/b = {K} batches")
    rng = as_generator(rng)
    degs = np.array(list(p))
    probs = np.array([float(v) for v in p.values()])
    d = rng.choice(degs, size=n, p=probs / probs.sum())
    width = int(degs.max())
    cols = np.empty((n, width), dtype=np.int64)
    todo = np.arange(n)
    while todo.size:  # uniform d-subsets: draw with replacement, redraw rows with a repeat
        draw = rng.integers(0, K, size=(todo.size, width))
        used = np.arange(width)[None, :] < d[todo, None]
        srt = np.sort(np.where(used, draw, -1 - np.arange(width)[None, :]), axis=1)
        dup = np.any(srt[:, 1:] == srt[:, :-1], axis=1)
        cols[todo[~dup]] = draw[~dup]
        todo = todo[dup]
    mask = np.arange(width)[None, :] < d[:, None]
    rows = np.repeat(np.arange(n), width)[mask.ravel()]
    return sparse.csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols[mask])), shape=(n, K))


def _raptor_residual(
    n: int, b: int, s: int, p: dict, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Per trial: fresh code, ``s`` random stragglers, fraction of batches not peeled."""
    K = n // b
    out = np.empty(size)
    for i in range(size):
        A = raptor_code_matrix(n, b, p, rng=rng)
        keep = np.sort(rng.permutation(n)[: n - s])
        Hc = _as_parity_check(A[keep])
        out[i] = _peel_prepared(Hc, np.ones((1, K), dtype=bool), backend).sum() / K
    return out


def raptor_residual_rate(
    n: int,
    s: int,
    eps: float,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> Estimate:
    """Mean fraction of batches the batch raptor code of Theorem 6 leaves unrecovered.

    Wang et al. 2019, Theorem 6 and Algorithm 1: ``b`` and ``P_w`` from
    :func:`raptor_parameters` (``delta = s/n``), a fresh code per trial, ``s``
    uniformly random stragglers, peeling on the ``n - s`` received rows.
    Theorem 6 says the fraction exceeds ``eps`` with probability
    ``< exp(-c0 n)``. Requires ``b | n``.
    """
    n = check_int(n, "n", low=2)
    s = check_int(s, "s", low=1)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    prm = raptor_parameters(eps, s / n)
    backend = _resolve_backend(backend)
    p = raptor_degree_distribution(eps)
    if n % prm.b:
        raise ValueError(f"n must be a multiple of b = {prm.b}, got n={n}")
    sampler = functools.partial(_raptor_residual, n, prm.b, s, p, backend)
    kw = dict(engine)
    kw.setdefault("chunk_size", min(64, trials))
    return estimate_mean(sampler, trials, rng=rng, **kw)


def _raptor_failure(n, b, s, p, eps, backend, rng, size) -> np.ndarray:
    return _raptor_residual(n, b, s, p, backend, rng, size) > eps


def raptor_failure_rate(
    n: int,
    s: int,
    eps: float,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> Estimate:
    """``P(fraction of batches unrecovered > eps)`` for Theorem 6's code, by Monte Carlo.

    Same frames as :func:`raptor_residual_rate` for the same seed and chunking.
    """
    n = check_int(n, "n", low=2)
    s = check_int(s, "s", low=1)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    prm = raptor_parameters(eps, s / n)
    backend = _resolve_backend(backend)
    p = raptor_degree_distribution(eps)
    if n % prm.b:
        raise ValueError(f"n must be a multiple of b = {prm.b}, got n={n}")
    event = functools.partial(_raptor_failure, n, prm.b, s, p, prm.eps, backend)
    kw = dict(engine)
    kw.setdefault("chunk_size", min(64, trials))
    return estimate_probability(event, trials, rng=rng, **kw)
