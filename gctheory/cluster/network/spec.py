"""The spec of a rate-limited network: ``"bandwidth=10mbit,latency=5ms[,shared][,hosts=N]"``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["NetworkSpec", "RATE_UNITS", "TIME_UNITS", "MAX_HOSTS", "PAYLOAD_SHARE"]

#: rate units as ``tc`` reads them (SI prefixes; ``bps`` is bytes per second)
RATE_UNITS: dict[str, float] = {
    "bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9,
    "bps": 8, "kbps": 8 * 10**3, "mbps": 8 * 10**6, "gbps": 8 * 10**9,
}  # fmt: skip
#: time units of ``latency``
TIME_UNITS: dict[str, float] = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_OPTIONS = ("bandwidth=RATE", "latency=TIME", "shared", "hosts=N")
#: the share of a full TCP segment's Ethernet frame that is data: 1448 bytes (MSS at MTU
#: 1500 with TCP timestamps: 20 IP + 32 TCP header bytes) of 1514 (the 14 Ethernet header
#: bytes included, as ``tbf`` counts them)
PAYLOAD_SHARE = 1448 / 1514
#: most host namespaces a network makes
MAX_HOSTS = 64
_MAX_HOSTS = MAX_HOSTS


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

    def link(self, *, payload: bool = False) -> Any:
        """The :class:`gctheory.runtime.Link` of these links (the prediction's network):
        the rate in bytes per second both ways, the one-way latency, shared or not.

        ``payload=True``: the rate of the data a TCP stream carries, the link's rate times
        :data:`PAYLOAD_SHARE` (``tbf`` counts whole Ethernet frames: 1514 bytes for 1448 of
        data in a full segment), the rate at which a long message crosses it.

        Examples
        --------
        >>> NetworkSpec.parse("bandwidth=20mbit,latency=5ms").link()
        Link(up=2500000.0, down=2500000.0, latency=0.005, shared=False)
        >>> round(NetworkSpec.parse("bandwidth=20mbit").link(payload=True).up)
        2391017
        """
        from gctheory.runtime.link import Link

        if not isinstance(payload, bool):
            raise ValueError(f"payload must be True or False, got {payload!r}")
        rate = self.bandwidth_bps / 8 * (PAYLOAD_SHARE if payload else 1.0)
        return Link(up=rate, down=rate, latency=self.latency_s, shared=self.shared)

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
