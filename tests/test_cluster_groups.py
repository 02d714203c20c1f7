"""Many coded workers per local process (gctheory.cluster.groups): the same run as one
process per worker, a group dying together, the refusal of too many workers, n = 1024."""

from __future__ import annotations

import itertools
import os
import signal
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from gctheory import cluster as cl  # noqa: E402
from gctheory._proc import tree_rss
from gctheory.cluster.compare import compare  # noqa: E402
from gctheory.cluster.engines import MAX_LOCAL_WORKERS  # noqa: E402

DELAY = "shifted_exp(0.002, 0.004)"


def _run(processes: int, scheme: str, n: int, **kw):
    eng = cl.LocalEngine(processes=processes)
    return cl.run(scheme, n, engine=eng, delay=DELAY, iterations=5, rng=3, eval_every=0, **kw)


def test_grouped_run_equals_one_process_per_worker():
    # uncoded GD sums every message in worker order: the parameters are the same bits
    one, grouped = _run(6, "gd", 6), _run(2, "gd", 6)
    assert "2 processes hosting 6 coded workers" in grouped.engine
    assert "6 processes" in one.engine
    np.testing.assert_array_equal(one.params_history, grouped.params_history)
    # an exact code: other survivors may answer first, the decoded gradient is the same
    one, grouped = _run(8, "cyclic_mds", 8, s=2), _run(3, "cyclic_mds", 8, s=2)
    np.testing.assert_allclose(one.params_history, grouped.params_history, rtol=0, atol=1e-10)
    assert all(len(S) == 6 for S in grouped.survivors)
    # and the grouped run replays bit for bit from its own survivor sets
    again = cl.replay(grouped)
    np.testing.assert_array_equal(again.params_history, grouped.params_history)


def test_grouped_run_without_preemption_lets_stragglers_finish():
    r = cl.run("cyclic_mds", 6, s=2, engine=cl.LocalEngine(processes=2), preempt=False,
               delay="shifted_exp(0.002, 0.02)", iterations=6, rng=1, eval_every=0)  # fmt: skip
    late = r.status == cl.STATUSES.index("late")
    assert r.iterations == 6 and late.any()  # the stragglers' results come, late
    assert np.isfinite(r.response[late]).all()


def test_a_killed_process_takes_its_whole_group():
    eng = cl.LocalEngine(processes=2)  # workers 0, 2, 4 in one process; 1, 3, 5 in the other

    def kill(t, e):
        if t == 1:
            assert e.where(0) == e.where(4) != e.where(1)
            os.kill(e.pids[0], signal.SIGKILL)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cl.WorkerLostWarning)
        r = cl.run("cyclic_mds", 6, s=3, engine=eng, delay=DELAY, iterations=5, rng=0,
                   eval_every=0, on_iteration=kill)  # fmt: skip
    assert sorted(r.dead) == [0, 2, 4] and r.iterations == 5
    assert all(set(S).isdisjoint({0, 2, 4}) for S in r.survivors[max(r.dead.values()) + 1 :])


class _Quad:
    """A user's oracle with any number of partitions (the digits stop at k = 1348)."""

    def __init__(self, k: int) -> None:
        self.k, self.dim = k, 2

    def initial_params(self):
        return np.zeros(2)

    def partial_gradient(self, params, partition):
        return params - 1.0


class _NoStart(cl.LocalEngine):
    def start(self, states):  # pragma: no cover - must not be reached
        raise AssertionError("a process was started")


def test_too_many_workers_refused_before_any_process():
    with pytest.raises(ValueError, match=f"local engine provides {MAX_LOCAL_WORKERS}"):
        cl.run("gd", 2 * MAX_LOCAL_WORKERS, workload=_Quad(2 * MAX_LOCAL_WORKERS),
               engine=_NoStart(), iterations=1)  # fmt: skip
    with pytest.raises(ValueError, match="n=4 workers but the local engine provides 3"):
        cl.run("gd", 4, engine=_NoStart(max_workers=3), iterations=1)
    # the digits workload names its own limit first (a partition needs a sample)
    with pytest.raises(ValueError, match="k=4096 partitions is more than the 1348"):
        cl.run("cyclic_mds", 4096, s=4, engine=_NoStart(), iterations=1)
    # the engine itself refuses too, when started directly with too many
    rule = cl.Rule(cl.build_scheme("gd", 3))
    eng = cl.LocalEngine(max_workers=2)
    with pytest.raises(ValueError, match="runs at most max_workers=2"):
        eng.start(rule.states(cl.make_workload("logistic", 3)))
    assert eng.procs == []
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="processes must be a positive int"):
            cl.LocalEngine(processes=bad)


@pytest.mark.parametrize(("scheme", "n", "s"), [("frc", 12, 2), ("commfr", 12, 2)])
def test_group_rule_incremental_equals_a_fresh_scan(scheme, n, s):
    rule = cl.Rule(cl.build_scheme(scheme, n, s=s))
    fresh = cl.Rule(cl.build_scheme(scheme, n, s=s))
    assert rule.groups is not None
    rng = np.random.default_rng(0)
    for _ in range(30):  # a new arrival list each iteration, grown one worker at a time
        order, arrived = rng.permutation(n).tolist(), []
        for i in order:
            arrived.append(i)
            assert rule.survivors(arrived) == fresh.survivors(tuple(arrived))
    # brute force on a small case: the shortest prefix with a survivor in every group
    size, need = rule.groups
    for order in itertools.islice(itertools.permutations(range(n)), 0, 2000, 97):
        got = rule.survivors(list(order))
        L = next(L for L in range(1, n + 1)
                 if all(sum(j // size == g for j in order[:L]) >= need for g in range(n // size))
                 or L == rule.need)  # fmt: skip
        assert got == tuple(order[:L])


def _peak_tree_memory(pid: int, stop: threading.Event, out: list[float]) -> None:
    """Peak of the summed RSS (GiB) of ``pid`` and its descendants, sampled every 0.2 s."""
    peak = 0
    while not stop.wait(0.2):
        peak = max(peak, tree_rss(pid))
    out.append(peak / 2**30)


@pytest.mark.slow
def test_1024_workers_within_10_percent_of_the_prediction_under_4_gib():
    if not os.path.isdir("/proc/self"):
        pytest.skip("the memory of the process tree is read from /proc (Linux)")
    stop, peak = threading.Event(), []
    sampler = threading.Thread(target=_peak_tree_memory, args=(os.getpid(), stop, peak))
    sampler.start()
    try:
        r = cl.run("cyclic_mds", 1024, s=4, delay="shifted_exp(0.05, 0.01)", iterations=30,
                   rng=0, eval_every=0)  # fmt: skip
    finally:
        stop.set()
        sampler.join()
    c = compare(r)
    assert "hosting 1024 coded workers" in r.engine
    assert abs(c.measured / c.predicted - 1) <= 0.10, c
    assert peak[0] < 4.0, peak
