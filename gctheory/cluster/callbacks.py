"""What happens after each iteration of a real run, as callbacks of the loop.

Each is an object with ``on_iteration(event)`` (:class:`gctheory.loop.IterationEvent`),
run in the order given: :class:`MetricNotes` (the iterations whose metrics the
run reports: noted here, evaluated from the parameters after the run, so no
evaluation shares the machine with a timed iteration), :class:`Checkpointer`
(:mod:`gctheory.cluster.checkpoint`), :class:`UserCallback` (``on_iteration(t,
engine)`` of :func:`gctheory.cluster.run`) and :class:`ProgressCallback`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gctheory._progress import Progress

__all__ = ["MetricNotes", "Checkpointer", "UserCallback", "ProgressCallback"]


class MetricNotes:
    """Notes iteration ``done`` every ``every`` iterations and at the last (``every=0``: the
    last only), when the workload has metrics."""

    def __init__(self, record: Any, every: int, last: int, enabled: bool) -> None:
        self.record, self.every, self.last, self.enabled = record, every, last, enabled

    def note(self, done: int) -> None:
        if self.enabled:
            self.record.metric_its.append(done)

    def on_iteration(self, event: Any) -> None:
        k = event.done
        if self.every and k % self.every == 0 or k == self.last:
            self.note(k)


class Checkpointer:
    """Saves ``state(done)`` at ``path`` every ``every`` iterations and after the last."""

    def __init__(self, path: Any, every: int, last: int, state: Callable[[int], dict]) -> None:
        self.path, self.every, self.last, self.state = path, every, last, state

    def on_iteration(self, event: Any) -> None:
        from gctheory.cluster.checkpoint import save_checkpoint

        k = event.done
        if k % self.every == 0 or k == self.last:
            save_checkpoint(self.path, self.state(k))


class UserCallback:
    """The user's ``on_iteration(t, engine)``."""

    def __init__(self, fn: Callable[[int, Any], Any], engine: Any) -> None:
        self.fn, self.engine = fn, engine

    def on_iteration(self, event: Any) -> None:
        self.fn(event.t, self.engine)


class ProgressCallback:
    """The run's progress (:class:`~gctheory._progress.Progress`): a bar on a terminal, a
    line every 10 s off one, nothing with ``enabled=False``."""

    def __init__(self, total: int, enabled: bool | None, label: str) -> None:
        self.progress = Progress(total, label, enabled=enabled)

    def on_iteration(self, event: Any) -> None:
        self.progress.update(event.done)

    def close(self) -> None:
        self.progress.close()
