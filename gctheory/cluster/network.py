"""A real, rate-limited network on one Linux machine: network namespaces, veth pairs, ``tbf``.

``NetworkSpec.parse("bandwidth=10mbit,latency=5ms")`` describes the links;
:class:`Network` builds them (as root) and tears them down on every exit path.

Topology. One *master* namespace holds a bridge; the master's process (the
Dask scheduler and the client) stays in the root namespace and reaches the
bridge through one veth pair, the *uplink*. Each worker *host* is a namespace
of its own, joined to the bridge by a veth pair (``eth0`` in the host, ``p<j>``
on the bridge). With ``hosts`` below the number of workers, workers share a
host (and its link) in groups, which keeps the count of namespaces bounded.
Addresses come from a ``10.x.y.0/24`` that no route or address of the root
namespace overlaps.

Rate. Each host link is limited in both directions by a token bucket
(``tc qdisc ... tbf``) on the egress of each veth end. With ``shared`` the
limit sits on the uplink instead (both ends): one bottleneck that every
message to or from the master crosses, as a master's NIC would be.

Latency. The ``netem`` qdisc is not available in every kernel (it is not on
the machines this was built on), so the one-way latency is injected in the
engine's transport: a worker sleeps ``latency`` before computing (the
parameters' trip down) and again before handing back its message (the trip up).

Names. Everything a run creates carries its prefix ``gct-<pid>-<token>``
(namespaces) or ``gct<token>u`` (the uplink's root end, whose alias names the
owner pid), so a run never touches what it did not create, and
:func:`cleanup` removes what a killed run left (its owner pid no longer alive).
"""

from __future__ import annotations

import atexit
import ipaddress
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NetworkSpec",
    "Network",
    "NetworkUnavailable",
    "LeftoversRemovedWarning",
    "network_available",
    "cleanup",
    "RATE_UNITS",
    "TIME_UNITS",
]

#: rate units as ``tc`` reads them (SI prefixes; ``bps`` is bytes per second)
RATE_UNITS: dict[str, float] = {
    "bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9,
    "bps": 8, "kbps": 8 * 10**3, "mbps": 8 * 10**6, "gbps": 8 * 10**9,
}  # fmt: skip
#: time units of ``latency``
TIME_UNITS: dict[str, float] = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_OPTIONS = ("bandwidth=RATE", "latency=TIME", "shared", "hosts=N")
_MAX_HOSTS = 64
_NS_RE = re.compile(r"^gct-(\d+)-([0-9a-f]{6})-(m|h\d+)$")
_UPLINK_RE = re.compile(r"^gct([0-9a-f]{6})u$")
#: a link's token bucket: its queue may hold this long a backlog before dropping
_TBF_LATENCY = "400ms"


class NetworkUnavailable(RuntimeError):
    """Namespaces cannot be made here (not Linux, not root, no ``ip``/``tc``...)."""


class LeftoversRemovedWarning(UserWarning):
    """A new network removed the namespaces and links that killed runs left."""


def _parse_number(text: str, units: dict[str, float], what: str) -> float:
    m = re.fullmatch(r"\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if m is None:
        raise ValueError(
            f"{what}={text!r} is not a number with a unit; valid units: {', '.join(units)}"
        )
    unit = m.group(2).lower()
    if unit not in units:
        raise ValueError(
            f"{what}={text!r}: unknown unit {m.group(2)!r}; valid units: {', '.join(units)}"
        )
    return float(m.group(1)) * units[unit]


def _exact(x: float, units: dict[str, float]) -> str:
    """``x`` in the largest of ``units`` where it reads back exactly (``10mbit``, ``5ms``)."""
    ranked = sorted(
        (kv for kv in units.items() if not kv[0].endswith("bps")), key=lambda kv: -kv[1]
    )
    # the largest unit giving a number >= 1 that reads back exactly, else the smallest exact
    for at_least, order in ((1.0, ranked), (0.0, ranked[::-1])):
        for unit, factor in order:
            text = f"{x / factor:g}"
            if float(text) * factor == x and float(text) >= at_least:
                return f"{text}{unit}"
    small = min(units, key=lambda u: units[u])
    return f"{x / units[small]!r}{small}"


@dataclass(frozen=True)
class NetworkSpec:
    """The links of a rate-limited network.

    Parameters
    ----------
    bandwidth_bps : float
        Each link's rate, bits per second (both directions).
    latency_s : float
        One-way latency, seconds (injected in the transport: see the module notes).
    shared : bool
        One bottleneck at the master (the uplink) instead of one per host link.
    hosts : int or None
        Worker namespaces (None: one per worker, at most 64); workers share them in groups.

    Examples
    --------
    >>> from gctheory.cluster.network import NetworkSpec
    >>> NetworkSpec.parse("bandwidth=10mbit,latency=5ms")
    NetworkSpec(bandwidth_bps=10000000.0, latency_s=0.005, shared=False, hosts=None)
    >>> NetworkSpec.parse("bandwidth=0mbit")
    Traceback (most recent call last):
    ...
    ValueError: bandwidth='0mbit' must be a positive rate ...
    """

    bandwidth_bps: float
    latency_s: float = 0.0
    shared: bool = False
    hosts: int | None = None

    def __post_init__(self) -> None:
        if not (self.bandwidth_bps > 0 and self.bandwidth_bps < float("inf")):
            raise ValueError(f"bandwidth must be a positive rate, got {self.bandwidth_bps!r}")
        if not (self.latency_s >= 0 and self.latency_s < 60):
            raise ValueError(f"latency must be in [0, 60) seconds, got {self.latency_s!r}")
        if self.hosts is not None and not (
            isinstance(self.hosts, int) and 1 <= self.hosts <= _MAX_HOSTS
        ):
            raise ValueError(f"hosts must be an int in 1..{_MAX_HOSTS}, got {self.hosts!r}")

    @classmethod
    def parse(cls, text: str) -> NetworkSpec:
        """A spec from ``"bandwidth=10mbit,latency=5ms[,shared][,hosts=N]"``.

        Every malformed part is a ``ValueError`` naming it and the valid
        choices, raised before anything is made.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"network spec {text!r} is empty; options: {', '.join(_OPTIONS)}")
        seen: dict[str, str] = {}
        for part in text.split(","):
            key, eq, value = (x.strip() for x in part.partition("="))
            key = key.lower()
            if key == "shared" and not eq:
                value = "1"
            elif key not in ("bandwidth", "latency", "hosts") or not eq or not value:
                raise ValueError(
                    f"network spec {text!r}: cannot read {part.strip()!r}; "
                    f"options: {', '.join(_OPTIONS)} (rates in {', '.join(RATE_UNITS)}; "
                    f"times in {', '.join(TIME_UNITS)})"
                )
            if key in seen:
                raise ValueError(f"network spec {text!r}: {key} given twice")
            seen[key] = value
        if "bandwidth" not in seen:
            raise ValueError(f"network spec {text!r} has no bandwidth=RATE (e.g. 10mbit)")
        bw = _parse_number(seen["bandwidth"], RATE_UNITS, "bandwidth")
        if not bw > 0:
            raise ValueError(
                f"bandwidth={seen['bandwidth']!r} must be a positive rate (e.g. 10mbit)"
            )
        lat = _parse_number(seen.get("latency", "0s"), TIME_UNITS, "latency")
        if not 0 <= lat < 60:
            raise ValueError(f"latency={seen['latency']!r} must be in [0, 60) s (e.g. 5ms)")
        hosts = None
        if "hosts" in seen:
            if not seen["hosts"].isdigit() or not 1 <= int(seen["hosts"]) <= _MAX_HOSTS:
                raise ValueError(f"hosts={seen['hosts']!r} must be an int in 1..{_MAX_HOSTS}")
            hosts = int(seen["hosts"])
        return cls(bw, lat, "shared" in seen, hosts)

    def label(self) -> str:
        """The spec as text (``parse(label())`` gives it back)."""
        parts = [f"bandwidth={_exact(self.bandwidth_bps, RATE_UNITS)}"]
        if self.latency_s:
            parts.append(f"latency={_exact(self.latency_s, TIME_UNITS)}")
        if self.shared:
            parts.append("shared")
        if self.hosts is not None:
            parts.append(f"hosts={self.hosts}")
        return ",".join(parts)


# ---------------------------------------------------------------------------
# the system: what is missing, and running ip / tc


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in ("/usr/sbin", "/sbin", "/usr/bin", "/bin"):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return None


def _has_net_admin() -> bool:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> 12 & 1)  # CAP_NET_ADMIN = 12
    except OSError:
        pass
    return os.geteuid() == 0


def network_available() -> tuple[bool, str]:
    """Whether namespaces can be made here: ``(ok, what is missing)``."""
    if not sys.platform.startswith("linux"):
        return False, f"network namespaces need Linux (this is {sys.platform})"
    missing = [t for t in ("ip", "tc") if _tool(t) is None]
    if missing:
        return False, f"the {' and '.join(missing)} command(s) (iproute2) are not installed"
    if not _has_net_admin():
        return False, "network namespaces need root or CAP_NET_ADMIN (run as root)"
    return True, ""


def _run(*args: str, check: bool = True) -> str:
    """Run ``ip``/``tc``; a failure is a RuntimeError carrying its message."""
    exe = _tool(args[0]) or args[0]
    proc = subprocess.run([exe, *args[1:]], capture_output=True, text=True, timeout=30, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(f"`{' '.join(args)}` failed: {proc.stderr.strip()}")
    return proc.stdout


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _run("ip", "netns", "list").splitlines() if line.strip()]


def _root_links() -> list[dict]:
    return list(json.loads(_run("ip", "-j", "link", "show") or "[]"))


def _free_subnet(rng: random.Random) -> ipaddress.IPv4Network:
    """A ``10.x.y.0/24`` that no address or route of the root namespace overlaps."""
    used = []
    for line in _run("ip", "-4", "-o", "route", "show", "table", "all").splitlines():
        # "10.0.0.0/8 dev ...", "local 10.1.2.3 dev ...", "blackhole 10.9.0.0/16": the
        # destination is the first or second word ("default" covers nothing to avoid)
        for word in line.split()[:2]:
            try:
                used.append(ipaddress.ip_network(word, strict=False))
                break
            except ValueError:
                continue
    for entry in json.loads(_run("ip", "-j", "-4", "addr", "show") or "[]"):
        for a in entry.get("addr_info", []):
            used.append(ipaddress.ip_network(f"{a['local']}/{a['prefixlen']}", strict=False))
    for _ in range(200):
        net = ipaddress.IPv4Network(f"10.{rng.randrange(64, 255)}.{rng.randrange(0, 256)}.0/24")
        if not any(net.overlaps(u) for u in used):
            return net
    raise RuntimeError("no free 10.x.y.0/24 found among 200 tries: the routes cover them")


# ---------------------------------------------------------------------------
# the network


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
        ok, why = network_available()
        if not ok:
            raise NetworkUnavailable(f"cannot make the network: {why}")
        if self.clean_leftovers:
            self.removed = cleanup()
            if self.removed:
                warnings.warn(
                    f"removed what killed runs left: {', '.join(self.removed)}",
                    LeftoversRemovedWarning,
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
        net = _free_subnet(random.Random(secrets.randbits(32)))
        addrs = list(net.hosts())
        self.master_address = str(addrs[0])
        self.host_addresses = [str(addrs[1 + j]) for j in range(self.n_hosts)]
        m, plen = self.master_ns, net.prefixlen
        _run("ip", "netns", "add", m)
        self._made.append(m)
        _run("ip", "-n", m, "link", "set", "lo", "up")
        _run("ip", "-n", m, "link", "add", "name", "br0", "type", "bridge")
        _run("ip", "-n", m, "link", "set", "br0", "up")
        # the uplink: made in the master namespace, one end moved to the root namespace
        _run("ip", "-n", m, "link", "add", "name", "up0", "type", "veth", "peer", "name",
             self.uplink, "netns", "1")  # fmt: skip
        _run("ip", "link", "set", self.uplink, "alias", f"gctheory pid={os.getpid()}")
        _run("ip", "-n", m, "link", "set", "up0", "master", "br0", "up")
        _run("ip", "addr", "add", f"{self.master_address}/{plen}", "dev", self.uplink)
        _run("ip", "link", "set", self.uplink, "up")
        bw = self.spec.bandwidth_bps
        if self.spec.shared:
            _run("tc", "-n", m, "qdisc", "add", "dev", "up0", "root", *_tbf(bw))
            _run("tc", "qdisc", "add", "dev", self.uplink, "root", *_tbf(bw))
        for j, ns in enumerate(self.host_ns):
            _run("ip", "netns", "add", ns)
            self._made.append(ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
            _run("ip", "-n", m, "link", "add", "name", f"p{j}", "type", "veth", "peer", "name",
                 "eth0", "netns", ns)  # fmt: skip
            _run("ip", "-n", m, "link", "set", f"p{j}", "master", "br0", "up")
            _run("ip", "-n", ns, "addr", "add", f"{self.host_addresses[j]}/{plen}", "dev", "eth0")
            _run("ip", "-n", ns, "link", "set", "eth0", "up")
            if not self.spec.shared:
                _run("tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root", *_tbf(bw))
                _run("tc", "-n", m, "qdisc", "add", "dev", f"p{j}", "root", *_tbf(bw))

    def down(self) -> None:
        """Stop the processes started in the namespaces and remove everything made. Idempotent."""
        for timer in self._timers:
            timer.cancel()
        for p in self.procs:
            _stop(p)
        self.procs = []
        for ns in reversed(self._made):
            _delete_namespace(ns)
        self._made = []
        if any(link.get("ifname") == self.uplink for link in _safe_root_links()):
            _run("ip", "link", "del", self.uplink, check=False)
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
        ip = _tool("ip") or "ip"
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
        _run("ip", "-n", self.master_ns, "link", "set", f"p{host}", "up" if up else "down")

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
        stats = json.loads(_run("ip", "-j", "-s", "link", "show", "dev", self.uplink))[0]
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
        mpi = _tool("mpiexec") or "mpiexec"
        ip = _tool("ip") or "ip"
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


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.wait(timeout=5)


def _delete_namespace(ns: str) -> None:
    """Kill what still runs in ``ns``, then delete it (its veths go with it)."""
    for pid in _run("ip", "netns", "pids", ns, check=False).split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    _run("ip", "netns", "del", ns, check=False)


def _safe_root_links() -> list[dict]:
    try:
        return _root_links()
    except (RuntimeError, ValueError):
        return []


def cleanup() -> list[str]:
    """Remove the namespaces and uplinks of runs whose owner process is gone.

    Returns
    -------
    list of str
        What was removed (namespace and link names); a live run's are kept.
    """
    ok, why = network_available()
    if not ok:
        raise NetworkUnavailable(f"cannot clean up networks: {why}")
    removed = []
    for ns in _namespaces():
        m = _NS_RE.match(ns)
        if m and not _pid_alive(int(m.group(1))):
            _delete_namespace(ns)
            removed.append(f"namespace {ns}")
    for link in _safe_root_links():
        name = str(link.get("ifname", "")).split("@")[0]
        if not _UPLINK_RE.match(name):
            continue
        alias = re.search(r"pid=(\d+)", str(link.get("ifalias", "")))
        if alias is None or not _pid_alive(int(alias.group(1))):
            _run("ip", "link", "del", name, check=False)
            removed.append(f"link {name}")
    return removed
