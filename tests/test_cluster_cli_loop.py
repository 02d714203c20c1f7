"""`gctheory run` at the edges of the real-run loop: a run that stops, JSON with a trace."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gctheory import cluster as cl
from gctheory.cli import main
from gctheory.delays import read_trace

pytest.importorskip("sklearn", reason="gctheory run trains on the digits data")


def test_a_stopped_run_keeps_its_trace_and_parameters_and_says_so_in_one_line(
    tmp_path, monkeypatch, capsys
):
    reached = cl.run("gd", 2, delay="constant(0)", iterations=3, rng=0, eval_every=0,
                     progress=False)  # fmt: skip
    capsys.readouterr()  # only the command's own output is judged below

    def lost(*args, **kwargs):
        # what the master raises when more than s workers are dead (message over two lines)
        raise cl.ClusterError(
            "iteration 3: gd needs 2 of n=2 workers but worker(s) [1] are lost\n"
            "(dead: [1], failed: []); only 1 can answer",
            reached,
        )

    monkeypatch.setattr(cl, "run", lost)
    trace, params = tmp_path / "t.csv", tmp_path / "p.npy"
    argv = ["run", "--scheme", "uncoded", "--n", "2", "--iterations", "5", "--quiet"]
    rc = main([*argv, "--trace", str(trace), "--save-params", str(params)])
    out = capsys.readouterr()
    assert rc == 1 and out.out == ""
    assert out.err.count("\n") == 1 and out.err.startswith("gctheory run: error: iteration 3")
    assert str(trace) in out.err and str(params) in out.err
    assert len(read_trace(trace)) == 3 * 2  # every iteration reached, every worker
    np.testing.assert_array_equal(np.load(params), reached.params)
    # nothing to keep (stopped before its first iteration): the one line, no files
    monkeypatch.setattr(
        cl, "run", lambda *a, **k: (_ for _ in ()).throw(cl.ClusterError("no answer", None))
    )
    other = tmp_path / "u.csv"
    assert main([*argv, "--trace", str(other)]) == 1
    assert capsys.readouterr().err == "gctheory run: error: no answer\n"
    assert not other.exists()


def test_json_output_stays_json_with_a_trace(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    argv = ["run", "--scheme", "uncoded", "--n", "2", "--iterations", "3", "--quiet"]
    assert main([*argv, "--format", "json", "--trace", str(trace), "--eval-every", "0"]) == 0
    out = capsys.readouterr()
    rows = json.loads(out.out)  # the whole of stdout is one JSON document
    assert rows and "trace:" in out.err and trace.is_file()


class _Unreaped:
    """A worker process seen between its pipe closing and its reaping: ``exitcode`` is
    None until someone joins it (the race a ``kill -9`` loses half the time)."""

    def __init__(self, proc):
        self._proc, self._joined = proc, False

    def __getattr__(self, name):
        return getattr(self._proc, name)

    @property
    def exitcode(self):
        return self._proc.exitcode if self._joined else None

    def join(self, timeout=None):
        self._joined = True
        return self._proc.join(timeout)


def test_a_killed_worker_is_reaped_before_its_exit_code_is_read():
    import os
    import signal
    import warnings

    def kill(t, eng):
        if t == 1:
            os.kill(eng.pids[2], signal.SIGKILL)
            eng.procs[2] = _Unreaped(eng.procs[2])

    # uncoded GD waits for every worker, so the master always sees the death (a coded
    # run may finish its iterations with the others before noticing)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", cl.WorkerLostWarning)
        with pytest.raises(cl.ClusterError, match=r"\[2\]"):
            cl.run("gd", 3, engine=cl.LocalEngine(), delay="constant(0.01)", iterations=4,
                   rng=0, eval_every=0, on_iteration=kill)  # fmt: skip
    (msg,) = [str(w.message) for w in seen if issubclass(w.category, cl.WorkerLostWarning)]
    assert "killed by SIGKILL (exit code -9)" in msg and "None" not in msg


def test_metrics_are_evaluated_after_the_run_never_between_iterations():
    # the workload lives in tests._oracles: the workers unpickle it without importing this
    # module (pytest and all, about 0.2 s of CPU per worker)
    from tests._oracles import EVENTS, NotedMetrics

    EVENTS.clear()
    wl = NotedMetrics(4)
    r = cl.run("cyclic_mds", 4, s=1, workload=wl, delay="constant(0)", iterations=4, rng=0,
               eval_every=1, on_iteration=lambda t, eng: EVENTS.append(t))  # fmt: skip
    assert EVENTS == [0, 1, 2, 3] + ["metrics"] * 5  # none between timed iterations
    assert list(r.metric_iterations) == [0, 1, 2, 3, 4]
    want = [wl.inner.metrics(r.params_history[k])["train_loss"] for k in r.metric_iterations]
    np.testing.assert_array_equal(r.metrics["train_loss"], want)


def test_more_coded_workers_than_dask_threads_is_detected_and_not_compared(monkeypatch, capsys):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from gctheory.cluster.compare import compare

    spec = {"delay": "constant(0.01)", "iterations": 3, "rng": 0, "eval_every": 0}
    no_port = {
        "dashboard_address": None,
        "processes": False,
        "scheduler_kwargs": {"dashboard": False, "dashboard_address": "127.0.0.1:0"},
    }
    with LocalCluster(n_workers=1, threads_per_worker=2, **no_port) as lc, Client(lc) as client:
        r = cl.run("gd", 4, engine=cl.DaskEngine(client=client), **spec)
    assert r.config["tasks_per_slot"] == 2  # 4 coded workers on 2 threads
    with pytest.raises(ValueError, match="comparison refused: up to 2 of its n=4"):
        compare(r)
    # negative control: the engine's own cluster gives each coded worker a thread (and
    # binds no fixed port: this passes with the default dashboard port held)
    own = cl.run("gd", 4, engine=cl.DaskEngine(), **spec)
    assert own.config["tasks_per_slot"] == 1 and compare(own).predicted > 0
    # the command line says so in its summary and on stderr, and still reports the run
    monkeypatch.setattr(cl, "run", lambda *a, **k: r)
    assert main(["run", "--scheme", "uncoded", "--n", "4", "--quiet", "--format", "json"]) == 0
    out = capsys.readouterr()
    (row,) = json.loads(out.out)["rows"] if "rows" in json.loads(out.out) else json.loads(out.out)
    assert row["coded_workers_per_engine_thread"] == 2 and row["predicted_s"] is None
    assert "no comparison with the prediction" in out.err


def test_the_overhead_model_is_a_command_line_option(monkeypatch, capsys):
    import sys

    from gctheory.commands.run import OVERHEAD_DEFAULT

    cmp_mod = sys.modules["gctheory.cluster.compare"]  # (the package's .compare: a function)

    r = cl.run("gd", 2, delay="constant(0)", iterations=3, rng=0, eval_every=0)
    asked = []
    real = cmp_mod.compare
    monkeypatch.setattr(cl, "run", lambda *a, **k: r)
    monkeypatch.setattr(cmp_mod, "compare", lambda run, **kw: asked.append(kw) or real(run, **kw))
    argv = ["run", "--scheme", "uncoded", "--n", "2", "--quiet", "--format", "json"]
    assert main([*argv, "--overhead", "resampled"]) == 0
    assert main(argv) == 0
    assert asked == [{"overhead": "resampled"}, {"overhead": OVERHEAD_DEFAULT}]
    capsys.readouterr()
    assert main([*argv, "--overhead", "mean"]) == 2  # refused by the parser, exit status 2
    assert "unknown choice 'mean'" in capsys.readouterr().err
