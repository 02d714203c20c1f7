"""The local engine's shared memory: the parameters written once, each result in its slot.

One block of :mod:`multiprocessing.shared_memory` per run of
:class:`~gctheory.cluster.LocalEngine`, made by the master when it first sends
a task whose parameters are a 1-D float64 array (every code but the
sequential ones, whose tasks carry several parameter vectors and go through
the pipe). It holds:

* a ring of :data:`PARAM_SLOTS` parameter vectors, each behind a version
  number: the master writes iteration ``t``'s parameters once, whatever the
  number of worker processes, and a group copies them out when the task
  arrives (a version changed under the copy means the master has sent a newer
  task since, which supersedes this one);
* :data:`RESULT_SLOTS` message slots per coded worker: a group writes a
  worker's message there and sends the master only a fixed-size record (the
  iteration, the worker, its timings) through its pipe;
* one counter per coded worker, written by the master only: the results of
  that worker it has read, so a group never overwrites a slot not yet read (a
  result finding both slots unread travels through the pipe instead, as an
  ``.npy`` byte string: still no pickle).

The master unlinks the block in :meth:`Board.unlink` (the engine's
``close``, on every exit path of a run); the groups only map it. Python's
resource tracker unlinks it should the master die without closing.
"""

from __future__ import annotations

import io
import struct
from multiprocessing import shared_memory
from typing import Any

import numpy as np

__all__ = ["Board", "PARAM_SLOTS", "RESULT_SLOTS", "RECORD", "TASK", "unpack_records",
           "npy_bytes", "from_npy"]  # fmt: skip

#: parameter vectors kept at once (a group copies its task's within this many iterations)
PARAM_SLOTS = 8
#: message slots per coded worker
RESULT_SLOTS = 2

#: a group's record of one answer: kind, worker, iteration, compute s, slept s, a, b
#: (kind 1, a result in its slot: a = numbers, b = the slot; kind 2, a result that follows
#: as ``.npy`` bytes: b = their length; kind 3, an oracle error: a = the partition, b = the
#: length of the UTF-8 detail that follows)
RECORD = struct.Struct("<Biqddii")
IN_SLOT, INLINE, ERROR = 1, 2, 3

#: a task message's head: b"T", iteration, parameter slot, version, preempt, the board's n
#: and d, the length of its name (which follows, then the tasks' workers as int32 and their
#: injected delays as float64, in the machine's byte order: one machine)
TASK = struct.Struct("<cqiqBIII")


class Board:
    """The shared block of one run (see the module docstring): ``n`` workers, ``d`` numbers.

    ``Board(n, d)`` makes it (the master); ``Board(n, d, name=...)`` maps it (a group).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.cluster.shm import Board
    >>> b = Board(2, 3)
    >>> slot, version = b.put(np.arange(3.0))
    >>> g = Board(2, 3, name=b.name)
    >>> g.get(slot, version).tolist()
    [0.0, 1.0, 2.0]
    >>> g.close(); b.unlink()
    """

    def __init__(self, n: int, d: int, name: str | None = None) -> None:
        self.n, self.d = int(n), int(d)
        size = 8 * (PARAM_SLOTS * (1 + self.d) + self.n * RESULT_SLOTS * self.d + self.n)
        if name is None:
            self.shm = shared_memory.SharedMemory(create=True, size=size)
        else:
            self.shm = shared_memory.SharedMemory(name=name)
        self.name = self.shm.name
        whole = np.ndarray(size // 8, dtype=np.float64, buffer=self.shm.buf)
        p_end = PARAM_SLOTS * (1 + self.d)
        self.params = whole[:p_end].reshape(PARAM_SLOTS, 1 + self.d)
        self.versions = self.params[:, 0].view(np.int64)
        r_end = p_end + self.n * RESULT_SLOTS * self.d
        self.results = whole[p_end:r_end].reshape(self.n, RESULT_SLOTS, self.d)
        self.consumed = whole[r_end:].view(np.int64)
        self.version = 0
        self._owner = name is None

    # ------------------------------------------------------------------ the master
    def put(self, params: np.ndarray) -> tuple[int, int]:
        """Write ``params`` in the next parameter slot: ``(slot, version)``."""
        self.version += 1
        slot = self.version % PARAM_SLOTS
        self.versions[slot] = -1  # being written
        self.params[slot, 1:] = params
        self.versions[slot] = self.version
        return slot, self.version

    def take(self, worker: int, slot: int, size: int) -> np.ndarray:
        """A copy of ``worker``'s message in ``slot``; the slot is free again."""
        y = self.results[worker, slot, :size].copy()
        self.consumed[worker] += 1
        return y

    # ------------------------------------------------------------------ a group
    def get(self, slot: int, version: int) -> np.ndarray | None:
        """A copy of the parameters of ``version``, or None when a newer version replaced
        them (the master has sent a newer task since)."""
        if self.versions[slot] != version:
            return None
        w = self.params[slot, 1:].copy()
        return w if self.versions[slot] == version else None

    def close(self) -> None:
        """Unmap the block (every view of it must be gone)."""
        self.params = self.versions = self.results = self.consumed = None  # type: ignore[assignment]
        try:
            self.shm.close()
        except BufferError:  # pragma: no cover - a view still held: the process ends soon
            pass

    def unlink(self) -> None:
        """Unmap and remove the block (the master, once its workers are told to stop)."""
        self.close()
        if self._owner:
            try:
                self.shm.unlink()
            except FileNotFoundError:  # pragma: no cover - removed already
                pass
            self._owner = False


def unpack_records(data: bytes) -> list[tuple[Any, ...]]:
    """The records in one message: ``(kind, worker, t, compute, slept, a, b, tail)``."""
    out, pos, size, end = [], 0, RECORD.size, len(data)
    unpack = RECORD.unpack_from
    while pos < end:
        kind, i, t, comp, slept, a, b = unpack(data, pos)
        pos += size
        tail = b""
        if kind != IN_SLOT:
            tail, pos = data[pos : pos + b], pos + b
        out.append((kind, i, t, comp, slept, a, b, tail))
    return out


def npy_bytes(y: np.ndarray) -> bytes:
    """``y`` as ``.npy`` bytes (read back with ``np.load(..., allow_pickle=False)``)."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(y), allow_pickle=False)
    return buf.getvalue()


def from_npy(data: bytes) -> np.ndarray:
    """The array of :func:`npy_bytes` (never unpickles)."""
    return np.load(io.BytesIO(data), allow_pickle=False)
