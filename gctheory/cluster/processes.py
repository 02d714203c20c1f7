"""Starting worker processes: the multiprocessing context, and whether this machine allows it.

The local engine (:mod:`gctheory.cluster.engines`) starts its worker processes
through :func:`process_context`, which gives the ``forkserver`` start method its
preload (:data:`FORKSERVER_PRELOAD`) so that every worker forks with gctheory
imported once; :func:`can_start_processes` starts one process the same way and
waits for it to answer, so that figures and claims needing real runs can say why
they cannot run instead of failing.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

__all__ = ["FORKSERVER_PRELOAD", "process_context", "can_start_processes"]


def _idle(conn: Any) -> None:  # pragma: no cover - runs in the child
    conn.send_bytes(b"up")
    conn.close()


#: What the forkserver imports once, before it forks any worker: each worker then starts
#: with them loaded (importing them in every worker cost about 0.5 s of CPU each).
FORKSERVER_PRELOAD = ["gctheory.cluster.groups", "gctheory.training"]


def process_context(method: str | None) -> Any:
    """The multiprocessing context of ``method``; for ``forkserver``, with the preload set.

    The preload takes effect only when the forkserver starts, which happens once per
    process: every start of worker processes goes through here so that the first one,
    whichever it is, starts the server with the modules the workers need.
    """
    ctx = mp.get_context(method)
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(FORKSERVER_PRELOAD)
    return ctx


def can_start_processes(timeout: float = 60.0) -> tuple[bool, str]:
    """Whether this machine lets the local engine start a worker process: ``(ok, why not)``.

    Starts one process the way :class:`LocalEngine` does (``forkserver``)
    and waits for it to answer; a sandbox without process creation, pipes or
    semaphores gives ``(False, reason)``. Figures and claims that need real
    runs call this first and write nothing when it fails.
    """
    try:
        ctx = process_context("forkserver" if "forkserver" in mp.get_all_start_methods() else None)
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_idle, args=(child,), daemon=True)
        p.start()
        child.close()
        ok = parent.poll(timeout) and parent.recv_bytes() == b"up"
        p.join(timeout=5.0)
        parent.close()
    except (OSError, ImportError, RuntimeError, ValueError) as exc:
        return False, f"cannot start a worker process ({type(exc).__name__}: {exc})"
    if not ok:
        return False, f"a worker process did not answer within {timeout:g} s"
    return True, ""
