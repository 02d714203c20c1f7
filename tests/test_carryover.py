"""Stragglers that carry over (no preemption): the queue per worker of
:mod:`gctheory.runtime.carryover`, checked against exact results where they apply."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gctheory.runtime import (
    carryover_slowdown,
    carryover_time_mc,
    scheme_expected_time,
    scheme_layout,
)
from gctheory.runtime.carryover import carryover_run_times

X = stats.expon(loc=1.0, scale=0.5)


def _by_hand(lay, task: np.ndarray) -> np.ndarray:
    """The queue of the module docstring for one run, a worker and an event at a time."""
    iterations, n = task.shape
    b, free, out = 0.0, np.zeros(n), []
    for t in range(iterations):
        start = [max(b, free[i]) for i in range(n)]
        finish = [start[i] + task[t, i] for i in range(n)]
        ends = []
        for g in range(lay.groups):
            members = sorted(finish[g * lay.group_size : (g + 1) * lay.group_size])
            ends.append(members[lay.wait - 1])
        b_next = max(ends)
        for i in range(n):
            if start[i] < b_next:
                free[i] = finish[i]
        out.append(b_next - b)
        b = b_next
    return np.array(out)


@pytest.mark.parametrize(("scheme", "n", "s"), [("cyclic-mds", 6, 2), ("frc", 6, 2)])
def test_the_vectorised_queue_is_the_queue_written_out(scheme, n, s):
    lay = scheme_layout(scheme, n, s)
    got = carryover_run_times(lay, X, 12, 1, np.random.default_rng(3))[0]
    task = stats.expon(loc=lay.load, scale=0.5 * lay.load).rvs(
        size=(12, n), random_state=np.random.default_rng(3)
    )
    np.testing.assert_allclose(got, _by_hand(lay, task), rtol=1e-12)


def test_preemption_gives_the_exact_fresh_start_time():
    fresh = carryover_time_mc("cyclic-mds", X, 8, s=3, iterations=20, trials=1000, preempt=True,
                              rng=1)  # fmt: skip
    assert fresh.contains(scheme_expected_time("cyclic-mds", X, 8, s=3))


def test_nobody_is_late_when_every_worker_is_awaited():
    # uncoded waits for all n: no queue forms, so carried == fresh (exact)
    lay = scheme_layout("uncoded", 5)
    rng = np.random.default_rng(0)
    a = carryover_run_times(lay, X, 10, 50, np.random.default_rng(0))
    b = carryover_run_times(lay, X, 10, 50, rng, preempt=True)
    np.testing.assert_array_equal(a, b)


def test_carried_over_stragglers_slow_the_run_and_the_fresh_model_misses_it():
    c = carryover_slowdown("cyclic-mds", X, 8, s=3, iterations=40, trials=800, rng=2)
    assert c.slowdown_low > 1.0  # the queue is slower than the order statistic
    # negative control: the fresh-start model's own Monte Carlo does not see a slowdown
    fresh = carryover_time_mc("cyclic-mds", X, 8, s=3, iterations=40, trials=800, preempt=True,
                              rng=2)  # fmt: skip
    assert fresh.low <= c.fresh <= fresh.high
    assert not fresh.contains(c.carried.value)


def test_a_seed_gives_one_answer():
    a = carryover_time_mc("frc", X, 6, s=2, iterations=10, trials=50, rng=7)
    b = carryover_time_mc("frc", X, 6, s=2, iterations=10, trials=50, rng=7)
    assert (a.value, a.low, a.high) == (b.value, b.low, b.high)


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"iterations": 0}, "iterations"),
        ({"iterations": 10**7}, "iterations"),
        ({"trials": 1}, "trials"),
        ({"tau": -1.0}, "tau"),
        ({"s": 9}, "s"),
    ],
)
def test_bad_input_is_named(kwargs, word):
    args = {"scheme": "cyclic-mds", "dist": X, "n": 8, "s": 2}
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        carryover_time_mc(**args)


def test_the_real_run_prediction_queues_as_the_runtime_model_does():
    # gctheory.cluster.compare predicts a preempt=False run with the same queue, written
    # over any scheme's rule; for cyclic-MDS it must agree with gctheory.runtime's
    from gctheory.cluster.compare import _queue_durations

    cfg = {"scheme": "cyclic_mds", "s": 3, "K": None, "m": 1, "code_options": {}, "seed": 0,
           "delay": "shifted_exp(0.02, 0.04)", "delay_options": {}}  # fmt: skip
    x = _queue_durations(cfg, 8, None, 30, 300, 5, 0.0, 0.0)
    runtime = carryover_time_mc("cyclic-mds", stats.expon(loc=0.16, scale=0.32), 8, s=3,
                                iterations=30, trials=2000, rng=6)  # fmt: skip
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert abs(x.mean() - runtime.value) < 3.3 * se + (runtime.high - runtime.value)
    fresh = scheme_expected_time("cyclic-mds", stats.expon(loc=0.16, scale=0.32), 8, s=3)
    assert x.mean() - 3.3 * se > fresh  # and it is not the fresh-start time


def test_the_command_prints_the_slowdown_and_refuses_a_law_with_memory(capsys):
    import json

    from gctheory.cli import main

    assert main(["carryover", "--n", "6", "--s", "2", "--trials", "100", "--iterations",
                 "20", "--format", "json"]) == 0  # fmt: skip
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["slowdown_ci"][0] > 1.0 and row["fresh"] < row["carried"]
    try:
        rc = main(["carryover", "--n", "6", "--delay", "markov(p=0.1, r=0.5, fast=exp(1), "
                   "slow=exp(5))"])  # fmt: skip
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2
    assert "i.i.d. law" in capsys.readouterr().err


def _fake_run(preempt: bool):
    from types import SimpleNamespace

    from gctheory.cluster.base import LATE, NEVER, USED

    status = np.full((4, 3), USED)
    status[1, 2] = LATE  # worker 2 was late at iteration 1: it starts iteration 2 late
    status[2, 1] = NEVER
    overhead = np.arange(12, dtype=float).reshape(4, 3)
    cfg = {"preempt": preempt}
    return SimpleNamespace(config=cfg, status=status, overhead=overhead, n=3)


def test_a_late_started_worker_s_response_is_not_an_overhead():
    from gctheory.cluster.compare import _survivor_overheads

    assert sorted(_survivor_overheads(_fake_run(True))) == [0, 1, 2, 3, 4, 6, 8, 9, 10, 11]
    # without preemption, worker 2 at iteration 2 (index 8) waited for its late task, and
    # worker 1 at iteration 3 (index 10) for the one it never returned
    assert sorted(_survivor_overheads(_fake_run(False))) == [0, 1, 2, 3, 4, 6, 9, 11]


def test_batch_means_see_the_correlation_the_iid_error_misses():
    from gctheory.cluster.compare import _batch_se

    rng = np.random.default_rng(0)
    ar = np.empty(400)
    ar[0] = 0.0
    for t in range(1, 400):  # a strongly correlated series: AR(1) with phi = 0.9
        ar[t] = 0.9 * ar[t - 1] + rng.normal()
    iid = ar.std(ddof=1) / np.sqrt(ar.size)
    assert _batch_se(ar) > 2 * iid
    white = rng.normal(size=400)  # negative control: no correlation, about the same
    assert 0.4 < _batch_se(white) / (white.std(ddof=1) / 20) < 2.0


def test_compare_names_a_bad_preempt():
    from gctheory.cluster.compare import compare

    with pytest.raises(ValueError, match="preempt must be True, False or None"):
        compare(_fake_run(True), preempt="no")


def test_the_simulator_without_preemption_runs_the_queue_the_prediction_models():
    from gctheory.montecarlo import mean_of_samples
    from gctheory.training import simulate

    T, law = 30, stats.expon(loc=0.08, scale=0.16)  # 8 x shifted_exp(0.01, 0.02) per unit
    runtime = carryover_time_mc("cyclic-mds", law, 8, s=3, iterations=T, trials=4000, rng=0)

    def mean_time(preempt: bool):
        x = [simulate("cyclic_mds", n=8, s=3, delay="shifted_exp(0.01, 0.02)", iterations=T,
                      rng=seed, preempt=preempt, model="logistic").time[-1] / T
             for seed in range(30)]  # fmt: skip
        return mean_of_samples(np.array(x), level=0.999)

    # 30 runs a mode (60 cost 2.3 s of CPU), each interval at the same level 0.999 (it widens
    # to +-0.0047 at 30 runs): late and fresh stay 0.028 apart, six half-widths
    late = mean_time(False)
    assert late.low <= runtime.high and runtime.low <= late.high
    fresh = mean_time(True)  # negative control: the default drops the stragglers' work
    assert fresh.high < runtime.low
    assert fresh.contains(scheme_expected_time("cyclic-mds", law, 8, s=3))


def test_the_simulator_names_a_bad_preempt():
    from gctheory.training import simulate

    with pytest.raises(ValueError, match="preempt must be True or False"):
        simulate("gd", n=2, iterations=1, preempt="yes")
