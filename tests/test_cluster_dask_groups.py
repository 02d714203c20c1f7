"""The Dask engine's grouped mode (gctheory.cluster.dask_groups): one long-lived task per Dask
worker hosting a group of coded workers, measured against the prediction, carry-over, an
oracle error, a lost group, the refusal of too many workers, the key of its connection, and
no process left."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
import warnings
from multiprocessing.connection import Connection

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")

from gctheory import cluster as cl  # noqa: E402
from gctheory.cluster.compare import compare  # noqa: E402
from gctheory.cluster.dask_groups import (  # noqa: E402
    GROUPED_ABOVE,
    MAX_DASK_WORKERS,
    DaskGroups,
    group_task,
)
from gctheory.cluster.groups import read_ready  # noqa: E402
from tests._oracles import FlakyOracle  # noqa: E402


def _descendants() -> set[int]:
    """Live descendants of this process (from /proc), zombies and multiprocessing's resource
    tracker (started once, kept for the interpreter's life) excluded."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", encoding="ascii", errors="replace") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parent[int(d)] = int(fields[1])
    tree, grew = {os.getpid()}, True
    while grew:
        new = {p for p, pp in parent.items() if pp in tree and p not in tree}
        tree |= new
        grew = bool(new)
    return {p for p in tree - {os.getpid()} if not _is_tracker(p)}


def _is_tracker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"multiprocessing.resource_tracker" in fh.read()
    except OSError:
        return False


def _grouped(n_workers: int = 2, **kw) -> cl.DaskEngine:
    return cl.DaskEngine(grouped=True, n_workers=n_workers, **kw)


@pytest.fixture(scope="module")
def shared():
    """A client of one LocalCluster of two worker processes (one thread each, the settings
    the grouped engine gives its own), shared by the grouped runs that neither look at the
    process tree nor need a cluster of their own: each would otherwise start one (about 3 s
    of CPU). ``DaskEngine(client=...)`` runs two groups on it and leaves it up."""
    import dask.config
    from distributed import Client, LocalCluster

    from gctheory.cluster.dask_engine import _QUIET

    with dask.config.set(_QUIET):
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,  # and no fixed port for the scheduler's HTTP server
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        )
    with cluster, Client(cluster) as client:
        yield client


def _on(client) -> cl.DaskEngine:
    """The grouped engine on the shared cluster: two groups."""
    return cl.DaskEngine(grouped=True, client=client)


def test_default_mode_by_n_and_network():
    eng = cl.DaskEngine()
    assert not eng.is_grouped(GROUPED_ABOVE) and eng.is_grouped(GROUPED_ABOVE + 1)
    assert cl.DaskEngine(grouped=False).is_grouped(10 * GROUPED_ABOVE) is False
    assert cl.DaskEngine(grouped=True).is_grouped(2)
    assert eng.max_workers == MAX_DASK_WORKERS
    with pytest.raises(ValueError, match="grouped=True does not run over network="):
        cl.DaskEngine(grouped=True, network="bandwidth=10mbit")
    with pytest.raises(ValueError, match="grouped must be True, False or None"):
        cl.DaskEngine(grouped="yes")
    with pytest.raises(ValueError, match="max_workers must be a positive int"):
        cl.DaskEngine(max_workers=0)


def test_grouped_run_inside_prediction_each_arrival_its_own():
    """A sleep-dominated law on 2 groups of 4: the measured mean inside the prediction, a
    wrong law rejected (negative control); each coded worker's arrival is its own (a group
    does not batch its answers to its end); the steps are the full gradient; no process is
    left behind."""
    before = _descendants()
    r = cl.run("cyclic_mds", 8, s=2, engine=_grouped(), delay="shifted_exp(0.02, 0.02)",
               iterations=30, rng=5, eval_every=0)  # fmt: skip
    assert "2 groups hosting 8 coded workers" in r.engine
    assert r.config["tasks_per_slot"] == 1
    c = compare(r, level=0.999)
    assert c.method == "gctheory.runtime (exact)"
    assert c.agrees, c
    assert not compare(r, delay="shifted_exp(0.02, 0.04)", level=0.999).agrees
    # within a group (coded workers g, g + 2, ...) the answers spread as the injected waits
    # do; a group batching its answers to its end would send them at one time (spread 0)
    used = r.status == cl.STATUSES.index("used")
    spread = []
    for t in range(r.iterations):
        for g in (0, 1):
            mine = [i for i in range(g, 8, 2) if used[t, i]]
            if len(mine) >= 2:
                inj, resp = r.injected[t, mine], r.response[t, mine]
                spread.append(np.ptp(resp) / np.ptp(inj))
    assert np.median(spread) > 0.5, spread
    wl = cl.make_workload(r.config["workload"], r.k)
    for t in range(3):
        w = r.params_history[t]
        step = (w - r.params_history[t + 1]) / r.config["step_size"]
        np.testing.assert_allclose(step, wl.full_gradient(w), rtol=1e-7, atol=1e-12)
    assert _descendants() <= before  # the Dask workers and their nannies are gone


def test_grouped_carry_over_runs_the_late_task_first(shared):
    """preempt=False: a straggler finishes its old task (sent, recorded late) before the new
    one, so its next answer comes after the rest of its old wait."""
    r = cl.run("ignore", 6, s=1, engine=_on(shared), delay="constant(0.03)", n_slow=1,
               slowdown=4.0, iterations=8, rng=0, eval_every=0, preempt=False)  # fmt: skip
    assert r.iterations == 8 and r.config["preempt"] is False
    slow = np.argmax(r.injected, axis=1)
    late = r.status[np.arange(8), slow] == cl.STATUSES.index("late")
    assert late.sum() >= 3  # its old results still arrive (not cancelled)
    # preempted, the same straggler's results are cancelled: none arrives late
    p = cl.run("ignore", 6, s=1, engine=_on(shared), delay="constant(0.03)", n_slow=1,
               slowdown=4.0, iterations=8, rng=0, eval_every=0)  # fmt: skip
    slow = np.argmax(p.injected, axis=1)
    assert not (p.status[np.arange(8), slow] == cl.STATUSES.index("late")).any()


def test_grouped_oracle_error_comes_back_as_a_record_naming_worker_and_partition(shared):
    """An oracle error in a group travels as an error record (text, not a pickle) and is
    named as on the local engine; on_error="straggler" runs on without that worker."""
    with pytest.raises(cl.ClusterError, match="worker 3 failed on partition 3.*bad batch"):
        cl.run("gd", 4, workload=FlakyOracle(), engine=_on(shared), delay="constant(0)",
               iterations=2, step_size=0.1)  # fmt: skip
    with pytest.warns(cl.WorkerLostWarning, match="partition 3"):
        r = cl.run("ignore", 4, s=1, workload=FlakyOracle(), engine=_on(shared), iterations=3,
                   step_size=0.1, delay="constant(0.02)", on_error="straggler")  # fmt: skip
    assert all(3 not in S for S in r.survivors) and r.iterations == 3


class _NoStart(cl.DaskEngine):
    def start(self, states):  # pragma: no cover - must not be reached
        raise AssertionError("a Dask cluster was started")


class _Quad:
    """A workload of any size: f(w) = sum_j |w - j|^2 / 2 over k partitions."""

    dim = 2

    def __init__(self, k: int) -> None:
        self.k = k

    def initial_params(self):
        return np.zeros(2)

    def partial_gradient(self, params, partition):
        return params - partition


def test_too_many_workers_refused_before_any_work():
    # n = 4096: refused naming the default limit, before any Dask worker starts
    with pytest.raises(ValueError, match=f"dask engine provides {MAX_DASK_WORKERS}; use n <="):
        cl.run("gd", 4096, workload=_Quad(4096), engine=_NoStart(), iterations=1)
    with pytest.raises(ValueError, match="n=9 workers but the dask engine provides 8"):
        cl.run("gd", 9, engine=_NoStart(max_workers=8), iterations=1)
    rule = cl.Rule(cl.build_scheme("gd", 3))
    with pytest.raises(ValueError, match="dask engine runs at most max_workers=2"):
        cl.DaskEngine(max_workers=2).start(rule.states(cl.make_workload("logistic", 3)))


def _listen():
    srv = socket.create_server(("127.0.0.1", 0))
    return srv, srv.getsockname()[:2]


def test_the_connection_needs_the_key_both_ways():
    """A group does not unpickle from a listener without its key; the listener turns away a
    peer without a valid proof (or not speaking the protocol) before any pickle crosses."""
    srv, addr = _listen()
    errors: list[BaseException] = []

    def group(key: bytes) -> None:
        try:
            group_task(addr, key, 3, 5.0)
        except Exception as exc:  # recorded for the assertion
            errors.append(exc)

    def soon() -> float:
        return time.monotonic() + 5.0

    th = threading.Thread(target=group, args=(b"x" * 32,))
    th.start()
    assert DaskGroups._handshake(srv.accept()[0], b"k" * 32, soon()) is None
    th.join(10.0)
    assert len(errors) == 1 and "does not hold the run's key" in str(errors[0])
    # a peer that skips checking the master and sends a made-up proof
    for proof in (b"\0" * 33, None):
        peer = socket.create_connection(addr)
        conn = Connection(peer.detach())
        conn.send_bytes(b"gctheory-group-1" + b"n" * 32 if proof else b"GET / HTTP/1.1")
        if proof:
            threading.Timer(0.2, conn.send_bytes, args=(proof,)).start()
        assert DaskGroups._handshake(srv.accept()[0], b"k" * 32, soon()) is None
        conn.close()
    # the right key on both sides: the master learns the group's number, the loop runs
    th = threading.Thread(target=group, args=(b"k" * 32,))
    th.start()
    got = DaskGroups._handshake(srv.accept()[0], b"k" * 32, soon())
    assert got is not None and got[0] == 3
    got[1].send([])  # no coded workers
    assert read_ready(got[1].recv_bytes()) == (3, os.getpid())  # bytes, not a pickle
    got[1].send_bytes(b"S")
    th.join(10.0)
    got[1].close()
    srv.close()
    assert len(errors) == 1


@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_lost_dask_worker_loses_its_group_and_an_exact_code_goes_on(shared):
    """Cyclic MDS n = 4, s = 2 on the shared cluster's two groups: the Dask worker hosting
    group 1 (coded workers 1 and 3) killed; both are dead, the run goes on without them.
    Last of this module's users of the shared cluster: its nanny restarts the killed worker."""
    eng = _on(shared)

    def kill(t, engine):
        if t == 1:
            os.kill(engine._groups.pids[1], signal.SIGKILL)

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always", cl.WorkerLostWarning)
        r = cl.run("cyclic_mds", 4, s=2, engine=eng, delay="shifted_exp(0.01, 0.01)",
                   iterations=6, rng=0, on_iteration=kill, eval_every=0)  # fmt: skip
    assert r.iterations == 6 and sorted(r.dead) == [1, 3]
    assert any("Dask worker" in str(w.message) for w in got)
    assert all(not {1, 3} & set(S) for S in r.survivors[max(r.dead.values()) :])


@pytest.mark.slow
def test_n_1024_grouped_dask_within_ten_percent_under_4_gib():
    """The scale case: cyclic-MDS s = 4 on 1024 coded workers, shifted_exp(0.05, 0.01): the
    measured mean within 10% of the prediction, the whole process tree under 4 GiB."""
    from gctheory._proc import tree_rss

    peak, stop = [0], threading.Event()

    def watch() -> None:
        while not stop.wait(0.2):
            peak[0] = max(peak[0], tree_rss(os.getpid()))

    th = threading.Thread(target=watch)
    th.start()
    try:
        r = cl.run("cyclic_mds", 1024, s=4, engine="dask", delay="shifted_exp(0.05, 0.01)",
                   iterations=30, rng=0, eval_every=0, progress=False)  # fmt: skip
    finally:
        stop.set()
        th.join()
    assert "groups hosting 1024 coded workers" in r.engine
    c = compare(r, level=0.99)
    assert abs(c.measured / c.predicted - 1) < 0.10, c
    assert peak[0] < 4 * 2**30
