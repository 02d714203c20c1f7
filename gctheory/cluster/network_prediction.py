"""The prediction of the network study: :func:`gctheory.runtime.link_iteration_time` for
the codes the study runs, and the shared card with the parameters' copies crossing it
together (:mod:`gctheory.cluster.network_study` says why)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["COPIES", "WIDTH", "link_prediction", "predict_with_link"]

#: bytes per number on the wire (float64)
WIDTH = 8
#: how the parameters' copies cross a shared card: one after another (the runtime's model)
#: or all at once, interleaved (the network study's notes)
COPIES = ("serial", "together")
_RUNTIME = {"cyclic_mds": "cyclic-mds", "ye_abbe": "ye-abbe"}


def link_prediction(
    scheme: str,
    delay: str,
    n: int,
    s: int,
    m: int,
    link: Any,
    d: int,
    *,
    copies: str = "together",
    rng: int = 0,
) -> tuple[float, float, float]:
    """Expected iteration time of ``scheme`` (``cyclic_mds`` or ``ye_abbe``) under the
    injected ``delay`` (per partition) over ``link``, without overheads: ``(mean, low,
    high)`` in seconds (an interval where a shared card needs Monte Carlo, seeded ``rng``).

    ``copies`` matters on a shared card only: ``"serial"`` is
    :func:`gctheory.runtime.link_iteration_time` as it stands (copy ``q`` of the parameters
    arrives at ``q`` copies' time), ``"together"`` has every copy arrive after all ``n``
    crossed (:mod:`gctheory.cluster.network_study`'s notes).

    Examples
    --------
    >>> from gctheory.runtime import Link
    >>> card = Link(up=1e6, down=1e6, shared=True)
    >>> [round(t, 6) for t in link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, card,
    ...                                       1000, copies="together")]
    [0.076, 0.076, 0.076]

    (the copies all in by 32 ms, computed by 52 ms; the messages leave one by one,
    8 ms each: the 3rd at 76 ms).
    >>> round(link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, card, 1000,
    ...                       copies="serial")[0], 6)  # the 3rd computed by 24 + 20 ms
    0.052
    """
    from gctheory.cluster.compare import _runtime_law
    from gctheory.delays import parse_delay
    from gctheory.runtime import Link, link_iteration_time

    if scheme not in _RUNTIME:
        raise ValueError(f"scheme must be one of {sorted(_RUNTIME)}, got {scheme!r}")
    if copies not in COPIES:
        raise ValueError(f"copies must be one of {list(COPIES)}, got {copies!r}")
    dist = parse_delay(delay).dist
    law = _runtime_law(dist, n) if hasattr(dist, "dist") else n * float(dist.c)
    shift = 0.0
    if link.shared and copies == "together":
        shift = n * WIDTH * d / link.down_rate
        link = Link(up=link.up, down=math.inf, latency=link.latency, shared=True)
    t = link_iteration_time(_RUNTIME[scheme], law, n, s, m, link=link, d=d, rng=rng)
    return t.mean + shift, t.low + shift, t.high + shift


def predict_with_link(
    scheme: str, delay: str, n: int, s: int, m: int, link: Any, d: int, *, copies: str = "together"
) -> float:
    """Expected iteration time of ``scheme`` (``cyclic_mds`` or ``ye_abbe``) under the
    injected ``delay`` (per partition) over ``link``, without overheads (seconds): the mean
    of :func:`link_prediction`.

    Examples
    --------
    >>> from gctheory.runtime import Link
    >>> t = predict_with_link("cyclic_mds", "constant(0.01)", 4, 1, 1, Link(up=1e6), 1000)
    >>> round(t, 6)  # load 1/2 of 4 x 10 ms, plus 8000 bytes down and up at 1 MB/s
    0.036
    """
    return link_prediction(scheme, delay, n, s, m, link, d, copies=copies)[0]
