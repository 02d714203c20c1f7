"""The predicted communication column of gctheory.cluster.compare (the link model)."""

from __future__ import annotations

import math

import pytest

from gctheory import cluster as cl
from gctheory.cluster.compare import compare, predicted_comm
from gctheory.runtime import Link


@pytest.fixture(scope="module")
def small_run():
    return cl.run("cyclic_mds", 4, s=1, delay="shifted_exp(0.005, 0.005)", iterations=20, rng=0)


def test_comm_column_per_worker_is_the_shift(small_run):
    link = Link(up=1e6, down=2e6, latency=0.002)
    c = compare(small_run, link=link, d=1000)
    # hand: 2 * 0.002 + 8000 / 2e6 + 8000 / 1e6 (cyclic-MDS sends d numbers up)
    assert c.comm_s == pytest.approx(0.004 + 0.004 + 0.008, rel=1e-9)
    assert c.comm_measured_s is None and "comm_s" in c.row()
    assert compare(small_run).comm_s is None


def test_comm_column_shared_queues(small_run):
    per = predicted_comm(small_run, Link(up=1e6, down=math.inf), d=1000)
    sh = predicted_comm(small_run, Link(up=1e6, down=math.inf, shared=True), d=1000, trials=500)
    assert sh > per  # the n - s = 3 messages queue at the master's card


def test_comm_column_refuses(small_run):
    with pytest.raises(ValueError, match="d .* is needed with link"):
        compare(small_run, link=Link(up=1.0))
    with pytest.raises(ValueError, match="link must be"):
        predicted_comm(small_run, "fast", d=10)
