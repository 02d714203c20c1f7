"""The simulated clock: the simulator's source of the workers' answers for the run loop.

:class:`SimulatedClock` plays the rounds of :func:`gctheory.loop.run_loop`
for :func:`gctheory.training.simulate`: the workers' times are drawn from the
delay model (not measured on an engine), the scheme's own ``step`` waits for
its decodable set on that clock and decodes; the partitions' gradients are
computed here, in one process. It stops the loop at the target loss or when
the loss diverges (:class:`DivergenceWarning`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from gctheory.training.schemes import Iteration

__all__ = ["SimulatedClock", "Partitioned"]


class Partitioned:
    """The data cut into the scheme's ``k`` partitions (rows of partition ``j``:
    ``bounds[j]:bounds[j + 1]`` of ``X``, ``y``)."""

    def __init__(self, model: Any, X: np.ndarray, y: np.ndarray, bounds: np.ndarray) -> None:
        self.model, self.X, self.y, self.bounds = model, X, y, bounds
        self.sizes = np.diff(bounds)
        self.N, self.k = len(y), len(bounds) - 1
        self.l2k = model.l2 / self.k

    def full_gradients(self, resid: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The partitions' gradients ``(k, dim)`` at ``w`` (residuals ``resid``)."""
        b, X, m = self.bounds, self.X, self.model
        G = np.stack([m.back(X[b[j] : b[j + 1]], resid[b[j] : b[j + 1]]) for j in range(self.k)])
        G /= self.N
        G += self.l2k * w
        return G


class SimulatedClock:
    """The simulator's rounds (see the module docstring); ``records`` fills as it plays."""

    def __init__(self, data: Partitioned, sch: Any, dm: Any, rng: Any, *, batch_rng: Any,
                 batch_size: int | None, decode_time_per_op: float, target_loss: float | None,
                 alpha: float, record_draws: bool, record_stats: bool,
                 preempt: bool = True) -> None:  # fmt: skip
        self.d, self.sch, self.dm, self.rng = data, sch, dm, rng
        self.carry = None if preempt else _Backlog(sch)
        self.batch_rng, self.batch_size = batch_rng, batch_size
        self.per_op, self.target, self.alpha = decode_time_per_op, target_loss, alpha
        self.record_draws, self.record_stats = record_draws, record_stats
        self.times, self.losses, self.accs = [0.0], [], []  # type: list[float], list[float], list[float]
        self.gerr, self.waits, self.comms, self.comps, self.draws = [], [], [], [], []  # type: ignore[var-annotated]
        self.stats: dict[str, list[float]] = {"grad_norm2": [], "beta2": [], "sigma2": []}
        self.batch: list[np.ndarray] = []
        self.clock, self.stopped = 0.0, False
        self.X: Any = None
        self.resid: Any = None
        self.w: Any = None

    def observe(self, w: np.ndarray) -> None:
        """The training loss and accuracy at ``w`` (and the residuals the gradients need)."""
        d = self.d
        loss_sum, self.resid, correct = d.model.forward(w, d.X, d.y)
        self.losses.append(loss_sum / d.N + 0.5 * d.model.l2 * float(w @ w))
        self.accs.append(correct / d.N)

    def begin(self, t: int, w: np.ndarray) -> bool:
        self.observe(w)
        loss, first = self.losses[-1], self.losses[0]
        if self.target is not None and loss <= self.target:
            self.stopped = True
        elif not loss <= DIVERGENCE_FACTOR * max(first, 1e-300):  # NaN included
            grew = (
                f"the loss is {loss}" if not math.isfinite(loss)
                else f"the loss grew from {first:.4g} to {loss:.4g} (more than "
                f"{DIVERGENCE_FACTOR:g} times its start: the run diverges)"
            )  # fmt: skip
            warnings.warn(
                f"{self.sch.name}: {grew} at iteration {t} (step size {self.alpha:.3g}); the "
                "run stops here",
                DivergenceWarning,
                stacklevel=5,
            )
            self.stopped = True
        return not self.stopped

    def gradients(self, w: np.ndarray) -> np.ndarray:
        """The partitions' gradients of this iteration (full, or of its mini-batches)."""
        d, G = self.d, np.empty(0)
        if self.batch_rng is None or self.record_stats:  # the partitions' full gradients
            G = d.full_gradients(self.resid, w)
        if self.record_stats:
            _partition_stats(self.stats, G, d.X, self.resid, d.bounds, d.N, d.k)
        if self.batch_rng is not None:
            bs, r = self.batch_size, self.resid
            self.batch = [d.bounds[j] + self.batch_rng.choice(d.sizes[j], bs, replace=False)
                          for j in range(d.k)]  # fmt: skip
            G = np.stack([d.model.back(d.X[i], r[i]) * (d.sizes[j] / bs)
                          for j, i in enumerate(self.batch)]) / d.N + d.l2k * w  # fmt: skip
        return G

    def play(self, t: int, w: np.ndarray) -> np.ndarray:
        d, dm, sch = self.d, self.dm, self.sch
        self.w = w
        G = self.gradients(w)
        if dm.replay is not None:
            self.X = dm.replay.per_unit_times(t, sch.loads, self.rng)
        elif t % dm.persist == 0 or self.X is None:
            self.X = dm.draw(self.rng, sch.n)
        X = self.X if self.carry is None else self.carry.delayed(self.X, self.clock)
        self.step = step = sch.step(Iteration(G, X, w, t, self.block_grad))
        full = G.sum(axis=0) if not self.batch else _full_gradient(d.model, d.X, self.resid, d.N, w)
        nf = float(np.linalg.norm(full))
        self.gerr.append(float(np.linalg.norm(step.grad - full)) / nf if nf > 0 else 0.0)
        return step.grad

    def block_grad(self, j: int, r: int, s: int) -> np.ndarray:
        """The first ``r`` of ``s`` blocks of partition ``j`` (its mini-batch's), as ``G[j]``."""
        d, resid, w = self.d, self.resid, self.w
        a, b = d.bounds[j], d.bounds[j + 1]
        if self.batch:
            bj = self.batch[j]
            idx = bj[: sum(len(c) for c in np.array_split(bj, s)[:r])]
            return (
                d.model.back(d.X[idx], resid[idx]) * (d.sizes[j] / len(bj)) / d.N
                + (r / s) * d.l2k * w
            )
        cut = a + sum(len(c) for c in np.array_split(np.arange(b - a), s)[:r])
        return d.model.back(d.X[a:cut], resid[a:cut]) / d.N + (r / s) * d.l2k * w

    def end(self, t: int, w: np.ndarray) -> None:
        step = self.step
        if self.carry is not None:
            self.carry.advance(self.X, self.clock, step.wait)
        self.clock += step.wait + self.per_op * step.decode_ops
        self.times.append(self.clock)
        self.waits.append(step.wait)
        self.comms.append(step.comm)
        self.comps.append(step.comp)
        if self.record_draws:
            self.draws.append(self.X.copy())

    def close(self, w: np.ndarray, done: int) -> None:
        if not self.stopped:  # the loss at the last iterate
            self.observe(w)


class _Backlog:
    """Stragglers that carry over (``simulate(preempt=False)``): a worker late at the end
    of an iteration finishes its task before it starts the next, as with the masters of
    the papers' mpi4py scripts (the queue of :mod:`gctheory.runtime.carryover`).

    ``free[i]`` is when worker ``i`` is done with its last task. An iteration starting at
    ``clock`` finds it ``max(free - clock, 0)`` late; the scheme sees that backlog as part
    of the worker's per-unit time (``X + backlog / load``, so its finish time is the fresh
    one plus the backlog). A worker that had not started when the iteration ended skips
    the task (the newer one supersedes it) and keeps its ``free``.
    """

    def __init__(self, sch: Any) -> None:
        if not np.all(sch.loads > 0):
            raise ValueError(
                f"preempt=False needs every worker to hold data ({sch.name} gives "
                f"{int(np.sum(sch.loads <= 0))} worker(s) no load); use preempt=True"
            )
        self.sch, self.free = sch, np.zeros(sch.n)
        self.backlog = np.zeros(sch.n)

    def delayed(self, X: np.ndarray, clock: float) -> np.ndarray:
        self.backlog = np.maximum(self.free - clock, 0.0)
        return X + self.backlog / self.sch.loads

    def advance(self, X: np.ndarray, clock: float, wait: float) -> None:
        start = clock + self.backlog
        finish = start + self.sch.finish_times(X)
        self.free = np.where(start < clock + wait, finish, self.free)


class DivergenceWarning(UserWarning):
    """The training loss became non-finite or grew past ``DIVERGENCE_FACTOR`` times its
    starting value (the step size is too large); the run stopped.

    Examples
    --------
    >>> from gctheory.training import DivergenceWarning
    >>> issubclass(DivergenceWarning, UserWarning)
    True
    """


DIVERGENCE_FACTOR = 1e3
"""A loss this many times its value at the start means the run diverges (a converging
gradient method never raises the loss by three orders of magnitude)."""


def _full_gradient(
    model: Any, X: np.ndarray, resid: np.ndarray, N: int, w: np.ndarray
) -> np.ndarray:
    return model.back(X, resid) / N + model.l2 * w


def _partition_stats(
    stats: dict[str, list[float]],
    G: np.ndarray,
    X: np.ndarray,
    resid: np.ndarray,
    bounds: np.ndarray,
    N: int,
    k: int,
) -> None:
    """Append |grad F|^2, beta^2 and sigma^2 of Xu et al. 2021, Assumption 1, at this iterate.

    ``G`` holds the full partition gradients. Worker j's objective is
    ``F_j = (k N_j/N) mean_{s in D_j} l_s + (l2/2)|w|^2`` (its gradient is
    ``k G[j]``); a sample's gradient of the loss models here is ``x_s (x) r_s``
    (the residual), with squared norm ``|x_s|^2 |r_s|^2``, so the variance is
    ``mean |g_s|^2 - |mean g_s|^2`` without forming the per-sample gradients.
    """
    full = G.sum(axis=0)
    stats["grad_norm2"].append(float(full @ full))
    dev = k * G - full
    stats["beta2"].append(float(np.max(np.einsum("ij,ij->i", dev, dev))))
    r2 = np.sum(resid**2, axis=1) if resid.ndim == 2 else resid**2
    sq = np.einsum("ij,ij->i", X, X) * r2
    worst = 0.0
    for j in range(k):
        a, b = bounds[j], bounds[j + 1]
        nj = b - a
        mean_g = (X[a:b].T @ resid[a:b]).ravel() / nj
        var = max(float(sq[a:b].mean() - mean_g @ mean_g), 0.0)
        worst = max(worst, (k * nj / N) ** 2 * var)
    stats["sigma2"].append(worst)
