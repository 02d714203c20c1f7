"""gctheory.runtime.link: the iteration time over a per-worker or shared link."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from gctheory.delays.laws import parse_law
from gctheory.runtime import (
    BYTES_PER_MBIT,
    Link,
    link_iteration_time,
    message_numbers,
    scheme_expected_time,
)

X = stats.expon(loc=1.0, scale=0.5)


def test_message_numbers():
    # Section I of Kadhe et al.: d / m numbers (rounded up); CommFR-GC on [N, K, delta]: d / K
    assert message_numbers("cyclic-mds", 1000, 12, 2) == 1000
    assert message_numbers("ye-abbe", 1000, 12, 2, 4) == 250
    assert message_numbers("ye-abbe", 1001, 12, 2, 4) == 251
    assert message_numbers("commfr-gc", 1000, 12, 2, code=(4, 2, 3)) == 500


def test_per_worker_is_a_shift_of_the_order_statistic():
    # no communication term in scheme_expected_time: the link adds 2 lat + down + up exactly
    net = Link(up=2e6, down=4e6, latency=0.003)
    t = link_iteration_time("ye-abbe", X, 12, 2, 2, link=net, d=10**5, decode_s=0.01)
    base = scheme_expected_time("ye-abbe", X, 12, 2, 2)
    shift = 2 * 0.003 + 8e5 / 4e6 + 4e5 / 2e6 + 0.01  # hand: bytes / (bytes/s)
    assert t.method == "exact" and t.low == t.mean == t.high
    assert t.mean == pytest.approx(base + shift, rel=1e-12)
    assert (t.up_bytes, t.down_bytes) == (4 * 10**5, 8 * 10**5)


@pytest.mark.parametrize("scheme, m, code", [("cyclic-mds", 1, None), ("commfr-gc", 1, (4, 2, 3))])
def test_exact_inside_monte_carlo(scheme, m, code):
    net = Link(up=1e6, latency=0.001)
    kw = dict(link=net, d=10**4, code=code)
    exact = link_iteration_time(scheme, X, 12, 2, m, **kw)
    mc = link_iteration_time(scheme, X, 12, 2, m, method="monte-carlo", trials=4000, rng=3, **kw)
    assert mc.method == "monte-carlo" and mc.contains(exact.mean)
    # negative control: a target 5% off lies outside
    assert not mc.contains(exact.mean * 1.05)


def test_shared_constant_by_hand():
    # constant compute c = 1.2, n = 4, s = 1 (wait 3), load 2/4, free downlink: all four
    # arrive at 0.6 + 2 lat; the third message leaves the card after 3 up_s
    net = Link(up=1000.0, down=math.inf, latency=0.01, shared=True)
    t = link_iteration_time("cyclic-mds", 1.2, 4, 1, link=net, d=10)
    assert t.method == "exact"
    assert t.mean == pytest.approx(0.6 + 0.02 + 3 * 80 / 1000, rel=1e-12)
    # a serialised downlink staggers the arrivals by 80 / 500 s > up_s: no queue
    net2 = Link(up=1000.0, down=500.0, shared=True)
    t2 = link_iteration_time("cyclic-mds", 1.2, 4, 1, link=net2, d=10)
    assert t2.mean == pytest.approx(3 * 0.16 + 0.6 + 0.08, rel=1e-12)


def test_shared_monte_carlo_near_constant_law():
    # a law concentrated near a constant: the Monte Carlo mean tends to the exact constant
    net = Link(up=1e5, down=math.inf, shared=True)
    c = link_iteration_time("cyclic-mds", 1.0, 12, 2, link=net, d=1000)
    narrow = stats.uniform(loc=1.0, scale=1e-9)
    mc = link_iteration_time("cyclic-mds", narrow, 12, 2, link=net, d=1000, trials=200, rng=0)
    assert mc.method == "monte-carlo"
    assert mc.mean == pytest.approx(c.mean, rel=1e-6)


def test_shared_is_slower_than_per_worker():
    per = link_iteration_time("cyclic-mds", X, 12, 2, link=Link(up=1e6), d=10**4)
    sh = link_iteration_time(
        "cyclic-mds", X, 12, 2, link=Link(up=1e6, shared=True), d=10**4, trials=2000, rng=1
    )
    assert sh.low > per.mean


def test_constant_from_spec():
    net = Link(up=BYTES_PER_MBIT)
    a = link_iteration_time("cyclic-mds", parse_law("constant(2)"), 6, 1, link=net, d=10)
    b = link_iteration_time("cyclic-mds", 2.0, 6, 1, link=net, d=10)
    assert a.mean == b.mean


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(up=0.0), "up must lie in"),
        (dict(up=1.0, down=-1.0), "down must lie in"),
        (dict(up=1.0, latency=-0.1), "latency must lie in"),
        (dict(up=1.0, shared="yes"), "shared must be True or False"),
    ],
)
def test_link_refuses(kw, match):
    with pytest.raises(ValueError, match=match):
        Link(**kw)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(d=0), "d must"),
        (dict(decode_s=-1.0), "decode_s must"),
        (dict(method="quad"), "method"),
        (dict(trials=1), "trials must"),
        (dict(level=1.5), "level"),
        (dict(link="fast"), "link must be a gctheory.runtime.Link"),
        (dict(dist=-1.0), "dist"),
        (dict(link=Link(up=1.0, shared=True), method="exact"), "method='exact' needs"),
    ],
)
def test_iteration_time_refuses(kw, match):
    args = dict(dist=X, link=Link(up=1e6), d=10)
    args.update(kw)
    dist = args.pop("dist")
    with pytest.raises(ValueError, match=match):
        link_iteration_time("cyclic-mds", dist, 6, 1, **args)


@pytest.mark.parametrize("shared", [False, True])
def test_time_falls_as_bandwidth_grows(shared):
    # per draw, every finish time is non-increasing in the bandwidth; the same seed makes
    # the Monte Carlo means inherit it
    times = [
        link_iteration_time(
            "ye-abbe", X, 12, 2, 2, link=Link(up=b, shared=shared), d=10**4, trials=500, rng=2
        ).mean
        for b in (1e5, 1e6, 1e7, 1e8)
    ]
    assert times == sorted(times, reverse=True)
