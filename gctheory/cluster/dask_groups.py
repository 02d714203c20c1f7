"""The Dask engine's grouped mode: one long-lived task per Dask worker, hosting a group.

At large ``n`` one Dask task per coded worker per iteration costs the master
about 1.8 ms of CPU each (the client's bookkeeping, the scheduler's
transitions, a callback): about 1.8 s an iteration at ``n = 1024``. In grouped
mode (:class:`~gctheory.cluster.DaskEngine` with ``grouped=True``, the
default above :data:`GROUPED_ABOVE` coded workers) each Dask worker runs one
task for the whole run, the event loop of
:func:`gctheory.cluster.groups.group_main` (the local engine's, the same
code): it holds only its own coded workers' states, computes each one's
message in turn, holds each result until its injected delay has passed (a
heap of due times: a sleeping coded worker costs no CPU and no thread), and
sends each result as soon as it is due, so the master sees every coded
worker's own arrival time. A newer task cancels a pending result
(``preempt``) or waits behind it (carry-over), as on the local engine.

Transport: that task opens a TCP connection to a listener the master binds on
an address the operating system picks (port 0, on the interface that reaches
the scheduler: no fixed port), and both sides prove they hold a random key
(HMAC-SHA256 over fresh nonces, mutual, before any task crosses). Then the
wire format is the local engine's pipe format without its shared memory (no
block is named, no bell): the master sends ``b"P"`` and the tasks ``(t, params,
[(worker, delay), ...], preempt)`` of :mod:`gctheory.cluster.wire` (never a pickle)
once per group and iteration (``b"S"``: stop); the group answers with the records of
:mod:`gctheory.cluster.shm` (each result as ``.npy`` bytes, each oracle error
as text, never a pickle), read by :func:`gctheory.cluster.shm.record_events`.
Dask only places the tasks; their data never goes through the scheduler. A
lost Dask worker closes its connection: the master reports each coded worker
of its group dead, naming the Dask address.

The master's work per iteration is one message per group down and one parse
per result up: O(n) with the local engine's constant.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import select
import socket
import time
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from gctheory.cluster.base import Event
from gctheory.cluster.groups import group_main, read_ready
from gctheory.cluster.shm import record_events
from gctheory.cluster.wire import encode_value, task_message
from gctheory.cluster.worker import WorkerState

__all__ = ["DaskGroups", "GROUPED_ABOVE", "MAX_DASK_WORKERS", "group_task"]

#: Above this many coded workers the Dask engine runs grouped by default. One task per coded
#: worker needs nothing but the client's connection to the scheduler (any Dask deployment)
#: and gives each coded worker a thread of its own, but costs the master about 1.8 ms of CPU
#: per coded worker per iteration (``benchmarks/bench_cluster.py``): at n = 16 about 30 ms,
#: already the size of a short injected wait; beyond it the master would set the pace.
GROUPED_ABOVE = 16

#: Most coded workers the Dask engine accepts by default (``DaskEngine(max_workers=...)``
#: changes it): the grouped master does the local engine's work per coded worker (one
#: arrival to read and book per iteration, about 25 us of CPU on a 2-core machine), so the
#: local engine's limit and its reason (:data:`gctheory.cluster.engines.MAX_LOCAL_WORKERS`).
MAX_DASK_WORKERS = 2048

_HELLO = b"gctheory-group-1"
_NONCE = 32


def _mac(key: bytes, *parts: bytes) -> bytes:
    return hmac.new(key, b"|".join(parts), hashlib.sha256).digest()


def group_task(address: tuple[str, int], key: bytes, group: int, timeout: float) -> int:
    """A Dask task for the whole run: connect to the master, prove the key, then run the
    local engine's group loop (:func:`gctheory.cluster.groups.group_main`) until told to stop.

    Returns ``group`` when the loop ends (the master said stop, or went away).
    """
    sock = socket.create_connection((str(address[0]), int(address[1])), timeout=timeout)
    sock.setblocking(True)
    conn = Connection(sock.detach())
    try:
        nonce = os.urandom(_NONCE)
        conn.send_bytes(_HELLO + nonce)
        if not conn.poll(timeout):
            raise TimeoutError(f"the master at {address} did not answer within {timeout:g} s")
        reply = conn.recv_bytes(256)
        theirs, mac = reply[:_NONCE], reply[_NONCE:]
        if not hmac.compare_digest(mac, _mac(key, b"master", nonce)):
            raise ConnectionError(f"the listener at {address} does not hold the run's key")
        gid = str(group).encode()
        conn.send_bytes(_mac(key, b"group", theirs, gid) + gid)
        group_main(conn, group)  # the local engine's loop, from the states on
    finally:
        conn.close()
    return group


def _advertised_host(scheduler: str) -> str:
    """This machine's address on the route to ``scheduler`` (``tcp://host:port``): what the
    Dask workers, which reach the scheduler, should reach the master at (no packet is sent)."""
    proto, _, hostport = scheduler.rpartition("://")
    host = hostport.rsplit(":", 1)[0].strip("[]")
    if proto == "inproc" or host in ("", "localhost") or host.startswith("127."):
        return "127.0.0.1"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, 9))
            return str(s.getsockname()[0])
    except OSError:
        return "127.0.0.1"


class DaskGroups:
    """The master's side of grouped mode on a connected Dask client (see the module docstring).

    Parameters
    ----------
    client : distributed.Client
        A connected client; each of its workers present at :meth:`start` hosts one group.
    timeout : float
        Seconds for every group to connect, prove the key and load its states.
    """

    def __init__(self, client: Any, timeout: float) -> None:
        self.client, self.timeout = client, float(timeout)
        self.addrs: list[str] = []  # group -> Dask worker address
        self.pids: list[int] = []  # group -> process id
        self.group_of: list[int] = []  # coded worker -> group
        self.members: list[list[int]] = []
        self.conns: list[Any] = []
        self.futures: list[Any] = []
        self._dead: set[int] = set()
        self._gone: set[int] = set()
        self._pending_dead: list[int] = []
        self._out: list[list[tuple[int, int, Any, float, bool]]] = []
        self._down: tuple[int, int, int] = (-1, -1, 0)
        self._encoded: tuple[int, int, bytes] = (-1, -1, b"")
        self._poller: Any = None
        self._fds: dict[int, int] = {}  # fd -> group

    # ------------------------------------------------------------------ start
    def start(self, states: list[WorkerState], addrs: list[str]) -> None:
        """One group per Dask worker in ``addrs`` (at most ``n``); coded worker ``i`` in
        group ``i mod G``. Raises TimeoutError/RuntimeError naming what did not come up."""
        n = len(states)
        G = min(len(addrs), n)
        self.addrs = list(addrs[:G])
        self.group_of = [i % G for i in range(n)]
        self.members = [list(range(g, n, G)) for g in range(G)]
        self._out = [[] for _ in range(G)]
        key = os.urandom(32)
        host = _advertised_host(str(self.client.scheduler_info()["address"]))
        with socket.create_server((host, 0), backlog=G) as lsock:
            address = lsock.getsockname()[:2]
            self.futures = [
                self.client.submit(group_task, address, key, g, self.timeout, pure=False,
                                   workers=[a], allow_other_workers=False,
                                   key=f"gctheory-group-{g}-{key[:4].hex()}")
                for g, a in enumerate(self.addrs)
            ]  # fmt: skip
            conns = self._accept(lsock, key, G, address)
        self.conns = [conns[g] for g in range(G)]
        for g, conn in enumerate(self.conns):
            conn.send([states[i] for i in self.members[g]])
        self.pids = [0] * G
        deadline = time.monotonic() + self.timeout
        for g, conn in enumerate(self.conns):
            if not conn.poll(max(deadline - time.monotonic(), 0.0)):
                raise TimeoutError(
                    f"the group on Dask worker {self.addrs[g]} did not load its states within "
                    f"{self.timeout:g} s"
                )
            _, self.pids[g] = read_ready(conn.recv_bytes())
        if hasattr(select, "poll"):
            self._poller = select.poll()
            for g, conn in enumerate(self.conns):
                self._poller.register(conn.fileno(), select.POLLIN)
                self._fds[conn.fileno()] = g

    def _accept(self, lsock: Any, key: bytes, G: int, address: Any) -> dict[int, Any]:
        """Each group's authenticated connection, by group; a group task that failed (it
        could not reach ``address``) or a timeout is an error naming it."""
        conns: dict[int, Any] = {}
        deadline = time.monotonic() + self.timeout
        try:
            while len(conns) < G:
                left = deadline - time.monotonic()
                for g, f in enumerate(self.futures):
                    if f.status in ("error", "cancelled", "lost") and g not in conns:
                        raise RuntimeError(
                            f"the group task on Dask worker {self.addrs[g]} failed: "
                            f"{f.exception()!r} (it must reach the master at "
                            f"{address[0]}:{address[1]}; DaskEngine(grouped=False) needs only "
                            "the scheduler)"
                        )
                if left <= 0:
                    missing = [self.addrs[g] for g in range(G) if g not in conns]
                    raise TimeoutError(
                        f"{len(missing)} of {G} Dask workers did not connect to the master at "
                        f"{address[0]}:{address[1]} within {self.timeout:g} s: {missing}; "
                        "DaskEngine(grouped=False) needs only the scheduler"
                    )
                lsock.settimeout(min(left, 0.2))
                try:
                    sock, _ = lsock.accept()
                except TimeoutError:
                    continue
                got = self._handshake(sock, key, deadline)
                if got is not None and got[0] < G and got[0] not in conns:
                    conns[got[0]] = got[1]
                elif got is not None:
                    got[1].close()
        except BaseException:
            for c in conns.values():
                c.close()
            raise
        return conns

    @staticmethod
    def _handshake(sock: Any, key: bytes, deadline: float) -> tuple[int, Any] | None:
        """(group, connection) of a peer that proves the key; None (closed) otherwise."""
        sock.setblocking(True)
        conn = Connection(sock.detach())
        try:
            if not conn.poll(max(deadline - time.monotonic(), 0.0)):
                raise OSError("no hello")
            hello = conn.recv_bytes(256)
            if not hello.startswith(_HELLO) or len(hello) != len(_HELLO) + _NONCE:
                raise OSError("not a group")
            mine = os.urandom(_NONCE)
            conn.send_bytes(mine + _mac(key, b"master", hello[len(_HELLO) :]))
            if not conn.poll(max(deadline - time.monotonic(), 0.0)):
                raise OSError("no proof")
            proof = conn.recv_bytes(256)
            mac, gid = proof[:32], proof[32:]
            if not gid.isdigit() or not hmac.compare_digest(mac, _mac(key, b"group", mine, gid)):
                raise OSError("bad proof")
            return int(gid), conn
        except (OSError, EOFError):
            conn.close()
            return None

    # ------------------------------------------------------------------ rounds
    def submit(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> int:
        """Queue the task for its group (sent at the next :meth:`poll`, one message per group);
        return the bytes the task would take alone."""
        if worker in self._dead:
            return 0
        self._out[self.group_of[worker]].append((t, worker, params, float(delay), preempt))
        t_, id_, nb = self._down
        if t_ != t or id_ != id(params):
            pp = self._params_bytes(t, params)
            nb = len(task_message(t, pp, [(worker, float(delay))], preempt))
            self._down = (t, id(params), nb)
        return nb

    def _params_bytes(self, t: int, params: Any) -> bytes:
        t_, id_, pp = self._encoded
        if t_ != t or id_ != id(params):
            pp = encode_value(params)
            self._encoded = (t, id(params), pp)
        return pp

    def _send(self) -> None:
        for g, out in enumerate(self._out):
            if not out:
                continue
            self._out[g] = []
            if g in self._gone:
                continue
            batches: dict[tuple[int, int, bool], list] = {}
            for t, i, params, delay, preempt in out:
                batches.setdefault((t, id(params), bool(preempt)), [params]).append((i, delay))
            try:
                for (t, _, preempt), (params, *items) in batches.items():
                    pp = self._params_bytes(t, params)
                    self.conns[g].send_bytes(task_message(t, pp, items, preempt))
            except OSError:
                self._lose(g)

    def _lose(self, g: int) -> None:
        self._gone.add(g)
        fd = next((fd for fd, h in self._fds.items() if h == g), None)
        if fd is not None and self._poller is not None:
            self._poller.unregister(fd)
            del self._fds[fd]
        for i in self.members[g]:
            if i not in self._dead:
                self._dead.add(i)
                self._pending_dead.append(i)

    def poll(self, timeout: float | None) -> list[Event]:
        """Send what is queued, then what came back within ``timeout`` seconds."""
        self._send()
        events = self._dead_events(time.perf_counter())
        if events:
            return events
        live = [g for g in range(len(self.conns)) if g not in self._gone]
        if not live:
            time.sleep(timeout or 0)
            return events
        ready = self._ready(live, timeout)
        now = time.perf_counter()
        for g in ready:
            try:
                events.extend(self._events(self.conns[g].recv_bytes(), now))
            except (EOFError, OSError):
                self._lose(g)
        return events + self._dead_events(now)

    def _ready(self, live: list[int], timeout: float | None) -> list[int]:
        if self._poller is None:  # pragma: no cover - not POSIX
            from multiprocessing.connection import wait

            objs = {self.conns[g]: g for g in live}
            return [objs[c] for c in wait(list(objs), timeout)]
        ms = None if timeout is None else max(math.ceil(timeout * 1e3), 0)
        return [self._fds[fd] for fd, _ in self._poller.poll(ms) if fd in self._fds]

    @staticmethod
    def _events(data: bytes, now: float) -> list[Event]:
        """The events in one message of a group (the local engine's records)."""
        return record_events(data, now)

    def _dead_events(self, now: float) -> list[Event]:
        pend, self._pending_dead = self._pending_dead, []
        return [Event("dead", i, -1, now, error=self._why_dead(i)) for i in pend]

    def _why_dead(self, i: int) -> str:
        g = self.group_of[i]
        why = f"Dask worker {self.addrs[g]} lost: the connection of its group (process "
        why += f"{self.pids[g]}) closed"
        f = self.futures[g] if g < len(self.futures) else None
        if f is not None and f.status == "error":
            try:
                why += f": {type(f.exception()).__name__}: {f.exception()}"
            except Exception:  # pragma: no cover - the future's worker is gone
                pass
        return why

    def where(self, worker: int) -> str:
        g = self.group_of[worker]
        pid = f", process {self.pids[g]}" if self.pids else ""
        return f"Dask worker {self.addrs[g]}{pid}"

    def close(self) -> None:
        """Tell every group to stop, close the connections, let the tasks end (cancelled
        after a short wait)."""
        for g, conn in enumerate(self.conns):
            if g not in self._gone:
                try:
                    conn.send_bytes(b"S")
                except OSError:
                    pass
        if self.futures:
            from distributed import wait

            try:
                wait(self.futures, timeout=5.0)
            except Exception:  # a lost worker's task, or the timeout: cancelled below
                pass
        for conn in self.conns:
            conn.close()
        for f in self.futures:
            f.cancel()
        self.conns, self.futures = [], []
        self._poller, self._fds = None, {}
