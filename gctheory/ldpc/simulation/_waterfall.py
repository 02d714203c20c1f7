"""The waterfall: failure rate and residual erasures per length and erasure probability."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_memory, check_probability
from gctheory.ldpc.ensembles import (
    MULTI_EDGES,
    regular_ensemble,
)
from gctheory.ldpc.peeling import (
    _as_parity_check,
    _resolve_backend,
)
from gctheory.ldpc.simulation._fixed_code import _failure_event, _mc_kwargs, _residual_frames
from gctheory.montecarlo import (
    Estimate,
    estimate_mean,
    estimate_probability,
    seed_sequence,
)

__all__ = ["WaterfallPoint", "waterfall"]


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
