"""The memory of a process tree, read from ``/proc`` (Linux): what the real-run engine's
benchmarks and tests report as a run's peak memory (the master and every worker process)."""

from __future__ import annotations

import os

__all__ = ["tree_rss"]


def tree_rss(pid: int) -> int:
    """Summed resident memory (bytes) of ``pid`` and its descendants, from ``/proc``
    (0 where ``/proc`` is missing: not Linux).

    Examples
    --------
    >>> import os
    >>> from gctheory._proc import tree_rss
    >>> tree_rss(os.getpid()) >= 0
    True
    """
    parent: dict[int, int] = {}
    if not os.path.isdir("/proc"):
        return 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", encoding="ascii", errors="replace") as fh:
                    parent[int(d)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    tree, grew = {pid}, True
    while grew:
        new = {p for p, pp in parent.items() if pp in tree and p not in tree}
        tree |= new
        grew = bool(new)
    total = 0
    for p in tree:
        try:
            with open(f"/proc/{p}/status", encoding="ascii", errors="replace") as fh:
                total += next(int(x.split()[1]) for x in fh if x.startswith("VmRSS:")) * 1024
        except (OSError, StopIteration, ValueError):
            pass
    return total
