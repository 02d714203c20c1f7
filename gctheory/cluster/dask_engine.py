"""The Dask engine: coded workers on a local or a given Dask cluster, one task each or grouped.

Split from :mod:`gctheory.cluster.engines` (which re-exports :class:`DaskEngine`
and builds it in :func:`~gctheory.cluster.engines.make_engine`). Two modes:

* one task per coded worker per iteration (small ``n``, and every network run):
  a task ships the worker's state once, sends the parameters and the injected
  delay, and its result (or its failure) comes back through the future's
  status; a rate-limited network of namespaces (:mod:`gctheory.cluster.network`)
  runs the Dask workers inside it;
* grouped (above :data:`~gctheory.cluster.dask_groups.GROUPED_ABOVE` coded
  workers): one task for the whole run per Dask worker, hosting a group of
  coded workers in the local engine's event loop, answering over a connection
  of its own (:mod:`gctheory.cluster.dask_groups`).
"""

from __future__ import annotations

import pickle
import queue
import time
from typing import Any

import numpy as np

from gctheory.cluster.base import Engine, Event
from gctheory.cluster.dask_groups import GROUPED_ABOVE, MAX_DASK_WORKERS, DaskGroups
from gctheory.cluster.groups import default_processes
from gctheory.cluster.worker import OracleError, WorkerState

__all__ = ["DaskEngine"]

# ---------------------------------------------------------------------------
# Dask


def _dask_task(
    state: WorkerState, t: int, params: np.ndarray, delay: float, latency: float = 0.0
) -> tuple:
    """One worker's iteration on a Dask worker: the message, then the injected wait.

    An oracle error is raised (the future's status says so without moving
    data: the master learns of a late task's failure without gathering it).
    ``latency`` (a network's one-way latency, injected here: see
    :mod:`gctheory.cluster.network`) is slept before the work and before the
    answer. The last entry is when the message left, before that trip
    (``time.perf_counter``: the machine's monotonic clock, the same in every
    process and namespace).
    """
    if latency > 0:
        time.sleep(latency)
    t0 = time.perf_counter()
    y = state.message(params, t)  # OracleError propagates: the future errs
    comp = time.perf_counter() - t0
    t1 = time.perf_counter()
    if delay > 0:
        time.sleep(delay)
    sent = time.perf_counter()
    if latency > 0:  # the trip up
        time.sleep(latency)
    return ("result", t, y, comp, sent - t1, sent)


#: Dask settings of the engine's own LocalCluster when grouped: its scheduler and nannies run
#: in the master's process, and their periodic work (the event loop's 20 ms tick, work
#: stealing every 100 ms, system and memory monitors; the workers' profiler every 10 ms)
#: cost the master about 5% of a core when idle, 0.6% with these (tasks are pinned: nothing
#: to steal; a group's task runs the whole run: nothing to profile)
_QUIET = {
    "distributed.admin.tick.interval": "1s",
    "distributed.scheduler.work-stealing": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "2s",
    "distributed.worker.profile.enabled": False,
}


class DaskEngine(Engine):
    """Workers on a Dask distributed cluster: a task each, or grouped; data shipped once.

    Parameters
    ----------
    address : str or None
        A scheduler address (``"tcp://host:8786"``); None starts a
        ``LocalCluster``: one task per coded worker, threads
        (``processes=False``, one thread per coded worker: the injected waits
        sleep concurrently); grouped, worker processes (as many as the local engine
        starts: :func:`~gctheory.cluster.groups.default_processes`).
    client : dask.distributed.Client, optional
        An existing client (then ``address`` is ignored and the client is not closed).
    timeout : float
        Seconds to reach the scheduler; an unreachable one is a ``TimeoutError``
        naming the address.
    processes : bool, optional
        For the LocalCluster: worker processes instead of threads (default:
        threads for one task per coded worker, processes when grouped).
    n_workers : int, optional
        For the LocalCluster: Dask workers to start (default one, with a
        thread per gradient-coding worker; ``n_workers=n`` gives each
        gradient-coding worker its own Dask worker, so closing one loses one;
        grouped: ``min(n, 4 x cores)``, each hosting one group).
    grouped : bool, optional
        One long-lived task per Dask worker hosting a group of coded workers
        (:mod:`gctheory.cluster.dask_groups`) instead of one task per coded
        worker per iteration. Default: grouped when ``n >``
        :data:`~gctheory.cluster.dask_groups.GROUPED_ABOVE` (one task each
        costs the master about 1.8 ms of CPU per coded worker per iteration)
        and there is no ``network``. Grouped, the Dask workers must reach the
        master (on a port the operating system picks); one task each needs
        only the scheduler.
    max_workers : int, optional
        Most coded workers accepted (default
        :data:`~gctheory.cluster.dask_groups.MAX_DASK_WORKERS`); a larger ``n``
        is refused before any work.
    network : NetworkSpec or str, optional
        Run over a rate-limited network on this machine (Linux, root; see
        :mod:`gctheory.cluster.network`): the scheduler and the master in the
        root namespace, one ``dask worker`` process per host namespace
        (``hosts``: the spec's, else ``min(n, 8)``), each host's link limited to
        the spec's bandwidth. ``address`` and ``client`` must then be None.

    Notes
    -----
    Worker ``i``'s state is scattered to the Dask worker ``i mod W`` (``W``
    the Dask workers present at start) and its tasks are pinned there
    (``workers=[address]``, ``allow_other_workers=False``): the data moves
    once. When that Dask worker is closed or lost, its scattered states are
    lost with it: the engine reports each gradient-coding worker it held as
    dead (naming the Dask address), and the master goes on without them.

    One task per coded worker: a task already running cannot be interrupted: a
    late worker's sleep runs out, its result is recorded as late and dropped
    (``preempt`` has no effect). Grouped: a group's coded workers follow the
    local engine's rules (:mod:`gctheory.cluster.groups`): with ``preempt`` a
    newer task cancels a pending result; without, the late result is sent and
    the newer task started after it (carry-over). A lost Dask worker loses its
    whole group.

    Examples
    --------
    >>> from gctheory.cluster import DaskEngine
    >>> engine = DaskEngine(n_workers=2)  # a LocalCluster starts only in run()
    >>> from gctheory.cluster import run
    >>> result = run("frc", 4, 1, engine=engine, iterations=20)  # doctest: +SKIP
    """

    name = "dask"

    def __init__(
        self,
        address: str | None = None,
        *,
        client: Any = None,
        timeout: float = 10.0,
        processes: bool | None = None,
        n_workers: int | None = None,
        network: Any = None,
        grouped: bool | None = None,
        max_workers: int | None = None,
    ) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError as exc:  # pragma: no cover - optional extra
            raise ImportError(
                'the dask engine needs dask.distributed: pip install "gctheory[dask]"'
            ) from exc
        for key, val in (("n_workers", n_workers), ("max_workers", max_workers)):
            if val is not None and (not isinstance(val, int) or isinstance(val, bool) or val < 1):
                raise ValueError(f"{key} must be a positive int or None, got {val!r}")
        for key, val in (("processes", processes), ("grouped", grouped)):
            if val is not None and not isinstance(val, bool):
                raise ValueError(f"{key} must be True, False or None, got {val!r}")
        self.network = _network_spec(network, address, client)
        if grouped and self.network is not None:
            raise ValueError(
                "grouped=True does not run over network= (the network's latency is injected "
                "and its transfers timed per task); use grouped=None or False with network="
            )
        self.address, self.timeout, self._processes = address, float(timeout), processes
        self.n_workers, self.grouped = n_workers, grouped
        self.max_workers = MAX_DASK_WORKERS if max_workers is None else max_workers
        self.net: Any = None  # the Network, while it is up
        #: (worker, iteration, seconds from the message leaving to the master holding it)
        self.transfers: list[tuple[int, int, float]] = []
        self._counters0: dict[str, int] = {}
        self._report: dict[str, Any] = {}
        self._where: list[str] = []
        self._dead: set[int] = set()
        self._client, self._own = client, client is None
        self._cluster: Any = None
        self._states: list[Any] = []
        self._q: queue.Queue = queue.Queue()
        self._futures: dict[tuple[int, int], Any] = {}
        self._latest = -1  # the newest iteration submitted: older results are late
        self._down: tuple[int, int, int] = (-1, -1, 0)  # (t, id(params), bytes) of the last
        self._per_slot = 1
        self._pool: Any = None  # the threads fetching messages as they are done (network)
        self._groups: DaskGroups | None = None  # grouped mode, once started
        self._grouped_as: tuple[int, int] | None = None  # (groups, coded workers), once started
        self._grouped_now = bool(grouped)  # this run's mode (``grouped`` resolved by n)

    @property
    def processes(self) -> bool:
        """Whether the LocalCluster runs worker processes (threads: False)."""
        return self._grouped_now if self._processes is None else self._processes

    def is_grouped(self, n: int) -> bool:
        """Whether ``n`` coded workers run grouped (see ``grouped``)."""
        if self.grouped is not None:
            return self.grouped
        return self.network is None and n > GROUPED_ABOVE

    def _connect(self, n: int) -> Any:
        from distributed import Client, LocalCluster

        if self._client is not None:
            return self._client
        if self.network is not None:
            self._client = self._connect_network(n)
        elif self.address is None:
            if (
                self._grouped_now
            ):  # a group per Dask worker (the local engine's count): one thread each
                nw, per = self.n_workers or default_processes(n), 1
            else:
                nw = self.n_workers or (1 if not self.processes else min(n, 2))
                per = -(-n // nw)
            import dask.config

            with dask.config.set(_QUIET if self._grouped_now else {}):
                self._cluster = LocalCluster(
                    n_workers=nw,
                    threads_per_worker=per,
                    processes=self.processes,
                    # no fixed port: LocalCluster's dashboard_address=None alone still binds
                    # the scheduler's HTTP server to 8787 (a user's own dashboard holds it)
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                )
                self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.address, timeout=self.timeout)
            except (OSError, TimeoutError) as exc:
                raise TimeoutError(
                    f"cannot reach the Dask scheduler at {self.address!r} within "
                    f"{self.timeout:g} s ({type(exc).__name__}: {exc}); start one with "
                    "`dask scheduler` and workers with `dask worker ADDRESS`"
                ) from None
        return self._client

    def start(self, states: list[WorkerState]) -> None:
        n = len(states)
        if self.max_workers is not None and n > self.max_workers:  # run() refused earlier
            raise ValueError(_too_many(n, self.max_workers))
        self._grouped_now = self.is_grouped(n)
        client = self._connect(n)
        addrs = sorted(client.scheduler_info()["workers"])
        if not addrs:
            raise TimeoutError(f"the Dask cluster {self.describe()} has no workers")
        if self._grouped_now:
            self._groups = DaskGroups(client, max(self.timeout, 120.0))
            try:
                self._groups.start(states, addrs)
            except BaseException:
                self.close()  # the run never started: nothing of it may outlive this call
                raise
            self._where = [self._groups.addrs[g] for g in self._groups.group_of]
            self._grouped_as = (len(self._groups.addrs), n)
            return
        self._where = [addrs[i % len(addrs)] for i in range(len(states))]
        info = client.scheduler_info()["workers"]
        self._per_slot = max(
            -(-self._where.count(a) // max(int(info[a].get("nthreads", 1)), 1)) for a in addrs
        )
        self._states = [
            client.scatter(st, workers=[a], hash=False) for st, a in zip(states, self._where)
        ]
        if self.net is not None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(len(states), thread_name_prefix="gct-fetch")
            self._counters0 = self.net.counters()

    def tasks_per_slot(self) -> int:
        return self._per_slot

    def submit(self, worker: int, t: int, params: np.ndarray, delay: float, preempt: bool) -> int:
        if self._groups is not None:
            return self._groups.submit(worker, t, params, delay, preempt)
        if worker in self._dead:
            return 0
        lat = self.network.latency_s if self.network is not None else 0.0
        fut = self._client.submit(
            _dask_task, self._states[worker], t, params, float(delay), lat, pure=False,
            workers=[self._where[worker]], allow_other_workers=False,
        )  # fmt: skip
        self._futures[(worker, t)] = fut
        self._latest = max(self._latest, t)
        q, pool = self._q, self._pool
        if pool is None:
            fut.add_done_callback(lambda f, i=worker, tt=t: q.put((i, tt, f, time.perf_counter())))
        else:  # over a network: each message fetched as soon as it is done, all in parallel
            fut.add_done_callback(lambda f, i=worker, tt=t: self._on_done(i, tt, f))
        # bytes sent: the same parameters go to every worker of an iteration; pickled once
        t_, id_, nb = self._down
        if t_ != t or id_ != id(params) or not isinstance(params, np.ndarray):
            nb = len(pickle.dumps((t, params, float(delay)), protocol=5))
            self._down = (t, id(params), nb)
        return nb

    def _on_done(self, i: int, t: int, fut: Any) -> None:
        at, pool = time.perf_counter(), self._pool
        if pool is not None:  # None, or shut down: the engine is closing, nothing to fetch
            try:
                pool.submit(self._prefetch, i, t, fut, at)
            except RuntimeError:
                pass

    def _prefetch(self, i: int, t: int, fut: Any, at: float) -> None:
        """Fetch a done task's message now (on a thread of its own), unless it is late:
        gathering in turn, one poll at a time, queued the messages of workers that finished
        together (a master-side queue no link has); the links carry them in parallel."""
        if fut.status != "finished" or t < self._latest:
            self._q.put((i, t, fut, at))
            return
        try:
            msg: Any = fut.result()
        except Exception as exc:  # a worker lost between done and the fetch
            msg = exc
        self._q.put((i, t, fut, at, msg, time.perf_counter()))

    def poll(self, timeout: float | None) -> list[Event]:
        """What came back: results of the newest iteration gathered in one round trip;
        a late task (an iteration the master has left) reported without moving its message;
        grouped: each coded worker's result as it came."""
        if self._groups is not None:
            return self._groups.poll(timeout)
        events: list[Event] = []
        try:
            item = self._q.get(timeout=timeout)
        except queue.Empty:
            return events
        items = [item]
        while True:
            try:
                items.append(self._q.get_nowait())
            except queue.Empty:
                break
        fetch, fetched = [], []
        for i, t, fut, at, *got in items:
            self._futures.pop((i, t), None)
            if got:  # prefetched (over a network)
                fetched.append(((i, t, fut, at), got[0], got[1]))
                continue
            status = fut.status
            if status == "finished":
                if t < self._latest:  # late: the master needs when, not what
                    events.append(Event("result", i, t, at))
                else:
                    fetch.append((i, t, fut, at))
                continue
            exc: BaseException | None = None
            try:
                exc = fut.exception() if status == "error" else None
            except Exception as err:  # a lost worker, a killed task
                exc = err
            if isinstance(exc, OracleError):
                events.append(Event("error", i, t, at, error=exc))
            elif i not in self._dead:
                self._dead.add(i)
                why = f"Dask worker {self._where[i]} lost: {type(exc).__name__}: {exc}"
                if exc is None:
                    why = f"Dask worker {self._where[i]} lost: its task was {status}"
                events.append(Event("dead", i, t, at, error=why))
        for (i, t, fut, at), msg, got in fetched:
            events.extend(self._result_events([(i, t, fut, at)], [msg], got))
        if fetch:
            try:
                msgs = self._client.gather([f for _, _, f, _ in fetch], errors="skip")
            except Exception:  # pragma: no cover - a worker lost between done and gather
                msgs = None
            if msgs is None or len(msgs) != len(fetch):  # one by one: which one failed
                msgs = []
                for _, _, fut, _ in fetch:
                    try:
                        msgs.append(fut.result())
                    except Exception as exc:
                        msgs.append(exc)
            events.extend(self._result_events(fetch, msgs, time.perf_counter()))
        return events

    def _result_events(self, fetch: list, msgs: list, got: float) -> list[Event]:
        """The events of gathered messages (a failed one: its worker dead)."""
        events = []
        for (i, t, _, at), msg in zip(fetch, msgs):
            if isinstance(msg, BaseException):
                if i not in self._dead:
                    self._dead.add(i)
                    why = f"Dask worker {self._where[i]} lost: {type(msg).__name__}: {msg}"
                    events.append(Event("dead", i, t, at, error=why))
                continue
            _, tt, y, comp, slept, sent = msg
            if self.net is not None:  # the message reached the master when gathered
                at = got
                self.transfers.append((i, tt, got - sent))
            events.append(Event("result", i, tt, at, y, comp, slept, y.nbytes, sent_at=sent))
        return events

    def close(self) -> None:
        if self._client is None:
            if self.net is not None:  # failed while starting
                self.net.down()
                self.net = None
            return
        if self._groups is not None:
            self._groups.close()
            self._groups = None
        for f in list(self._futures.values()):
            f.cancel()
        self._futures.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        try:
            if self._own:
                self._client.close()
                if self._cluster is not None:
                    self._cluster.close()
        finally:
            self._client = self._cluster = None
            if self.net is not None:
                try:
                    self._report = self.network_report()
                finally:
                    self.net.down()
                    self.net = None

    def describe(self) -> str:
        if self.network is not None:
            return f"dask (network {self.network.label()})"
        where = self.address or "LocalCluster"
        if self._grouped_as is not None:
            G, n = self._grouped_as
            return f"dask ({where}, {G} groups hosting {n} coded workers)"
        return f"dask ({where})"

    def where(self, worker: int) -> str:
        if self._groups is not None:
            return self._groups.where(worker)
        return f"Dask worker {self._where[worker]}" if self._where else f"worker {worker}"

    def _connect_network(self, n: int) -> Any:
        """A scheduler on the master's address; a ``dask worker`` in each host namespace."""
        from gctheory.cluster.network.dask import start_dask

        self.net, self._cluster, client = start_dask(self.network, n, max(self.timeout, 120.0))
        return client

    def network_report(self) -> dict[str, Any]:
        """What the network carried since the states were scattered: uplink bytes (``rx``:
        into the master, ``tx``: out of it) and the measured transfer times (seconds)."""
        if self.net is None:
            return dict(self._report)  # kept when the network came down
        now = self.net.counters()
        comm = [c for _, _, c in self.transfers]
        return {
            "network": self.network.label(),
            "hosts": self.net.n_hosts,
            "bytes_to_master": now["rx"] - self._counters0.get("rx", now["rx"]),
            "bytes_from_master": now["tx"] - self._counters0.get("tx", now["tx"]),
            "transfers": len(comm),
            "comm_s_mean": float(np.mean(comm)) if comm else None,
            "comm_s_median": float(np.median(comm)) if comm else None,
        }


def _network_spec(network: Any, address: Any, client: Any) -> Any:
    """``network`` as a :class:`~gctheory.cluster.network.NetworkSpec` (None stays None)."""
    if network is None:
        return None
    from gctheory.cluster.network.dask import as_spec

    return as_spec(network, address, client)


def _too_many(n: int, limit: int) -> str:
    return (
        f"n={n} coded workers but the dask engine runs at most max_workers={limit} (the "
        f"master's per-iteration work grows with n); use n <= {limit} or "
        "DaskEngine(max_workers=...)"
    )
