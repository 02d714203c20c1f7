"""Monte Carlo of peeling at finite length: block failure, residual erasures, waterfalls.

Every estimate goes through :mod:`gctheory.montecarlo` (seeded, chunked, with
confidence intervals). Functions taking ``H`` speak for that one code; the
waterfall draws its codes from :func:`~gctheory.ldpc.ensembles.regular_ensemble`.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A (Proposition 2, Remark 3).
.. [2] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Sec. 3.23 (the finite-length waterfall).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._validate import check_int, check_probability
from gctheory.ldpc.ensembles import regular_ensemble
from gctheory.ldpc.peeling import _as_parity_check, _peel_prepared, _resolve_backend
from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability, seed_sequence

__all__ = [
    "WaterfallPoint",
    "block_failure_rate",
    "count_failure_rate",
    "critical_erasure_count",
    "residual_erasure_rate",
    "waterfall",
]


_SUB_BATCH = 1024  # frames decoded at once inside one engine chunk (memory bound)
_DEFAULT_CHUNK = 1024


def _residual_frames(
    Hc: sparse.csc_matrix, eps: float, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Fraction of variables left erased, for ``size`` fresh BEC(eps) frames."""
    n = Hc.shape[1]
    out = np.empty(size)
    for b0 in range(0, size, _SUB_BATCH):
        b1 = min(size, b0 + _SUB_BATCH)
        E = rng.random((b1 - b0, n)) < eps
        out[b0:b1] = _peel_prepared(Hc, E, backend).sum(axis=1) / n
    return out


def _failure_event(
    Hc: sparse.csc_matrix, eps: float, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    return _residual_frames(Hc, eps, backend, rng, size) > 0


def _count_failure_event(
    Hc: sparse.csc_matrix, t: int, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Peeling fails on ``t`` erasures placed uniformly at random (without replacement)."""
    n = Hc.shape[1]
    out = np.empty(size, dtype=bool)
    for b0 in range(0, size, _SUB_BATCH):
        b1 = min(size, b0 + _SUB_BATCH)
        keys = rng.random((b1 - b0, n))
        kth = np.partition(keys, t - 1, axis=1)[:, t - 1 : t] if t > 0 else -np.inf
        E = keys <= kth
        out[b0:b1] = _peel_prepared(Hc, E, backend).any(axis=1)
    return out


def _mc_kwargs(kw: dict[str, Any], trials: int) -> dict[str, Any]:
    kw = dict(kw)
    if kw.get("chunk_size") is None:
        kw["chunk_size"] = min(_DEFAULT_CHUNK, max(int(trials), 1))
    return kw


def block_failure_rate(
    H: Any, eps: float, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Monte Carlo block failure rate of peeling on BEC(``eps``) for one code ``H``.

    Each trial erases every variable independently with probability ``eps``
    (a worker straggling independently, Kadhe et al. 2019, Proposition 2) and
    fails if peeling leaves any erasure. The estimate is for this ``H``; to
    speak for an ensemble draw ``H`` from it (at n >= 1000 codes concentrate).

    Parameters
    ----------
    H : sparse or array_like, shape (m, n)
        0/1 parity-check matrix.
    eps : float in [0, 1]
        Erasure (straggling) probability.
    trials : int
        Number of frames.
    rng : seed, keyword-only
    backend : {"auto", "numba", "numpy"}
    **engine
        Passed to :func:`gctheory.montecarlo.estimate_probability` (``level``,
        ``chunk_size`` (default 1024), ``executor``, ``progress``,
        ``checkpoint``, ``interval``).

    Returns
    -------
    Estimate
        Probability of a block failure, with a binomial confidence interval.
    """
    Hc = _as_parity_check(H)
    eps = check_probability(eps, "eps")
    backend = _resolve_backend(backend)
    event = functools.partial(_failure_event, Hc, eps, backend)
    return estimate_probability(event, trials, rng=rng, **_mc_kwargs(engine, trials))


def residual_erasure_rate(
    H: Any, eps: float, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Monte Carlo mean fraction of variables left erased by peeling on BEC(``eps``).

    Same frames as :func:`block_failure_rate` for the same ``rng``, ``trials``
    and ``chunk_size``. Compare with :func:`de_fixed_point` (the ``n -> inf``
    limit). Returns an :class:`~gctheory.montecarlo.Estimate` with a CLT interval.

    Notes
    -----
    The interval is the engine's normal-approximation (CLT) interval
    ``mean +- z std / sqrt(trials)``, reported as is and **not clipped** to
    ``[0, 1]``: where residual erasures are rare (just below the threshold, a
    few frames with a stopping set), its lower limit can be negative, e.g.
    about ``[-0.0008, 0.012]`` at ``n = 2000``, ``eps = 0.4``. A negative lower
    limit only says the CLT interval is too coarse there; the fraction itself
    lies in ``[0, 1]``, and its one-sided lower limit is then just 0. For a
    rigorous statement about rare residuals, use the failure probability of
    :func:`block_failure_rate` (a binomial interval inside ``[0, 1]``, Wilson
    or, with ``interval="clopper-pearson"``, exact): the residual is 0 in
    every frame that peels.
    """
    Hc = _as_parity_check(H)
    eps = check_probability(eps, "eps")
    backend = _resolve_backend(backend)
    sampler = functools.partial(_residual_frames, Hc, eps, backend)
    return estimate_mean(sampler, trials, rng=rng, **_mc_kwargs(engine, trials))


def count_failure_rate(
    H: Any, t: int, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Monte Carlo probability that peeling fails on ``t`` uniformly random erasures.

    The fixed-count model of Kadhe et al. 2019, Remark 3 ("a random set of t
    stragglers in each group"): ``t`` distinct variables, all subsets equally
    likely. Engine keywords as in :func:`block_failure_rate`.
    """
    Hc = _as_parity_check(H)
    t = check_int(t, "t", low=0)
    if t > Hc.shape[1]:
        raise ValueError(f"t must be <= n = {Hc.shape[1]}, got {t}")
    backend = _resolve_backend(backend)
    event = functools.partial(_count_failure_event, Hc, t, backend)
    return estimate_probability(event, trials, rng=rng, **_mc_kwargs(engine, trials))


def _critical_counts(
    Hc: sparse.csc_matrix, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Per frame: the largest t such that the first t variables of a random order peel."""
    n = Hc.shape[1]
    out = np.empty(size)
    for b0 in range(0, size, _SUB_BATCH):
        B = min(size, b0 + _SUB_BATCH) - b0
        order = np.argsort(rng.random((B, n)), axis=1)
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.broadcast_to(np.arange(n), (B, n)), axis=1)
        lo = np.zeros(B, dtype=np.int64)  # t = lo always peels (lo = 0: nothing erased)
        hi = np.full(B, n + 1, dtype=np.int64)  # t = hi fails (n + 1: virtual)
        while np.any(hi - lo > 1):
            mid = (lo + hi) // 2
            ok = ~_peel_prepared(Hc, ranks < mid[:, None], backend).any(axis=1)
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
        out[b0 : b0 + B] = lo
    return out


def critical_erasure_count(
    H: Any, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Mean number of random erasures peeling survives, by Monte Carlo.

    Variables are erased one by one in a uniformly random order; a frame's
    critical count is the largest ``t`` for which the first ``t`` erasures are
    all resolved by peeling (found by bisection, valid because the stopping
    set left by peeling grows with the erasure set). ``P(critical >= t)`` is
    the success probability with ``t`` random stragglers. Returns an
    :class:`~gctheory.montecarlo.Estimate` of the mean (CLT interval).
    """
    Hc = _as_parity_check(H)
    backend = _resolve_backend(backend)
    sampler = functools.partial(_critical_counts, Hc, backend)
    return estimate_mean(sampler, trials, rng=rng, **_mc_kwargs(engine, trials))


@dataclass(frozen=True)
class WaterfallPoint:
    """One point of a finite-length waterfall: code length, erasure probability, estimates."""

    n: int
    eps: float
    failure: Estimate
    residual: Estimate

    def __repr__(self) -> str:
        f, r = self.failure, self.residual
        return (
            f"WaterfallPoint(n={self.n}, eps={self.eps:.4f}, failure={f.value:.4g} "
            f"[{f.low:.4g}, {f.high:.4g}], residual={r.value:.4g} [{r.low:.4g}, {r.high:.4g}])"
        )


def waterfall(
    ns: Any,
    eps_values: Any,
    dv: int,
    dc: int,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> list[WaterfallPoint]:
    """Block failure rate and residual erasure fraction versus ``eps`` for several lengths.

    For each ``n`` one code is drawn from the regular ``(dv, dc)`` ensemble
    (:func:`regular_ensemble`); for each ``eps`` the same frames give both
    estimates. Seeds: the code for ``n`` and the frames for ``(n, eps)`` draw
    from seed sequences keyed by ``n`` and ``eps`` under ``rng``, so a point
    does not depend on which other points are computed with it.
    As ``n`` grows the failure curve steepens towards the density-evolution
    threshold :func:`regular_threshold` (Richardson and Urbanke 2008, Sec. 3.23).
    """
    ns = [check_int(v, "n", low=1) for v in np.atleast_1d(ns).tolist()]
    eps_values = [check_probability(e, "eps") for e in np.atleast_1d(eps_values).tolist()]
    trials = check_int(trials, "trials", low=2)
    root = seed_sequence(rng)
    points = []
    for n in ns:
        code_seed = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, n))
        H = regular_ensemble(n, dv, dc, rng=np.random.default_rng(code_seed))
        for e in eps_values:
            key = (*root.spawn_key, n, int(round(e * 1e12)))
            fs = np.random.SeedSequence(root.entropy, spawn_key=key)
            fail = block_failure_rate(H, e, trials, rng=fs, backend=backend, **engine)
            res = residual_erasure_rate(H, e, trials, rng=fs, backend=backend, **engine)
            points.append(WaterfallPoint(n, e, fail, res))
    return points
