"""gctheory.cluster.network: the spec parser (anywhere) and real namespaces (as root).

The namespace tests skip, with the reason, where namespaces cannot be made (not
Linux, not root, no iproute2). Each bounds its traffic (at most ~1 MB a link) and
its time (subprocess timeouts), binds to port 0 inside the namespaces, and checks
that no namespace or link of its own is left, on success, on an exception, on
SIGINT/SIGTERM and after a SIGKILL (then through ``cleanup``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gctheory.cluster.network import (
    LeftoversRemovedWarning,
    Network,
    NetworkSpec,
    NetworkUnavailable,
    cleanup,
    network_available,
)
from gctheory.cluster.network import system as netmod

ROOT = str(Path(__file__).resolve().parents[1])
OK, WHY = network_available()
needs_netns = pytest.mark.skipif(not OK, reason=WHY or "namespaces available")


# ---------------------------------------------------------------------------
# the spec: no root needed


@pytest.mark.parametrize(
    "text, expected",
    [
        ("bandwidth=10mbit", NetworkSpec(10e6)),
        ("bandwidth=10mbit,latency=5ms", NetworkSpec(10e6, 0.005)),
        ("bandwidth=1.5gbit,shared", NetworkSpec(1.5e9, 0.0, True)),
        ("bandwidth=125kbps,latency=200us,hosts=3", NetworkSpec(1e6, 200e-6, False, 3)),
        (" Bandwidth = 2 Mbit , SHARED ", NetworkSpec(2e6, 0.0, True)),
    ],
)
def test_spec_parses(text, expected):
    spec = NetworkSpec.parse(text)
    assert spec.hosts == expected.hosts
    assert spec.bandwidth_bps == pytest.approx(expected.bandwidth_bps, rel=1e-12)
    assert spec.latency_s == pytest.approx(expected.latency_s, rel=1e-12)
    assert spec.shared is expected.shared
    assert NetworkSpec.parse(spec.label()) == spec  # the label reads back


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("bandwidth", "cannot read"),
        ("bandwidth=", "cannot read"),
        ("bandwidth=10", "unknown unit"),
        ("bandwidth=10furlongs", "valid units: bit, kbit, mbit"),
        ("bandwidth=ten mbit", "not a number"),
        ("bandwidth=0mbit", "positive rate"),
        ("bandwidth=-5mbit", "positive rate"),
        ("latency=5ms", "no bandwidth"),
        ("bandwidth=1mbit,jitter=2ms", "options: bandwidth=RATE, latency=TIME, shared"),
        ("bandwidth=1mbit,latency=-1ms", "latency"),
        ("bandwidth=1mbit,latency=5parsecs", "valid units: us, ms, s"),
        ("bandwidth=1mbit,hosts=0", "hosts"),
        ("bandwidth=1mbit,hosts=many", "hosts"),
        ("bandwidth=1mbit,bandwidth=2mbit", "given twice"),
        ("bandwidth=1mbit,shared=no", "cannot read"),
    ],
)
def test_bad_spec_is_a_named_value_error_before_any_namespace(text, words, monkeypatch):
    def no_system_call(*args, **kwargs):
        raise AssertionError(f"ran {args} for a bad spec")

    monkeypatch.setattr(netmod, "_run", no_system_call)
    with pytest.raises(ValueError, match=words):
        NetworkSpec.parse(text)
    with pytest.raises(ValueError, match=words):
        Network(text, hosts=2)
    pytest.importorskip("distributed")
    from gctheory.cluster.engines import DaskEngine

    with pytest.raises(ValueError, match=words):
        DaskEngine(network=text)


def test_spec_fields_are_checked():
    with pytest.raises(ValueError, match="bandwidth must be a positive rate"):
        NetworkSpec(0.0)
    with pytest.raises(ValueError, match="hosts must be an int"):
        NetworkSpec(1e6, hosts=65)


def test_network_needs_the_dask_engine():
    pytest.importorskip("distributed")
    from gctheory.cluster.engines import DaskEngine, make_engine

    with pytest.raises(ValueError, match="the 'dask' engine"):
        make_engine("local", network="bandwidth=1mbit")
    with pytest.raises(ValueError, match="neither address nor client"):
        DaskEngine("tcp://127.0.0.1:1", network="bandwidth=1mbit")


def test_missing_privilege_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(netmod, "_has_net_admin", lambda: False)
    monkeypatch.setattr(netmod.sys, "platform", "linux")
    monkeypatch.setattr(netmod, "_tool", lambda name: f"/usr/sbin/{name}")
    ok, why = network_available()
    assert not ok and "root or CAP_NET_ADMIN" in why
    with pytest.raises(NetworkUnavailable, match="root or CAP_NET_ADMIN"):
        Network("bandwidth=1mbit").up()
    with pytest.raises(NetworkUnavailable, match="root or CAP_NET_ADMIN"):
        cleanup()


def test_missing_tools_and_platform_are_named(monkeypatch):
    monkeypatch.setattr(netmod.sys, "platform", "linux")
    monkeypatch.setattr(netmod, "_tool", lambda name: None if name == "tc" else "/x/ip")
    assert network_available() == (False, "the tc command(s) (iproute2) are not installed")
    monkeypatch.setattr(netmod.sys, "platform", "darwin")
    assert "need Linux" in network_available()[1]


def test_the_subnet_avoids_every_route_and_address(monkeypatch):
    import ipaddress
    import random

    routes = ["10.0.0.0/9 dev eth0 proto kernel", "blackhole 10.128.0.0/10",
              "local 10.192.0.1 dev lo table local proto kernel scope host",
              "default via 192.0.2.1 dev eth0"]  # fmt: skip
    addrs = [{"addr_info": [{"local": "10.224.3.4", "prefixlen": 11}]}]

    def fake(*args, check=True):
        return "\n".join(routes) if "route" in args else json.dumps(addrs)

    monkeypatch.setattr(netmod, "_run", fake)
    free = ipaddress.ip_network("10.192.0.0/11")
    for seed in range(20):
        net = netmod._free_subnet(random.Random(seed))
        assert net.subnet_of(free) and ipaddress.ip_address("10.192.0.1") not in net
    routes.append("10.192.0.0/11 dev eth1")  # now every 10.x.y.0/24 it draws is taken
    with pytest.raises(RuntimeError, match="no free 10.x.y.0/24"):
        netmod._free_subnet(random.Random(0))


# ---------------------------------------------------------------------------
# real namespaces (root)


def _listing() -> tuple[list[str], list[dict]]:
    """``ip netns`` and the root namespace's ``ip link``."""
    links = json.loads(subprocess.run(["ip", "-j", "link", "show"], capture_output=True,
                                      text=True, check=True).stdout)  # fmt: skip
    return netmod._namespaces(), links


def _made_by(pid: int) -> set[str]:
    """The namespaces and root links that process ``pid``'s networks own. Other runs' (a
    parallel test worker's) are not looked at, so the check holds under ``pytest -n``."""
    names, links = _listing()
    out = {f"ns {n}" for n in names if n.startswith(f"gct-{pid}-")}
    return out | {f"link {x['ifname']}" for x in links
                  if netmod._UPLINK_RE.match(x["ifname"])
                  and x.get("ifalias") == f"gctheory pid={pid}"}  # fmt: skip


def _mine(prefix: str, token: str) -> set[str]:
    """What the network with this prefix and token left."""
    names, links = _listing()
    out = {f"ns {n}" for n in names if n.startswith(prefix + "-")}
    return out | {f"link {x['ifname']}" for x in links if x["ifname"] == f"gct{token}u"}


_SERVER = r"""
import socket, sys
mode, host, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(); s.bind((host, 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept(); c.settimeout(60)
if mode == "send":
    buf = b"x" * 65536
    while nbytes > 0:
        nbytes -= c.send(buf[: min(nbytes, len(buf))])
    c.shutdown(socket.SHUT_WR); c.recv(1)
else:
    got = 0
    while got < nbytes:
        got += len(c.recv(1 << 20))
    c.sendall(b"k")
c.close()
"""


def _transfer(net: Network, host: int, nbytes: int, up: bool) -> float:
    """Seconds to move ``nbytes`` between the master and ``host`` (``up``: host -> master)."""
    p = net.popen(host, [sys.executable, "-c", _SERVER, "send" if up else "recv",
                         net.host_addresses[host], str(nbytes)],
                  stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert p.stdout is not None
    port = int(p.stdout.readline())
    with socket.create_connection((net.host_addresses[host], port), timeout=60) as s:
        s.settimeout(60)
        t0 = time.perf_counter()
        if up:
            got = 0
            while True:
                b = s.recv(1 << 20)
                if not b:
                    break
                got += len(b)
            s.sendall(b"k")
            assert got == nbytes
        else:
            s.sendall(b"y" * nbytes)
            assert s.recv(1) == b"k"
        dt = time.perf_counter() - t0
    p.wait(timeout=60)
    p.stdout.close()
    return dt


def _reap(p: subprocess.Popen) -> None:
    """Wait for a child and close its pipes."""
    p.wait(timeout=60)
    for f in (p.stdout, p.stderr):
        if f is not None:
            f.close()


@needs_netns
@pytest.mark.parametrize("up", [True, False], ids=["to-master", "from-master"])
def test_link_rate_is_the_tbf_rate(up):
    """A transfer's rate sits in a band under the token bucket's rate (TCP/IP headers
    take ~3%; the bucket's one-millisecond burst lets it exceed the rate by a hair).
    The upper edge fails without the limit (a bare veth moves Gbit/s)."""
    rate, nbytes = 8e6, 600_000
    with Network(f"bandwidth={rate:g}bit", hosts=2, clean_leftovers=False) as net:
        c0 = net.counters()
        dt = _transfer(net, 1, nbytes, up)
        c1 = net.counters()
    measured = nbytes * 8 / dt
    assert 0.5 * rate < measured < 1.02 * rate, (measured, rate)
    wire = c1["rx" if up else "tx"] - c0["rx" if up else "tx"]
    assert nbytes <= wire <= 1.1 * nbytes  # payload plus headers, on the uplink
    assert _made_by(os.getpid()) == set()


@needs_netns
def test_shared_link_is_one_bottleneck():
    """With ``shared`` two hosts sending at once split one rate: together they take at
    least the time of all their bytes at that rate (unshared, each would have its own)."""
    rate, nbytes = 8e6, 300_000
    times: list[float] = []
    with Network(f"bandwidth={rate:g}bit,shared", hosts=2, clean_leftovers=False) as net:
        t0 = time.perf_counter()
        threads = [threading.Thread(target=lambda h=h: times.append(_transfer(net, h, nbytes,
                                                                               True)))
                   for h in range(2)]  # fmt: skip
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
        total = time.perf_counter() - t0
    assert len(times) == 2
    assert 2 * nbytes * 8 / total < 1.05 * rate
    assert _made_by(os.getpid()) == set()


@needs_netns
def test_teardown_on_an_exception():
    with pytest.raises(RuntimeError, match="boom"):
        with Network("bandwidth=5mbit", hosts=3, clean_leftovers=False) as net:
            prefix, token = net.prefix, net.token
            assert len(_mine(prefix, token)) == 5  # master, 3 hosts, the uplink
            raise RuntimeError("boom")
    assert _made_by(os.getpid()) == set()


#: A process that makes a network and waits. It imports gctheory.cluster.network alone (the
#: subpackage imports nothing else of gctheory.cluster): a bare package object stands in
#: for gctheory.cluster, whose __init__ imports the whole engine (about 1.1 s of CPU a child
#: instead of 0.1 s). Should the subpackage come to need more, its import fails here, loudly.
_CHILD = """
import sys, time, types
import gctheory
_pkg = types.ModuleType("gctheory.cluster")
_pkg.__path__ = [gctheory.__path__[0] + "/cluster"]
sys.modules["gctheory.cluster"] = _pkg
from gctheory.cluster.network import Network
net = Network("bandwidth=5mbit", hosts=2, clean_leftovers=False)
if sys.argv[1] == "with":
    with net:
        print(net.prefix, net.token, flush=True)
        time.sleep(120)
else:
    net.up()
    print(net.prefix, net.token, flush=True)
    time.sleep(120)
"""


def _child(mode: str) -> tuple[subprocess.Popen, str, str]:
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    p = subprocess.Popen([sys.executable, "-c", _CHILD, mode], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    assert p.stdout is not None
    line = p.stdout.readline().split()
    assert len(line) == 2, p.stderr.read() if p.stderr else line
    return p, line[0], line[1]


@needs_netns
@pytest.mark.parametrize(
    "mode, sig", [("with", signal.SIGINT), ("plain", signal.SIGINT), ("plain", signal.SIGTERM)]
)
def test_teardown_on_a_signal(mode, sig):
    """SIGINT unwinds the ``with`` (or runs the atexit hook); SIGTERM's handler tears down."""
    p, prefix, token = _child(mode)
    try:
        assert len(_mine(prefix, token)) == 4
        p.send_signal(sig)
        _reap(p)
    finally:
        if p.poll() is None:  # pragma: no cover - only if the signal did not end it
            p.kill()
            _reap(p)
            cleanup()
    assert _mine(prefix, token) == set()


def _killed() -> tuple[str, str]:
    """A child that made a network and was killed with SIGKILL: its prefix and token."""
    p, prefix, token = _child("plain")
    p.kill()  # nothing of the child runs: its network stays
    _reap(p)
    assert len(_mine(prefix, token)) == 4  # the master, two hosts, the uplink
    return prefix, token


@needs_netns
def test_a_killed_runs_leftovers_are_removed_and_said(capsys):
    """By ``cleanup()`` (never a live run's), by the next run (a warning naming them) and
    by ``gctheory run --cleanup`` (printed). One test: the three would race in parallel
    (the only test that cleans up globally; the others do not clean before building)."""
    prefix, token = _killed()
    with Network("bandwidth=5mbit", hosts=1, clean_leftovers=False) as live:
        removed = cleanup()
        assert f"namespace {prefix}-m" in removed and f"namespace {prefix}-h1" in removed
        assert all(live.prefix not in r for r in removed)  # a live run is not touched
        assert live.master_ns in netmod._namespaces()
    assert _mine(prefix, token) == set()

    prefix, token = _killed()
    with pytest.warns(LeftoversRemovedWarning, match=f"namespace {prefix}-m"):
        with Network("bandwidth=5mbit", hosts=1) as net:
            assert f"namespace {prefix}-m" in net.removed
    assert _mine(prefix, token) == set()

    prefix, token = _killed()
    from gctheory.cli import main  # in this process (the killed run was another one)

    capsys.readouterr()
    assert main(["run", "--cleanup"]) == 0
    out = capsys.readouterr().out
    assert f"removed namespace {prefix}-m" in out
    assert "leftover(s) of killed runs" in out
    assert _mine(prefix, token) == set()
    assert _made_by(os.getpid()) == set()


@pytest.fixture
def no_global_cleanup(monkeypatch):
    """A network built here does not clean other runs' leftovers (a parallel test's)."""
    monkeypatch.setattr(netmod, "cleanup", lambda: [])


# ---------------------------------------------------------------------------
# the Dask engine over the network (slow: a dask worker process per host)


def _net_run(n: int, s: int, iterations: int, on_iteration, timeout: float = 60.0):
    pytest.importorskip("distributed")
    from gctheory.cluster import run
    from gctheory.cluster.engines import DaskEngine

    eng = DaskEngine(network=f"bandwidth=20mbit,latency=2ms,hosts={n}")
    hook = (lambda t, e: on_iteration(t, eng)) if on_iteration else None
    return eng, lambda: run("cyclic_mds", n, s, engine=eng, iterations=iterations,
                            progress=False, timeout=timeout, on_iteration=hook, rng=1)  # fmt: skip


@needs_netns
@pytest.mark.slow
def test_dask_over_the_network_with_a_link_down_for_a_while(no_global_cleanup):
    """Cyclic MDS with s = 1: one host's link down from iteration 3 to 5 makes its worker
    a straggler (the run goes on without it); the transfer times and bytes are measured."""
    from gctheory.cluster.base import DEAD, LATE, NEVER

    host: list[int] = []

    def fault(t, eng):
        if t == 2:
            host.append(eng.net.host_of(eng.where(0).split()[-1]))
            eng.net.set_link(host[0], False)
        if t == 5:
            eng.net.set_link(host[0], True)

    eng, go = _net_run(4, 1, 8, fault)
    r = go()
    rep = eng.network_report()
    assert len(host) == 1
    assert all(0 not in S for S in r.survivors[3:6])  # a straggler while its link was down
    assert set(r.status[3:6, 0]) <= {NEVER, LATE}
    assert not set(r.status[:2, 0]) & {NEVER, DEAD}  # it answered before
    assert rep["transfers"] >= 3 * 8 and rep["comm_s_mean"] > 0.002  # the injected latency
    assert rep["bytes_to_master"] >= r.bytes_up.sum()
    assert _made_by(os.getpid()) == set()


@needs_netns
@pytest.mark.slow
def test_dask_links_down_beyond_s_is_a_named_error(no_global_cleanup):
    from gctheory.cluster.results import ClusterError

    def fault(t, eng):
        if t == 1:
            for w in (0, 1):
                eng.net.link_down_for(eng.net.host_of(eng.where(w).split()[-1]), 60.0)

    eng, go = _net_run(4, 1, 6, fault, timeout=3.0)
    with pytest.raises(ClusterError, match=r"no answer within timeout=3 s from workers \[0, 1"):
        go()
    assert _made_by(os.getpid()) == set()


@needs_netns
def test_link_down_for_a_while_comes_back():
    """``link_down_for`` sets the bridge end down and a timer sets it up again."""

    def state(net: Network) -> str:
        argv = ["ip", "-j", "-n", net.master_ns, "link", "show", "p0"]
        out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=30).stdout
        return "UP" if "UP" in json.loads(out)[0]["flags"] else "DOWN"

    with Network("bandwidth=5mbit", hosts=1, clean_leftovers=False) as net:
        assert state(net) == "UP"
        net.link_down_for(0, 0.2)
        assert state(net) == "DOWN"
        net._timers[-1].join(timeout=30)  # the timer has run
        assert state(net) == "UP"
        with pytest.raises(ValueError, match="none of this network's hosts"):
            net.host_of("tcp://192.0.2.77:1234")
        assert net.host_of(f"tcp://{net.host_addresses[0]}:4567") == 0
    assert _made_by(os.getpid()) == set()


def test_cli_refuses_a_bad_network_spec(capsys):
    from gctheory.cli import main  # in this process: the refusal comes before any run

    assert main(["run", "--scheme", "cyclic-mds", "--network", "bandwidth=0mbit"]) == 2
    assert "--network: bandwidth='0mbit' must be a positive rate" in capsys.readouterr().err
    argv = ["run", "--scheme", "cyclic-mds", "--engine", "dask=tcp://127.0.0.1:1", "--network",
            "bandwidth=1mbit"]  # fmt: skip
    assert main(argv) != 0
    assert "--network runs on the dask or mpi engine" in capsys.readouterr().err


@needs_netns
def test_a_dask_worker_that_cannot_start_is_named_and_everything_comes_down(
    monkeypatch, no_global_cleanup
):
    pytest.importorskip("distributed")
    from gctheory.cluster.engines import DaskEngine

    real = Network.popen

    def failing(self, host, argv, **kwargs):
        argv = [sys.executable, "-c", "import sys; sys.stderr.write('no such worker'); exit(3)"]
        return real(self, host, argv, **kwargs)

    monkeypatch.setattr(Network, "popen", failing)
    eng = DaskEngine(network="bandwidth=5mbit,hosts=2")
    with pytest.raises(RuntimeError, match=r"dask worker in gct-\d+-[0-9a-f]+-h\d exited "
                                           r"\(code 3\):\nno such worker"):  # fmt: skip
        eng.start([])
    assert eng.net is None
    assert _made_by(os.getpid()) == set()


@needs_netns
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_gctheory_run_network_interrupted_leaves_nothing(sig):
    """``gctheory run --network`` stopped by a signal mid-run: the dask workers, the
    namespaces and the uplink are gone (the run's pid owned them)."""
    pytest.importorskip("distributed")
    env = dict(os.environ, PYTHONPATH=ROOT)
    argv = [sys.executable, "-m", "gctheory", "run", "--scheme", "cyclic-mds", "--n", "2",
            "--s", "1", "--iterations", "100000", "--delay", "constant(0.01)", "--quiet",
            "--network", "bandwidth=10mbit"]  # fmt: skip
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while not any(x.startswith("ns") for x in _made_by(p.pid)):  # the network is up
            assert p.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        time.sleep(8)  # workers joining, iterations running
        assert p.poll() is None
        p.send_signal(sig)
        p.wait(timeout=120)
    finally:
        if p.poll() is None:  # pragma: no cover - only if the signal did not end it
            p.kill()
            p.wait(timeout=30)
            cleanup()
        _reap(p)
    assert _made_by(p.pid) == set()


@needs_netns
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="mpiexec not found (Open MPI absent)")
def test_mpi_ranks_over_the_network():
    """``--engine mpi --network``: rank 0 here, ranks 1..n in the host namespaces (TCP
    only), the run's summary printed by rank 0, the network gone afterwards."""
    pytest.importorskip("mpi4py")
    env = dict(os.environ, PYTHONPATH=ROOT)
    argv = [sys.executable, "-m", "gctheory", "run", "--engine", "mpi", "--scheme",
            "cyclic-mds", "--n", "2", "--s", "1", "--iterations", "10", "--quiet",
            "--format", "json", "--network", "bandwidth=5mbit"]  # fmt: skip
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)  # fmt: skip
    try:
        out, err = p.communicate(timeout=400)
    finally:
        if p.poll() is None:  # pragma: no cover - a hung launch
            p.kill()
            p.communicate(timeout=30)
            cleanup()
    assert p.returncode == 0, err[-2000:]
    row = json.loads(out)["rows"][0]
    assert row["engine"] == "mpi (2 worker ranks)" and row["iterations"] == 10
    assert "bytes to the master" in err
    assert _made_by(p.pid) == set()
