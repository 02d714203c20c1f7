"""Checkpoints of a real run: resume after the master is killed, losing no finished iteration.

:func:`gctheory.cluster.run` with ``checkpoint=PATH`` writes, after every
``checkpoint_every`` finished iterations (and after the last), everything the
loop needs to go on: the parameters and their history, the iteration reached,
every per-iteration record (injected delays, responses, statuses, survivor
sets, timings, bytes, metrics), the delay generator's state (so the injected
delays of the resumed iterations are those an uninterrupted run would have
drawn) and the run's configuration. The file is written to a temporary name,
flushed to disk and renamed over the old one (``os.replace``), so a master
killed while writing leaves the previous checkpoint intact.

``run(..., checkpoint=PATH, resume=True)`` starts from it: fresh workers, the
loop at the checkpoint's iteration, the clock of the trace continuing where it
stopped (the time the master was down is not counted). The configuration must
be the checkpointed one (scheme, n, seed, step size, workload, delay...);
``iterations`` may grow. The file is a pickle: load only checkpoints you wrote.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

__all__ = ["save_checkpoint", "load_checkpoint", "FORMAT"]

#: format tag of the checkpoint files
FORMAT = "gctheory.cluster.checkpoint/1"

#: configuration keys that must match between a checkpoint and the run resuming it
_MUST_MATCH = ("scheme", "n", "s", "K", "m", "seed", "code_options", "workload", "step_size",
               "delay", "delay_options", "preempt")  # fmt: skip


def save_checkpoint(path: Any, state: dict[str, Any]) -> Path:
    """Write ``state`` (a dict of the run loop's records) atomically at ``path``."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "wb") as fh:
        pickle.dump({"format": FORMAT, **state}, fh, protocol=pickle.HIGHEST_PROTOCOL)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, p)
    return p


def load_checkpoint(path: Any, config: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The state saved at ``path``, or None when there is no file there.

    Raises
    ------
    ValueError
        When the file is not a checkpoint of :func:`gctheory.cluster.run`, or
        its configuration differs from ``config`` in a key that must match
        (naming the key and both values).
    """
    p = Path(path)
    if not p.is_file():
        return None
    try:
        with open(p, "rb") as fh:
            state = pickle.load(fh)
    except Exception as exc:  # a truncated or foreign file: say which
        raise ValueError(
            f"checkpoint {str(p)!r} cannot be read ({type(exc).__name__}: {exc})"
        ) from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(f"{str(p)!r} is not a checkpoint of gctheory.cluster.run ({FORMAT})")
    if config is not None:
        old = state["config"]
        for key in _MUST_MATCH:
            if old.get(key) != config.get(key):
                raise ValueError(
                    f"checkpoint {str(p)!r} was written by a run with {key}={old.get(key)!r}, "
                    f"but this run has {key}={config.get(key)!r}; resume with the same "
                    f"configuration (keys that must match: {', '.join(_MUST_MATCH)})"
                )
    return state
