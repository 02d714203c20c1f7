"""The run loop (gctheory.loop), the run spec (gctheory.cluster.spec) and what plugs into them.

The real-run master is driven here by an in-process fake engine (every worker answers at once,
in the order of its injected delay), so the loop, its callbacks, checkpoints and the sequential
codes' rounds are exercised without starting a process.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from gctheory.cluster import Engine, Event, replay, run
from gctheory.cluster.checkpoint import load_checkpoint, save_checkpoint
from gctheory.cluster.spec import RunSpec
from gctheory.loop import IterationEvent, run_loop


class FakeEngine(Engine):
    """Workers in this process: each submitted task answers at the next poll, fastest
    injected delay first (so the survivor sets are fixed by the seed)."""

    name = "fake"

    def start(self, states):
        self.states, self.queue, self.submitted = states, [], 0

    def submit(self, worker, t, params, delay, preempt):
        self.submitted += 1
        self.queue.append((delay, worker, t, self.states[worker].message(params, t)))
        return 8

    def poll(self, timeout):
        out, now = [], time.perf_counter()
        for _, i, t, msg in sorted(self.queue, key=lambda q: (q[0], q[1])):
            out.append(Event("result", worker=i, t=t, at=now, message=msg, nbytes=msg.nbytes))
        self.queue = []
        return out

    def close(self):
        pass


class Events:
    def __init__(self):
        self.seen = []

    def on_iteration(self, event):
        self.seen.append((event.t, event.done, event.params.copy()))


# ---------------------------------------------------------------- the run spec
def test_spec_round_trips_through_json_and_validates_once():
    spec = RunSpec.build("frc", 4, 1, iterations=7, delay="exp(0.01)", rng=3, persist=2,
                         code_options={"a": 1}, deadline=0.5)  # fmt: skip
    text = json.dumps(spec.to_json())
    assert RunSpec.from_json(json.loads(text)) == spec
    assert spec.delay.persist == 2 and spec.faults.deadline == 0.5 and spec.seed == 3


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(n=0), "n must be a positive int"),
        (dict(iterations=0), "iterations must be a positive int"),
        (dict(on_error="ignore"), "on_error must be 'stop' or 'straggler'"),
        (dict(deadline=-1.0), "deadline must be > 0"),
        (dict(timeout=0), "timeout must be > 0"),
        (dict(rng=-1), "rng must be a nonnegative int seed"),
        (dict(step_size=0.0), "step_size must be > 0"),
        (dict(eval_every=-1), "eval_every must be an int >= 0"),
        (dict(checkpoint_every=0), "checkpoint_every must be a positive int"),
        (dict(colour="red"), r"unknown run option\(s\) \['colour'\]"),
    ],
)
def test_spec_refuses_bad_values_by_name(kw, match):
    base = dict(scheme="frc", n=4, s=1)
    base.update(kw)
    with pytest.raises(ValueError, match=match):
        RunSpec.build(base.pop("scheme"), base.pop("n"), base.pop("s"), **base)


def test_spec_of_an_object_workload_is_a_label_that_cannot_be_rebuilt():
    class Oracle:
        def spec(self):
            return {"kind": "mine"}

    data = RunSpec.build("frc", 4, 1, workload=Oracle()).to_json()
    assert data["workload"] == {"object": "Oracle", "spec": {"kind": "mine"}}
    with pytest.raises(ValueError, match="workload was an object"):
        RunSpec.from_json(data)
    with pytest.raises(ValueError, match="not a run spec"):
        RunSpec.from_json({"format": "other"})


def test_spec_differences_name_the_fields_a_resume_may_not_change():
    a = RunSpec.build("frc", 4, 1, rng=1, delay="exp(1)")
    assert a.differences(a.to_json()) == []
    b = RunSpec.build("frc", 4, 1, rng=2, delay="exp(2)", iterations=50, timeout=5.0)
    assert a.differences(b.to_json()) == ["delay.law", "seed"]  # iterations, timeout may change


def test_resume_refuses_a_checkpoint_of_a_different_spec_naming_the_fields(tmp_path):
    a = RunSpec.build("frc", 4, 1, rng=1)
    path = save_checkpoint(tmp_path / "c.ckpt", {"config": {"seed": 1}, "spec": a.to_json()})
    assert load_checkpoint(path, spec=a.with_(iterations=500)) is not None
    with pytest.raises(ValueError, match=r"seed=1, but this run has seed=2.*differing: seed"):
        load_checkpoint(path, spec=a.with_(seed=2))


def test_a_checkpoint_without_a_spec_is_compared_by_its_config(tmp_path):
    # a checkpoint written before checkpoints held a spec: its config decides
    path = save_checkpoint(tmp_path / "old.ckpt", {"config": {"seed": 1}})
    with pytest.raises(ValueError, match="seed=1, but this run has seed=2"):
        load_checkpoint(path, {"seed": 2}, spec=RunSpec.build("frc", 4, 1, rng=2))


# ---------------------------------------------------------------- the loop
def test_the_loop_steps_and_hands_every_iteration_to_the_callbacks():
    class Rounds:
        def __init__(self):
            self.calls = []

        def begin(self, t, w):
            return t < 3  # a source may stop the loop (the simulator's target loss)

        def play(self, t, w):
            self.calls.append(t)
            return None if t == 0 else 2 * w  # no step in round 0 (a sequential code)

        def end(self, t, w):
            pass

        def close(self, w, done):
            self.closed = done

    rounds, cb = Rounds(), Events()
    w, done = run_loop(rounds, np.array([1.0]), start=0, stop=10, step_size=0.25, callbacks=[cb])
    assert done == 3 and rounds.closed == 3 and rounds.calls == [0, 1, 2]
    assert [(t, k, p.tolist()) for t, k, p in cb.seen] == [(0, 1, [1.0]), (1, 2, [0.5]),
                                                          (2, 3, [0.25])]  # fmt: skip
    assert isinstance(IterationEvent(0, 1, w), IterationEvent)


@pytest.mark.parametrize("scheme, s", [("frc", 1), ("gd", None), ("bgc", 1)])
def test_the_master_loop_on_a_fake_engine_replays_bit_for_bit(scheme, s):
    seen = []
    r = run(scheme, 4, s, engine=FakeEngine(), delay="exp(1)", iterations=6, rng=5,
            progress=False, on_iteration=lambda t, eng: seen.append(t))  # fmt: skip
    assert seen == list(range(6)) and r.iterations == 6
    assert np.array_equal(replay(r).params_history, r.params_history)
    if scheme == "frc":  # decoded from among the fastest n - s (the fake engine's order)
        for t, S in enumerate(r.survivors):
            assert set(S) <= set(np.argsort(r.injected[t], kind="stable")[:3].tolist())
    assert r.config["spec"]["scheme"]["name"] == scheme


@pytest.mark.parametrize("scheme", ["sr_sgc", "m_sgc"])
def test_sequential_schemes_run_through_the_same_loop(scheme):
    r = run(scheme, 4, 1, engine=FakeEngine(), delay="constant(0.01)", iterations=6, rng=2,
            progress=False)  # fmt: skip
    assert r.iterations == 6 and r.config["straggled"] == 0
    assert np.array_equal(replay(r).params_history, r.params_history)
    assert not np.array_equal(r.params_history[0], r.params_history[-1])


def test_a_resumed_run_goes_on_bit_for_bit_and_a_different_spec_is_refused(tmp_path):
    ckpt = tmp_path / "run.ckpt"
    kw = dict(engine=FakeEngine(), delay="exp(1)", rng=7, progress=False)
    whole = run("frc", 4, 1, iterations=6, **kw)
    run("frc", 4, 1, iterations=3, checkpoint=ckpt, **kw)
    kw["engine"] = FakeEngine()
    resumed = run("frc", 4, 1, iterations=6, checkpoint=ckpt, resume=True, **kw)
    assert np.array_equal(resumed.params_history, whole.params_history)
    assert resumed.survivors == whole.survivors
    with pytest.raises(ValueError, match=r"differing: delay\.persist"):
        run("frc", 4, 1, iterations=6, checkpoint=ckpt, resume=True, persist=2, **kw)


def test_run_takes_a_spec_whole_and_refuses_both():
    spec = RunSpec.build("frc", 4, 1, engine=FakeEngine(), delay="exp(1)", iterations=3, rng=1)
    r = run(spec=spec, progress=False)
    assert r.iterations == 3 and r.config["spec"] == spec.to_json()
    with pytest.raises(ValueError, match="either spec=RunSpec or scheme and n"):
        run("frc", 4, spec=spec)


def test_simulate_takes_a_run_spec_as_its_keywords_would():
    from gctheory.training import simulate

    spec = RunSpec.build("frc", 4, 1, delay="exp(1)", iterations=5, rng=0, workload="logistic")
    a = simulate(spec=spec)
    b = simulate("frc", n=4, s=1, delay="exp(1)", iterations=5, rng=0, model="logistic")
    assert np.array_equal(a.loss, b.loss) and np.array_equal(a.time, b.time)
    with pytest.raises(ValueError, match="either spec=RunSpec or scheme and n"):
        simulate("frc", n=4, spec=spec)


class DyingEngine(FakeEngine):
    """Worker 3 dies at iteration 2 (a ``dead`` event instead of its result)."""

    def poll(self, timeout):
        out = super().poll(timeout)
        for k, ev in enumerate(out):
            if ev.worker == 3 and ev.t == 2:
                out[k] = Event("dead", worker=3, t=2, at=ev.at, error="killed")
        return out


def test_the_fault_policy_makes_a_dead_worker_a_straggler_and_warns_at_the_caller():
    from gctheory.cluster import WorkerLostWarning

    with pytest.warns(WorkerLostWarning, match="worker 3 is dead at iteration 2") as got:
        r = run("frc", 4, 1, engine=DyingEngine(), delay="exp(1)", iterations=5, rng=1,
                progress=False)  # fmt: skip
    assert r.dead == {3: 2} and all(3 not in S for S in r.survivors[2:])
    assert got[0].filename == __file__  # the warning points at the run(...) call
    assert np.array_equal(replay(r).params_history, r.params_history)


def test_the_fault_policy_stops_on_an_oracle_error_with_the_run_so_far():
    from gctheory.cluster import ClusterError

    class Failing(FakeEngine):
        def poll(self, timeout):
            out = super().poll(timeout)
            if out and out[0].t == 1:
                out[0] = Event("error", worker=0, t=1, at=out[0].at, error=RuntimeError("bad"))
            return out

    with pytest.raises(ClusterError, match="bad") as info:
        run("gd", 3, engine=Failing(), iterations=4, rng=0, progress=False)
    assert info.value.run.iterations == 1
