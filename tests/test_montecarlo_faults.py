"""Issue 30's faults: a killed pool worker, two runs on one checkpoint, a full disk."""

from __future__ import annotations

import errno
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from gctheory.montecarlo import checkpoint as ckpt_mod
from gctheory.montecarlo import estimate_probability, lockfile
from gctheory.montecarlo.checkpoint import CheckpointDiskFullError, CheckpointLockedError
from gctheory.montecarlo.engine import WorkerLostError, WorkerLostWarning
from tests import _mc_events as ev

ROOT = Path(__file__).resolve().parents[1]

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


# --- two runs on one checkpoint path ---------------------------------------------------

_RUN = textwrap.dedent(
    """
    import functools, sys
    sys.path.insert(0, {root!r})
    from gctheory.montecarlo import estimate_probability
    from tests import _mc_events as ev
    event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.005)
    print("ready", flush=True)
    estimate_probability(event, 100_000, rng=5, chunk_size=1_000, checkpoint={path!r})
    """
)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_second_run_on_one_checkpoint_is_refused_naming_the_holder_then_takes_over(
    tmp_path, monkeypatch
):
    # before: the second run started, the two interleaved the file, the next resume refused it
    path = tmp_path / "two.ckpt"
    script = tmp_path / "run.py"
    script.write_text(_RUN.format(root=str(ROOT), path=str(path)))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        while ev.checkpoint_chunks(path) < 5:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.005)
        slept: list[float] = []  # one sleep per chunk the event runs (this module only)
        monkeypatch.setattr(ev, "time", SimpleNamespace(sleep=slept.append))
        with pytest.raises(
            CheckpointLockedError, match=rf"in use by another run \(pid {proc.pid} "
        ):
            estimate_probability(event, 100_000, rng=5, chunk_size=1_000, checkpoint=path)
        assert slept == []  # at once: refused before any chunk ran (counted, not timed)
        with pytest.raises(ValueError, match=f"on host {socket.gethostname()}"):
            estimate_probability(event, 100_000, rng=5, chunk_size=1_000, checkpoint=path)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    lock = Path(str(path) + ".lock")
    assert json.loads(lock.read_text())["pid"] == proc.pid  # left behind by the kill: stale
    resumed = estimate_probability(event, 100_000, rng=5, chunk_size=1_000, checkpoint=path)
    plain = functools.partial(ev.bernoulli, p=0.3)
    assert resumed == estimate_probability(plain, 100_000, rng=5, chunk_size=1_000)
    assert not lock.exists()  # released at the end


def _hold(lock: Path):
    """A process that holds the flock of ``lock`` (as orphaned pool workers would)."""
    code = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(lock)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.parametrize("recorded", ["dead", "live"])
def test_a_lock_held_for_a_dead_pid_is_taken_over_a_live_one_is_not(tmp_path, recorded):
    path = tmp_path / "orphan.ckpt"
    lock = Path(str(path) + ".lock")
    lock.write_text("{}")
    holder = _hold(lock)
    try:
        pid = _dead_pid() if recorded == "dead" else holder.pid
        lock.write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "since": 0}))
        plain = functools.partial(ev.bernoulli, p=0.3)
        if recorded == "dead":
            est = estimate_probability(plain, 10_000, rng=1, chunk_size=1_000, checkpoint=path)
            assert est.trials == 10_000
        else:
            with pytest.raises(CheckpointLockedError, match=f"pid {pid} "):
                estimate_probability(plain, 10_000, rng=1, chunk_size=1_000, checkpoint=path)
            assert not path.exists()  # refused before the checkpoint was touched
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_without_flock_the_lock_file_itself_is_the_lock(tmp_path, monkeypatch):
    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(lockfile.fcntl, "flock", no_flock)
    path = tmp_path / "nfs.ckpt"
    lock = Path(str(path) + ".lock")
    plain = functools.partial(ev.bernoulli, p=0.3)
    a = estimate_probability(plain, 10_000, rng=1, chunk_size=1_000, checkpoint=path)
    assert not lock.exists()
    live = os.getppid()
    lock.write_text(json.dumps({"pid": live, "host": socket.gethostname()}))
    with pytest.raises(CheckpointLockedError, match=f"pid {live} "):
        estimate_probability(plain, 10_000, rng=1, chunk_size=1_000, checkpoint=path)
    lock.write_text(json.dumps({"pid": live, "host": "elsewhere.invalid"}))
    with pytest.raises(CheckpointLockedError, match="on host elsewhere.invalid"):
        estimate_probability(plain, 10_000, rng=1, chunk_size=1_000, checkpoint=path)
    lock.write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname()}))
    assert estimate_probability(plain, 10_000, rng=1, chunk_size=1_000, checkpoint=path) == a


# --- a full disk -----------------------------------------------------------------------


def test_full_disk_is_one_named_line_and_the_checkpoint_resumes(tmp_path, monkeypatch):
    # before: a raw OSError [Errno 28] traceback from the middle of the engine
    path = tmp_path / "full.ckpt"
    real = ckpt_mod._write_all
    calls = []

    def filling(fd, data):
        calls.append(len(data))
        if len(calls) <= 6:  # the header and 5 batches fit
            return real(fd, data)
        os.write(fd, data[: len(data) // 2])  # half a line gets out, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(ckpt_mod, "_write_all", filling)
    monkeypatch.setattr(ckpt_mod, "FLUSH_SECONDS", 0.0)  # a batch per chunk
    plain = functools.partial(ev.bernoulli, p=0.3)
    with pytest.raises(CheckpointDiskFullError, match="the disk is full") as info:
        estimate_probability(plain, 20_000, rng=9, chunk_size=1_000, checkpoint=path)
    msg = str(info.value)
    assert "\n" not in msg and info.value.__cause__ is None and info.value.__suppress_context__
    assert "consistent" in msg and "complete up to chunk 4" in msg, msg
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert path.read_bytes().endswith(b"\n")  # the half line was cut off again
    assert ev.checkpoint_chunks(path) == 5
    assert not Path(str(path) + ".lock").exists()
    monkeypatch.undo()
    resumed = estimate_probability(plain, 20_000, rng=9, chunk_size=1_000, checkpoint=path)
    assert resumed == estimate_probability(plain, 20_000, rng=9, chunk_size=1_000)


def test_full_disk_on_a_pool_run_too(tmp_path, monkeypatch):
    path = tmp_path / "full-pool.ckpt"

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(ckpt_mod, "_write_all", full)
    plain = functools.partial(ev.bernoulli, p=0.3)
    with pytest.raises(CheckpointDiskFullError, match="holds no chunk yet"):
        estimate_probability(plain, 20_000, rng=9, chunk_size=1_000, checkpoint=path, executor=2)
    assert path.read_bytes() == b""
    monkeypatch.undo()
    a = estimate_probability(plain, 20_000, rng=9, chunk_size=1_000, checkpoint=path, executor=2)
    assert a == estimate_probability(plain, 20_000, rng=9, chunk_size=1_000)
