"""Peeling failures of LDPC codes by importance sampling with tilted erasures.

:class:`TiltedErasures` draws erasure patterns with probability ``eps_tilt``
(common, per bit, or a mixture of such laws) instead of ``eps``; the
likelihood ratio of a pattern with ``k`` erasures under a common tilt is the
exact binomial ratio ``(eps/eps')^k ((1-eps)/(1-eps'))^(n-k)``.
:func:`block_failure_is` picks the tilts by cross-entropy pilot runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory import ldpc
from gctheory._validate import check_int, check_memory, check_probability
from gctheory.montecarlo import Estimate, importance_sampling, seed_sequence
from gctheory.tails.gaussian import MAX_ENTRIES

__all__ = ["PeelingFails", "TiltedErasures", "block_failure_is"]


@dataclass(frozen=True)
class TiltedErasures:
    """Erasure patterns of ``n`` bits drawn with tilted erasure probabilities.

    The input law erases each bit independently with probability ``eps``; the
    proposal erases bit ``i`` with probability ``eps_tilt[i]`` (one value for
    every bit, or one per bit), or draws from a mixture of such laws (rows of
    ``eps_tilt``, mixed with ``weights``). The likelihood ratio is exact: for
    one component with a common ``eps'`` and ``k`` erasures it is the binomial
    ratio ``(eps/eps')^k ((1-eps)/(1-eps'))^(n-k)``; per bit, the product of the
    bits' ratios; for a mixture, ``dP / sum_m weights_m dQ_m``. Samples are
    boolean arrays ``(size, n)``.

    Parameters
    ----------
    n : int
        Bits (variables).
    eps : float
        Erasure probability of the input law.
    eps_tilt : float or array_like
        Tilted probability (one value, one per bit, or rows of a mixture).
    weights : array_like, optional
        Mixture weights of the rows of ``eps_tilt``.

    Examples
    --------
    >>> from gctheory.tails import TiltedErasures
    >>> import numpy as np
    >>> prop = TiltedErasures(n=8, eps=0.05, eps_tilt=0.3)
    >>> x, logw = prop.sample(np.random.default_rng(0), 4)
    >>> x.shape, logw.shape
    ((4, 8), (4,))
    """

    n: int
    eps: float
    eps_tilt: Any
    weights: Any = None

    def __post_init__(self) -> None:
        n = check_int(self.n, "n", low=1, high=MAX_ENTRIES)
        object.__setattr__(self, "n", n)
        eps = check_probability(self.eps, "eps", open_low=True, open_high=True)
        object.__setattr__(self, "eps", eps)
        try:
            tilt = np.array(self.eps_tilt, dtype=float, ndmin=1)
        except (TypeError, ValueError):
            raise ValueError(
                f"eps_tilt must be a probability or an array of probabilities, got "
                f"{self.eps_tilt!r}"
            ) from None
        if tilt.ndim == 1 and tilt.size == 1:
            tilt = np.full((1, n), tilt[0])
        elif tilt.ndim == 1 and tilt.size == n:
            tilt = tilt[None, :]
        if tilt.ndim != 2 or tilt.shape[1] != n:
            raise ValueError(
                f"eps_tilt must be a probability, {n} per-bit probabilities, or an (m, {n}) "
                f"array of mixture components, got shape {np.shape(self.eps_tilt)}"
            )
        if not np.all((tilt > 0) & (tilt < 1)):
            raise ValueError("eps_tilt must lie in the open interval (0, 1) for every bit")
        try:
            w = (
                np.full(len(tilt), 1.0 / len(tilt))
                if self.weights is None
                else np.array(self.weights, dtype=float, ndmin=1)
            )
        except (TypeError, ValueError):
            raise ValueError(f"weights must be mixture weights, got {self.weights!r}") from None
        if w.shape != (len(tilt),) or not np.all(w > 0) or not math.isclose(w.sum(), 1.0):
            raise ValueError(
                f"weights must be {len(tilt)} positive mixture weights summing to 1, "
                f"got {self.weights!r}"
            )
        object.__setattr__(self, "eps_tilt", tuple(map(tuple, tilt.tolist())))
        object.__setattr__(self, "weights", tuple(w.tolist()))

    full_support = True

    def sample(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        tilt = np.array(self.eps_tilt)
        w = np.array(self.weights)
        comp = rng.choice(len(tilt), size=size, p=w) if len(tilt) > 1 else np.zeros(size, int)
        E = rng.random((size, self.n)) < tilt[comp]
        return E, self.log_weight(E)

    def log_weight(self, E: np.ndarray) -> np.ndarray:
        """``log dP/dQ`` of erasure patterns ``E`` (boolean, shape ``(size, n)``)."""
        E = np.asarray(E, dtype=bool)
        tilt = np.array(self.eps_tilt)
        w = np.array(self.weights)
        log_p = np.where(E, math.log(self.eps), math.log1p(-self.eps)).sum(axis=1)
        log_q = np.log(w)[None, :] + (
            E[:, None, :] * np.log(tilt)[None] + ~E[:, None, :] * np.log1p(-tilt)[None]
        ).sum(axis=2)
        top = log_q.max(axis=1)
        log_mix = top + np.log(np.exp(log_q - top[:, None]).sum(axis=1))
        return log_p - log_mix


@dataclass(frozen=True)
class PeelingFails:
    """Event: peeling leaves an erasure, for erasure patterns ``(size, n)`` of the code ``H``.

    Parameters
    ----------
    H : array_like or scipy.sparse matrix
        The parity-check matrix.
    backend : str
        Peeling backend.

    Examples
    --------
    >>> from gctheory.tails import PeelingFails
    >>> import numpy as np
    >>> H = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]])
    >>> PeelingFails(H)(np.array([[True, True, True], [True, False, False]])).tolist()
    [True, False]
    """

    H: Any
    backend: str = "auto"

    def __call__(self, E: np.ndarray) -> np.ndarray:
        out = np.empty(len(E), dtype=bool)
        for start in range(0, len(E), 1024):
            block = E[start : start + 1024]
            out[start : start + len(block)] = ldpc.peel_batch(
                self.H, block, backend=self.backend
            ).any(axis=1)
        return out


def _cross_entropy_tilts(
    H: Any, n: int, eps: float, rng: np.random.Generator, pilot: int, backend: str
) -> np.ndarray:
    """Two tilts chosen from pilot runs: a common one and a per-bit one.

    The common tilt doubles from ``eps`` until failures are common, then takes
    one cross-entropy step; the per-bit tilt takes two cross-entropy steps from
    it (Rubinstein and Kroese, The Cross-Entropy Method, 2004, Sec. 3.4: the
    weighted mean erasure rate of each bit among the failing patterns), kept
    in ``[eps, 0.5]``. Returns the (2, n) components of the mixture.
    """
    event = PeelingFails(H, backend)

    def pilot_run(tilt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        E, logw = TiltedErasures(n, eps, tilt).sample(rng, pilot)
        fail = event(E)
        if not fail.any():
            return np.empty((0, n)), np.empty(0)
        return E[fail], np.exp(logw[fail] - logw[fail].max())

    common = eps
    for _ in range(60):
        E, w = pilot_run(np.full(n, common))
        if len(w) >= 0.05 * pilot or common >= 0.5:
            break
        common = min(0.5, 2.0 * common)
    if len(w):
        common = float(np.clip(np.sum(w * E.mean(axis=1)) / np.sum(w), eps, 0.5))
    per_bit = np.full(n, common)
    for _ in range(2):
        E, w = pilot_run(per_bit)
        if not len(w):
            break
        per_bit = np.clip((w[:, None] * E).sum(axis=0) / w.sum(), eps, 0.5)
    return np.vstack([np.full(n, common), per_bit])


def block_failure_is(
    H: Any,
    eps: float,
    trials: int,
    *,
    eps_tilt: Any = None,
    rng: Any = None,
    backend: str = "auto",
    pilot: int = 2000,
    **engine: Any,
) -> Estimate:
    """Block failure probability of peeling on BEC(``eps``) for the code ``H``, by IS.

    The rare-event twin of :func:`gctheory.ldpc.block_failure_rate`: patterns
    are drawn with tilted erasure probabilities (:class:`TiltedErasures`) and
    weighted by the exact likelihood ratio. Without ``eps_tilt``, pilot runs of
    ``pilot`` patterns (seeded from ``rng``, so the result stays reproducible)
    choose an equal mixture of a common tilt and a per-bit tilt by the
    cross-entropy rule; the common component keeps the weights bounded where
    the per-bit one misses a failure mechanism. ``engine`` keywords go to
    :func:`gctheory.montecarlo.importance_sampling`.

    Parameters
    ----------
    H : array_like or scipy.sparse matrix
        The parity-check matrix.
    eps : float
        Erasure probability.
    trials : int
        Importance samples.
    eps_tilt : float or array_like, optional
        The tilt (chosen by pilot runs when omitted).
    rng : None, int or numpy.random.Generator
        Seed.
    backend : str
        Peeling backend.
    pilot : int
        Pilot patterns for choosing the tilt.
    **engine
        ``level``, ``chunk_size``, ``executor``, ``progress``, ``checkpoint``, ``stop`` of
        :func:`gctheory.montecarlo.importance_sampling`.

    Returns
    -------
    Estimate
        Block failure probability with its interval.

    Examples
    --------
    >>> from gctheory.tails import block_failure_is
    >>> from gctheory.ldpc import regular_ensemble
    >>> H = regular_ensemble(24, 3, 6, rng=0)
    >>> est = block_failure_is(H, 0.02, 2000, rng=1, pilot=500)
    >>> f"{est.value:.2g}", est.method
    ('8.8e-06', 'importance')
    """
    import scipy.sparse as sp

    Hs = sp.csr_matrix(H) if not sp.issparse(H) else H.tocsr()
    n = Hs.shape[1]
    eps = check_probability(eps, "eps", open_low=True, open_high=True)
    pilot = check_int(pilot, "pilot", low=100)
    # the pilot's erasure patterns are drawn at once (pilot=10**18 hit MemoryError)
    check_memory(pilot * max(n, 1) * 16, "pilot", f"{pilot} pilot patterns of {n} bits")
    if rng is None:
        raise ValueError("block_failure_is needs a seed (rng=...) so its pilot is reproducible")
    ss = seed_sequence(rng)
    pilot_seed, run_seed = ss.spawn(2)
    if eps_tilt is None:
        eps_tilt = _cross_entropy_tilts(
            Hs, n, eps, np.random.default_rng(pilot_seed), pilot, backend
        )
    proposal = TiltedErasures(n, eps, eps_tilt)
    chunk = engine.pop("chunk_size", None) or min(int(trials), 4096)
    return importance_sampling(
        PeelingFails(Hs, backend), proposal, trials, rng=run_seed, chunk_size=chunk, **engine
    )
