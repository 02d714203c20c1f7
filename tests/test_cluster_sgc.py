"""SR-SGC and M-SGC on real workers: delayed exact gradients, replay, waiting rule, bad input."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from gctheory import cluster as cl  # noqa: E402
from gctheory.cluster.processes import can_start_processes  # noqa: E402
from gctheory.cluster.workloads import make_workload  # noqa: E402


@pytest.fixture(scope="module")
def _processes():
    # asked when a test needs it, not at collection (where every xdist worker would start
    # a forkserver for it)
    ok, why = can_start_processes()
    if not ok:
        pytest.skip(f"no worker process can start: {why}")


needs_processes = pytest.mark.usefixtures("_processes")

CASES = [
    ("sr_sgc", 5, {"B": 1, "W": 2, "lam": 2}),
    ("sr_sgc", 4, {"B": 2, "W": 3, "lam": 2}),
    ("m_sgc", 5, {"B": 1, "W": 3, "lam": 2}),
    ("m_sgc", 4, {"B": 1, "W": 2, "lam": 1}),
]


def _full_gradient(r, name, n, opts):
    sch = cl.build_scheme(name, n, code_options=opts, seed=r.config["seed"])
    wl = make_workload(r.config["workload"], sch.k, r.config["seed"])
    return sch, lambda w: sum(wl.partial_gradient(w, j) for j in range(sch.k))


def _check_delayed_exact(r, name, n, opts):
    sch, grad = _full_gradient(r, name, n, opts)
    h, alpha, T = r.params_history, r.config["step_size"], sch.T
    assert T == (opts["B"] if name == "sr_sgc" else opts["W"] - 2 + opts["B"])
    for t in range(r.iterations):
        if t < T:  # nothing decoded yet: no step
            assert np.array_equal(h[t + 1], h[t])
        else:  # the gradient of job t - T, at the parameters it was issued with
            np.testing.assert_allclose((h[t] - h[t + 1]) / alpha, grad(h[t - T]), atol=1e-10)


@needs_processes
@pytest.mark.parametrize(("name", "n", "opts"), CASES)
def test_applied_gradient_is_the_exact_gradient_of_its_round_and_replay_is_bitwise(
    name, n, opts, tmp_path
):
    path = tmp_path / "run.csv"
    r = cl.run(name, n, code_options=opts, delay="shifted_exp(0.01, 0.02)", iterations=14,
               workload="logistic", rng=3, trace=path, progress=False)  # fmt: skip
    assert r.iterations == 14 and r.scheme == name
    _check_delayed_exact(r, name, n, opts)
    # rounds went on without some workers (the coding was used), each admissible
    assert r.config["straggled"] > 0
    sch = cl.build_scheme(name, n, code_options=opts)
    pattern = np.array([[i not in S for i in range(n)] for S in r.survivors])
    assert sch.code.model.admissible(pattern)
    assert set(cl.STATUSES[s] for s in np.unique(r.status)) <= {"used", "never", "late"}
    for rp in (cl.replay(r), cl.replay(path)):  # from the run and from the trace file
        assert np.array_equal(rp.params_history, r.params_history)
        assert np.array_equal(rp.params, r.params)
    assert r.metrics["train_loss"][-1] < r.metrics["train_loss"][0]


@needs_processes
@pytest.mark.parametrize("name", ["sr_sgc", "m_sgc"])
def test_a_pattern_outside_the_model_falls_back_to_waiting_for_all(name):
    # two workers 50x slower every round, lambda = 1: leaving them out is outside the model.
    # The gap (10 ms against 0.5 s) is far beyond the (1 + mu) = 2x cut even when a loaded
    # machine wakes the fast workers tens of ms late (at 2 ms against 40 ms it was not)
    opts = {"B": 1, "W": 2, "lam": 1}
    r = cl.run(name, 4, code_options=opts, delay="constant(0.01)", n_slow=2, slowdown=50,
               iterations=6, workload="logistic", progress=False)  # fmt: skip
    assert r.config["waited_all"] == 6 and r.config["straggled"] == 0
    assert all(S == (0, 1, 2, 3) for S in r.survivors)
    assert (r.wait_time > 0.3).all()  # it waited for the slow ones
    _check_delayed_exact(r, name, 4, opts)
    assert np.array_equal(cl.replay(r).params, r.params)


class _NoStart(cl.Engine):
    name = "nostart"

    def start(self, states):  # pragma: no cover - must not be reached
        raise AssertionError("a process started before the check")


@pytest.mark.parametrize(
    ("name", "n", "opts", "match"),
    [
        ("sr_sgc", 4, {"B": 2, "W": 4, "lam": 1}, "B to divide W - 1"),
        ("m_sgc", 4, {"B": 3, "W": 3, "lam": 1}, "B <= W - 1"),
        ("sr_sgc", 4, {"B": 1, "W": 1, "lam": 1}, "W"),
        ("m_sgc", 4, {"B": 1, "W": 2, "lam": 5}, "lambda <= n"),
        ("sr_sgc", 4, {"B": 1, "W": 2, "X": 1}, "unknown"),
    ],
)
def test_bad_parameters_are_refused_before_any_process_starts(name, n, opts, match):
    with pytest.raises(ValueError, match=match):
        cl.run(name, n, code_options=opts, engine=_NoStart(), iterations=3)


@needs_processes
def test_deadline_ends_a_round_only_where_the_decoder_allows():
    # one worker 60x slower per round; the (1 + mu) cut comes late (mu = 40): only the
    # deadline (0.1 s) can end a round early, and only when leaving the slow one out keeps
    # the pattern inside (B, W, lambda) = (1, 2, 1) (never two rounds in a row)
    opts = {"B": 1, "W": 2, "lam": 1, "mu": 40}
    kw = dict(code_options=opts, delay="constant(0.01)", n_slow=1, slowdown=60, iterations=6,
              workload="logistic", rng=1, progress=False)  # fmt: skip
    r = cl.run("sr_sgc", 4, deadline=0.1, **kw)
    short = np.array([len(S) < 4 for S in r.survivors])
    assert r.config["deadline_rounds"] == short.sum() >= 1
    assert (r.wait_time[short] < 0.3).all()  # cut at the deadline, not at (1 + mu) x fastest
    sch = cl.build_scheme("sr_sgc", 4, code_options=opts)
    pattern = np.array([[i not in S for i in range(4)] for S in r.survivors])
    assert sch.code.model.admissible(pattern)
    _check_delayed_exact(r, "sr_sgc", 4, opts)  # the decoder decoded every job exactly
    assert np.array_equal(cl.replay(r).params, r.params)
    # negative control: without the deadline a round with a straggler waits for the late cut
    r0 = cl.run("sr_sgc", 4, **kw)
    short0 = np.array([len(S) < 4 for S in r0.survivors])
    assert r0.config["deadline_rounds"] == 0 and (r0.wait_time[short0] > 0.3).all()


@needs_processes
@pytest.mark.parametrize(("name", "opts"), [("sr_sgc", {"B": 1, "W": 2, "lam": 2}),
                                            ("m_sgc", {"B": 1, "W": 3, "lam": 2})])  # fmt: skip
def test_checkpoint_resume_loses_no_finished_round(name, opts, tmp_path):
    ckpt = tmp_path / "run.ckpt"
    kw = dict(code_options=opts, delay="shifted_exp(0.005, 0.01)", workload="logistic", rng=2,
              progress=False, checkpoint=ckpt)  # fmt: skip

    def stop(t, engine):
        if t == 4:
            raise KeyboardInterrupt  # the master interrupted after round 4

    with pytest.raises(cl.ClusterError, match="interrupted after 5"):
        cl.run(name, 5, iterations=10, on_iteration=stop, **kw)
    from gctheory.cluster.checkpoint import load_checkpoint

    state = load_checkpoint(ckpt)
    assert state["done"] == 5 and len(state["sequential"]["stragglers"]) == 5
    r = cl.run(name, 5, iterations=10, resume=True, **kw)
    assert r.iterations == 10
    assert np.array_equal(r.params_history[:6], state["history"])
    assert r.survivors[:5] == state["survivors"]
    # jobs issued before the stop and decoded after it are exact: nothing in flight was lost
    _check_delayed_exact(r, name, 5, opts)
    assert np.array_equal(cl.replay(r).params, r.params)
    with pytest.raises(ValueError, match="code_options"):  # another (B, W, lambda): refused
        cl.run(name, 5, iterations=12, resume=True, **{**kw, "code_options": {**opts, "lam": 1}})


def test_listed_as_running_for_real():
    assert {"sr_sgc", "m_sgc"} <= set(cl.SUPPORTED_SCHEMES)


@needs_processes
def test_cli_runs_sr_sgc_with_B_W_lambda(tmp_path, capsys):
    import json

    from gctheory.cli import main

    path = tmp_path / "cli.csv"
    main(["run", "--scheme", "sr-sgc", "--n", "4", "--B", "1", "--W", "2", "--lambda", "1",
          "--delay", "shifted_exp(0.005, 0.01)", "--iterations", "6", "--quiet", "--format",
          "json", "--trace", str(path), "--model", "logistic"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    row = out["rows"][0] if isinstance(out, dict) else out[0]
    assert row["scheme"] == "sr_sgc" and row["iterations"] == 6
    assert row["rounds_waited_for_all"] + row["rounds_with_stragglers"] <= 6
    assert np.isfinite(row["final_train_loss"])
    assert cl.replay(path).iterations == 6
