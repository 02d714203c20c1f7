"""The network itself: namespaces joined by rate-limited veth pairs (see the package notes)."""

from __future__ import annotations

import atexit
import ipaddress
import json
import os
import random
import secrets
import signal
import subprocess
import threading
import warnings
from typing import Any

from gctheory.cluster.network import system as _system
from gctheory.cluster.network.spec import MAX_HOSTS as _MAX_HOSTS
from gctheory.cluster.network.spec import NetworkSpec

__all__ = ["Network"]

#: a link's token bucket: its queue may hold this long a backlog before dropping
_TBF_LATENCY = "400ms"


def _tbf(rate_bps: float) -> list[str]:
    """``tbf`` arguments for ``rate_bps``: a bucket of ~1 ms of traffic, at least two packets.

    Where two packets are more than 1 ms of traffic (below ~24 Mbit/s) a peak rate a hair
    above the rate keeps that bucket from passing at line speed: a short message then
    takes its size over the rate, as a link model says (at 1 Mbit/s a 5 kB message took
    20 ms without it, 33 ms with it, 40 ms by the model before headers).
    """
    nominal = int(rate_bps / 8 * 1e-3)
    burst = max(nominal, 2 * 1514)
    args = ["tbf", "rate", f"{int(rate_bps)}bit", "burst", str(burst)]
    if burst > nominal:
        args += ["peakrate", f"{int(rate_bps * 1.001) + 1}bit", "mtu", "1514"]
    return [*args, "latency", _TBF_LATENCY]


class Network:
    """Namespaces joined by rate-limited veth pairs; a context manager that removes them.

    Parameters
    ----------
    spec : NetworkSpec or str
        The links.
    hosts : int
        Worker namespaces to make (``spec.hosts`` overrides it when set).
    clean_leftovers : bool
        Before building, remove what killed runs left (:func:`cleanup`) and say so
        with a :class:`LeftoversRemovedWarning` naming it.

    Attributes
    ----------
    prefix : str
        ``gct-<pid>-<token>``: the start of every namespace name.
    master_address : str
        The master's address (root namespace, on the uplink).
    host_addresses : list of str
        Each host's address.

    Examples
    --------
    >>> from gctheory.cluster.network import Network
    >>> with Network("bandwidth=10mbit", hosts=2) as net:  # doctest: +SKIP
    ...     print(net.namespaces)
    """

    def __init__(
        self, spec: NetworkSpec | str, hosts: int = 1, *, clean_leftovers: bool = True
    ) -> None:
        self.spec = NetworkSpec.parse(spec) if isinstance(spec, str) else spec
        if not isinstance(self.spec, NetworkSpec):
            raise ValueError(f"spec must be a NetworkSpec or a spec string, got {spec!r}")
        h = self.spec.hosts if self.spec.hosts is not None else int(hosts)
        if not 1 <= h <= _MAX_HOSTS:
            raise ValueError(f"hosts must be in 1..{_MAX_HOSTS}, got {h}")
        self.n_hosts = h
        self.clean_leftovers = bool(clean_leftovers)
        #: what :meth:`up` removed of killed runs
        self.removed: list[str] = []
        self.token = secrets.token_hex(3)
        self.prefix = f"gct-{os.getpid()}-{self.token}"
        self.master_ns = f"{self.prefix}-m"
        self.host_ns = [f"{self.prefix}-h{j}" for j in range(h)]
        self.uplink = f"gct{self.token}u"
        self.master_address = ""
        self.host_addresses: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self._made: list[str] = []
        self._up = False
        self._old_term: Any = None
        self._timers: list[threading.Timer] = []

    @property
    def namespaces(self) -> list[str]:
        return [self.master_ns, *self.host_ns]

    # ------------------------------------------------------------ lifecycle
    def __enter__(self) -> Network:
        self.up()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.down()

    def up(self) -> Network:
        """Make the namespaces, links and limits (undone if any step fails)."""
        ok, why = _system.network_available()
        if not ok:
            raise _system.NetworkUnavailable(f"cannot make the network: {why}")
        if self.clean_leftovers:
            self.removed = _system.cleanup()
            if self.removed:
                warnings.warn(
                    f"removed what killed runs left: {', '.join(self.removed)}",
                    _system.LeftoversRemovedWarning,
                    stacklevel=2,
                )
        atexit.register(self.down)
        if threading.current_thread() is threading.main_thread():
            self._old_term = signal.signal(signal.SIGTERM, self._on_term)
        try:
            self._build()
        except BaseException:
            self.down()
            raise
        self._up = True
        return self

    def _on_term(self, signum: int, frame: Any) -> None:
        self.down()
        raise SystemExit(128 + signum)

    def _build(self) -> None:
        run = _system._run
        net = _system._free_subnet(random.Random(secrets.randbits(32)))
        addrs = list(net.hosts())
        self.master_address = str(addrs[0])
        self.host_addresses = [str(addrs[1 + j]) for j in range(self.n_hosts)]
        m, plen = self.master_ns, net.prefixlen
        run("ip", "netns", "add", m)
        self._made.append(m)
        run("ip", "-n", m, "link", "set", "lo", "up")
        run("ip", "-n", m, "link", "add", "name", "br0", "type", "bridge")
        run("ip", "-n", m, "link", "set", "br0", "up")
        # the uplink: made in the master namespace, one end moved to the root namespace
        run("ip", "-n", m, "link", "add", "name", "up0", "type", "veth", "peer", "name",
             self.uplink, "netns", "1")  # fmt: skip
        run("ip", "link", "set", self.uplink, "alias", f"gctheory pid={os.getpid()}")
        run("ip", "-n", m, "link", "set", "up0", "master", "br0", "up")
        run("ip", "addr", "add", f"{self.master_address}/{plen}", "dev", self.uplink)
        run("ip", "link", "set", self.uplink, "up")
        bw = self.spec.bandwidth_bps
        if self.spec.shared:
            run("tc", "-n", m, "qdisc", "add", "dev", "up0", "root", *_tbf(bw))
            run("tc", "qdisc", "add", "dev", self.uplink, "root", *_tbf(bw))
        for j, ns in enumerate(self.host_ns):
            run("ip", "netns", "add", ns)
            self._made.append(ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", m, "link", "add", "name", f"p{j}", "type", "veth", "peer", "name",
                 "eth0", "netns", ns)  # fmt: skip
            run("ip", "-n", m, "link", "set", f"p{j}", "master", "br0", "up")
            run("ip", "-n", ns, "addr", "add", f"{self.host_addresses[j]}/{plen}", "dev", "eth0")
            run("ip", "-n", ns, "link", "set", "eth0", "up")
            if not self.spec.shared:
                run("tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root", *_tbf(bw))
                run("tc", "-n", m, "qdisc", "add", "dev", f"p{j}", "root", *_tbf(bw))

    def down(self) -> None:
        """Stop the processes started in the namespaces and remove everything made. Idempotent."""
        for timer in self._timers:
            timer.cancel()
        for p in self.procs:
            _system._stop(p)
        self.procs = []
        for ns in reversed(self._made):
            _system._delete_namespace(ns)
        self._made = []
        if any(link.get("ifname") == self.uplink for link in _system._safe_root_links()):
            _system._run("ip", "link", "del", self.uplink, check=False)
        self._up = False
        if self._old_term is not None:
            try:
                signal.signal(signal.SIGTERM, self._old_term)
            except ValueError:  # pragma: no cover - not the main thread
                pass
            self._old_term = None
        atexit.unregister(self.down)

    # ------------------------------------------------------------ use
    def popen(self, host: int, argv: list[str], **kwargs: Any) -> subprocess.Popen:
        """Start ``argv`` inside host ``host``'s namespace; it is stopped by :meth:`down`."""
        ip = _system._tool("ip") or "ip"
        p = subprocess.Popen(
            [ip, "netns", "exec", self.host_ns[host], *argv], start_new_session=True, **kwargs
        )
        self.procs.append(p)
        return p

    def host_of(self, address: str) -> int:
        """The host whose address appears in ``address`` (``"tcp://10.1.2.3:4567"``)."""
        ip = address.split("://")[-1].rsplit(":", 1)[0]
        try:
            return self.host_addresses.index(ip)
        except ValueError:
            raise ValueError(f"{address!r} is on none of this network's hosts") from None

    def set_link(self, host: int, up: bool) -> None:
        """Set host ``host``'s link (its bridge end) up or down."""
        _system._run("ip", "-n", self.master_ns, "link", "set", f"p{host}", "up" if up else "down")

    def link_down_for(self, host: int, seconds: float) -> None:
        """Set host ``host``'s link down now and up again after ``seconds`` (a timer)."""
        self.set_link(host, False)
        timer = threading.Timer(seconds, self._restore, args=(host,))
        timer.daemon = True
        self._timers.append(timer)
        timer.start()

    def _restore(self, host: int) -> None:
        if self._up:
            self.set_link(host, True)

    def counters(self) -> dict[str, int]:
        """Bytes through the uplink so far (``rx``: into the master; ``tx``: out of it)."""
        stats = json.loads(_system._run("ip", "-j", "-s", "link", "show", "dev", self.uplink))[0]
        return {"rx": int(stats["stats64"]["rx"]["bytes"]),
                "tx": int(stats["stats64"]["tx"]["bytes"])}  # fmt: skip

    def mpiexec(self, ranks: int, argv: list[str]) -> tuple[list[str], dict[str, str]]:
        """An ``mpiexec`` command (Open MPI) running ``argv`` on ``ranks`` ranks over this
        network, and its environment: rank 0 (the master) in the root namespace, rank
        ``i >= 1`` in host ``(i - 1) mod hosts``.

        The ranks talk TCP only over this network's addresses (``btl tcp,self``: shared
        memory between ranks would bypass the links), and the launcher's PMIx server
        accepts the namespaced ranks on the master's address.
        """
        sub = str(ipaddress.ip_interface(f"{self.master_address}/24").network)
        mpi = _system._tool("mpiexec") or "mpiexec"
        ip = _system._tool("ip") or "ip"
        cmd = [mpi, "--oversubscribe", "--mca", "btl", "tcp,self",
               "--mca", "btl_tcp_if_include", sub, "--mca", "oob_tcp_if_include", sub,
               "-n", "1", *argv]  # fmt: skip
        for i in range(1, ranks):
            cmd += [":", "-n", "1", ip, "netns", "exec", self.host_ns[(i - 1) % self.n_hosts]]
            cmd += argv
        env = dict(os.environ, PMIX_MCA_ptl_tcp_remote_connections="1",
                   PMIX_MCA_ptl_tcp_if_include=sub)  # fmt: skip
        if os.geteuid() == 0:  # Open MPI refuses root unless told
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        return cmd, env

    def describe(self) -> str:
        where = "the master's uplink (shared)" if self.spec.shared else "each host link"
        return (
            f"{self.n_hosts} host namespace(s) at {self.spec.bandwidth_bps / 1e6:g} Mbit/s on "
            f"{where}, latency {self.spec.latency_s * 1e3:g} ms (injected), prefix {self.prefix}"
        )
