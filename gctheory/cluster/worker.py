"""One worker: its partitions and its coded message.

A worker ``i`` of a gradient code holds the partitions ``j`` with
``support[i, j]`` and transmits ``y_i = sum_{j,u} E[j m + u, i] g_j^(u)``
(the module contract of :mod:`gctheory.codes.base`: ``g_j^(u)`` is chunk
``u`` of partition ``j``'s gradient zero-padded to ``m r``, ``r = ceil(d/m)``),
i.e. column ``i`` of ``code.encode(G)`` computed from its own partitions only.
Uncoded schemes are the special case ``E = I``. :class:`WorkerState` is what a
worker is shipped once; :meth:`WorkerState.message` is the only computation of
an iteration, and :func:`gctheory.cluster.replay` calls the same method, so a
replayed run computes the same bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["WorkerState", "OracleError"]


class OracleError(RuntimeError):
    """A worker's gradient oracle raised: names the worker and the partition.

    Parameters
    ----------
    worker : int
        The worker.
    partition : int
        The partition whose gradient failed.
    iteration : int
        The iteration.
    detail : str
        The oracle's error.

    Examples
    --------
    >>> from gctheory.cluster import OracleError
    >>> print(OracleError(1, 2, 3, "ValueError: bad input"))
    worker 1 failed on partition 2 at iteration 3: ValueError: bad input
    """

    def __init__(self, worker: int, partition: int, iteration: int, detail: str) -> None:
        self.worker, self.partition, self.iteration, self.detail = (
            worker,
            partition,
            iteration,
            detail,
        )
        super().__init__(
            f"worker {worker} failed on partition {partition} at iteration {iteration}: {detail}"
        )

    def __reduce__(self) -> tuple:
        return (OracleError, (self.worker, self.partition, self.iteration, self.detail))


@dataclass
class WorkerState:
    """Everything worker ``index`` keeps for the whole run (shipped once).

    Attributes
    ----------
    index : int
        The worker's index ``i``.
    partitions : tuple of int
        The partitions it holds (``support[i]``).
    coef : ndarray (len(partitions), m)
        ``E[j m + u, i]`` for its partitions ``j`` and chunks ``u``.
    m : int
        Communication saving: the message is ``ceil(d/m)`` numbers long.
    workload : GradientOracle
        The oracle, restricted to ``partitions`` where it can be.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.cluster import WorkerState, make_workload
    >>> state = WorkerState(index=0, partitions=(0, 1), coef=np.array([[1.0], [1.0]]), m=1,
    ...                     workload=make_workload("logistic", 2))
    >>> w = state.workload.initial_params()
    >>> state.message(w).shape == w.shape
    True
    """

    index: int
    partitions: tuple[int, ...]
    coef: np.ndarray
    m: int
    workload: Any

    def message(self, params: np.ndarray, t: int = -1) -> np.ndarray:
        """The coded message of this worker at ``params`` (``ceil(d/m)`` numbers).

        Raises :class:`OracleError` naming the worker and partition when the
        oracle raises.
        """
        d = params.shape[0]
        m = self.m
        r = -(-d // m)
        acc = np.zeros(r, dtype=np.result_type(self.coef.dtype, params.dtype, float))
        for idx, j in enumerate(self.partitions):
            try:
                g = np.asarray(self.workload.partial_gradient(params, j))
            except Exception as exc:  # the user's oracle: report where, whatever it raised
                detail = f"{type(exc).__name__}: {exc}"
                raise OracleError(self.index, j, t, detail) from exc
            if g.shape != (d,):
                raise OracleError(
                    self.index, j, t, f"partial_gradient returned shape {g.shape}, expected ({d},)"
                )
            if m == 1:
                acc += self.coef[idx, 0] * g
            else:
                padded = np.zeros(m * r, dtype=g.dtype)
                padded[:d] = g
                acc += padded.reshape(m, r).T @ self.coef[idx]
        return acc


def _single_thread() -> None:
    """Pin BLAS to one thread (the numbers must not depend on a thread split)."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover - optional
        pass
