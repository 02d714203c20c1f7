"""gctheory.cluster on Dask and MPI, measured versus predicted, and the ``gctheory run`` CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from gctheory import cluster as cl  # noqa: E402
from gctheory.cli import main  # noqa: E402
from gctheory.cluster.compare import compare  # noqa: E402
from tests._oracles import FlakyOracle

ROOT = Path(__file__).resolve().parents[1]


def test_measured_time_inside_prediction_and_wrong_law_rejected():
    """Sleep-dominated law: the measured mean agrees with gctheory.runtime's exact prediction
    plus the measured overheads; a law with twice the exponential mean is rejected."""
    r = cl.run("cyclic_mds", 6, s=2, delay="shifted_exp(0.02, 0.02)", iterations=30, rng=5)
    c = compare(r, level=0.999)
    assert c.method == "gctheory.runtime (exact)"
    assert c.agrees, c
    wrong = compare(r, delay="shifted_exp(0.02, 0.04)", level=0.999)
    assert not wrong.agrees and wrong.p_value < 1e-6


def test_dask_local_cluster_runs_exact_code(tmp_path):
    pytest.importorskip("distributed")
    r = cl.run("cyclic_mds", 5, s=2, engine="dask", delay="shifted_exp(0.01, 0.01)",
               iterations=4, rng=2, trace=tmp_path / "d.csv")  # fmt: skip
    assert r.engine.startswith("dask")
    wl = cl.make_workload(r.config["workload"], r.k)
    for t in range(r.iterations):
        w = r.params_history[t]
        step = (w - r.params_history[t + 1]) / r.config["step_size"]
        assert np.allclose(step, wl.full_gradient(w), rtol=1e-7, atol=1e-12)
    assert np.array_equal(cl.replay(tmp_path / "d.csv").params, r.params)


def test_dask_unreachable_address_times_out_naming_it():
    pytest.importorskip("distributed")
    with pytest.raises(TimeoutError, match="tcp://127.0.0.1:9"):
        cl.run("gd", 2, engine=cl.DaskEngine("tcp://127.0.0.1:9", timeout=1), iterations=1)


def test_cli_run_json_numbers(capsys, tmp_path):
    path = tmp_path / "run.csv"
    rc = main(["run", "--scheme", "cyclic-mds", "--n", "4", "--s", "1", "--delay",
               "shifted_exp(0.01, 0.01)", "--iterations", "5", "--model", "logistic",
               "--trace", str(path), "--format", "json", "--quiet"])  # fmt: skip
    assert rc == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["iterations"] == 5 and row["need"] == 3
    for key in ("iterations_per_s", "mean_iteration_s", "predicted_s", "final_test_auc",
                "bytes_up_per_it", "stragglers_ignored_per_it", "decode_noise_bound_max",
                "decode_noise_bound_median"):  # fmt: skip
        assert isinstance(row[key], float), key
    assert 0 < row["decode_noise_bound_median"] <= row["decode_noise_bound_max"] < 1e-6
    assert main(["delays", "summary", str(path), "--where", "status=used"]) == 0
    capsys.readouterr()
    # an uncoded run decodes nothing: no bound (JSON null, not a made-up 0)
    main(["run", "--scheme", "gd", "--n", "3", "--iterations", "2", "--format", "json",
          "--quiet"])  # fmt: skip
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["decode_noise_bound_max"] is None and row["decode_noise_bound_median"] is None
    assert "reason" not in row


def test_cli_run_bad_scheme(capsys):
    assert main(["run", "--scheme", "nope", "--n", "4"]) == 2
    assert "unknown scheme 'nope'" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="mpiexec not found (Open MPI absent)")
@pytest.mark.extended  # the same mpiexec run as test_cluster_faults' replay test (default run)
def test_mpi_engine_under_mpiexec(tmp_path):
    pytest.importorskip("mpi4py")
    path = tmp_path / "mpi.csv"
    cmd = ["mpiexec", "--allow-run-as-root", "--oversubscribe", "-n", "5", sys.executable,
           "-m", "gctheory.cli", "run", "--scheme", "cyclic-mds", "--n", "3", "--s", "1",
           "--engine", "mpi", "--delay", "shifted_exp(0.01, 0.01)", "--iterations", "4",
           "--quiet", "--format", "json", "--trace", str(path)]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)["rows"][0]
    assert row["engine"].startswith("mpi") and row["iterations"] == 4
    rp = cl.replay(path)
    assert rp.iterations == 4


def test_dask_oracle_error_and_late_results_are_reported():
    pytest.importorskip("distributed")
    # an oracle error on a Dask worker: named with worker and partition, as on the local engine
    with pytest.raises(cl.ClusterError, match="worker 3 failed on partition 3.*bad batch"):
        cl.run("gd", 4, workload=FlakyOracle(), engine="dask", delay="constant(0)",
               iterations=2, step_size=0.1)  # fmt: skip
    with pytest.warns(cl.WorkerLostWarning, match="partition 3"):
        r = cl.run("ignore", 4, s=1, workload=FlakyOracle(), engine="dask", iterations=3,
                   step_size=0.1, delay="constant(0.02)", on_error="straggler")  # fmt: skip
    assert all(3 not in S for S in r.survivors)
    # one worker 0.2 s late each iteration: its result is not gathered, yet its time is recorded
    # (the margin is the sleep: 0.2 s, twice what a loaded machine broke at 0.1 s)
    r = cl.run("ignore", 4, s=1, engine="dask", delay="constant(0.08)", n_slow=1,
               slowdown=3.5, iterations=8, rng=0, eval_every=0)  # fmt: skip
    slow = np.argmax(r.injected, axis=1)
    assert all(int(i) not in S for i, S in zip(slow, r.survivors))
    t = np.flatnonzero(r.status[np.arange(8), slow] == cl.STATUSES.index("late"))
    assert t.size >= 3  # those that came back before the run ended
    assert (r.response[t, slow[t]] >= r.injected[t, slow[t]] - 1e-3).all()  # after its wait
