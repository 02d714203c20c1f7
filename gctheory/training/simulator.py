"""The simulator: one seeded training run of a scheme in simulated wall-clock time.

:func:`simulate` draws the data partition, the scheme (:func:`make_scheme`)
and every iteration's delays from one generator, steps the model with the
gradient the scheme returns, and records a :class:`TrainingRun`. See
:mod:`gctheory.training` for the model of the parameter server.
"""

from __future__ import annotations

import inspect
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_int, check_memory, check_real
from gctheory.delays._threads import blas_single_thread
from gctheory.delays.models import parse_delay
from gctheory.training.models import _model_and_data, partition_indices, smoothness
from gctheory.training.schemes import Iteration, make_scheme

__all__ = ["TrainingRun", "DivergenceWarning", "DIVERGENCE_FACTOR", "simulate"]


@dataclass(frozen=True, eq=False)
class TrainingRun:
    """One simulated training run.

    Arrays are indexed by iteration; ``time``, ``loss`` and ``accuracy`` have
    one more entry (the start, t = 0, time 0) than the per-step arrays.

    Attributes
    ----------
    scheme : str
    time : ndarray (T+1,)
        Simulated wall-clock time after each iteration.
    loss, accuracy : ndarray (T+1,)
        Training loss F(w_t) and training accuracy at the iterates.
    grad_error : ndarray (T,)
        ``|g_hat - grad F| / |grad F|`` of the gradient the server used.
    wait : ndarray (T,)
        Time the server waited each iteration (decoding time excluded).
    comm, comp : ndarray (T,)
        Communication load (downloads + uploads) and computation load
        (partial gradients computed), Zhang & Simeone 2020, eqs. (7)-(8).
    draws : ndarray (T, n) or None
        The per-unit-load times drawn (with ``record_draws=True``).
    stats : dict of ndarray (T,) or None
        With ``record_stats=True``, the quantities of Xu et al. 2021's
        Assumption 1 at each iterate x_t the server computed a gradient at
        (t = 0..T-1), over the k data partitions (worker ``j``'s objective
        ``F_j = (k N_j / N) mean_{s in D_j} l_s + (l2/2)|w|^2``, so that
        ``F = (1/k) sum_j F_j`` is the training loss): ``grad_norm2``
        ``|grad F(x_t)|^2``; ``beta2`` ``max_j |grad F_j - grad F|^2`` (eq. (11));
        ``sigma2`` ``max_j`` of the per-sample gradient variance of ``F_j``
        about ``grad F_j`` (eq. (10)).
    loads : ndarray (n,)
        Relative loads of the workers.
    w : ndarray
        The final model.
    selected : ndarray (groups,) or None
        For the lazily aggregated schemes of Zhang & Simeone 2020 (LAG, G-LAG, LAGC,
        G-GD, GC as ``Grouped``): how many iterations each group (each worker, for LAG)
        was selected by rule (13)/(17); None for the other schemes.

    Examples
    --------
    >>> from gctheory.training import TrainingRun, simulate
    >>> run = simulate("frc", n=4, s=1, iterations=5, rng=0)
    >>> run
    TrainingRun('frc', iterations=5, time=5.309, loss=2.137)
    >>> run.iterations, run.time.shape, round(float(run.loss[-1]), 4)
    (5, (6,), 2.1374)
    """

    scheme: str
    time: np.ndarray
    loss: np.ndarray
    accuracy: np.ndarray
    grad_error: np.ndarray
    wait: np.ndarray
    comm: np.ndarray
    comp: np.ndarray
    loads: np.ndarray
    w: np.ndarray = field(repr=False)
    draws: np.ndarray | None = field(default=None, repr=False)
    stats: dict[str, np.ndarray] | None = field(default=None, repr=False)
    selected: np.ndarray | None = field(default=None, repr=False)

    @property
    def iterations(self) -> int:
        return len(self.wait)

    def time_to_loss(self, target: float) -> float:
        """First simulated time at which the loss is <= ``target`` (inf if never)."""
        hit = np.flatnonzero(self.loss <= target)
        return float(self.time[hit[0]]) if hit.size else math.inf

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        """The loss of the latest iterate finished by each of ``times`` (a step function)."""
        idx = np.searchsorted(self.time, np.asarray(times, float), side="right") - 1
        return self.loss[np.clip(idx, 0, None)]

    def __repr__(self) -> str:
        return (
            f"TrainingRun({self.scheme!r}, iterations={self.iterations}, time={self.time[-1]:.4g}, "
            f"loss={self.loss[-1]:.4g})"
        )


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


def simulate(
    scheme: str,
    *,
    n: int,
    delay: Any = "exp(1)",
    iterations: int = 100,
    model: Any = "softmax",
    data: Any = None,
    partition: Any = "iid",
    step_size: float | None = None,
    l2: float = 1e-3,
    persist: int = 1,
    n_slow: int = 0,
    slowdown: float = 1.0,
    comm_time: float = 0.0,
    decode_time_per_op: float = 0.0,
    target_loss: float | None = None,
    record_draws: bool = False,
    rng: Any = None,
    batch_size: int | None = None,
    record_stats: bool = False,
    **scheme_options: Any,
) -> TrainingRun:
    """Simulate one training run of ``scheme`` with ``n`` workers.

    Parameters
    ----------
    scheme : str
        A name of :data:`SCHEMES`; ``scheme_options`` (``K``, ``s``, ``r``,
        ``groups``, ``m``, ``xi``, ``D``, ``blocks``, ``partial_work``,
        ``linear_scaling``, ``warmup``, ``code_options``) go to :func:`make_scheme`.
    n : int
        Number of workers.
    delay : str, scipy.stats distribution, DelayModel or Trace
        Per-unit-load computing time (see :func:`parse_delay`), e.g.
        ``"shifted_exp(0.05, 0.02)"`` (Xu et al. 2021, Section V-B), or
        ``"trace:PATH"``: measured rounds replayed worker by worker
        (:mod:`gctheory.delays.replay`; a worker's data share ``load_i / n``
        is matched to the trace's loads, others reached by the fitted load
        model).
    iterations : int
        Number of iterations (fewer if ``target_loss`` is reached first).
    model, data :
        ``"softmax"`` (default data: the 10 digits) or ``"logistic"`` (default
        data: digit >= 5), or model / :class:`Dataset` objects.
    partition : "iid" or int c
        IID, or non-IID(c) (each data partition holds c classes; Xu et al. 2021).
    step_size : float
        Gradient step ``alpha``; default ``1/L`` with L the smoothness constant
        of the full loss (the choice of Zhang & Simeone 2020, Section V).
    l2 : float
        Ridge penalty of the model.
    persist, n_slow, slowdown, comm_time :
        Options of :class:`DelayModel` (persistent stragglers for ``persist``
        iterations; ``n_slow`` background-slowed workers; upload time).
    decode_time_per_op : float
        Simulated time per multiply-add of the code's decoder (its
        ``decoding_cost``); 0 ignores decoding time.
    target_loss : float
        Stop as soon as the training loss is <= this (a number >= 0).
    record_draws : bool
        Keep every iteration's delay draws in the result.
    rng : seed or Generator
        All randomness of the run (partition, code construction, delays,
        mini-batches).
    batch_size : int or None
        None (default): every partial gradient is over its whole data
        partition (full-batch GD). ``m``: mini-batch SGD (Xu et al. 2021,
        eq. (2)): every iteration each data partition draws ``m`` of its
        samples without replacement (seeded, from a generator of its own, so
        every scheme with the same seed sees the same mini-batches), and its
        partial gradient is the unbiased estimate ``(N_j/m) sum_batch`` of the
        partition's; LGC's blocks (``blocks``) split the mini-batch. ``m``
        must not exceed the smallest partition.
    record_stats : bool
        Record the gradient norm, heterogeneity and per-sample variance at
        every iterate (``TrainingRun.stats``; costs about one more gradient
        per iteration).
    **scheme_options
        ``K``, ``s``, ``r``, ``groups``, ``m``, ``xi``, ``D``, ``blocks``, ``partial_work``,
        ``linear_scaling``, ``warmup``, ``code_options``: passed to :func:`make_scheme`.

    Returns
    -------
    TrainingRun

    Raises
    ------
    ValueError
        Before any work: an unknown option (the error lists the valid ones),
        ``n`` larger than the dataset, a NaN or negative ``target_loss``, ...

    Warns
    -----
    DivergenceWarning
        When the loss becomes non-finite or exceeds :data:`DIVERGENCE_FACTOR`
        times its starting value; the run stops there.

    Examples
    --------
    >>> from gctheory.training import simulate
    >>> run = simulate("frc", n=4, s=1, iterations=5, rng=0)
    >>> round(float(run.time[-1]), 3), round(float(run.loss[0]), 4), round(float(run.loss[-1]), 4)
    (5.309, 2.3026, 2.1374)
    """
    _check_options(scheme_options)
    # overflow of a diverging run is reported once, as a DivergenceWarning, not per product
    with blas_single_thread(), np.errstate(over="ignore", invalid="ignore"):
        return _simulate(scheme, n, delay, iterations, model, data, partition, step_size, l2,
                         persist, n_slow, slowdown, comm_time, decode_time_per_op, target_loss,
                         record_draws, rng, scheme_options, batch_size, record_stats)  # fmt: skip


def _check_options(scheme_options: dict[str, Any]) -> None:
    """Refuse an unknown keyword of :func:`simulate`, listing the valid ones."""
    valid = [
        p for p in inspect.signature(make_scheme).parameters if p not in ("scheme", "n", "rng")
    ]
    bad = sorted(k for k in scheme_options if k not in valid)
    if bad:
        own = [p for p in inspect.signature(simulate).parameters if p != "scheme_options"]
        raise ValueError(
            f"unknown option(s) {bad} of simulate; valid scheme options: {', '.join(valid)}; "
            f"simulate's own: {', '.join(own)}"
        )


def _simulate(
    scheme, n, delay, iterations, model, data, partition, step_size, l2, persist, n_slow,
    slowdown, comm_time, decode_time_per_op, target_loss, record_draws, rng, scheme_options,
    batch_size=None, record_stats=False,
) -> TrainingRun:  # fmt: skip
    rng = as_generator(rng)
    batch_rng = None
    if batch_size is not None:
        batch_size = check_int(batch_size, "batch_size", low=1)
        # a stream of its own, drawn first: the same mini-batches for every scheme of a seed
        batch_rng = np.random.default_rng(rng.integers(2**63))
    iterations = check_int(iterations, "iterations", low=1)
    n = check_int(n, "n", low=1)
    # every iteration keeps about ten numbers (and n delays with record_draws): refuse a
    # run whose record cannot fit instead of running for ever (iterations=10**18)
    check_memory(
        iterations * (400 + (8 * n if record_draws else 0)),
        "iterations",
        f"the record of {iterations} iterations",
    )
    if target_loss is not None:
        target_loss = check_real(target_loss, "target_loss", low=0.0)
    if step_size is not None:
        step_size = check_real(step_size, "step_size", low=0.0, low_open=True)
    decode_time_per_op = check_real(decode_time_per_op, "decode_time_per_op", low=0.0)
    if partition in ("iid", None):
        c = None
    elif isinstance(partition, (int, np.integer)) and not isinstance(partition, bool):
        c = int(partition)
    else:
        raise ValueError(f"partition must be 'iid' or an int c (non-IID(c)), got {partition!r}")
    model, ds = _model_and_data(model, data, l2)
    n_samples = len(ds.y)
    if n > n_samples:
        raise ValueError(
            f"n={n} workers is more than the {n_samples} samples of the dataset {ds.name!r}: "
            f"every worker's data partition needs at least one sample; use n <= {n_samples}"
        )
    dm = parse_delay(delay, persist=persist, n_slow=n_slow, slowdown=slowdown, comm_time=comm_time)
    if dm.n_slow > n:
        raise ValueError(f"n_slow must be at most n={n}, got {dm.n_slow}")
    sch = make_scheme(scheme, n, rng=rng, **scheme_options)
    if hasattr(sch, "set_horizon"):  # sequential codes size their master by the rounds
        sch.set_horizon(iterations)
    if sch.k > n_samples:
        raise ValueError(
            f"scheme {sch.name!r} cuts the data into k={sch.k} partitions, more than the "
            f"{n_samples} samples of {ds.name!r}; use fewer partitions"
        )
    if dm.replay is not None:
        dm.replay.check(n, sch.loads)
    k = sch.k
    parts = [
        rng.permutation(p) for p in partition_indices(ds.classes, k, classes_per_part=c, rng=rng)
    ]
    order = np.concatenate(parts)
    Xo, yo = ds.X[order], ds.y[order]
    bounds = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    sizes = np.diff(bounds)
    N = len(yo)
    if batch_size is not None and batch_size > sizes.min():
        raise ValueError(
            f"batch_size must be at most the smallest data partition ({sizes.min()} samples "
            f"of {k} partitions), got {batch_size}"
        )
    batch: list[np.ndarray] = []
    smooth = np.array(
        [smoothness(model, Xo[bounds[j] : bounds[j + 1]], N, 1 / k) for j in range(k)]
    )
    L = smoothness(model, Xo, N, 1.0)
    alpha = 1.0 / L if step_size is None else float(step_size)
    sch.prepare(smooth, alpha, dm.comm_time)
    dim = model.dim(ds)
    w = np.zeros(dim)
    l2k = model.l2 / k

    def block_grad(j: int, r: int, s: int) -> np.ndarray:
        a, b = bounds[j], bounds[j + 1]
        if batch:  # the first r of s blocks of partition j's mini-batch, scaled like G[j]
            idx = batch[j][: sum(len(c) for c in np.array_split(batch[j], s)[:r])]
            return (
                model.back(Xo[idx], resid[idx]) * (sizes[j] / len(batch[j])) / N + (r / s) * l2k * w
            )
        cut = a + sum(len(c) for c in np.array_split(np.arange(b - a), s)[:r])
        return model.back(Xo[a:cut], resid[a:cut]) / N + (r / s) * l2k * w

    times, losses, accs = [0.0], [], []
    gerr, waits, comms, comps, draws = [], [], [], [], []
    stats: dict[str, list[float]] = {"grad_norm2": [], "beta2": [], "sigma2": []}
    clock = 0.0
    X = None
    for t in range(iterations + 1):
        loss_sum, resid, correct = model.forward(w, Xo, yo)
        losses.append(loss_sum / N + 0.5 * model.l2 * float(w @ w))
        accs.append(correct / N)
        if t == iterations or (target_loss is not None and losses[-1] <= target_loss):
            break
        if not losses[-1] <= DIVERGENCE_FACTOR * max(losses[0], 1e-300):  # NaN included
            grew = (
                f"the loss is {losses[-1]}"
                if not math.isfinite(losses[-1])
                else f"the loss grew from {losses[0]:.4g} to {losses[-1]:.4g} (more than "
                f"{DIVERGENCE_FACTOR:g} times its start: the run diverges)"
            )
            warnings.warn(
                f"{sch.name}: {grew} at iteration {t} (step size {alpha:.3g}); the run stops here",
                DivergenceWarning,
                stacklevel=3,
            )
            break
        if batch_rng is None or record_stats:  # the partitions' full gradients
            G = np.stack(
                [
                    model.back(Xo[bounds[j] : bounds[j + 1]], resid[bounds[j] : bounds[j + 1]])
                    for j in range(k)
                ]
            )
            G /= N
            G += l2k * w
        if record_stats:
            _partition_stats(stats, G, Xo, resid, bounds, N, k)
        if batch_rng is not None:
            batch = [bounds[j] + batch_rng.choice(sizes[j], batch_size, replace=False)
                     for j in range(k)]  # fmt: skip
            G = np.stack([model.back(Xo[i], resid[i]) * (sizes[j] / batch_size)
                          for j, i in enumerate(batch)]) / N + l2k * w  # fmt: skip
        if dm.replay is not None:
            X = dm.replay.per_unit_times(t, sch.loads, rng)
        elif t % dm.persist == 0 or X is None:
            X = dm.draw(rng, n)
        step = sch.step(Iteration(G, X, w, t, block_grad))
        full = G.sum(axis=0) if not batch else _full_gradient(model, Xo, resid, N, w)
        nf = float(np.linalg.norm(full))
        gerr.append(float(np.linalg.norm(step.grad - full)) / nf if nf > 0 else 0.0)
        w = w - alpha * step.grad
        clock += step.wait + decode_time_per_op * step.decode_ops
        times.append(clock)
        waits.append(step.wait)
        comms.append(step.comm)
        comps.append(step.comp)
        if record_draws:
            draws.append(X.copy())
    return TrainingRun(
        scheme=sch.name,
        time=np.array(times),
        loss=np.array(losses),
        accuracy=np.array(accs),
        grad_error=np.array(gerr),
        wait=np.array(waits),
        comm=np.array(comms, float),
        comp=np.array(comps, float),
        loads=sch.loads.copy(),
        w=w,
        draws=np.array(draws) if record_draws else None,
        stats={key: np.array(v) for key, v in stats.items()} if record_stats else None,
        selected=getattr(sch, "selected_count", None),
    )


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
