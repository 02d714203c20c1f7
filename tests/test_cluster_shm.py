"""The local engine's shared memory (gctheory.cluster.shm): parameters written once, results in
their workers' slots, the inline way when both slots are unread, and nothing left in /dev/shm
on any way out of a run."""

from __future__ import annotations

import io
import os
import signal
from pathlib import Path

import numpy as np
import pytest

from gctheory import cluster as cl
from gctheory.cluster.engines import LocalEngine
from gctheory.cluster.groups import _Loop
from gctheory.cluster.shm import PARAM_SLOTS, RESULT_SLOTS, Board

SHM = Path("/dev/shm")


def _exists(name: str) -> bool:
    return (SHM / name.lstrip("/")).exists()


def test_parameters_round_trip_and_an_overwritten_version_reads_as_none():
    board = Board(3, 4)
    try:
        group = Board(3, 4, name=board.name)
        w = np.arange(4.0)
        board.task(2, 5, w, 0.25, False)
        board.task(1, 5, w, 0.5, True)
        assert board.version == 1  # the parameters written once for both tasks
        t, got, delay, preempt = group.read_task(2, int(group.task_no[2]))
        assert (t, delay, preempt) == (5, 0.25, False)
        np.testing.assert_array_equal(got, w)
        version = int(group.task_ver[1])
        for k in range(PARAM_SLOTS):  # the ring comes round to the same slot
            board.put(np.full(4, float(k)))
        assert group.get(version) is None  # a newer task supersedes this one
        assert group.read_task(1, 1)[1] is None  # task 1 of worker 1 was rewritten (now 2)
        group.close()
    finally:
        board.unlink()


@pytest.mark.skipif(not SHM.is_dir(), reason="no /dev/shm")
def test_unlink_removes_the_block():
    board = Board(2, 2)
    assert _exists(board.name)  # negative control: the check sees a block that is there
    board.unlink()
    assert not _exists(board.name)


def _decode(board: Board, data: bytes) -> list:
    eng = LocalEngine()
    eng._board = board
    return eng._slot_events(0.0) + eng._events(data, 0.0)


def test_a_result_finding_both_slots_unread_comes_inline_and_errors_come_as_records():
    board = Board(2, 3)
    try:
        loop = _Loop(None, [])
        loop.board = Board(2, 3, name=board.name)
        msgs = [np.array([1.0, 2.0, 3.0]) * k for k in range(1, RESULT_SLOTS + 2)]
        for t, y in enumerate(msgs):  # the master reads none of them until the end
            loop.result(1, t, y, 0.01, 0.02)
        loop.error(0, 7, 5, "ValueError: bad")
        loop.result(0, 8, np.array(["x"], dtype=object), 0.0, 0.0)  # not a numeric array
        events = _decode(board, b"".join(loop.out))
        results = [ev for ev in events if ev.kind == "result"]
        assert [ev.t for ev in results] == list(range(len(msgs)))
        for ev, y in zip(results, msgs):
            np.testing.assert_array_equal(ev.message, y)
            assert ev.worker == 1 and ev.compute_s == 0.01 and ev.slept_s == 0.02
        assert results[-1].nbytes > results[0].nbytes  # the inline one carries its .npy head
        assert int(board.consumed[1]) == RESULT_SLOTS  # only the slots were taken
        err, bad = [ev for ev in events if ev.kind == "error"]
        assert (err.error.worker, err.error.partition, err.error.iteration) == (0, 5, 7)
        assert "ValueError: bad" in str(err.error)
        assert bad.t == 8 and "not a numeric array" in str(bad.error)
        loop.board.close()
    finally:
        board.unlink()


def _run_and_watch(on_iteration, **kw):
    """The engine's block name seen during the run (and whether it existed then)."""
    eng = LocalEngine(processes=2)
    seen: list = []

    def watch(t, e):
        if e._board is not None and not seen:
            seen.append((e._board.name, _exists(e._board.name)))
        on_iteration(t, e)

    try:
        cl.run("gd", 4, engine=eng, iterations=4, rng=0, eval_every=0, progress=False,
               on_iteration=watch, **kw)  # fmt: skip
    except cl.ClusterError:
        pass
    return seen


@pytest.mark.skipif(not SHM.is_dir(), reason="no /dev/shm")
@pytest.mark.filterwarnings("ignore::gctheory.cluster.WorkerLostWarning")
def test_no_block_is_left_in_dev_shm_after_a_run_an_interrupt_or_dead_workers():
    def interrupt(t, e):
        if t == 1:
            raise KeyboardInterrupt

    def kill_all(t, e):
        if t == 1:
            for pid in set(e.pids):
                os.kill(pid, signal.SIGKILL)

    for hook in (lambda t, e: None, interrupt, kill_all):
        seen = _run_and_watch(hook)
        assert seen and seen[0][1]  # the block was there during the run
        assert not _exists(seen[0][0])  # and is gone after it


def test_the_pipe_bells_give_the_same_run_as_the_eventfds():
    runs: list = []
    rang: list = []

    def note(t, e):
        rang.append(e._bells is not None)

    for bells in (True, False):
        eng = LocalEngine(processes=2)
        eng._use_bells = bells  # without eventfd (not Linux): a message on each pipe
        runs.append(cl.run("gd", 4, engine=eng, iterations=4, rng=0, eval_every=0,
                           progress=False, delay="shifted_exp(0.001, 0.002)",
                           on_iteration=note))  # fmt: skip
    assert rang == [True] * 4 + [False] * 4
    np.testing.assert_array_equal(runs[0].params_history, runs[1].params_history)


def test_npy_bytes_read_back_exactly_a_vector_without_np_load(monkeypatch):
    """from_npy gives np.load's array (dtype, shape, values, writable) for vectors and for
    what is not one; a 1-D float64 vector skips np.load's header parser (the Dask grouped
    mode reads every result so); a truncated vector is refused, not misread."""
    from gctheory.cluster import shm

    rng = np.random.default_rng(0)
    others = [np.zeros(0), rng.random((3, 4)), np.arange(5), np.asfortranarray(rng.random((3, 2))),
              np.float64(2.0), rng.random(5).astype(">f8"), np.float32([1.5, 2.5])]  # fmt: skip
    for y in [rng.random(10), rng.random(100_000), np.array([np.nan, -0.0, np.inf]), *others]:
        z = shm.from_npy(shm.npy_bytes(y))
        want = np.load(io.BytesIO(shm.npy_bytes(y)), allow_pickle=False)
        assert z.dtype == want.dtype and z.shape == want.shape and z.flags.writeable
        np.testing.assert_array_equal(z, want)

    def no_load(*a, **k):
        raise AssertionError("np.load called")

    blob = shm.npy_bytes(rng.random(7))
    monkeypatch.setattr(shm.np, "load", no_load)
    assert shm.from_npy(blob).shape == (7,)
    with pytest.raises(AssertionError, match="np.load called"):  # not a vector: np.load
        shm.from_npy(shm.npy_bytes(rng.random((2, 2))))
    monkeypatch.undo()
    with pytest.raises(ValueError):
        shm.from_npy(blob[:-8])


def test_the_master_yields_a_bounded_number_of_times_and_sees_a_result_in_the_slots(monkeypatch):
    """Before blocking, the master gives its core away at most YIELDS times and looks at the
    slots after each: a result there ends the yielding (and the wait), none leaves it to block."""
    board = Board(2, 3)
    try:
        eng = LocalEngine()
        eng._board = board
        calls = []
        monkeypatch.setattr(os, "sched_yield", lambda: calls.append(1))
        assert not board.has_results() and not eng._yield_for_results()
        assert len(calls) == LocalEngine.YIELDS  # nothing came: it yielded YIELDS times
        calls.clear()
        group = Board(2, 3, name=board.name)
        assert group.put_result(1, 0, np.ones(3), 0.0, 0.0)
        assert board.has_results() and eng._yield_for_results() and len(calls) == 1
        eng._slot_events(0.0)  # taken: nothing in the slots again
        assert not board.has_results()
        group.close()
    finally:
        board.unlink()


@pytest.mark.skipif(not (SHM.is_dir() and hasattr(os, "eventfd")), reason="needs /dev/shm, eventfd")
def test_the_floor_master_measures_a_run():
    # benchmarks/floor_master.py (the least a master on this transport costs) keeps working
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "floor_master.py"
    spec = importlib.util.spec_from_file_location("floor_master", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(ValueError, match="iterations must be a positive int, got 0"):
        mod.floor(4, 0)  # refused before any process starts
    out = mod.floor(4, 30, processes=2)
    assert set(out) == {"cpu", "op_cold", "op_warm"}
    assert all(v > 0 and np.isfinite(v) for v in out.values())
