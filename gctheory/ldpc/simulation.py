"""Monte Carlo of peeling at finite length: block failure, residual erasures, waterfalls.

Every estimate goes through :mod:`gctheory.montecarlo` (seeded, chunked, with
confidence intervals). Functions taking ``H`` speak for that one code;
:func:`ensemble_failure_rate` and :func:`ensemble_residual_rate` speak for the
ensemble (a fresh code for every frame, or every few frames), and the
waterfall draws its codes from :func:`~gctheory.ldpc.ensembles.regular_ensemble`.
Which ensemble is meant is the ``multi_edges`` argument there: ``"resample"``
(simple Tanner graphs, the default), ``"cancel"`` or ``"keep"`` (the
configuration-model multigraph, the ensemble of the exact finite-length
analysis, decoded with multigraph peeling).

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

from gctheory._validate import check_choice, check_int, check_memory, check_probability
from gctheory.ldpc.ensembles import (
    MULTI_EDGES,
    _check_memory,
    _check_resample,
    _configurations,
    regular_ensemble,
)
from gctheory.ldpc.peeling import (
    _as_parity_check,
    _check_bool,
    _peel_prepared,
    _resolve_backend,
)
from gctheory.montecarlo import (
    Estimate,
    estimate_mean,
    estimate_probability,
    seed_sequence,
)

__all__ = [
    "WaterfallPoint",
    "block_failure_rate",
    "count_failure_rate",
    "critical_erasure_count",
    "ensemble_failure_rate",
    "ensemble_residual_rate",
    "residual_erasure_rate",
    "waterfall",
]


_SUB_BATCH = 1024  # frames decoded at once inside one engine chunk (memory bound)
_DEFAULT_CHUNK = 1024

Codes = tuple  # of canonical CSC matrices of one shape


def _erasures(n: int, rows: int, eps: float | None, t: int | None, rng) -> np.ndarray:
    """``rows`` erasure patterns: i.i.d. BEC(eps), or ``t`` uniformly placed erasures each."""
    if t is None:
        return rng.random((rows, n)) < eps
    keys = rng.random((rows, n))
    if t == 0:
        return np.zeros((rows, n), dtype=bool)
    kth = np.partition(keys, t - 1, axis=1)[:, t - 1 : t]
    return keys <= kth


def _residual_counts(
    codes: Codes, eps: float | None, t: int | None, backend: str, rng, size: int
) -> np.ndarray:
    """Variables left erased in ``size`` frames; with several codes, one drawn per frame."""
    n = codes[0].shape[1]
    out = np.empty(size)
    for b0 in range(0, size, _SUB_BATCH):
        b1 = min(size, b0 + _SUB_BATCH)
        E = _erasures(n, b1 - b0, eps, t, rng)
        if len(codes) == 1:
            out[b0:b1] = _peel_prepared(codes[0], E, backend).sum(axis=1)
            continue
        idx = rng.integers(len(codes), size=b1 - b0)
        for k in np.unique(idx):
            sel = np.flatnonzero(idx == k)
            out[b0 + sel] = _peel_prepared(codes[k], E[sel], backend).sum(axis=1)
    return out


def _residual_frames(codes: Codes, eps, backend: str, rng, size: int) -> np.ndarray:
    """Fraction of variables left erased, for ``size`` fresh BEC(eps) frames."""
    return _residual_counts(codes, eps, None, backend, rng, size) / codes[0].shape[1]


def _failure_event(codes: Codes, eps, backend: str, rng, size: int) -> np.ndarray:
    return _residual_counts(codes, eps, None, backend, rng, size) > 0


def _count_failure_event(codes: Codes, t: int, backend: str, rng, size: int) -> np.ndarray:
    """Peeling fails on ``t`` erasures placed uniformly at random (without replacement)."""
    return _residual_counts(codes, None, t, backend, rng, size) > 0


def _mc_kwargs(kw: dict[str, Any], trials: int) -> dict[str, Any]:
    trials = check_int(trials, "trials", low=1)
    kw = dict(kw)
    if kw.get("chunk_size") is None:
        kw["chunk_size"] = min(_DEFAULT_CHUNK, max(int(trials), 1))
    return kw


def _code(H: Any, multigraph: Any) -> Codes:
    return (_as_parity_check(H, _check_bool(multigraph, "multigraph")),)


def block_failure_rate(
    H: Any,
    eps: float,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    multigraph: bool = False,
    **engine: Any,
) -> Estimate:
    """Monte Carlo block failure rate of peeling on BEC(``eps``) for one code ``H``.

    Each trial erases every variable independently with probability ``eps``
    (a worker straggling independently, Kadhe et al. 2019, Proposition 2) and
    fails if peeling leaves any erasure. The estimate is for this ``H``; to
    speak for an ensemble use :func:`ensemble_failure_rate`.

    Parameters
    ----------
    H : sparse or array_like, shape (m, n)
        0/1 parity-check matrix (edge multiplicities with ``multigraph=True``).
    eps : float in [0, 1]
        Erasure (straggling) probability.
    trials : int
        Number of frames.
    rng : seed, keyword-only
    backend : {"auto", "numba", "numpy"}
    multigraph : bool
        Decode ``H`` as a Tanner multigraph (see :func:`~gctheory.ldpc.peeling.peel_batch`).
    **engine
        Passed to :func:`gctheory.montecarlo.estimate_probability` (``level``,
        ``chunk_size`` (default 1024), ``executor``, ``progress``,
        ``checkpoint``, ``interval``).

    Returns
    -------
    Estimate
        Probability of a block failure, with a binomial confidence interval.

    Examples
    --------
    >>> from gctheory.ldpc import block_failure_rate, regular_ensemble
    >>> H = regular_ensemble(60, 3, 6, rng=0)
    >>> print(block_failure_rate(H, 0.3, 500, rng=1))
    0.098 [0.06673, 0.1372]
    """
    codes = _code(H, multigraph)
    eps = check_probability(eps, "eps")
    backend = _resolve_backend(backend)
    event = functools.partial(_failure_event, codes, eps, backend)
    return estimate_probability(event, trials, rng=rng, **_mc_kwargs(engine, trials))


def residual_erasure_rate(
    H: Any,
    eps: float,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    multigraph: bool = False,
    **engine: Any,
) -> Estimate:
    """Monte Carlo mean fraction of variables left erased by peeling on BEC(``eps``).

    Same frames as :func:`block_failure_rate` for the same ``rng``, ``trials``
    and ``chunk_size``. Compare with :func:`de_fixed_point` (the ``n -> inf``
    limit). Returns an :class:`~gctheory.montecarlo.Estimate` with the engine's
    interval for a mean.

    Parameters
    ----------
    H : scipy.sparse matrix or array_like, shape (m, n)
        0/1 parity-check matrix.
    eps : float
        Erasure probability.
    trials : int
        Frames.
    rng : None, int or numpy.random.Generator
        Seed.
    multigraph : bool
        Peel on the Tanner multigraph (multi-edges kept).
    backend : {"auto", "numpy", "numba"}
        Peeling backend; results do not depend on it.
    **engine
        ``chunk_size``, ``executor``, ``level``, ``progress`` of
        :func:`gctheory.montecarlo.estimate_probability`.

    Returns
    -------
    Estimate
        Mean fraction of variables left erased, with a CLT interval.

    Notes
    -----
    The interval is the engine's interval for a mean (Hall's skewness-corrected
    t interval, :func:`gctheory.montecarlo.estimate_mean`), reported as is and
    **not clipped** to ``[0, 1]``. Where residual erasures are rare (just below
    the threshold, a few frames with a stopping set) the fractions are very
    skewed: the interval leans right (about ``[0.0003, 0.028]`` at
    ``n = 2000``, ``eps = 0.4``, 200 frames, where the normal interval was
    ``[-0.0008, 0.012]``), and the engine warns that so few frames cannot
    support the level. For a
    rigorous statement about rare residuals, use the failure probability of
    :func:`block_failure_rate` (a binomial interval inside ``[0, 1]``,
    Clopper-Pearson by default): the residual is 0 in
    every frame that peels.

    Examples
    --------
    >>> from gctheory.ldpc import regular_ensemble, residual_erasure_rate
    >>> H = regular_ensemble(60, 3, 6, rng=0)
    >>> print(residual_erasure_rate(H, 0.5, 200, rng=1))
    0.43 [0.3992, 0.4557]
    """
    codes = _code(H, multigraph)
    eps = check_probability(eps, "eps")
    backend = _resolve_backend(backend)
    sampler = functools.partial(_residual_frames, codes, eps, backend)
    return estimate_mean(sampler, trials, rng=rng, **_mc_kwargs(engine, trials))


def count_failure_rate(
    H: Any,
    t: int,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    multigraph: bool = False,
    **engine: Any,
) -> Estimate:
    """Monte Carlo probability that peeling fails on ``t`` uniformly random erasures.

    The fixed-count model of Kadhe et al. 2019, Remark 3 ("a random set of t
    stragglers in each group"): ``t`` distinct variables, all subsets equally
    likely. Engine keywords as in :func:`block_failure_rate`.

    Parameters
    ----------
    H : scipy.sparse matrix or array_like, shape (m, n)
        0/1 parity-check matrix.
    t : int
        Erased variables per frame, ``0 <= t <= n``.
    trials : int
        Frames.
    rng : None, int or numpy.random.Generator
        Seed.
    multigraph : bool
        Peel on the Tanner multigraph.
    backend : {"auto", "numpy", "numba"}
        Peeling backend; results do not depend on it.
    **engine
        ``chunk_size``, ``executor``, ``level``, ``progress`` of
        :func:`gctheory.montecarlo.estimate_probability`.

    Returns
    -------
    Estimate
        ``P(peeling fails)`` with its interval.

    Examples
    --------
    >>> from gctheory.ldpc import count_failure_rate, regular_ensemble
    >>> H = regular_ensemble(60, 3, 6, rng=0)
    >>> print(count_failure_rate(H, 15, 500, rng=1))
    0.01 [0.002162, 0.02804]
    """
    codes = _code(H, multigraph)
    t = check_int(t, "t", low=0, high=codes[0].shape[1])
    backend = _resolve_backend(backend)
    event = functools.partial(_count_failure_event, codes, t, backend)
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
    H: Any,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    multigraph: bool = False,
    **engine: Any,
) -> Estimate:
    """Mean number of random erasures peeling survives, by Monte Carlo.

    Variables are erased one by one in a uniformly random order; a frame's
    critical count is the largest ``t`` for which the first ``t`` erasures are
    all resolved by peeling (found by bisection, valid because the stopping
    set left by peeling grows with the erasure set). ``P(critical >= t)`` is
    the success probability with ``t`` random stragglers. Returns an
    :class:`~gctheory.montecarlo.Estimate` of the mean (CLT interval).

    Parameters
    ----------
    H : scipy.sparse matrix or array_like, shape (m, n)
        0/1 parity-check matrix.
    trials : int
        Frames.
    rng : None, int or numpy.random.Generator
        Seed.
    multigraph : bool
        Peel on the Tanner multigraph.
    backend : {"auto", "numpy", "numba"}
        Peeling backend; results do not depend on it.
    **engine
        ``chunk_size``, ``executor``, ``level``, ``progress`` of
        :func:`gctheory.montecarlo.estimate_probability`.

    Returns
    -------
    Estimate
        Mean critical erasure count, CLT interval.

    Examples
    --------
    >>> from gctheory.ldpc import critical_erasure_count, regular_ensemble
    >>> H = regular_ensemble(60, 3, 6, rng=0)
    >>> print(critical_erasure_count(H, 200, rng=1))
    22.92 [22.42, 23.33]
    """
    (Hc,) = _code(H, multigraph)
    backend = _resolve_backend(backend)
    sampler = functools.partial(_critical_counts, Hc, backend)
    return estimate_mean(sampler, trials, rng=rng, **_mc_kwargs(engine, trials))


# --------------------------------------------------------------------------
# The ensemble: a fresh code per frame (or per few frames)
# --------------------------------------------------------------------------


def _draw_codes(
    B: int, n: int, dv: int, dc: int, multi_edges: str, rng: np.random.Generator
) -> sparse.csc_matrix:
    """``B`` independent codes of the ensemble as one block-diagonal matrix (their disjoint union).

    The same ensemble as :func:`regular_ensemble` (uniform socket permutations;
    ``"resample"`` redraws every non-simple one), vectorised over the codes.
    """
    m = n * dv // dc
    P = _configurations(B, n, dv, dc, rng, simple=multi_edges == "resample")
    rows = (P + m * np.arange(B)[:, None]).ravel()
    cols = np.tile(np.repeat(np.arange(n, dtype=np.int64), dv), B) + np.repeat(
        n * np.arange(B, dtype=np.int64), n * dv
    )
    H = sparse.csc_matrix((np.ones(rows.size, dtype=np.int32), (rows, cols)), shape=(B * m, B * n))
    H.sum_duplicates()  # multiplicities
    if multi_edges == "cancel":
        H.data %= 2
        H.eliminate_zeros()
    H.sort_indices()
    return H


def _ensemble_residuals(
    n: int,
    dv: int,
    dc: int,
    multi_edges: str,
    per_code: int,
    eps: float | None,
    t: int | None,
    backend: str,
    rng: np.random.Generator,
    size: int,
) -> np.ndarray:
    """Residual erasure counts of ``size`` frames, a fresh code for every ``per_code`` frames.

    With one frame per code, up to 256 codes (at most 2e6 edges) are decoded in
    one call as the block-diagonal matrix of their disjoint union (peeling acts
    on each component separately).
    """
    out = np.empty(size)
    if per_code == 1:
        block = int(min(256, max(1, 2_000_000 // (n * dv))))  # edges per block <= 2e6
        for b0 in range(0, size, block):
            B = min(size, b0 + block) - b0
            big = _draw_codes(B, n, dv, dc, multi_edges, rng)
            E = _erasures(n, B, eps, t, rng).reshape(1, B * n)
            out[b0 : b0 + B] = _peel_prepared(big, E, backend).reshape(B, n).sum(axis=1)
        return out
    for b0 in range(0, size, per_code):
        b1 = min(size, b0 + per_code)
        H = _draw_codes(1, n, dv, dc, multi_edges, rng)
        out[b0:b1] = _peel_prepared(H, _erasures(n, b1 - b0, eps, t, rng), backend).sum(axis=1)
    return out


def _ensemble_failure(*args) -> np.ndarray:
    return _ensemble_residuals(*args) > 0


def _ensemble_fraction(*args) -> np.ndarray:
    return _ensemble_residuals(*args) / args[0]


def _ensemble_args(n, dv, dc, trials, eps, erasures, multi_edges, frames_per_code, backend, engine):
    n = check_int(n, "n", low=1)
    dv = check_int(dv, "dv", low=1)
    dc = check_int(dc, "dc", low=2)
    check_choice(multi_edges, "multi_edges", MULTI_EDGES)
    if (eps is None) == (erasures is None):
        raise ValueError(
            "give exactly one of eps (each variable erased independently) and erasures "
            f"(that many erased, uniformly placed), got eps={eps!r}, erasures={erasures!r}"
        )
    eps = None if eps is None else check_probability(eps, "eps")
    t = None if erasures is None else check_int(erasures, "erasures", low=0, high=n)
    per_code = check_int(frames_per_code, "frames_per_code", low=1)
    if (n * dv) % dc:
        raise ValueError(f"n*dv must be divisible by dc, got n={n}, dv={dv}, dc={dc}")
    _check_memory(n * dv, f"a code of the ({dv},{dc}) ensemble with n={n}")
    if multi_edges == "resample":
        _check_resample(n, dv, dc)
    kw = _mc_kwargs(engine, trials)
    if per_code > 1:  # a code's frames stay in one chunk
        kw["chunk_size"] = per_code * max(1, kw["chunk_size"] // per_code)
    args = (n, dv, dc, multi_edges, per_code, eps, t, _resolve_backend(backend))
    return args, kw


def ensemble_failure_rate(
    n: int,
    dv: int,
    dc: int,
    trials: int,
    *,
    eps: float | None = None,
    erasures: int | None = None,
    multi_edges: str = "resample",
    frames_per_code: int = 1,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> Estimate:
    """Monte Carlo block failure probability of peeling, averaged over the regular ensemble.

    Each frame draws a code from ``regular_ensemble(n, dv, dc,
    multi_edges=...)`` (or every ``frames_per_code`` frames share one) and an
    erasure pattern: each variable erased with probability ``eps``, or exactly
    ``erasures`` erased variables placed uniformly (the model of Kadhe et al.
    2019, Remark 3). With ``multi_edges="keep"`` this is the ensemble and the
    decoder of :mod:`gctheory.ldpc.finite_length` (Di et al. 2002), so the
    two estimate the same number.

    The binomial interval is exact for ``frames_per_code=1`` (independent
    frames); with more frames per code it ignores the code-to-code variation.

    Parameters
    ----------
    n, dv, dc : int
        The regular ``(dv, dc)`` ensemble of length ``n``.
    trials : int
        Number of frames.
    eps : float in [0, 1], optional
        Erasure probability (give this or ``erasures``).
    erasures : int in [0, n], optional
        Number of erased variables.
    multi_edges : {"resample", "cancel", "keep"}
        The ensemble (see :func:`~gctheory.ldpc.ensembles.regular_ensemble`).
    frames_per_code : int
        Frames decoded on each drawn code (default 1: a fresh code per frame).
    rng, backend, **engine
        As in :func:`block_failure_rate`.

    Returns
    -------
    Estimate
        The block failure probability with its binomial interval.

    Examples
    --------
    >>> from gctheory.ldpc import ensemble_failure_rate
    >>> print(ensemble_failure_rate(60, 3, 6, 300, eps=0.3, rng=0))
    0.14 [0.09281, 0.199]
    """
    args, kw = _ensemble_args(
        n, dv, dc, trials, eps, erasures, multi_edges, frames_per_code, backend, engine
    )
    event = functools.partial(_ensemble_failure, *args)
    return estimate_probability(event, trials, rng=rng, **kw)


def ensemble_residual_rate(
    n: int,
    dv: int,
    dc: int,
    trials: int,
    *,
    eps: float | None = None,
    erasures: int | None = None,
    multi_edges: str = "resample",
    frames_per_code: int = 1,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> Estimate:
    """Monte Carlo bit erasure probability after peeling (mean residual fraction), ensemble average.

    Same frames as :func:`ensemble_failure_rate` for the same arguments and
    seed; CLT interval (see :func:`residual_erasure_rate`).

    Parameters
    ----------
    n : int
        Code length.
    dv, dc : int
        Degrees of the regular ensemble.
    trials : int
        Frames.
    eps : float, optional
        Erasure probability (give this or ``erasures``).
    erasures : int, optional
        Exact number of erased variables.
    multi_edges : {"resample", "keep", ...}
        Which ensemble (see :func:`regular_ensemble`).
    frames_per_code : int
        Frames sharing one code.
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
        Mean residual erasure fraction.

    Examples
    --------
    >>> from gctheory.ldpc import ensemble_residual_rate
    >>> print(ensemble_residual_rate(60, 3, 6, 200, eps=0.5, rng=0))
    0.399 [0.3668, 0.4266]
    """
    args, kw = _ensemble_args(
        n, dv, dc, trials, eps, erasures, multi_edges, frames_per_code, backend, engine
    )
    sampler = functools.partial(_ensemble_fraction, *args)
    return estimate_mean(sampler, trials, rng=rng, **kw)


# --------------------------------------------------------------------------
# Waterfall
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class WaterfallPoint:
    """One point of a finite-length waterfall: code length, erasure probability, estimates.

    Parameters
    ----------
    n : int
        Code length.
    eps : float
        Erasure probability.
    failure : Estimate
        Block failure rate.
    residual : Estimate
        Mean residual erasure fraction.

    Examples
    --------
    >>> from gctheory.ldpc import WaterfallPoint, waterfall
    >>> pts = waterfall([60], [0.3], 3, 6, 200, rng=0)
    >>> p = pts[0]
    >>> p.n, p.eps, print(p.failure)
    0.12 [0.06797, 0.1909]
    (60, 0.3, None)
    """

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
    codes: int = 1,
    multi_edges: str = "resample",
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> list[WaterfallPoint]:
    """Block failure rate and residual erasure fraction versus ``eps`` for several lengths.

    For each ``n``, ``codes`` codes are drawn once from the regular ``(dv,
    dc)`` ensemble (``regular_ensemble(..., multi_edges=multi_edges)``, simple
    Tanner graphs by default) and every frame picks one of them uniformly at
    random, so each point estimates the failure rate averaged over those codes
    (an exact binomial interval for that average; with ``codes=1``, for the
    one code). For each ``eps`` the same frames give both estimates. Seeds:
    the codes for ``n`` and the frames for ``(n, eps)`` draw from seed
    sequences keyed by ``n`` and ``eps`` under ``rng``, so a point does not
    depend on which other points are computed with it. As ``n`` grows the
    failure curve steepens towards the density-evolution threshold
    :func:`regular_threshold` (Richardson and Urbanke 2008, Sec. 3.23).

    Parameters
    ----------
    ns : sequence of int
        Code lengths.
    eps_values : sequence of float
        Erasure probabilities.
    dv, dc : int
        Degrees of the regular ensemble.
    trials : int
        Frames per point.
    codes : int
        Codes drawn per length.
    multi_edges : str
        Which ensemble (see :func:`regular_ensemble`).
    rng : None, int or numpy.random.Generator
        Seed.
    backend : {"auto", "numpy", "numba"}
        Peeling backend; results do not depend on it.
    **engine
        ``chunk_size``, ``executor``, ``level``, ``progress`` of
        :func:`gctheory.montecarlo.estimate_probability`.

    Returns
    -------
    list of WaterfallPoint
        One point per ``(n, eps)``.

    Examples
    --------
    >>> from gctheory.ldpc import waterfall
    >>> for p in waterfall([60, 120], [0.35, 0.45], 3, 6, 200, rng=0):
    ...     print(p.n, p.eps, f"{p.failure.value:.3f}")
    60 0.35 0.325
    60 0.45 0.790
    120 0.35 0.135
    120 0.45 0.815
    """
    ns = [check_int(v, "n", low=1) for v in np.atleast_1d(ns).tolist()]
    eps_values = [check_probability(e, "eps") for e in np.atleast_1d(eps_values).tolist()]
    if not ns or not eps_values:
        raise ValueError("waterfall needs at least one n and one eps value")
    trials = check_int(trials, "trials", low=2)
    codes = check_int(codes, "codes", low=1)
    # the codes of one n are all held at once (about 40 bytes per edge); codes=10**18
    # ran for ever
    check_memory(
        codes * max(ns) * check_int(dv, "dv", low=1) * 40,
        "codes",
        f"{codes} drawn codes of length {max(ns)}",
    )
    check_choice(multi_edges, "multi_edges", MULTI_EDGES)
    backend = _resolve_backend(backend)
    root = seed_sequence(rng)
    points = []
    for n in ns:
        drawn = tuple(
            _as_parity_check(
                regular_ensemble(
                    n,
                    dv,
                    dc,
                    multi_edges=multi_edges,
                    rng=np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, n, 0, k)),
                ),
                multi_edges == "keep",
            )
            for k in range(codes)
        )
        for e in eps_values:
            key = (*root.spawn_key, n, 1, int(round(e * 1e12)))
            fs = np.random.SeedSequence(root.entropy, spawn_key=key)
            kw = _mc_kwargs(engine, trials)
            fail = estimate_probability(
                functools.partial(_failure_event, drawn, e, backend), trials, rng=fs, **kw
            )
            res = estimate_mean(
                functools.partial(_residual_frames, drawn, e, backend), trials, rng=fs, **kw
            )
            points.append(WaterfallPoint(n, e, fail, res))
    return points
