"""Sweeps: keys, resumable and split collection, combine, refusals naming the row."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gctheory.sweeps import Problem, collect, combine, grid, read_stats
from gctheory.sweeps.statsfile import HEADER, read_rows

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, cwd=ROOT)


CHILD = """
import sys
from gctheory.sweeps import grid, collect
ps = grid("condition-tail", u=2, v=3, kappa=[5.0, 20.0], batch_size=200) + grid(
    "runtime", scheme="frc", n=12, s=2, batch_size=500)
collect(ps, sys.argv[1], max_trials=int(sys.argv[2]), worker=int(sys.argv[3]),
        workers=int(sys.argv[4]), progress=False)
"""


def _problems():
    return grid("condition-tail", u=2, v=3, kappa=[5.0, 20.0], batch_size=200) + grid(
        "runtime", scheme="frc", n=12, s=2, batch_size=500
    )


def _table(path):
    return {
        s.key: (s.trials, s.events, s.batches, None if s.sum is None else round(s.sum, 9))
        for s in read_stats(path)
    }


def test_a_killed_collect_resumes_without_losing_rows(tmp_path):
    path = tmp_path / "killed.csv"
    proc = _run(CHILD, str(path), "200000", "0", "1")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= 12:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = path.read_bytes()
    n_before = before.count(b"\n") - 1
    assert 10 <= n_before < 2000, n_before  # killed mid-run
    collect(_problems(), path, max_trials=4000)  # smaller budget: finish quickly
    after = path.read_bytes()
    # nothing lost: every complete row written before the kill is still there, first
    complete = before[: before.rfind(b"\n") + 1]
    assert after.startswith(complete)
    whole = tmp_path / "whole.csv"
    collect(_problems(), whole, max_trials=4000)
    # every batch of the uninterrupted run is in the resumed file, with the same numbers
    resumed = {(r.key, r.batches): (r.trials, r.events, r.sum) for r in read_rows(path)}
    for r in read_rows(whole):
        assert resumed[(r.key, r.batches)] == (r.trials, r.events, r.sum)
    assert all(s.trials >= 4000 for s in read_stats(path))


def test_two_processes_combine_to_one_run(tmp_path):
    a, b, one = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "one.csv"
    procs = [_run(CHILD, str(a), "3000", "0", "2"), _run(CHILD, str(b), "3000", "1", "2")]
    assert [p.wait() for p in procs] == [0, 0]
    collect(_problems(), one, max_trials=3000)
    assert combine([a, b], tmp_path / "c.csv") == 3
    split = {s.key: s for s in read_stats(tmp_path / "c.csv")}
    whole = {s.key: s for s in read_stats(one)}
    assert split.keys() == whole.keys()
    for key, w in whole.items():
        s = split[key]
        assert (s.trials, s.events, s.batches) == (w.trials, w.events, w.batches)
        if w.kind == "mean":  # Chan's merge groups the rows differently: equal to rounding
            assert s.sum == pytest.approx(w.sum, rel=1e-13)
            assert s.sum_sq_dev == pytest.approx(w.sum_sq_dev, rel=1e-12)
            assert s.sum_cube_dev == pytest.approx(w.sum_cube_dev, rel=1e-9)
            assert s.sum_quart_dev == pytest.approx(w.sum_quart_dev, rel=1e-12)
            assert s.estimate.method == w.estimate.method == "hall"
        else:
            assert s.estimate == w.estimate
    # reading both files at once gives the same as the combined file
    both = {s.key: (s.trials, s.events) for s in read_stats([a, b])}
    assert both == {k: (s.trials, s.events) for k, s in split.items()}


def test_two_processes_on_one_file_write_each_batch_once(tmp_path):
    shared, one = tmp_path / "shared.csv", tmp_path / "one.csv"
    procs = [_run(CHILD, str(shared), "4000", "0", "1") for _ in range(2)]
    assert [p.wait() for p in procs] == [0, 0]
    collect(_problems(), one, max_trials=4000)
    rows = read_rows(shared)
    batches = [(r.key, b) for r in rows for b in r.batches]
    assert len(batches) == len(set(batches))
    assert {k: v[:3] for k, v in _table(shared).items()} == {
        k: v[:3] for k, v in _table(one).items()
    }


def test_resume_skips_finished_problems_and_raises_budgets(tmp_path):
    path = tmp_path / "s.csv"
    ps = grid("dfrc-failure", n=20, s=[3, 5], d=3, batch_size=1000)
    first = collect(ps, path, max_trials=2000)
    assert first.rows_written == 4
    assert collect(ps, path, max_trials=2000).rows_written == 0
    more = collect(ps, path, max_trials=3000)
    assert more.rows_written == 2 and all(s.trials == 3000 for s in more.stats)


def test_stopping_rules(tmp_path):
    path = tmp_path / "stop.csv"
    p = Problem("dfrc-failure", {"n": 20, "s": 5, "d": 3}, batch_size=200, max_events=50)
    q = Problem("dfrc-failure", {"n": 20, "s": 3, "d": 3}, batch_size=500, rel_half_width=0.3)
    out = {s.key: s for s in collect([p, q], path, max_trials=10**6).stats}
    sp, sq = out[p.key], out[q.key]
    assert 50 <= sp.events < 50 + 200 and sp.trials < 10**6
    assert sq.estimate.rel_half_width <= 0.3 and sq.trials < 10**6


def test_a_changed_problem_gets_a_new_key():
    base = Problem("ldpc-block", {"n": 100, "eps": 0.3})
    assert Problem("ldpc-block", {"n": 100.0, "eps": 0.30}).key == base.key
    assert Problem("ldpc-block", {"n": 100, "eps": 0.3, "dv": 3}).key == base.key
    changed = [
        Problem("ldpc-block", {"n": 100, "eps": 0.31}),
        Problem("ldpc-block", {"n": 102, "eps": 0.3}),
        Problem("ldpc-block", {"n": 100, "eps": 0.3, "code_seed": 1}),  # another code
        Problem("ldpc-block", {"n": 100, "eps": 0.3}, seed=1),
        Problem("ldpc-block", {"n": 100, "eps": 0.3}, batch_size=999),
    ]
    keys = {p.key for p in changed}
    assert base.key not in keys and len(keys) == len(changed)
    # the code's fingerprint is in the key: a different matrix under the same parameters
    other = Problem("ldpc-block", {"n": 100, "eps": 0.3, "code_seed": 1})
    assert other.identity()["code"] != base.identity()["code"]
    # the stopping rule is not
    assert Problem("ldpc-block", {"n": 100, "eps": 0.3}, max_trials=5).key == base.key


def _good_file(tmp_path):
    path = tmp_path / "good.csv"
    collect(grid("dfrc-failure", n=20, s=3, d=3, batch_size=500), path, max_trials=1500)
    return path


def test_a_file_of_another_format_is_refused_naming_the_row(tmp_path):
    sinter = tmp_path / "sinter.csv"
    sinter.write_text("shots,errors,discards,seconds,decoder,strong_id,json_metadata\n")
    with pytest.raises(ValueError, match=r"sinter.csv: row 1: not a gctheory stats header"):
        read_stats(sinter)
    with pytest.raises(ValueError, match="row 1"):
        collect(grid("dfrc-failure", n=20, s=3, d=3), sinter, max_trials=10)
    path = _good_file(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    for other in ("gctheory-stats/3", "gctheory-stats/1"):  # a future one; the old in a new file
        edited = [*lines[:2], lines[2].replace("gctheory-stats/2", other, 1), *lines[3:]]
        path.write_text("".join(edited))
        with pytest.raises(ValueError, match=rf"row 3: format '{other}'; the file's header is"):
            read_stats(path)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda line: line.replace(",500,", ",501,", 1), "row 3: checksum mismatch"),
        (lambda line: line[:40] + "\n", "row 3: .*fields"),
        (lambda line: "garbage\n", "row 3: format 'garbage'"),
        (lambda line: "\x00\x01\n", "row 3"),
    ],
)
def test_a_corrupted_row_is_refused_naming_it(tmp_path, edit, message):
    path = _good_file(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = edit(lines[2])
    path.write_text("".join(lines))
    with pytest.raises(ValueError, match=message):
        read_stats(path)
    with pytest.raises(ValueError, match=message):
        combine([path], tmp_path / "out.csv")
    with pytest.raises(ValueError, match=message):
        collect(grid("dfrc-failure", n=20, s=3, d=3, batch_size=500), path, max_trials=3000)


def test_a_torn_last_row_is_refused_by_readers_and_cut_by_collect(tmp_path):
    path = _good_file(tmp_path)
    text = path.read_text()
    path.write_text(text + text.splitlines()[-1][:50])
    with pytest.raises(ValueError, match="row 5: incomplete"):
        read_stats(path)
    ps = grid("dfrc-failure", n=20, s=3, d=3, batch_size=500)
    collect(ps, path, max_trials=2000)
    assert [s.trials for s in read_stats(path)] == [2000]


def test_combine_refuses_the_same_samples_twice_and_an_existing_output(tmp_path):
    path = _good_file(tmp_path)
    with pytest.raises(ValueError, match="batch 0 appears in two rows"):
        combine([path, path], tmp_path / "twice.csv")
    out = tmp_path / "out.csv"
    combine([path], out)
    with pytest.raises(ValueError, match="exists"):
        combine([path], out)
    combine([path], out, overwrite=True)
    assert out.read_text().splitlines()[0] == HEADER
    # a combined file can be collected into further
    ps = grid("dfrc-failure", n=20, s=3, d=3, batch_size=500)
    assert collect(ps, out, max_trials=2000).rows_written == 1


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Problem("no-such"), "problem 'no-such': unknown estimator"),
        (lambda: Problem("ldpc-block", {"n": 100}), r"ldpc-block\(n=100\).*'eps' is required"),
        (lambda: Problem("ldpc-block", {"n": 100, "eps": 0.3, "x": 1}), "unknown parameter"),
        (lambda: Problem("ldpc-block", {"n": 1.5, "eps": 0.3}), "n must be an integer"),
        # int(inf) raised OverflowError, int(nan) a ValueError without the problem's name
        (lambda: Problem("ldpc-block", {"n": float("inf"), "eps": 0.3}), "n must be an integer"),
        (
            lambda: Problem("ldpc-block", {"n": float("nan"), "eps": 0.3}),
            r"ldpc-block.*n must be an",
        ),
        (lambda: Problem("runtime", {"scheme": "frc", "n": 6}, batch_size=1), "batch_size"),
        (lambda: Problem("runtime", {"scheme": "frc", "n": 6}, max_events=3), "max_events"),
        (lambda: Problem("ldpc-block", {"n": 100, "eps": 0.3}, rel_half_width=0), "rel_half"),
        (lambda: Problem("ldpc-block", {"n": 100, "eps": 1.5}).key, r"ldpc-block\(n=100"),
    ],
)
def test_bad_problems_are_refused_naming_them(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_collect_arguments_are_refused(tmp_path):
    ps = grid("dfrc-failure", n=20, s=3, d=3)
    with pytest.raises(ValueError, match=r"dfrc-failure\(n=20.*no max_trials"):
        collect(ps, tmp_path / "a.csv")
    with pytest.raises(ValueError, match="worker must be in"):
        collect(ps, tmp_path / "a.csv", max_trials=10, worker=2, workers=2)
    with pytest.raises(ValueError, match="does not exist"):
        collect(ps, tmp_path / "no" / "a.csv", max_trials=10)
    with pytest.raises(ValueError, match=r"dfrc-failure\(n=20 s=30"):
        collect(grid("dfrc-failure", n=20, s=30, d=3), tmp_path / "b.csv", max_trials=10)


@pytest.mark.filterwarnings("ignore:too few draws:gctheory.montecarlo.UnreliableEstimateWarning")
def test_real_run_iteration_times_are_a_sweep_problem(tmp_path):
    # issue 25: "real-run or simulated iteration times" -- real processes (gctheory.cluster)
    from gctheory.cluster.processes import can_start_processes

    ok, why = can_start_processes()
    if not ok:
        pytest.skip(f"this machine cannot start worker processes: {why}")
    path = tmp_path / "cluster.csv"
    problems = grid("cluster-time", scheme=["cyclic-mds"], n=[4], s=[1], iterations=[4])
    collect(problems, path, max_trials=2, progress=False)
    (stat,) = read_stats(path)
    assert stat.estimator == "cluster-time" and stat.trials == 2
    est = stat.estimate
    # each iteration sleeps at least the injected shift (0.005 s per partition, 2 partitions)
    assert est is not None and est.value >= 0.01 and est.low <= est.value <= est.high
