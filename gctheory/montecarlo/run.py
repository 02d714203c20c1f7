"""One Monte Carlo run, from its arguments to an :class:`Estimate`.

Shared by every estimator of the package: validate everything before any work
(trials, chunk size, executor, seed, checkpoint path, stopping rules), run
the chunks through :func:`gctheory.montecarlo.engine.run_chunks`, merge their
summaries in chunk order, apply the stopping rules at each chunk boundary,
and say in the result which rule ended the run.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gctheory._validate import check_real
from gctheory.montecarlo import checkpoint as ckpt_mod
from gctheory.montecarlo import engine
from gctheory.montecarlo.estimates import Estimate, PrecisionNotReachedWarning
from gctheory.montecarlo.stopping import Stop, rule_met

_BYTES_PER_OUTCOME = {"probability": 1, "mean": 8, "splitting": 8, "weighted": 16}


def drive(
    *,
    kind: str,
    task: Callable[[np.random.SeedSequence, int], Any],
    funcs: Sequence[tuple[str, Any]],
    trials: int,
    rng: Any,
    chunk_size: Any,
    executor: Any,
    progress: bool | None,
    checkpoint: str | os.PathLike | None,
    stop: Stop | None,
    finish: Callable[[Any, int, bool], Estimate],
    events: Callable[[Any], int | None],
    extra_header: dict[str, Any] | None = None,
    max_seconds: float | None = None,
) -> Estimate:
    """Run ``task`` chunk by chunk; ``finish(summary, n, warn)`` makes the estimate.

    ``funcs`` are the (name, callable) pairs the chunks call (checked for
    pickling on executors, fingerprinted into checkpoints). ``events(summary)``
    is the count the ``events`` rule reads (None where it does not apply).
    ``max_seconds`` (checked by :func:`check_max_seconds`) ends the run at the first
    chunk boundary past that time; the result then says ``stopped_by="max_seconds"``,
    ``target_met=False``.
    """
    chunk_size = engine.check_chunk_size(chunk_size, trials)
    executor = engine.check_executor(executor)
    engine.check_plan(trials, chunk_size, executor, _BYTES_PER_OUTCOME[kind], stop is not None)
    path = _check_checkpoint(checkpoint, rng)
    ss = engine.seed_sequence(rng)
    engine.check_picklable(funcs, executor)
    plan = engine.Plan(trials, chunk_size, ss)
    ck = None
    if path is not None:
        ck = _open_checkpoint(path, kind, plan, funcs, extra_header)
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    run = _Accumulator(kind, plan, stop, finish, events, deadline)
    bar = engine.Progress(trials, progress, label=funcs[0][0])
    try:
        used = engine.run_chunks(
            task,
            plan,
            executor=executor,
            done=ck.done if ck is not None else {},
            record=ck.add if ck is not None else _ignore,
            accept=run.accept,
            progress=bar,
        )
    finally:
        bar.close()
        if ck is not None:
            ck.close()
    plan.consumed(used, shared=isinstance(rng, np.random.SeedSequence))
    return _result(run, trials, stop, max_seconds, finish, events)


def _check_checkpoint(checkpoint: str | os.PathLike | None, rng: Any) -> Path | None:
    """The checkpoint's checked path (None without one); a checkpoint needs a fixed seed."""
    if checkpoint is None:
        return None
    path = ckpt_mod.check_path(checkpoint)
    if rng is None:
        raise ValueError("checkpoint needs a fixed seed: pass rng=<int or SeedSequence>")
    return path


def _open_checkpoint(
    path: Path,
    kind: str,
    plan: engine.Plan,
    funcs: Sequence[tuple[str, Any]],
    extra_header: dict[str, Any] | None,
) -> ckpt_mod.Checkpoint:
    """The run's checkpoint, its header naming the run (kind, shape, seed, functions)."""
    header = {
        "kind": kind,
        "trials": plan.trials,
        "chunk_size": plan.chunk_size,
        "seed": engine.seed_key(plan.ss),
        **{name: ckpt_mod.fingerprint(f) for name, f in funcs},
        **(extra_header or {}),
    }
    return ckpt_mod.Checkpoint(path, header, kind, plan.n_chunks, plan.size)


class _Accumulator:
    """The chunk summaries merged in chunk order, and the rule that ends the run."""

    def __init__(
        self,
        kind: str,
        plan: engine.Plan,
        stop: Stop | None,
        finish: Callable[[Any, int, bool], Estimate],
        events: Callable[[Any], int | None],
        deadline: float | None,
    ):
        self.kind, self.plan, self.stop = kind, plan, stop
        self.finish, self.events, self.deadline = finish, events, deadline
        self.summary: Any = None
        self.n = 0
        self.stopped_by = "trials"

    def accept(self, i: int, s: Any) -> bool:
        """Merge chunk ``i``'s summary; True when a stop rule or the deadline ends the run."""
        cur = s if self.summary is None else _merge(self.kind, self.summary, s)
        self.summary = cur
        self.n += self.plan.size(i)
        if self.stop is not None:
            rule = rule_met(self.stop, self.finish(cur, self.n, False), self.events(cur))
            if rule is not None:
                self.stopped_by = rule
                return True
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped_by = "max_seconds"
            return True
        return False


def _result(
    run: _Accumulator,
    trials: int,
    stop: Stop | None,
    max_seconds: float | None,
    finish: Callable[[Any, int, bool], Estimate],
    events: Callable[[Any], int | None],
) -> Estimate:
    """The estimate, saying which rule ended the run; a warning where its target was missed."""
    est = finish(run.summary, run.n, True)
    if run.stopped_by == "max_seconds":
        warnings.warn(
            f"the run reached max_seconds={max_seconds:g} after {run.n:,} of "
            f"trials={trials:,} outcomes"
            + (f", before the stop rule ({stop.describe()}) was met" if stop else "")
            + "; the result says so (stopped_by='max_seconds', target_met=False)",
            PrecisionNotReachedWarning,
            stacklevel=4,  # _result, drive, the estimator, its caller
        )
        return replace(est, stopped_by="max_seconds", target_met=False)
    if stop is None:
        return est
    met = run.stopped_by != "trials"
    if not met:
        warnings.warn(
            f"the trial budget trials={trials:,} was spent before the stop rule "
            f"({stop.describe()}) was met: relative half-width {est.rel_half_width:.3g}"
            + (f", {events(run.summary)} events" if events(run.summary) is not None else "")
            + "; the result says so (target_met=False)",
            PrecisionNotReachedWarning,
            stacklevel=4,  # _result, drive, the estimator, its caller
        )
    return replace(est, stopped_by=run.stopped_by, target_met=met)


def check_max_seconds(max_seconds: Any) -> float | None:
    """``max_seconds`` as a float > 0 (infinity allowed), or None: refused by name."""
    if max_seconds is None:
        return None
    return check_real(max_seconds, "max_seconds", low=0.0, low_open=True, finite=False)


def _ignore(i: int, s: Any) -> None:
    return None


def _merge(kind: str, a: Any, b: Any) -> Any:
    if kind == "probability":
        return a + b
    return a.merge(b)
