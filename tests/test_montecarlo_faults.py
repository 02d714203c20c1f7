"""Issue 30's faults: a killed pool worker, two runs on one checkpoint, a full disk."""

from __future__ import annotations

import functools

import pytest

from gctheory.montecarlo import estimate_probability
from gctheory.montecarlo.engine import WorkerLostError, WorkerLostWarning
from tests import _mc_events as ev

# --- a killed process-pool worker ------------------------------------------------------


def test_killed_pool_worker_is_retried_and_the_result_is_serial(tmp_path):
    # before: concurrent.futures.process.BrokenProcessPool aborted the run
    plain = functools.partial(ev.bernoulli, p=0.3)
    killer = functools.partial(ev.bernoulli_killing_once, p=0.3, marker=str(tmp_path / "m"))
    serial = estimate_probability(plain, 40_000, rng=7, chunk_size=2_000)
    with pytest.warns(WorkerLostWarning, match="worker of the process pool died"):
        pooled = estimate_probability(killer, 40_000, rng=7, chunk_size=2_000, executor=2)
    assert (tmp_path / "m").exists()  # the kill happened
    assert pooled == serial


def test_a_worker_killed_every_time_ends_in_one_named_error():
    killer = functools.partial(ev.bernoulli_always_killing, p=0.3)
    with (
        pytest.warns(WorkerLostWarning),
        pytest.raises(WorkerLostError, match=r"process pool broke 4 times"),
    ):
        estimate_probability(killer, 4_000, rng=7, chunk_size=1_000, executor=2)


def test_killed_worker_with_a_checkpoint_resumes_to_the_serial_result(tmp_path):
    plain = functools.partial(ev.bernoulli, p=0.3)
    killer = functools.partial(ev.bernoulli_killing_once, p=0.3, marker=str(tmp_path / "m"))
    serial = estimate_probability(plain, 20_000, rng=3, chunk_size=1_000)
    ck = tmp_path / "ck"
    with pytest.warns(WorkerLostWarning):
        a = estimate_probability(killer, 20_000, rng=3, chunk_size=1_000, executor=2, checkpoint=ck)
    b = estimate_probability(killer, 20_000, rng=3, chunk_size=1_000, checkpoint=ck)  # resumed
    assert a == b == serial
    assert ev.checkpoint_chunks(ck) == 20
