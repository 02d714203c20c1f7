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

from gctheory.cluster.network.links import Network
from gctheory.cluster.network.spec import (
    MAX_HOSTS,
    PAYLOAD_SHARE,
    RATE_UNITS,
    TIME_UNITS,
    NetworkSpec,
)
from gctheory.cluster.network.system import (
    LeftoversRemovedWarning,
    NetworkUnavailable,
    cleanup,
    network_available,
)

__all__ = [
    "NetworkSpec",
    "Network",
    "NetworkUnavailable",
    "LeftoversRemovedWarning",
    "network_available",
    "cleanup",
    "RATE_UNITS",
    "TIME_UNITS",
    "MAX_HOSTS",
    "PAYLOAD_SHARE",
]
