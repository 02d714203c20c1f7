"""The local engine's shared memory: the parameters written once, each result in its slot.

One block of :mod:`multiprocessing.shared_memory` per run of
:class:`~gctheory.cluster.LocalEngine`, made by the master when it first sends
a task whose parameters are a 1-D float64 array (every code but the
sequential ones, whose tasks carry several parameter vectors and go through
the pipe). It holds:

* a ring of :data:`PARAM_SLOTS` parameter vectors, each behind a version
  number: the master writes iteration ``t``'s parameters once, whatever the
  number of worker processes, and a group copies them out when it takes the
  task (a version changed under the copy means the master has sent a newer
  task since, which supersedes this one);
* a table of each coded worker's latest task (its number, ``t``, the
  parameters' version, the injected delay, preempt), each entry behind its
  number as above;
* :data:`RESULT_SLOTS` message slots per coded worker, each with a head (``t``,
  compute and slept seconds, length, when written), and two counters per
  worker: the results a group has written (written by the group only) and
  those the master has taken (by the master only), so a group never
  overwrites a slot not yet read (a result finding both slots unread travels
  through the pipe instead, as an ``.npy`` byte string: still no pickle).

The bells are two eventfds (Linux): after writing tasks the master writes the
first once, which wakes every group (each waits on it edge-triggered in its
epoll); a group that wrote results writes the second, on which the master
waits with the process sentinels and pipes. Without eventfd a one-byte message
on each pipe rings instead. Whatever is not a float64 vector (the sequential
codes' tasks, odd messages, oracle errors) goes through the pipes.

The master unlinks the block in :meth:`Board.unlink` (the engine's
``close``, on every exit path of a run); the groups only map it. Python's
resource tracker unlinks it should the master die without closing.
"""

from __future__ import annotations

import io
import struct
import time
import tokenize
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from gctheory.cluster.base import Event
from gctheory.cluster.worker import OracleError

__all__ = ["Board", "PARAM_SLOTS", "RESULT_SLOTS", "RECORD", "BOARD", "unpack_records",
           "record_events", "npy_bytes", "from_npy"]  # fmt: skip

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

#: the message naming the shared block to a group: b"B", its n and d, then its name
BOARD = struct.Struct("<qq")


class Board:
    """The shared block of one run (see the module docstring): ``n`` workers, ``d`` numbers.

    ``Board(n, d)`` makes it (the master); ``Board(n, d, name=...)`` maps it (a group).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.cluster.shm import Board
    >>> b = Board(2, 3)
    >>> b.task(1, t=0, params=np.arange(3.0), delay=0.5, preempt=True)
    >>> g = Board(2, 3, name=b.name)
    >>> t, w, delay, preempt = g.read_task(1, g.task_no[1])
    >>> t, w.tolist(), delay, preempt
    (0, [0.0, 1.0, 2.0], 0.5, True)
    >>> g.close(); b.unlink()
    """

    def __init__(self, n: int, d: int, name: str | None = None) -> None:
        self.n, self.d = n, d = int(n), int(d)
        # float64 words: parameter ring (version + d each); tasks (5 per worker: number,
        # t, parameter version, delay, preempt); results (RESULT_SLOTS x (4 + d) per worker:
        # t, compute s, slept s, length, when written, message); produced and consumed
        sizes = (PARAM_SLOTS * (1 + d), 5 * n, n * RESULT_SLOTS * (5 + d), n, n)
        if name is None:
            self.shm = shared_memory.SharedMemory(create=True, size=8 * sum(sizes))
        else:
            self.shm = shared_memory.SharedMemory(name=name)
        self.name = self.shm.name
        whole = np.ndarray(sum(sizes), dtype=np.float64, buffer=self.shm.buf)
        cut = np.cumsum((0, *sizes))
        part = [whole[cut[k] : cut[k + 1]] for k in range(len(sizes))]
        self.params = part[0].reshape(PARAM_SLOTS, 1 + d)
        self.versions = self.params[:, 0].view(np.int64)
        tasks = part[1].reshape(5, n)
        self.task_no = tasks[0].view(np.int64)  # the worker's latest task (-1: being written)
        self.task_t, self.task_ver = tasks[1].view(np.int64), tasks[2].view(np.int64)
        self.task_delay, self.task_preempt = tasks[3], tasks[4].view(np.int64)
        res = part[2].reshape(n, RESULT_SLOTS, 5 + d)
        self.res_head, self.results = res[:, :, :5], res[:, :, 5:]
        self.produced, self.consumed = part[3].view(np.int64), part[4].view(np.int64)
        self.version = self.tasks_sent = 0
        self._last: tuple[Any, int] = (None, 0)  # the parameters last put, their version
        self._owner = name is None

    # ------------------------------------------------------------------ the master
    def put(self, params: np.ndarray) -> int:
        """Write ``params`` in the next parameter slot; their version."""
        if self._last[0] is params:
            return self._last[1]
        self.version += 1
        slot = self.version % PARAM_SLOTS
        self.versions[slot] = -1  # being written
        self.params[slot, 1:] = params
        self.versions[slot] = self.version
        self._last = (params, self.version)
        return self.version

    def task(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> None:
        """Worker ``worker``'s new task (its group sees it at its next look)."""
        self.tasks(np.array([worker]), t, params, np.array([delay], float), preempt)

    def tasks(self, workers: np.ndarray, t: int, params: np.ndarray, delays: np.ndarray,
              preempt: bool) -> None:  # fmt: skip
        """New tasks of iteration ``t`` for ``workers`` (distinct), their injected ``delays``:
        written column-wise, a few array writes whatever their number. Each worker's entry
        is marked being written (-1) before its fields change and gets its new number last."""
        version = self.put(params)
        first = self.tasks_sent + 1
        self.tasks_sent += len(workers)
        self.task_no[workers] = -1  # being written
        self.task_t[workers], self.task_ver[workers] = t, version
        self.task_delay[workers], self.task_preempt[workers] = delays, preempt
        self.task_no[workers] = np.arange(first, self.tasks_sent + 1)

    def has_results(self) -> bool:
        """Whether a result is in the slots, not yet taken."""
        return bool(self.new_results().size)

    def new_results(self) -> np.ndarray:
        """The workers with results not yet taken."""
        return (self.produced != self.consumed).nonzero()[0]

    def take(self, worker: int) -> list[tuple[float, int, float, float, np.ndarray]]:
        """``worker``'s results not yet taken, ``(written at, t, compute s, slept s, message
        copy)``, in the order written; their slots are free again."""
        out = []
        for c in range(int(self.consumed[worker]), int(self.produced[worker])):
            t, comp, slept, size, at = self.res_head[worker, c % RESULT_SLOTS].tolist()
            y = self.results[worker, c % RESULT_SLOTS, : int(size)].copy()
            out.append((at, int(t), comp, slept, y))
            self.consumed[worker] = c + 1
        return out

    # ------------------------------------------------------------------ a group
    def get(self, version: int) -> np.ndarray | None:
        """A copy of the parameters of ``version``, or None when a newer version replaced
        them (the master has sent a newer task since)."""
        slot = version % PARAM_SLOTS
        if self.versions[slot] != version:
            return None
        w = self.params[slot, 1:].copy()
        return w if self.versions[slot] == version else None

    def read_task(self, worker: int, number: int) -> tuple[int, np.ndarray | None, float, bool]:
        """Task ``number`` of ``worker``: ``(t, params, delay, preempt)``; params None when
        it was overwritten (a newer task is there)."""
        t, version = int(self.task_t[worker]), int(self.task_ver[worker])
        delay, preempt = float(self.task_delay[worker]), bool(self.task_preempt[worker])
        if self.task_no[worker] != number:
            return t, None, delay, preempt
        return t, self.get(version), delay, preempt

    def put_result(self, worker: int, t: int, y: np.ndarray, comp: float, slept: float) -> bool:
        """Write ``worker``'s message in its free slot; False when both are unread."""
        done = int(self.produced[worker])
        if done - int(self.consumed[worker]) >= RESULT_SLOTS:
            return False
        k = done % RESULT_SLOTS
        self.results[worker, k, : y.size] = y
        self.res_head[worker, k] = (t, comp, slept, y.size, time.perf_counter())
        self.produced[worker] = done + 1
        return True

    def close(self) -> None:
        """Unmap the block (every view of it must be gone)."""
        for key in ("params", "versions", "task_no", "task_t", "task_ver", "task_delay",
                    "task_preempt", "res_head", "results", "produced", "consumed"):  # fmt: skip
            setattr(self, key, None)
        self._last = (None, 0)
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


def record_events(data: bytes, now: float) -> list[Event]:
    """The events in one message of records from a group (results inline, oracle errors),
    each arrived at ``now``; the master's reading for every transport that carries them."""
    events = []
    for kind, i, t, comp, slept, a, _, tail in unpack_records(data):
        if kind == ERROR:
            err = OracleError(i, a, t, tail.decode("utf-8", "replace"))
            events.append(Event("error", i, t, now, error=err))
        else:
            y = from_npy(tail)
            events.append(Event("result", i, t, now, y, comp, slept, RECORD.size + len(tail)))
    return events


def npy_bytes(y: np.ndarray) -> bytes:
    """``y`` as ``.npy`` bytes (read back with ``np.load(..., allow_pickle=False)``)."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(y), allow_pickle=False)
    return buf.getvalue()


#: the start of :func:`npy_bytes`'s header for a 1-D float64 vector (then its length, ``,), }``)
_NPY_F8 = b"\x93NUMPY\x01\x00"
_NPY_F8_DICT = b"{'descr': '<f8', 'fortran_order': False, 'shape': ("


#: what ``np.load`` raises on bytes that are not an array (its header is parsed as Python
#: literal syntax, hence the tokenizer's and the parser's errors)
_NPY_ERRORS = (ValueError, EOFError, OSError, SyntaxError, struct.error, tokenize.TokenError)


def from_npy(data: bytes) -> np.ndarray:
    """The array of :func:`npy_bytes` (never unpickles). A 1-D float64 vector, every result
    of the Dask engine's grouped mode, is read without ``np.load``'s header parser (about 40
    us a result against 3); anything else through ``np.load``. Bytes that are not an array
    are a ValueError, whatever numpy's parser raised (it can raise a SyntaxError or a
    tokenizer error on a corrupt header)."""
    if data[:8] == _NPY_F8 and len(data) >= 10:
        start = 10 + int.from_bytes(data[8:10], "little")
        head = data[10:start]
        if head.startswith(_NPY_F8_DICT):
            digits, sep, _ = head[len(_NPY_F8_DICT) :].partition(b",), }")
            if sep and digits.isdigit() and len(data) - start == 8 * int(digits):
                return np.frombuffer(data, dtype="<f8", offset=start).copy()
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except _NPY_ERRORS as exc:  # numpy's header parser raises many kinds on corrupt bytes
        raise ValueError(f"not an .npy array ({type(exc).__name__}: {exc})") from None
