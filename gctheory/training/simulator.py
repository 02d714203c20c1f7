"""The simulator: one seeded training run of a scheme in simulated wall-clock time.

:func:`simulate` draws the data partition, the scheme (:func:`make_scheme`)
and every iteration's delays from one generator, steps the model with the
gradient the scheme returns, and records a :class:`TrainingRun`. See
:mod:`gctheory.training` for the model of the parameter server.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_int, check_memory, check_real
from gctheory.delays._threads import blas_single_thread
from gctheory.delays.models import parse_delay
from gctheory.loop import run_loop
from gctheory.training.clock import (
    DIVERGENCE_FACTOR,
    DivergenceWarning,
    Partitioned,
    SimulatedClock,
    _full_gradient,
    _partition_stats,
)
from gctheory.training.models import _model_and_data, partition_indices, smoothness
from gctheory.training.schemes import make_scheme

__all__ = ["TrainingRun", "DivergenceWarning", "DIVERGENCE_FACTOR", "simulate"]
__all__ += ["_full_gradient", "_partition_stats"]  # (kept importable from here)


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


def simulate(
    scheme: str | None = None,
    *,
    n: int | None = None,
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
    spec: Any = None,
    preempt: bool = True,
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
    spec : gctheory.cluster.spec.RunSpec, optional
        A real run's description, simulated: it gives ``scheme``, ``n``, ``s``/``K``,
        ``m``, ``code_options``, the delay and its options, ``iterations``,
        ``step_size``, ``rng`` (its seed) and ``model`` (a workload named
        ``"softmax"``/``"logistic"``) and ``preempt``; its engine and the rest of its fault
        policy have no simulated counterpart. The other keywords still apply.
    preempt : bool
        True (default): every iteration starts afresh, the stragglers drop their task
        (the model of :mod:`gctheory.runtime`). False: a worker late at the end of an
        iteration finishes its task before it starts the next, as in the papers' mpi4py
        masters; its lateness carries over (:mod:`gctheory.runtime.carryover` predicts
        the mean iteration time).
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
    if spec is not None:
        if scheme is not None or n is not None:
            raise ValueError("give either spec=RunSpec or scheme and n, not both")
        return simulate(**_spec_keywords(spec, model), data=data, partition=partition, l2=l2,
                        decode_time_per_op=decode_time_per_op, target_loss=target_loss,
                        record_draws=record_draws, batch_size=batch_size,
                        record_stats=record_stats, **scheme_options)  # fmt: skip
    if scheme is None or n is None:
        raise ValueError("simulate needs scheme and n= (or spec=RunSpec)")
    _check_options(scheme_options)
    if not isinstance(preempt, (bool, np.bool_)):
        raise ValueError(f"preempt must be True or False, got {preempt!r}")
    # overflow of a diverging run is reported once, as a DivergenceWarning, not per product
    with blas_single_thread(), np.errstate(over="ignore", invalid="ignore"):
        return _simulate(scheme, n, delay, iterations, model, data, partition, step_size, l2,
                         persist, n_slow, slowdown, comm_time, decode_time_per_op, target_loss,
                         record_draws, rng, scheme_options, batch_size, record_stats,
                         bool(preempt))  # fmt: skip


def _spec_keywords(spec: Any, model: Any) -> dict[str, Any]:
    """simulate's keywords from a :class:`gctheory.cluster.spec.RunSpec`."""
    sc, dl = spec.scheme, spec.delay
    kw: dict[str, Any] = dict(scheme=sc.name, n=sc.n, delay=dl.law, persist=dl.persist,
                              n_slow=dl.n_slow, slowdown=dl.slowdown, comm_time=dl.comm_time,
                              iterations=spec.iterations, step_size=spec.step_size,
                              rng=spec.seed, m=sc.m,
                              preempt=spec.faults.preempt)  # fmt: skip
    kw.update({k: v for k, v in (("s", sc.s), ("K", sc.K)) if v is not None})
    if sc.code_options:
        kw["code_options"] = dict(sc.code_options)
    kw["model"] = spec.workload if spec.workload in ("softmax", "logistic") else model
    return kw


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
    batch_size=None, record_stats=False, preempt=True,
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
    c = _classes_per_part(partition)
    model, ds = _model_and_data(model, data, l2)
    dm = parse_delay(delay, persist=persist, n_slow=n_slow, slowdown=slowdown, comm_time=comm_time)
    sch = _scheme(scheme, n, ds, dm, iterations, rng, scheme_options)
    d = _partitioned(model, ds, sch.k, c, rng)
    if batch_size is not None and batch_size > d.sizes.min():
        raise ValueError(
            f"batch_size must be at most the smallest data partition ({d.sizes.min()} samples "
            f"of {d.k} partitions), got {batch_size}"
        )
    k, b, N = d.k, d.bounds, d.N
    smooth = np.array([smoothness(model, d.X[b[j] : b[j + 1]], N, 1 / k) for j in range(k)])
    L = smoothness(model, d.X, N, 1.0)
    alpha = 1.0 / L if step_size is None else float(step_size)
    sch.prepare(smooth, alpha, dm.comm_time)
    clock = SimulatedClock(d, sch, dm, rng, batch_rng=batch_rng, batch_size=batch_size,
                           decode_time_per_op=decode_time_per_op, target_loss=target_loss,
                           alpha=alpha, record_draws=record_draws,
                           record_stats=record_stats, preempt=preempt)  # fmt: skip
    w, _ = run_loop(clock, np.zeros(model.dim(ds)), start=0, stop=iterations, step_size=alpha)
    return _training_run(clock, w)


def _classes_per_part(partition: Any) -> int | None:
    """None for IID partitions, else the c of non-IID(c)."""
    if partition in ("iid", None):
        return None
    if isinstance(partition, (int, np.integer)) and not isinstance(partition, bool):
        return int(partition)
    raise ValueError(f"partition must be 'iid' or an int c (non-IID(c)), got {partition!r}")


def _scheme(scheme: str, n: int, ds: Any, dm: Any, iterations: int, rng: Any,
            options: dict[str, Any]) -> Any:  # fmt: skip
    """The scheme for ``n`` workers on the dataset ``ds`` (checked against it and the delays)."""
    n_samples = len(ds.y)
    if n > n_samples:
        raise ValueError(
            f"n={n} workers is more than the {n_samples} samples of the dataset {ds.name!r}: "
            f"every worker's data partition needs at least one sample; use n <= {n_samples}"
        )
    if dm.n_slow > n:
        raise ValueError(f"n_slow must be at most n={n}, got {dm.n_slow}")
    sch = make_scheme(scheme, n, rng=rng, **options)
    if hasattr(sch, "set_horizon"):  # sequential codes size their master by the rounds
        sch.set_horizon(iterations)
    if sch.k > n_samples:
        raise ValueError(
            f"scheme {sch.name!r} cuts the data into k={sch.k} partitions, more than the "
            f"{n_samples} samples of {ds.name!r}; use fewer partitions"
        )
    if dm.replay is not None:
        dm.replay.check(n, sch.loads)
    return sch


def _partitioned(model: Any, ds: Any, k: int, c: int | None, rng: Any) -> Partitioned:
    """The dataset cut into ``k`` partitions (seeded: the order of their rows too)."""
    parts = [
        rng.permutation(p) for p in partition_indices(ds.classes, k, classes_per_part=c, rng=rng)
    ]
    order = np.concatenate(parts)
    bounds = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    return Partitioned(model, ds.X[order], ds.y[order], bounds)


def _training_run(clock: SimulatedClock, w: np.ndarray) -> TrainingRun:
    """The record of the simulated run."""
    sch, c = clock.sch, clock
    return TrainingRun(
        scheme=sch.name,
        time=np.array(c.times),
        loss=np.array(c.losses),
        accuracy=np.array(c.accs),
        grad_error=np.array(c.gerr),
        wait=np.array(c.waits),
        comm=np.array(c.comms, float),
        comp=np.array(c.comps, float),
        loads=sch.loads.copy(),
        w=w,
        draws=np.array(c.draws) if c.record_draws else None,
        stats={key: np.array(v) for key, v in c.stats.items()} if c.record_stats else None,
        selected=getattr(sch, "selected_count", None),
    )
