"""Monte Carlo of peeling over the ensemble: a fresh code per frame (or per few frames)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._validate import check_choice, check_int, check_probability
from gctheory.ldpc.ensembles import (
    MULTI_EDGES,
    _check_memory,
    _check_resample,
    _configurations,
)
from gctheory.ldpc.peeling import (
    _peel_prepared,
    _resolve_backend,
)
from gctheory.ldpc.simulation._fixed_code import _erasures, _mc_kwargs
from gctheory.montecarlo import (
    Estimate,
    estimate_mean,
    estimate_probability,
)

__all__ = ["ensemble_failure_rate", "ensemble_residual_rate"]


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
