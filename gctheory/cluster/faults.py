"""The fault policy of a real run: dead workers and failing gradient oracles.

A dead worker is a permanent straggler from the iteration it died in (a
:class:`~gctheory.cluster.results.WorkerLostWarning`); a raising oracle either
stops the run (``on_error="stop"``: a :class:`ClusterError` naming worker and
partition) or makes its worker a straggler for that iteration
(``on_error="straggler"``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from gctheory.cluster.base import DEAD, ERROR
from gctheory.cluster.results import ClusterError, WorkerLostWarning

__all__ = ["FaultPolicy"]


class FaultPolicy:
    """Handles the ``dead`` and ``error`` events of iteration ``t`` into ``record``.

    ``fail(t)`` is the run so far (for the :class:`ClusterError` that stops it).
    """

    def __init__(self, on_error: str, record: Any, fail: Callable[[int], Any]) -> None:
        self.on_error, self.record, self.fail = on_error, record, fail

    def handle(self, ev: Any, t: int, erred: set[int]) -> None:
        """A ``dead`` or ``error`` event; ``erred`` gets iteration ``t``'s failed workers."""
        rec, i, et = self.record, ev.worker, ev.t
        if ev.kind == "dead":
            if i not in rec.dead:
                rec.dead[i] = t
                rec.status[t, i] = DEAD
                warnings.warn(
                    f"worker {i} is dead at iteration {t} ({ev.error}); it is a "
                    f"permanent straggler from now on",
                    WorkerLostWarning,
                    stacklevel=8,  # the caller of cluster.run
                )
            return
        if self.on_error == "stop":
            raise ClusterError(str(ev.error), self.fail(t)) from ev.error
        if et == t:
            erred.add(i)
        if 0 <= et <= t:
            rec.status[et, i] = ERROR
        warnings.warn(f"{ev.error}; treated as a straggler", WorkerLostWarning, stacklevel=8)
