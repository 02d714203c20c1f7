"""Adaptive stopping (issue 15): rules at chunk boundaries, bit-identical everywhere, honest."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gctheory.montecarlo import (
    PrecisionNotReachedWarning,
    Stop,
    estimate_mean,
    estimate_probability,
    importance_sampling,
)
from gctheory.montecarlo.importance import ShiftedGaussian
from tests import _mc_events as ev

ROOT = Path(__file__).resolve().parent.parent
EVENT = functools.partial(ev.bernoulli, p=0.02)


def test_precision_rule_stops_at_the_first_chunk_that_meets_it():
    stop = Stop(rel_half_width=0.1)
    est = estimate_probability(EVENT, 10**9, rng=7, chunk_size=5_000, stop=stop)
    assert est.stopped_by == "rel_half_width" and est.target_met is True
    assert est.rel_half_width <= 0.1
    assert est.trials % 5_000 == 0
    # the same chunks, run as a fixed count, give the same count; one chunk less misses the target
    fixed = estimate_probability(EVENT, est.trials, rng=7, chunk_size=5_000)
    assert fixed.successes == est.successes and fixed.value == est.value
    before = estimate_probability(EVENT, est.trials - 5_000, rng=7, chunk_size=5_000)
    assert before.rel_half_width > 0.1


def test_events_rule_and_the_fixed_order_of_rules():
    est = estimate_probability(EVENT, 10**9, rng=3, chunk_size=1_000, stop=Stop(events=50))
    assert est.stopped_by == "events" and est.successes >= 50
    before = estimate_probability(EVENT, est.trials - 1_000, rng=3, chunk_size=1_000)
    assert before.successes < 50
    # both rules met at the same chunk: rel_half_width is checked first
    both = Stop(rel_half_width=0.999, events=1)
    est = estimate_probability(EVENT, 10**6, rng=3, chunk_size=1_000, stop=both)
    assert est.stopped_by == "rel_half_width"


def test_budget_spent_before_the_precision_says_so():
    with pytest.warns(PrecisionNotReachedWarning, match="trials=20,000 was spent"):
        est = estimate_probability(
            EVENT, 20_000, rng=1, chunk_size=5_000, stop=Stop(rel_half_width=0.01)
        )
    assert est.stopped_by == "trials" and est.target_met is False
    assert "budget spent before the target" in repr(est)
    assert est.trials == 20_000


def test_no_stop_means_no_stopping_fields():
    est = estimate_probability(EVENT, 10_000, rng=1)
    assert est.stopped_by == "trials" and est.target_met is None


def test_mean_and_importance_sampling_stop_too():
    sampler = functools.partial(ev.exponential, mean=2.0)
    m = estimate_mean(sampler, 10**8, rng=2, chunk_size=1_000, stop={"rel_half_width": 0.02})
    assert m.stopped_by == "rel_half_width" and m.rel_half_width <= 0.02
    is_est = importance_sampling(
        functools.partial(ev.first_coordinate_above, t=4.0),
        ShiftedGaussian((4.0,)),
        10**8,
        rng=2,
        chunk_size=500,
        stop=Stop(events=2_000),
    )
    assert is_est.stopped_by == "events" and is_est.successes >= 2_000


def test_bit_identical_serial_pool_threads_and_resume(tmp_path):
    kw = dict(rng=11, chunk_size=2_000, stop=Stop(rel_half_width=0.08))
    serial = estimate_probability(EVENT, 10**8, **kw)
    pool = estimate_probability(EVENT, 10**8, executor=2, **kw)
    with ThreadPoolExecutor(3) as tp:
        threads = estimate_probability(EVENT, 10**8, executor=tp, **kw)
    assert serial == pool == threads
    # resuming from the checkpoint of a shorter run of the same chunks gives the same answer
    path = tmp_path / "adaptive.ckpt"
    short = estimate_probability(EVENT, 10**8, checkpoint=path, **{**kw, "stop": Stop(events=60)})
    assert short.trials < serial.trials
    resumed = estimate_probability(EVENT, 10**8, checkpoint=path, **kw)
    assert resumed == serial


_KILLED_ADAPTIVE = textwrap.dedent(
    """
    import functools, sys
    sys.path.insert(0, {root!r})
    from gctheory.montecarlo import Stop, estimate_probability
    from tests import _mc_events as ev
    event = functools.partial(ev.slow_bernoulli, p=0.02, delay={delay})
    print(repr(estimate_probability(event, 10**8, rng=5, chunk_size=1_000,
          stop=Stop(rel_half_width=0.15), checkpoint={path!r})))
    """
)


def test_adaptive_run_killed_and_resumed_is_bit_identical(tmp_path):
    path = tmp_path / "killed.ckpt"
    script = tmp_path / "run.py"
    script.write_text(_KILLED_ADAPTIVE.format(root=str(ROOT), path=str(path), delay=0.03))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        time.sleep(0.1)
        if ev.checkpoint_chunks(path) >= 4:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    event = functools.partial(ev.slow_bernoulli, p=0.02, delay=0.03)
    kw = dict(rng=5, chunk_size=1_000, stop=Stop(rel_half_width=0.15))
    resumed = estimate_probability(event, 10**8, checkpoint=path, **kw)
    fresh = estimate_probability(
        functools.partial(ev.slow_bernoulli, p=0.02, delay=0.0), 10**8, **kw
    )
    assert resumed.successes == fresh.successes and resumed.trials == fresh.trials
    assert resumed.stopped_by == fresh.stopped_by == "rel_half_width"


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop", "match"),
    [
        ({"rel_half_width": 0.0}, r"stop rule rel_half_width must lie in \(0, inf\]"),
        ({"rel_half_width": -0.1}, "stop rule rel_half_width"),
        ({"rel_half_width": float("nan")}, "stop rule rel_half_width"),
        ({"events": 0}, r"stop rule events must lie in \[1, inf\]"),
        ({"events": 2.5}, "stop rule events must be an integer"),
        ({"events": 1_001}, "events=1001 can never trigger"),
        ({"rel_half_width": 0.001}, "rel_half_width=0.001 can never trigger"),
        ({"max_errors": 5}, "unknown rules"),
        ({}, "needs at least one rule"),
        ("precise", "stop must be None, a Stop"),
    ],
)
def test_bad_stop_rules_are_refused_before_any_work(stop, match):
    with pytest.raises(ValueError, match=match):
        estimate_probability(ev.must_not_run, 1_000, rng=1, stop=stop)


def test_events_rule_does_not_apply_to_a_mean():
    with pytest.raises(ValueError, match="events counts outcomes in an event"):
        estimate_mean(ev.must_not_run, 1_000, rng=1, stop=Stop(events=3))
