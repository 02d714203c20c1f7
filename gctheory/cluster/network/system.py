"""The system under a network: what is missing, running ``ip``/``tc``, a free subnet, and
:func:`cleanup` of what killed runs left (names by prefix, owner pid no longer alive)."""

from __future__ import annotations

import ipaddress
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys

__all__ = ["NetworkUnavailable", "LeftoversRemovedWarning", "network_available", "cleanup"]

_NS_RE = re.compile(r"^gct-(\d+)-([0-9a-f]{6})-(m|h\d+)$")
_UPLINK_RE = re.compile(r"^gct([0-9a-f]{6})u$")


class NetworkUnavailable(RuntimeError):
    """Namespaces cannot be made here (not Linux, not root, no ``ip``/``tc``...)."""


class LeftoversRemovedWarning(UserWarning):
    """A new network removed the namespaces and links that killed runs left."""


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
