"""Seeded, chunked Monte Carlo with confidence intervals.

Every analytic quantity in gctheory has a Monte Carlo twin computed here. A run
of ``trials`` independent outcomes is cut into chunks of ``chunk_size``; chunk
``i`` draws from ``np.random.default_rng(children[i])`` where ``children`` are
``np.random.SeedSequence(seed).spawn(n_chunks)``. Chunk results are integers
(counts) or float sums combined in chunk order, so a result depends only on
``(seed, trials, chunk_size)``: it is bit-identical whether the chunks ran
serially, on a local process pool (``executor=2``), on any
:class:`concurrent.futures.Executor`, or on a Dask cluster
(``dask.distributed.Client(...).get_executor()``), and whether or not the run
was interrupted and resumed from a checkpoint.

Intervals
---------
Probabilities get the Wilson score interval (default) or the exact
Clopper-Pearson interval; both handle zero and all-success counts (the Wilson
limit is set to exactly 0 or 1 there). Means get the normal (CLT) interval
``mean +- z * sd / sqrt(n)`` with the sample standard deviation, which is only
as good as the CLT is for the sampler: for heavy-tailed samplers (infinite
variance) the interval is meaningless, and callers must say so.

References
----------
.. [1] E. B. Wilson, "Probable inference, the law of succession, and
   statistical inference", JASA 22 (1927).
.. [2] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
   limits illustrated in the case of the binomial", Biometrika 26 (1934).
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import math
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special, stats

__all__ = [
    "Estimate",
    "binomial_estimate",
    "estimate_probability",
    "estimate_mean",
    "seed_sequence",
    "chunk_plan",
    "DEFAULT_CHUNK_SIZE",
]

DEFAULT_CHUNK_SIZE = 1 << 16
_CHECKPOINT_VERSION = 1


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with a two-sided confidence interval.

    Attributes
    ----------
    value : float
        Point estimate (a proportion or a sample mean).
    low, high : float
        Two-sided confidence limits at ``level``.
    trials : int
        Number of independent outcomes behind the estimate.
    level : float
        Confidence level of ``[low, high]``, in (0, 1).
    successes : int or None
        For probabilities, the number of successes (exact); None for means.
    std : float or None
        For means, the sample standard deviation; None for probabilities.
    method : str
        ``"wilson"``, ``"clopper-pearson"`` or ``"clt"``.
    """

    value: float
    low: float
    high: float
    trials: int
    level: float
    successes: int | None = None
    std: float | None = None
    method: str = "wilson"

    def contains(self, x: float) -> bool:
        """True if ``x`` lies in the closed interval ``[low, high]``."""
        return bool(self.low <= x <= self.high)

    @property
    def half_width(self) -> float:
        """Half the interval's width, a quick measure of precision."""
        return (self.high - self.low) / 2.0

    def __repr__(self) -> str:
        count = f", successes={self.successes}" if self.successes is not None else ""
        return (
            f"Estimate({self.value:.6g} in [{self.low:.6g}, {self.high:.6g}] "
            f"at {100 * self.level:g}% ({self.method}), trials={self.trials}{count})"
        )

    def __str__(self) -> str:
        return f"{self.value:.4g} [{self.low:.4g}, {self.high:.4g}]"


# ---------------------------------------------------------------------------
# intervals


def _check_level(level: float) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in the open interval (0, 1), got {level!r}")
    return level


def _wilson_interval(successes: int, trials: int, level: float) -> tuple[float, float]:
    """Wilson score interval [1] for a binomial proportion."""
    z = float(special.ndtri(0.5 + level / 2.0))
    n = float(trials)
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == trials else min(1.0, center + half)
    return low, high


def _clopper_pearson_interval(successes: int, trials: int, level: float) -> tuple[float, float]:
    """Exact Clopper-Pearson interval [2] from beta quantiles."""
    alpha = 1.0 - level
    low = (
        0.0
        if successes == 0
        else float(stats.beta.ppf(alpha / 2, successes, trials - successes + 1))
    )
    high = (
        1.0
        if successes == trials
        else float(stats.beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    )
    return low, high


_INTERVALS = {"wilson": _wilson_interval, "clopper-pearson": _clopper_pearson_interval}


def binomial_estimate(
    successes: int, trials: int, *, level: float = 0.99, interval: str = "wilson"
) -> Estimate:
    """An :class:`Estimate` from an exact count of successes."""
    level = _check_level(level)
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {sorted(_INTERVALS)}, got {interval!r}")
    if isinstance(trials, bool) or int(trials) != trials or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if isinstance(successes, bool) or int(successes) != successes or not 0 <= successes <= trials:
        raise ValueError(
            f"successes must be an integer in [0, trials] = [0, {trials}], got {successes!r}"
        )
    low, high = _INTERVALS[interval](int(successes), int(trials), level)
    return Estimate(
        value=successes / trials,
        low=low,
        high=high,
        trials=int(trials),
        level=level,
        successes=int(successes),
        method=interval,
    )


def _mean_estimate(total: float, total_sq: float, trials: int, level: float) -> Estimate:
    n = trials
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1) if n > 1 else math.inf
    sd = math.sqrt(var)
    z = float(special.ndtri(0.5 + level / 2.0))
    half = z * sd / math.sqrt(n)
    return Estimate(
        value=mean, low=mean - half, high=mean + half, trials=n, level=level, std=sd, method="clt"
    )


# ---------------------------------------------------------------------------
# seeds and chunks


def seed_sequence(rng: Any) -> np.random.SeedSequence:
    """Normalise ``rng`` to a :class:`numpy.random.SeedSequence`.

    Accepts None (fresh OS entropy), an int or sequence of ints, a
    ``SeedSequence`` (used as is) or a ``Generator`` (a child seed is drawn
    from it, advancing it, so repeated calls with one Generator differ).
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
    if isinstance(rng, np.random.BitGenerator):
        return seed_sequence(np.random.Generator(rng))
    if (
        rng is None
        or isinstance(rng, (int, np.integer))
        or (isinstance(rng, Sequence) and all(isinstance(v, (int, np.integer)) for v in rng))
    ):
        if isinstance(rng, (int, np.integer)) and rng < 0:
            raise ValueError(f"rng seed must be a non-negative integer, got {rng!r}")
        return np.random.SeedSequence(rng)
    raise ValueError(
        "rng must be None, a non-negative int, a sequence of ints, a SeedSequence or a "
        f"numpy Generator, got {type(rng).__name__}"
    )


def chunk_plan(trials: int, chunk_size: int) -> list[int]:
    """Sizes of the chunks a run of ``trials`` is cut into (all full but the last)."""
    full, rest = divmod(trials, chunk_size)
    return [chunk_size] * full + ([rest] if rest else [])


def _check_trials(trials: Any) -> int:
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)):
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if trials <= 0:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    return int(trials)


def _check_chunk_size(chunk_size: Any, trials: int) -> int:
    if chunk_size is None:
        return min(trials, DEFAULT_CHUNK_SIZE)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if chunk_size <= 0:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    return int(chunk_size)


# The chunk kernels run in worker processes: they are module-level so they pickle.


def _count_chunk(event: Callable, seed: np.random.SeedSequence, size: int) -> int:
    out = np.asarray(event(np.random.default_rng(seed), size))
    if out.shape != (size,):
        raise ValueError(
            f"event(rng, size) must return an array of shape ({size},), got shape {out.shape}"
        )
    if out.dtype != np.bool_:
        raise ValueError(f"event(rng, size) must return a boolean array, got dtype {out.dtype}")
    return int(np.count_nonzero(out))


def _sum_chunk(sampler: Callable, seed: np.random.SeedSequence, size: int) -> tuple[float, float]:
    out = np.asarray(sampler(np.random.default_rng(seed), size))
    if out.shape != (size,):
        raise ValueError(
            f"sampler(rng, size) must return an array of shape ({size},), got shape {out.shape}"
        )
    if not np.issubdtype(out.dtype, np.floating) and not np.issubdtype(out.dtype, np.integer):
        raise ValueError(f"sampler(rng, size) must return a real array, got dtype {out.dtype}")
    out = out.astype(np.float64, copy=False)
    if not np.all(np.isfinite(out)):
        raise ValueError("sampler(rng, size) returned non-finite values (inf or nan)")
    return float(np.sum(out)), float(np.sum(out * out))


# ---------------------------------------------------------------------------
# checkpoints


def _fingerprint(func: Callable) -> str:
    """A stable digest of the event/sampler (its pickle), for checkpoint matching."""
    try:
        blob = pickle.dumps(func, protocol=4)
    except Exception:  # unpicklable: fall back to its qualified name
        blob = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', repr(func))}"
        blob = blob.encode()
    return hashlib.sha256(blob).hexdigest()


def _seed_key(ss: np.random.SeedSequence) -> str:
    entropy = ss.entropy
    if isinstance(entropy, (list, tuple)):
        entropy = [int(e) for e in entropy]
    else:
        entropy = int(entropy)
    return json.dumps({"entropy": entropy, "spawn_key": [int(k) for k in ss.spawn_key]})


class _Checkpoint:
    """Finished chunk results persisted as JSON, written atomically."""

    def __init__(self, path: str | os.PathLike, header: dict[str, Any]):
        self.path = Path(path)
        self.header = header
        self.done: dict[int, Any] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(
                    f"checkpoint {str(self.path)!r} is not a readable checkpoint: {exc}"
                ) from exc
            stored = data.get("header")
            if stored != header:
                diff = sorted(
                    k
                    for k in set(header) | set(stored or {})
                    if (stored or {}).get(k) != header.get(k)
                )
                raise ValueError(
                    f"checkpoint {str(self.path)!r} was written by a run with different "
                    f"parameters ({', '.join(diff)} differ); refusing to mix results. "
                    "Delete it or use another path."
                )
            self.done = {int(k): self._decode(v) for k, v in data.get("chunks", {}).items()}

    @staticmethod
    def _encode(value: Any) -> Any:
        if isinstance(value, tuple):
            return [float(v).hex() for v in value]
        return int(value)

    @staticmethod
    def _decode(value: Any) -> Any:
        if isinstance(value, list):
            return tuple(float.fromhex(v) for v in value)
        return int(value)

    def save(self) -> None:
        payload = {
            "header": self.header,
            "chunks": {str(k): self._encode(v) for k, v in sorted(self.done.items())},
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(payload))
        os.replace(tmp, self.path)


# ---------------------------------------------------------------------------
# progress


class _Progress:
    """A one-line progress bar on stderr, shown only on a terminal."""

    def __init__(self, total: int, enabled: bool | None, label: str):
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.enabled = bool(enabled)
        self.total = total
        self.label = label
        self.count = 0
        self.start = time.monotonic()
        self._last = 0.0

    def update(self, n: int) -> None:
        self.count += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.count < self.total:
            return
        self._last = now
        frac = self.count / self.total
        width = 30
        bar = "#" * int(width * frac) + "-" * (width - int(width * frac))
        elapsed = now - self.start
        eta = elapsed / frac - elapsed if frac > 0 else math.inf
        sys.stderr.write(
            f"\r{self.label} [{bar}] {100 * frac:5.1f}% {self.count}/{self.total} "
            f"elapsed {elapsed:5.1f}s eta {eta:5.1f}s"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


# ---------------------------------------------------------------------------
# the runner


def _check_picklable(func: Callable, name: str, executor: Any) -> None:
    if isinstance(executor, cf.ThreadPoolExecutor):
        return
    try:
        pickle.dumps(func)
        return
    except Exception as exc:
        if isinstance(executor, cf.ProcessPoolExecutor) or isinstance(executor, int):
            raise ValueError(
                f"{name} must be picklable to run on a process pool: use a module-level "
                "function, or functools.partial of one, or a class instance with __call__ "
                f"(lambdas and nested functions are not picklable). pickle said: {exc}"
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


def _run_chunks(
    kernel: Callable,
    func: Callable,
    name: str,
    kind: str,
    trials: int,
    *,
    rng: Any,
    chunk_size: int | None,
    executor: Any,
    progress: bool | None,
    checkpoint: str | os.PathLike | None,
) -> list[Any]:
    if not callable(func):
        raise ValueError(f"{name} must be callable as {name}(rng, size), got {type(func).__name__}")
    trials = _check_trials(trials)
    chunk_size = _check_chunk_size(chunk_size, trials)
    if checkpoint is not None and rng is None:
        raise ValueError("checkpoint needs a fixed seed: pass rng=<int or SeedSequence>")
    if executor is not None and not isinstance(executor, cf.Executor):
        if (
            isinstance(executor, bool)
            or not isinstance(executor, (int, np.integer))
            or executor < 1
        ):
            raise ValueError(
                "executor must be None, a positive int (processes in a local pool) or a "
                f"concurrent.futures.Executor, got {executor!r}"
            )
    ss = seed_sequence(rng)
    sizes = chunk_plan(trials, chunk_size)
    seeds = ss.spawn(len(sizes))
    results: list[Any] = [None] * len(sizes)

    ckpt = None
    if checkpoint is not None:
        header = {
            "version": _CHECKPOINT_VERSION,
            "kind": kind,
            "trials": trials,
            "chunk_size": chunk_size,
            "seed": _seed_key(ss),
            name: _fingerprint(func),
        }
        ckpt = _Checkpoint(checkpoint, header)
        for i, value in ckpt.done.items():
            results[i] = value

    todo = [i for i in range(len(sizes)) if results[i] is None]
    bar = _Progress(trials, progress, label=name)
    bar.update(sum(sizes[i] for i in range(len(sizes)) if results[i] is not None))

    def finish(i: int, value: Any) -> None:
        results[i] = value
        if ckpt is not None:
            ckpt.done[i] = value
            ckpt.save()
        bar.update(sizes[i])

    try:
        if executor is None:
            for i in todo:
                finish(i, kernel(func, seeds[i], sizes[i]))
        else:
            _check_picklable(func, name, executor)
            own = not isinstance(executor, cf.Executor)
            pool = cf.ProcessPoolExecutor(max_workers=int(executor)) if own else executor
            try:
                futures = {pool.submit(kernel, func, seeds[i], sizes[i]): i for i in todo}
                try:
                    for fut in cf.as_completed(futures):
                        finish(futures[fut], fut.result())
                except BaseException:
                    for fut in futures:
                        fut.cancel()
                    raise
            finally:
                if own:
                    pool.shutdown(wait=True, cancel_futures=True)
    finally:
        bar.close()
    return results


def estimate_probability(
    event: Callable[[np.random.Generator, int], np.ndarray],
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: int | cf.Executor | None = None,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
    interval: str = "wilson",
) -> Estimate:
    """Estimate ``P(event)`` from ``trials`` independent outcomes.

    Parameters
    ----------
    event : callable
        ``event(rng, size)`` returns a boolean array of shape ``(size,)``: the
        outcomes of ``size`` independent trials drawn with ``rng``. Must be
        picklable (module-level function or ``functools.partial`` of one) when
        an executor is used.
    trials : int
        Number of outcomes, > 0.
    rng : None, int, SeedSequence or Generator, keyword-only
        Seed. With the same seed, trials and chunk_size the result is
        bit-identical on any executor.
    level : float
        Two-sided confidence level in (0, 1).
    chunk_size : int, optional
        Outcomes per chunk (default ``min(trials, 65536)``). Part of the result's
        identity: a different chunk size draws different numbers.
    executor : None, int or concurrent.futures.Executor
        None runs serially; an int runs on a local process pool of that many
        workers; any Executor (a Dask client's ``get_executor()``) is used as is.
    progress : bool or None
        Progress bar on stderr; None shows it only on a terminal.
    checkpoint : path, optional
        File where finished chunks are saved; a rerun with the same parameters
        resumes from it, and one with different parameters is refused.
    interval : {"wilson", "clopper-pearson"}
        Binomial interval.

    Returns
    -------
    Estimate
        Proportion with its interval; ``successes`` holds the exact count.
    """
    level = _check_level(level)
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be one of {sorted(_INTERVALS)}, got {interval!r}")
    counts = _run_chunks(
        _count_chunk,
        event,
        "event",
        "probability",
        trials,
        rng=rng,
        chunk_size=chunk_size,
        executor=executor,
        progress=progress,
        checkpoint=checkpoint,
    )
    return binomial_estimate(sum(counts), int(trials), level=level, interval=interval)


def estimate_mean(
    sampler: Callable[[np.random.Generator, int], np.ndarray],
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: int | cf.Executor | None = None,
    progress: bool | None = None,
    checkpoint: str | os.PathLike | None = None,
) -> Estimate:
    """Estimate ``E[X]`` from ``trials`` independent draws, with a CLT interval.

    ``sampler(rng, size)`` returns a real array of shape ``(size,)`` of finite
    values. The interval is ``mean +- z sd / sqrt(trials)`` with the sample
    standard deviation; it assumes a finite variance (false for heavy tails,
    e.g. Pareto with shape <= 2: callers must not assert on it there). Other
    parameters as in :func:`estimate_probability`. Requires ``trials >= 2``.
    """
    level = _check_level(level)
    trials = _check_trials(trials)
    if trials < 2:
        raise ValueError(f"trials must be >= 2 for a mean's interval, got {trials}")
    sums = _run_chunks(
        _sum_chunk,
        sampler,
        "sampler",
        "mean",
        trials,
        rng=rng,
        chunk_size=chunk_size,
        executor=executor,
        progress=progress,
        checkpoint=checkpoint,
    )
    total = math.fsum(s for s, _ in sums)
    total_sq = math.fsum(q for _, q in sums)
    return _mean_estimate(total, total_sq, trials, level)
