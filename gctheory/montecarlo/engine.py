"""The chunk engine: seeds, chunk plans, executors, progress.

A run of at most ``trials`` outcomes is cut into chunks of ``chunk_size`` (all
full but the last). Chunk ``i`` draws from ``np.random.default_rng(child_i)``
where ``child_i`` is the ``i``-th child of ``seed_sequence(rng)`` -- the
``i``-th element of ``SeedSequence.spawn``, built on demand so that a run
whose length is decided as it goes (adaptive stopping) needs no list of
seeds. Chunks may run serially, on a local process pool (``executor=2``), on
any :class:`concurrent.futures.Executor` (a Dask client's ``get_executor()``);
their summaries are merged in chunk order whatever order they finish in, so
the result depends only on ``(seed, trials, chunk_size)`` (and ``stop``).

Worker processes of a pool the engine starts exit by themselves when the
parent process dies (a watchdog thread in each worker), so a killed run leaves
no workers behind. A worker that dies under a run (killed, out of memory)
breaks a process pool: the chunks it lost are rerun on a fresh pool, up to
:data:`MAX_POOL_RESTARTS` times, with a :class:`WorkerLostWarning`; the
per-chunk seeds make the result the one a serial run gives.
"""

from __future__ import annotations

import concurrent.futures as cf
import numbers
import os
import pickle
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

from gctheory._validate import as_generator, available_memory

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "MAX_CHUNKS",
    "MAX_POOL_RESTARTS",
    "WorkerLostError",
    "WorkerLostWarning",
    "chunk_plan",
    "seed_sequence",
]

#: Trials per chunk when ``chunk_size`` is not given (2^16).
DEFAULT_CHUNK_SIZE = 1 << 16

#: Most chunks one run may be cut into. Each chunk costs a seed, a generator and a
#: dispatch (tens of microseconds at least), so a plan beyond this is refused at once.
MAX_CHUNKS = 10**8

_PARENT_POLL_SECONDS = 0.2

#: Fresh process pools one run may start after a worker died; one more death ends the run.
MAX_POOL_RESTARTS = 3


class WorkerLostWarning(RuntimeWarning):
    """A process-pool worker died; its chunks were rerun on a fresh pool (same result)."""


class WorkerLostError(RuntimeError):
    """Process-pool workers died more than :data:`MAX_POOL_RESTARTS` times in one run."""


# ---------------------------------------------------------------------------
# seeds


def seed_sequence(rng: Any, name: str = "rng") -> np.random.SeedSequence:
    """Normalise ``rng`` to a :class:`numpy.random.SeedSequence`.

    Accepts what :func:`gctheory._validate.as_generator` accepts: None (fresh OS
    entropy), a non-negative int or a sequence of non-negative ints, a
    ``SeedSequence`` (used as is), a ``BitGenerator`` or a ``Generator`` (a
    child seed is drawn from it, advancing it, so repeated calls with one
    Generator differ). Booleans (``rng=True`` is not seed 1), negative seeds,
    floats and strings are refused with the parameter's name.

    Parameters
    ----------
    rng : None, int, sequence of int, SeedSequence, BitGenerator or Generator
        The seed to normalise.
    name : str
        The parameter name used in error messages.

    Returns
    -------
    numpy.random.SeedSequence
        A seed sequence that spawns the workers' streams.

    Raises
    ------
    ValueError
        A boolean, negative, float or string seed.

    Examples
    --------
    >>> from gctheory.montecarlo import seed_sequence
    >>> seed_sequence(7).entropy
    7
    >>> seed_sequence(-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: rng seed must be a non-negative integer, got -1
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    gen = as_generator(rng, name)  # validates every other form
    if isinstance(rng, (np.random.Generator, np.random.BitGenerator)):
        return np.random.SeedSequence(gen.integers(0, 2**63, size=4).tolist())
    return np.random.SeedSequence(rng)


def child_seed(ss: np.random.SeedSequence, base: int, i: int) -> np.random.SeedSequence:
    """The ``i``-th child ``ss.spawn`` would give, after ``base`` children already spawned."""
    return np.random.SeedSequence(
        ss.entropy, spawn_key=tuple(ss.spawn_key) + (base + i,), pool_size=ss.pool_size
    )


def seed_key(ss: np.random.SeedSequence) -> dict[str, Any]:
    """A JSON-ready identity of a seed (for checkpoint headers)."""
    entropy = ss.entropy
    assert entropy is not None, "a SeedSequence given None draws its entropy from the OS"
    # a user's SeedSequence keeps its entropy as given: an int, a list, a tuple or an array
    key = int(entropy) if isinstance(entropy, (int, np.integer)) else [int(e) for e in entropy]
    return {
        "entropy": key,
        "spawn_key": [int(k) for k in ss.spawn_key],
        "pool_size": int(ss.pool_size),
        "first_child": int(ss.n_children_spawned),
    }


# ---------------------------------------------------------------------------
# validation of the run's shape


def check_trials(trials: Any) -> int:
    if isinstance(trials, (bool, np.bool_)) or not isinstance(trials, numbers.Integral):
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if trials <= 0:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    return int(trials)


def check_chunk_size(chunk_size: Any, trials: int) -> int:
    if chunk_size is None:
        return min(trials, DEFAULT_CHUNK_SIZE)
    if isinstance(chunk_size, (bool, np.bool_)) or not isinstance(chunk_size, numbers.Integral):
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if chunk_size <= 0:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    return int(chunk_size)


def check_executor(executor: Any) -> Any:
    if executor is None or isinstance(executor, cf.Executor):
        return executor
    if (
        isinstance(executor, (bool, np.bool_))
        or not isinstance(executor, numbers.Integral)
        or executor < 1
    ):
        raise ValueError(
            "executor must be None, a positive int (processes in a local pool) or a "
            f"concurrent.futures.Executor, got {executor!r}"
        )
    return int(executor)


def check_callable(func: Any, name: str, signature: str) -> None:
    if not callable(func):
        raise ValueError(f"{name} must be callable as {signature}, got {type(func).__name__}")


def _workers(executor: Any) -> int:
    if executor is None:
        return 1
    if isinstance(executor, int):
        return executor
    return int(getattr(executor, "_max_workers", 0) or 0) or 16


def check_plan(
    trials: int, chunk_size: int, executor: Any, bytes_per_outcome: int, adaptive: bool
) -> int:
    """Refuse at once a plan whose chunks cannot fit in memory, or a fixed-length plan with
    more than :data:`MAX_CHUNKS` chunks (an adaptive run is planned lazily and ends by its
    rule, so its budget may be as large as wanted).

    Returns the number of chunks.
    """
    n_chunks = -(-trials // chunk_size)
    if n_chunks > MAX_CHUNKS and not adaptive:
        how = " or a stop rule (stop=...) that ends the run earlier"
        raise ValueError(
            f"trials={trials:,} in chunks of chunk_size={chunk_size:,} is {n_chunks:,} chunks, "
            f"more than the {MAX_CHUNKS:,} one run may have (each chunk costs a seed, a "
            f"generator and a dispatch): use chunk_size >= {-(-trials // MAX_CHUNKS):,}{how}"
        )
    workers = _workers(executor)
    need = chunk_size * bytes_per_outcome * workers
    avail = available_memory()
    if avail is not None and need > avail:
        raise ValueError(
            f"chunk_size={chunk_size:,} needs at least {need / 2**30:.3g} GiB at once "
            f"({bytes_per_outcome} bytes per outcome x {workers} worker(s)), more than the "
            f"{avail / 2**30:.3g} GiB available: use a smaller chunk_size"
        )
    return n_chunks


def chunk_plan(trials: int, chunk_size: int) -> list[int]:
    """Sizes of the chunks a run of ``trials`` is cut into (all full but the last).

    Parameters
    ----------
    trials : int
        Total number of trials, ``>= 0``.
    chunk_size : int
        Trials per chunk, ``>= 1``.

    Returns
    -------
    list of int
        The chunk sizes, summing to ``trials``.

    Examples
    --------
    >>> from gctheory.montecarlo import chunk_plan
    >>> chunk_plan(10, 4)
    [4, 4, 2]
    """
    trials = check_trials(trials)
    chunk_size = check_chunk_size(chunk_size, trials)
    check_plan(trials, chunk_size, None, 0, adaptive=False)
    full, rest = divmod(trials, chunk_size)
    return [chunk_size] * full + ([rest] if rest else [])


class Plan:
    """Chunk sizes and seeds of a run, computed on demand."""

    def __init__(self, trials: int, chunk_size: int, ss: np.random.SeedSequence):
        self.trials = trials
        self.chunk_size = chunk_size
        self.n_chunks = -(-trials // chunk_size)
        self.ss = ss
        self.base = ss.n_children_spawned

    def size(self, i: int) -> int:
        return min(self.chunk_size, self.trials - i * self.chunk_size)

    def seed(self, i: int) -> np.random.SeedSequence:
        return child_seed(self.ss, self.base, i)

    def consumed(self, n: int, shared: bool) -> None:
        """Advance a caller's SeedSequence as ``spawn`` would have, for the ``n`` chunks used
        (a sequence made here from an int seed is seen by nobody else: left alone)."""
        if shared:
            self.ss.spawn(n)


# ---------------------------------------------------------------------------
# progress


class Progress:
    """Trials done of ``total``, drawn by :class:`gctheory._progress.Progress` (tqdm): a bar
    on a terminal (kept when done), a widget in a notebook, a line every 10 s elsewhere;
    ``enabled=False`` silences it, ``True`` draws the bar anywhere."""

    def __init__(self, total: int, enabled: bool | None, label: str):
        from gctheory._progress import Progress as Bar

        self._bar = Bar(total, label, enabled=enabled, leave=True)
        self.enabled = self._bar.enabled
        self.total = total
        self.label = label
        self.count = 0

    def update(self, n: int) -> None:
        """``n`` more trials done."""
        self.count += n
        self._bar.update(self.count)

    def close(self) -> None:
        self._bar.close()


# ---------------------------------------------------------------------------
# executors


def _watch_parent() -> None:
    """Pool-worker initializer: exit this worker as soon as its parent process is gone."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(_PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="gctheory-parent-watch", daemon=True).start()


def local_pool(workers: int) -> cf.ProcessPoolExecutor:
    """A process pool whose workers exit when this process dies."""
    return cf.ProcessPoolExecutor(max_workers=workers, initializer=_watch_parent)


def check_picklable(funcs: Sequence[tuple[str, Callable]], executor: Any) -> None:
    if executor is None or isinstance(executor, cf.ThreadPoolExecutor):
        return
    for name, func in funcs:
        try:
            pickle.dumps(func)
            continue
        except Exception as exc:
            if isinstance(executor, (cf.ProcessPoolExecutor, int)):
                raise ValueError(
                    f"{name} must be picklable to run on a process pool: use a module-level "
                    "function, or functools.partial of one, or a class instance with "
                    "__call__ (lambdas and nested functions are not picklable). pickle said: "
                    f"{exc}"
                ) from exc
        try:  # other executors (Dask) serialise with cloudpickle when available
            import cloudpickle

            cloudpickle.dumps(func)
        except ImportError:
            raise ValueError(
                f"{name} must be picklable to run on an executor (module-level function or "
                "functools.partial of one)"
            ) from None
        except Exception as exc:
            raise ValueError(f"{name} could not be serialised for the executor: {exc}") from exc


def run_chunks(
    task: Callable[[np.random.SeedSequence, int], Any],
    plan: Plan,
    *,
    executor: Any,
    done: dict[int, Any],
    record: Callable[[int, Any], None],
    accept: Callable[[int, Any], bool],
    progress: Progress,
) -> int:
    """Run the chunks of ``plan`` and feed their summaries to ``accept`` in chunk order.

    ``done`` holds summaries already known (from a checkpoint); ``record`` is
    called for every newly computed one, in completion order. ``accept(i, s)``
    returns True to stop after chunk ``i``. Returns the number of chunks accepted.
    """
    progress.update(sum(plan.size(i) for i in done))
    if executor is None:
        return _run_serially(task, plan, done, record, accept, progress)
    run = _PoolRun(task, plan, executor, done, record, progress)
    try:
        return run.loop(accept)
    finally:
        run.close()


def _run_serially(
    task: Callable[[np.random.SeedSequence, int], Any],
    plan: Plan,
    done: dict[int, Any],
    record: Callable[[int, Any], None],
    accept: Callable[[int, Any], bool],
    progress: Progress,
) -> int:
    """:func:`run_chunks` without an executor: one chunk after another, in this process."""
    for i in range(plan.n_chunks):
        s = done.get(i)
        if s is None:
            s = task(plan.seed(i), plan.size(i))
            record(i, s)
            progress.update(plan.size(i))
        if accept(i, s):
            return i + 1
    return plan.n_chunks


class _PoolRun:
    """:func:`run_chunks` on an executor: a bounded window of chunks in flight, their
    summaries held until every earlier chunk is accepted, a broken pool replaced."""

    def __init__(
        self,
        task: Callable[[np.random.SeedSequence, int], Any],
        plan: Plan,
        executor: Any,
        done: dict[int, Any],
        record: Callable[[int, Any], None],
        progress: Progress,
    ):
        self.task, self.plan, self.done = task, plan, done
        self.record, self.progress = record, progress
        self.own = isinstance(executor, int)  # a pool started here, shut down here
        self.pool = local_pool(executor) if self.own else executor
        self.workers = _workers(executor)
        self.in_flight = max(2, 2 * self.workers)
        self.ahead = 4 * self.in_flight  # results kept waiting for an earlier chunk, at most
        self.futures: dict[cf.Future, int] = {}
        self.ready: dict[int, Any] = {}
        self.nxt = 0  # next chunk to accept
        self.sub = 0  # next chunk to consider for submission
        self.restarts = 0

    def loop(self, accept: Callable[[int, Any], bool]) -> int:
        """Accept, submit, wait, until ``accept`` says stop or every chunk is accepted."""
        while True:
            stopped = self.accept_in_order(accept)
            if stopped is not None:
                return stopped
            if self.nxt >= self.plan.n_chunks:
                return self.plan.n_chunks
            broken = self.submit_more()
            if not broken:
                broken = self.collect_finished()
            if broken:
                self.restart()

    def accept_in_order(self, accept: Callable[[int, Any], bool]) -> int | None:
        """Feed ``accept`` every summary ready in chunk order; the chunks accepted if it
        says stop, else None."""
        plan, ready, done = self.plan, self.ready, self.done
        while self.nxt in ready or (self.nxt < plan.n_chunks and self.nxt in done):
            s = ready.pop(self.nxt) if self.nxt in ready else done[self.nxt]
            if accept(self.nxt, s):
                return self.nxt + 1
            self.nxt += 1
        return None

    def submit_more(self) -> bool:
        """Fill the window of chunks in flight; True if the pool broke on a submission."""
        plan = self.plan
        while len(self.futures) < self.in_flight and self.sub < min(
            plan.n_chunks, self.nxt + self.ahead
        ):
            if self.sub not in self.done and self.sub >= self.nxt:
                try:
                    fut = self.pool.submit(self.task, plan.seed(self.sub), plan.size(self.sub))
                except BrokenProcessPool:
                    return True
                self.futures[fut] = self.sub
            self.sub += 1
        return False

    def collect_finished(self) -> bool:
        """Wait for at least one chunk and record the finished ones; True if the pool broke
        (a chunk it lost stays in ``futures``, to be rerun)."""
        broken = False
        finished, _ = cf.wait(list(self.futures), return_when=cf.FIRST_COMPLETED)
        for fut in finished:
            try:
                s = fut.result()
            except BrokenProcessPool:
                broken = True  # the chunk stays in futures: it is rerun by restart
                continue
            i = self.futures.pop(fut)
            self.record(i, s)
            self.progress.update(self.plan.size(i))
            self.ready[i] = s
        return broken

    def restart(self) -> None:
        """Rerun the unfinished chunks on a fresh local pool, or raise after
        :data:`MAX_POOL_RESTARTS` restarts."""
        self.restarts += 1
        restarts = self.restarts
        lost = sorted(self.futures.values())
        self.futures.clear()
        if self.own:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if restarts > MAX_POOL_RESTARTS:
            self.own = False
            raise WorkerLostError(
                f"the process pool broke {restarts} times in this run (a worker "
                "killed each time: out of memory, a signal, or the function crashes "
                "its process); rerun with a checkpoint to keep the finished chunks, "
                "or serially (executor=None) to see the error"
            )
        warnings.warn(
            f"a worker of the process pool died (killed, or out of memory); "
            f"{len(lost)} unfinished chunk(s) rerun on a fresh pool "
            f"(restart {restarts} of at most {MAX_POOL_RESTARTS}; the per-chunk seeds "
            "make the result the serial one)",
            WorkerLostWarning,
            stacklevel=6,  # restart, loop, run_chunks, drive, the estimator, its caller
        )
        self.pool, self.own = local_pool(self.workers), True
        for i in lost:
            self.futures[self.pool.submit(self.task, self.plan.seed(i), self.plan.size(i))] = i

    def close(self) -> None:
        """Cancel what is still in flight; shut down a pool started here."""
        for fut in self.futures:
            fut.cancel()
        if self.own:
            self.pool.shutdown(wait=True, cancel_futures=True)
