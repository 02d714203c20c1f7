"""From a trace to 0/1 straggler indicators, and how many rounds a memoryful fit needs.

:func:`straggler_matrix` states its rule (above ``threshold`` seconds, else above the
``quantile`` of the pooled times); :func:`min_rounds` is the length every fit of
:mod:`gctheory.delays.markov.fits` asks for (>= 10 transitions per parameter, >= 3 rounds).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_real

__all__ = ["min_rounds", "straggler_matrix"]


def straggler_matrix(
    data: Any, load: float | None = None, *, quantile: float = 0.9, threshold: float | None = None
) -> tuple[np.ndarray, str]:
    """``(S, rule)``: the (rounds, workers) 0/1 straggler matrix and the rule that made it.

    ``data`` is a :class:`~gctheory.delays.Trace` (with ``load``; select one campaign
    first, its rounds follow each other) or a (rounds, workers) time matrix. A worker
    straggles in a round when its time exceeds ``threshold`` seconds, else the
    ``quantile`` of all the times of the matrix (pooled).
    """
    from gctheory.delays.trace import Trace

    if isinstance(data, Trace):
        if load is None:
            raise ValueError(f"load: a trace needs the load to read, one of {list(data.loads)}")
        data.require_single_campaign("a straggler matrix (rounds must follow each other)")
        M = data.rounds(load)
    else:
        M = check_array(data, "data", ndim=2)
    if threshold is not None:
        thr = check_real(threshold, "threshold", low=0.0)
        rule = f"time > {thr:.6g} s"
    else:
        q = check_real(quantile, "quantile", low=0.0, high=1.0, low_open=True, high_open=True)
        thr = float(np.quantile(M, q))
        rule = f"time > the {q:g}-quantile of the pooled times ({thr:.6g} s)"
    return (M > thr).astype(np.int8), rule


def _check_states(S: Any, name: str = "S") -> np.ndarray:
    S = check_array(S, name, ndim=2)
    if not np.all((S == 0) | (S == 1)):
        raise ValueError(f"{name} must hold 0 (on time) or 1 (straggler) only")
    return S.astype(np.int8)


#: rounds needed per chain parameter before a fit is attempted (transitions per parameter)
_MIN_TRANSITIONS = 10


def min_rounds(params: int, workers: int) -> int:
    """Rounds a memoryful fit of ``params`` free parameters needs with ``workers``
    workers: at least ``10 params`` observed transitions and three rounds."""
    return max(3, 1 + math.ceil(_MIN_TRANSITIONS * params / max(workers, 1)))


def _check_enough(S: np.ndarray, params: int, what: str) -> None:
    R, W = S.shape
    need = min_rounds(params, W)
    if R < need:
        raise ValueError(
            f"S: {R} rounds of {W} workers are too short to fit {what} ({params} parameters): "
            f"it needs at least {need} rounds (>= {_MIN_TRANSITIONS * params} round-to-round "
            "transitions and >= 3 rounds)"
        )
    n_bad = int(S.sum())
    if n_bad == 0 or n_bad == S.size:
        raise ValueError(
            f"S: {'no' if n_bad == 0 else 'every'} worker-round is a straggler, so {what} has "
            "nothing to fit (choose another threshold or quantile)"
        )
