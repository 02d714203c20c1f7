"""gctheory.cluster on the local engine: real worker processes, sleep-dominated delays."""

from __future__ import annotations

import os
import signal
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from gctheory import cluster as cl  # noqa: E402
from gctheory.delays import read_trace  # noqa: E402
from tests._oracles import FlakyOracle  # noqa: E402

DELAY = "shifted_exp(0.01, 0.01)"


def _full_step_ok(r: cl.ClusterRun, tol: float = 1e-9) -> None:
    """Every step used the full gradient: w_{t+1} = w_t - alpha grad F(w_t)."""
    wl = cl.make_workload(r.config["workload"], r.k)
    alpha = r.config["step_size"]
    for t in range(r.iterations):
        w = r.params_history[t]
        g = wl.full_gradient(w)
        got = (w - r.params_history[t + 1]) / alpha
        assert np.linalg.norm(got - g) <= tol * max(1.0, np.linalg.norm(g)), (r.scheme, t)


@pytest.mark.parametrize(
    ("scheme", "n", "kw"),
    [
        ("gd", 4, {}),
        ("cyclic_mds", 6, {"s": 2}),
        ("frc", 6, {"s": 1}),
        ("ye_abbe", 6, {"s": 2, "m": 2}),
        ("rs", 5, {"s": 2}),
    ],
)
def test_exact_schemes_decode_the_full_gradient(scheme, n, kw):
    r = cl.run(scheme, n, workload="logistic", delay=DELAY, iterations=4, rng=3, **kw)
    assert r.iterations == 4
    _full_step_ok(r, 1e-7)
    # the waiting rule: n - s survivors (FRC: possibly fewer, one per group)
    for S in r.survivors:
        assert len(S) <= r.need
        if scheme != "frc":
            assert len(S) == r.need
    if kw.get("m", 1) > 1:  # the message is d/m numbers long, as the code promises
        assert r.message_numbers_measured == r.message_numbers == -(-r.params.size // kw["m"])


def test_replay_is_bit_for_bit(tmp_path):
    path = tmp_path / "run.csv"
    r = cl.run("cyclic_mds", 5, s=2, delay=DELAY, iterations=6, rng=7, trace=path)
    rp = cl.replay(path)
    assert np.array_equal(rp.params_history, r.params_history)
    assert rp.survivors == r.survivors
    assert np.array_equal(cl.replay(r).params, r.params)
    tr = read_trace(path)
    assert set(tr.columns["status"].astype(str)) <= set(cl.STATUSES)
    assert len(tr) == 6 * 5


def test_decode_forward_error_bound_is_recorded_each_iteration(tmp_path):
    path = tmp_path / "run.csv"
    r = cl.run("cyclic_mds", 5, s=2, delay="shifted_exp(0.005, 0.01)", iterations=4, rng=2,
               eval_every=0, trace=path)  # fmt: skip
    b = r.decode_noise_bound
    assert b.shape == (4,) and np.all(b > 0)
    # the same bound, recomputed from the survivors' messages at the recorded parameters
    sch = cl.build_scheme("cyclic_mds", 5, s=2, seed=r.config["seed"])
    states = cl.Rule(sch).states(cl.make_workload("softmax", sch.k, r.config["seed"]))
    for t, S in enumerate(r.survivors):
        w = r.params_history[t]
        Y = np.stack([states[i].message(w, t) for i in S])
        res = sch.code.decode_detail(S, Y, w.size, on_noise="ignore")
        assert b[t] == res.noise_bound, t
    assert r.noise_bound_max == b.max() and r.noise_bound_median == np.median(b)
    assert dict(r._summary())["decode forward-error bound (max, median)"]
    col = read_trace(path).columns["decode_noise_bound"]
    assert np.allclose(col.astype(float).reshape(4, 5)[:, 0], b, rtol=1e-9, atol=0)


def test_survivors_are_the_fastest_recorded():
    r = cl.run("cyclic_mds", 6, s=2, delay="shifted_exp(0.01, 0.03)", iterations=6, rng=1,
               preempt=False)  # fmt: skip
    for t, S in enumerate(r.survivors):
        others = [i for i in range(r.n) if i not in S and np.isfinite(r.response[t, i])]
        if others:
            assert r.response[t, list(S)].max() <= r.response[t, others].min()
    assert r.stragglers_ignored.tolist() == [2] * 6


def test_ignore_and_approximate_schemes_run():
    r = cl.run("ignore", 5, s=2, delay=DELAY, iterations=3, rng=0)
    assert all(len(S) == 3 for S in r.survivors)
    r = cl.run("bgc", 6, K=4, delay=DELAY, iterations=3, rng=0)
    assert all(len(S) == 4 for S in r.survivors)
    assert np.all(np.isfinite(r.params))


def _kill_at(t_kill: int, worker: int):
    def cb(t, eng):
        if t == t_kill:
            os.kill(eng.pids[worker], signal.SIGKILL)

    return cb


def test_killed_worker_survived_with_s_ge_1():
    eng = cl.LocalEngine()
    with pytest.warns(cl.WorkerLostWarning, match="worker 2 is dead"):
        r = cl.run("cyclic_mds", 5, s=1, engine=eng, delay=DELAY, iterations=6, rng=0,
                   on_iteration=_kill_at(1, 2))  # fmt: skip
    assert r.iterations == 6 and 2 in r.dead
    assert all(2 not in S for S in r.survivors[r.dead[2] :])
    _full_step_ok(r, 1e-7)


def test_killed_worker_refused_with_s_0():
    eng = cl.LocalEngine()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cl.WorkerLostWarning)
        with pytest.raises(cl.ClusterError, match=r"iteration \d+.*\[1\]") as ei:
            cl.run("gd", 4, engine=eng, delay=DELAY, iterations=6, rng=0,
                   on_iteration=_kill_at(1, 1))  # fmt: skip
    part = ei.value.run
    assert part is not None and 2 <= part.iterations < 6
    assert np.array_equal(part.params, part.params_history[-1])


class _Flaky:
    """A user's oracle whose partition 3 raises (with any k: the refusal of a wrong k)."""

    def __init__(self, k: int = 4) -> None:
        self.k, self.dim = k, 3
        self.A = np.arange(1.0, k * 3 + 1).reshape(k, 3) / 10

    def initial_params(self):
        return np.zeros(3)

    def partial_gradient(self, params, partition):
        if partition == 3:
            raise RuntimeError("bad batch")
        return params - self.A[partition]


def test_oracle_error_names_worker_and_partition():
    # the oracle from tests._oracles: a worker process unpickling a class of this module
    # would import the module, pytest and all (about 0.2 s of CPU per worker)
    with pytest.raises(cl.ClusterError, match="worker 3 failed on partition 3.*bad batch"):
        cl.run("gd", 4, workload=FlakyOracle(), delay="constant(0)", iterations=2, step_size=0.1)
    with pytest.warns(cl.WorkerLostWarning, match="partition 3"):
        r = cl.run("ignore", 4, s=1, workload=FlakyOracle(), iterations=3, step_size=0.1,
                   delay="constant(0.05)", on_error="straggler")  # fmt: skip
    assert all(3 not in S for S in r.survivors)


class _Tiny(cl.LocalEngine):
    max_workers = 3


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scheme": "nope"}, "unknown scheme 'nope'; valid schemes"),
        ({"scheme": "lgc", "s": 1}, "simulated only.*cyclic_mds"),
        ({"delay": "weird(1)"}, "unknown delay 'weird\\(1\\)'; valid delays"),
        ({"workload": _Flaky(k=3)}, "k=4 partitions but the workload has k=3"),
        ({"engine": "spark"}, "unknown engine 'spark'; valid engines: local"),
        ({"engine": _Tiny()}, "n=4 workers but the local engine provides 3"),
        ({"workload": "linear"}, "unknown workload 'linear'; valid: softmax"),
        ({"on_error": "ignore"}, "on_error must be 'stop' or 'straggler'"),
    ],
)
def test_bad_input_is_refused_before_any_work(kwargs, match):
    args = {"scheme": "gd", "n": 4, "iterations": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        cl.run(**args)


def test_digits_metrics_and_auc():
    wl = cl.DigitsWorkload("logistic", k=4, seed=0)
    m = wl.metrics(wl.initial_params())
    assert set(m) == {"train_loss", "train_accuracy", "test_loss", "test_accuracy", "test_auc"}
    assert abs(m["train_loss"] - np.log(2)) < 1e-12
    g = sum(wl.partial_gradient(np.ones(wl.dim) * 0.01, j) for j in range(4))
    assert np.allclose(g, wl.full_gradient(np.ones(wl.dim) * 0.01))
    assert cl.roc_auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1])) == 0.75
