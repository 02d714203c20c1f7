"""Batch raptor codes of Wang et al. 2019 at infinite length: the degree
distribution, condition (54), the LT residual fraction and the code's rates."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._validate import (
    as_generator,
    check_int,
    check_memory,
    check_probability,
    check_real,
)
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

    Examples
    --------
    >>> from gctheory.ldpc import RaptorParameters, raptor_parameters
    >>> p = raptor_parameters(0.1, 0.1)
    >>> p.D, p.b, round(p.u, 4), p.condition_53
    (10, 2, 0.4444, True)
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


#: smallest eps of :func:`raptor_degree_distribution`: ``P_w`` then has up to 10**4 + 1
#: degrees (the same limit as :func:`gctheory.codes.theorem6_degree_distribution`)
RAPTOR_MIN_EPS = 1e-4


def raptor_degree_distribution(eps: float) -> dict[int, Any]:
    """The degree distribution ``P_w`` of Wang et al. 2019, Theorem 6, eq. (17).

    ``p_1 = u/(u+1)``, ``p_k = 1/(k(k-1)(u+1))`` for ``2 <= k <= D``,
    ``p_{D+1} = 1/(D(u+1))``, with ``D = floor(1/eps)`` and ``u = 2 eps (1 -
    2 eps)/(1 - 4 eps)^2``. Defined for ``0 < eps < 1/4`` (``u`` has a pole at
    1/4). Exact (Fractions) when ``eps`` is a :class:`fractions.Fraction`. Below
    ``eps = 1e-4`` (more than 10**4 degrees) it is refused.

    Parameters
    ----------
    eps : float or fractions.Fraction
        Target error, in ``[1e-4, 1/4)``.

    Returns
    -------
    dict of int to float
        ``{degree: probability}`` (Fractions for Fraction input).

    Examples
    --------
    >>> from gctheory.ldpc import raptor_degree_distribution
    >>> from fractions import Fraction
    >>> {d: str(p) for d, p in raptor_degree_distribution(Fraction(1, 5)).items()}
    {1: '6/7', 2: '1/14', 3: '1/42', 4: '1/84', 5: '1/140', 6: '1/35'}
    """
    if isinstance(eps, Fraction):
        e: Any = eps
    else:
        e = check_probability(eps, "eps")
    if not (0 < e < Fraction(1, 4)):
        raise ValueError(f"eps must be in (0, 1/4) for Theorem 6's P_w, got {eps!r}")
    if e < RAPTOR_MIN_EPS:
        raise ValueError(
            f"eps must be >= {RAPTOR_MIN_EPS:g} here, got {float(e):.3g}: P_w has "
            f"floor(1/eps) + 1 degrees, more than the {int(1 / RAPTOR_MIN_EPS) + 1:,} handled"
        )
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

    Parameters
    ----------
    eps : float
        Target error, in (0, 1/4).
    delta : float
        Straggler ratio ``s/n``, in (0, 1).

    Returns
    -------
    RaptorParameters
        ``D``, ``u``, ``b``, the overheads and conditions (53)-(54).

    Examples
    --------
    >>> from gctheory.ldpc import raptor_parameters
    >>> p = raptor_parameters(0.2, 0.1)
    >>> p.D, p.b, round(p.mean_degree, 4)
    (5, 2, 1.3262)
    """
    eps = check_probability(eps, "eps")
    delta = check_real(delta, "delta")
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


#: fewest grid points :func:`check_condition_54` accepts
MIN_GRID_54 = 101


def check_condition_54(
    p: Distribution, overhead: float, x_max: float, *, grid: int = 20001
) -> tuple[float, float]:
    """Check ``exp(-overhead * Omega'(x)) < 1 - x`` on ``[0, x_max]`` (Wang et al. 2019, eq. (54)).

    ``Omega(x) = sum_k p_k x^k`` is the generating function of the worker
    degree distribution. Returns ``(margin, x_at)``: the minimum of ``(1 - x) -
    exp(-overhead Omega'(x))`` over the interval (grid, then refined with a
    bounded scalar minimiser) and where it occurs. The condition holds iff
    ``margin > 0``. ``x_max`` in ``(0, 1]``; ``grid`` (at least
    :data:`MIN_GRID_54` points: a coarser grid can step over the minimum) bounded
    by the memory it needs.

    Parameters
    ----------
    p : mapping of int to float
        Worker degree distribution.
    overhead : float
        Received results per input symbol.
    x_max : float
        Right end of the interval, in (0, 1].
    grid : int
        Grid points before refinement.

    Returns
    -------
    tuple of float
        ``(margin, x_at)``; the condition holds iff ``margin > 0``.

    Examples
    --------
    >>> from gctheory.ldpc import check_condition_54, raptor_degree_distribution
    >>> margin, x = check_condition_54(raptor_degree_distribution(0.2), 1.5, 0.8)
    >>> margin > 0, round(margin, 4)
    (True, 0.0115)
    """
    from scipy import optimize  # lazy: scipy.optimize costs ~0.2 s to import

    p = _check_distribution("p", p, 1)
    overhead = check_real(overhead, "overhead", low=0.0, low_open=True)
    # grid=1 / grid=True / x_max=0 evaluated x = 0 only and reported the condition as
    # holding; grid=10**18 allocated until MemoryError
    x_max = check_real(x_max, "x_max", low=0.0, high=1.0, low_open=True)
    grid = check_int(grid, "grid", low=MIN_GRID_54)
    check_memory(32 * grid, "grid", f"the {grid}-point grid of condition (54)")

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

    Parameters
    ----------
    p : mapping of int to float
        Worker degree distribution.
    overhead : float
        Received results per input symbol.

    Returns
    -------
    float
        The asymptotic unrecovered fraction ``1 - x*``.

    Examples
    --------
    >>> from gctheory.ldpc import lt_residual_fraction, raptor_degree_distribution
    >>> round(lt_residual_fraction(raptor_degree_distribution(0.2), 1.5), 4)
    0.1853
    """
    from scipy import optimize  # lazy: scipy.optimize costs ~0.2 s to import

    p = _check_distribution("p", p, 1)
    overhead = check_real(overhead, "overhead", low=0.0, low_open=True)

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

    Parameters
    ----------
    n : int
        Workers.
    b : int
        Batch size, dividing ``n``.
    p : mapping of int to float
        Degree distribution.
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, n / b)
        The worker-batch incidence.

    Examples
    --------
    >>> from gctheory.ldpc import raptor_code_matrix
    >>> A = raptor_code_matrix(12, 2, {1: 0.5, 2: 0.5}, rng=0)
    >>> A.shape, sorted(set(A.sum(axis=1).ravel().tolist()[0]))
    ((12, 6), [1, 2])
    """
    n = check_int(n, "n", low=1)
    b = check_int(b, "b", low=1)
    if n % b:
        raise ValueError(f"b must divide n (K = n/b batches), got n={n}, b={b}")
    p = _check_distribution("p", p, 1)
    K = n // b
    if max(p) > K:
        raise ValueError(f"p has degree {max(p)} > K = n/b = {K} batches")
    # n rows of up to max(p) batch indices and their temporaries (n = 10**18: B10)
    check_memory(n * max(p) * 40, "n", f"the {n}-row coding matrix")
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


def _theorem6_setup(n: Any, s: Any, eps: Any) -> tuple[int, int, RaptorParameters, dict]:
    """Validate ``(n, s, eps)`` for Theorem 6's code: ``1 <= s < n``, ``b | n``; parameters, P_w."""
    n = check_int(n, "n", low=2)
    s = check_int(s, "s", low=1, high=n - 1)
    check_memory(n * 64, "n", f"a code of n = {n} workers per trial")  # n = 10**18: B10
    prm = raptor_parameters(eps, s / n)
    if n % prm.b:
        raise ValueError(f"n must be a multiple of b = {prm.b}, got n={n}")
    p = raptor_degree_distribution(prm.eps)
    if max(p) > n // prm.b:
        raise ValueError(
            f"n: Theorem 6's P_w for eps={prm.eps:g} has degrees up to D + 1 = {max(p)}, more "
            f"than the K = n / b = {n // prm.b} batches of n={n}; use a larger n or eps"
        )
    return n, s, prm, p


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

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers.
    eps : float
        Target error of Theorem 6.
    trials : int
        Frames.
    rng : None, int or numpy.random.Generator
        Seed.
    backend : {"auto", "numpy", "numba"}
        Peeling backend; results do not depend on it.
    **engine
        ``chunk_size``, ``executor``, ``level``, ``progress`` of
        :func:`gctheory.montecarlo.estimate_probability`.

    Returns
    -------
    Estimate
        Mean unrecovered fraction, CLT interval.

    Examples
    --------
    >>> from gctheory.ldpc import raptor_residual_rate
    >>> print(raptor_residual_rate(40, 4, 0.2, 200, rng=0))
    0.105 [0.09255, 0.1184]
    """
    n, s, prm, p = _theorem6_setup(n, s, eps)
    backend = _resolve_backend(backend)
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

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers.
    eps : float
        Target error.
    trials : int
        Frames.
    rng : None, int or numpy.random.Generator
        Seed.
    backend : {"auto", "numpy", "numba"}
        Peeling backend; results do not depend on it.
    **engine
        ``chunk_size``, ``executor``, ``level``, ``progress`` of
        :func:`gctheory.montecarlo.estimate_probability`.

    Returns
    -------
    Estimate
        ``P(unrecovered fraction > eps)``.

    Examples
    --------
    >>> from gctheory.ldpc import raptor_failure_profile, raptor_failure_rate
    >>> est = raptor_failure_rate(40, 4, 0.2, 200, rng=0)
    >>> est.contains(float(raptor_failure_profile(40, 4, 0.2).prob_fraction_above(0.2)))
    True
    """
    n, s, prm, p = _theorem6_setup(n, s, eps)
    backend = _resolve_backend(backend)
    event = functools.partial(_raptor_failure, n, prm.b, s, p, prm.eps, backend)
    kw = dict(engine)
    kw.setdefault("chunk_size", min(64, trials))
    return estimate_probability(event, trials, rng=rng, **kw)
