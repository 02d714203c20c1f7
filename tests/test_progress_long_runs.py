"""The progress of ``gctheory.cluster.run`` and ``gctheory.sweeps.collect`` goes through
:class:`gctheory._progress.Progress`: off a terminal a plain line on stderr (at most every
``Progress.LOG_EVERY`` seconds, set to 0 here so a tiny run logs), never a ``\\r`` bar;
``progress=False`` prints nothing."""

from __future__ import annotations

import pytest

from gctheory._progress import Progress
from gctheory.sweeps import collect, grid


@pytest.fixture
def every_step(monkeypatch):
    """A line at every step: the tiny runs below stand for a long task."""
    monkeypatch.setattr(Progress, "LOG_EVERY", 0.0)


def _collect(tmp_path, progress):
    problems = grid("dfrc-failure", n=20, s=[3, 5], d=3, batch_size=200)
    return collect(problems, tmp_path / "s.csv", max_trials=600, progress=progress)


def test_collect_logs_lines_off_a_terminal(tmp_path, capsys, every_step, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # a line is cut to the width (80 under xdist)
    _collect(tmp_path, None)  # pytest's captured stderr is not a terminal
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines and "\r" not in err, err
    assert all(ln.startswith("sweeps collect: ") for ln in lines), err
    assert "trials" in err and "elapsed" in err and "left" in err, err


def test_collect_progress_false_is_silent(tmp_path, capsys, every_step):
    _collect(tmp_path, False)
    assert capsys.readouterr().err == ""


def test_collect_short_run_is_silent_off_a_terminal(tmp_path, capsys):
    # the negative control of the first test: under the real interval a run this short
    # prints nothing, so logs stay clean
    _collect(tmp_path, None)
    assert capsys.readouterr().err == ""


def _cluster_run(progress):
    from gctheory.cluster import run
    from gctheory.cluster.processes import can_start_processes

    ok, why = can_start_processes()
    if not ok:
        pytest.skip(f"this machine cannot start worker processes: {why}")
    return run("ignore", 4, s=1, delay="constant(0)", iterations=4, rng=0, progress=progress)


def test_cluster_run_logs_lines_off_a_terminal(capsys, every_step):
    _cluster_run(None)
    err = capsys.readouterr().err
    progress = [ln for ln in err.splitlines() if ln.startswith("gctheory run ")]
    assert progress and "\r" not in err, err
    assert "/4 (" in progress[0] and "elapsed" in progress[0], err


def test_cluster_run_progress_false_is_silent(capsys, every_step):
    _cluster_run(False)
    assert "gctheory run" not in capsys.readouterr().err
