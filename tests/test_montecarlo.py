"""Tests of the Monte Carlo engine: intervals, coverage, executors, checkpoints, bad input."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from gctheory.montecarlo import (
    Estimate,
    binomial_estimate,
    chunk_plan,
    estimate_mean,
    estimate_probability,
    seed_sequence,
)
from tests import _mc_events as ev

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


chunks_in = ev.checkpoint_chunks


# --- intervals ---------------------------------------------------------------


def test_wilson_matches_closed_form():
    # Wilson (1927): centre (x + z^2/2)/(n + z^2), half-width z sqrt(n p q + z^2/4)/(n + z^2).
    x, n, level = 37, 120, 0.95
    z = stats.norm.ppf(0.975)
    centre = (x + z * z / 2) / (n + z * z)
    half = z * np.sqrt(x * (n - x) / n + z * z / 4) / (n + z * z)
    e = binomial_estimate(x, n, level=level, interval="wilson")
    assert e.low == pytest.approx(centre - half, rel=1e-12)
    assert e.high == pytest.approx(centre + half, rel=1e-12)


def test_wilson_agrees_with_scipy():
    res = stats.binomtest(37, 120).proportion_ci(confidence_level=0.95, method="wilson")
    e = binomial_estimate(37, 120, level=0.95, interval="wilson")
    assert (e.low, e.high) == pytest.approx((res.low, res.high), rel=1e-10)


def test_clopper_pearson_agrees_with_scipy():
    for x in (0, 3, 50, 120):
        res = stats.binomtest(x, 120).proportion_ci(confidence_level=0.99, method="exact")
        e = binomial_estimate(x, 120, level=0.99, interval="clopper-pearson")
        assert (e.low, e.high) == pytest.approx((res.low, res.high), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("interval", ["wilson", "clopper-pearson"])
def test_zero_and_full_counts_are_exact_at_the_boundary(interval):
    zero = binomial_estimate(0, 1000, interval=interval)
    full = binomial_estimate(1000, 1000, interval=interval)
    assert zero.low == 0.0 and zero.value == 0.0 and 0 < zero.high < 0.01
    assert full.high == 1.0 and full.value == 1.0 and 0.99 < full.low < 1


def test_estimate_repr_and_contains():
    e = binomial_estimate(30, 100, level=0.9)
    assert "trials=100" in repr(e) and "successes=30" in repr(e) and "90%" in repr(e)
    assert e.contains(0.3) and not e.contains(0.6)
    with pytest.raises(AttributeError):
        e.value = 0.5  # frozen


# --- coverage: the interval holds the truth at its stated rate -----------------


def _coverage(target: float, p: float, n: int, level: float, reps: int, seed: int) -> int:
    counts = np.random.default_rng(seed).binomial(n, p, size=reps)
    return sum(binomial_estimate(int(c), n, level=level).contains(target) for c in counts)


def test_wilson_coverage_is_at_least_nominal_statistically():
    # 4000 replicates at level 0.90: if the true coverage were >= 0.89 (Wilson is known to be
    # within about 1% of nominal for n p (1 - p) >= 10), the count falls below the one-sided
    # 0.1% binomial quantile with probability <= 0.001.
    reps, level, p, n = 4000, 0.90, 0.3, 200
    covered = _coverage(p, p, n, level, reps, seed=11)
    assert covered >= stats.binom.ppf(0.001, reps, level - 0.01)
    # and it is not trivially wide: coverage is not near 1
    assert covered <= stats.binom.ppf(0.999, reps, level + 0.03)


def test_coverage_negative_control_fails_for_a_wrong_target():
    # The same check against p + 0.05 (a wrong truth) must fail.
    reps, level, p, n = 4000, 0.90, 0.3, 200
    covered = _coverage(p + 0.05, p, n, level, reps, seed=11)
    assert covered < stats.binom.ppf(0.001, reps, level - 0.01)


def test_engine_interval_covers_known_probability_over_seeds():
    # End-to-end through estimate_probability: 300 seeds at level 0.9.
    p = 1 - (1 - 1 / 8) ** 8  # closed form for ev.min_of_uniforms with n = 8
    event = functools.partial(ev.min_of_uniforms, n=8)
    hits = sum(
        estimate_probability(event, 400, rng=seed, level=0.9, chunk_size=100).contains(p)
        for seed in range(300)
    )
    assert hits >= stats.binom.ppf(0.001, 300, 0.88)
    wrong = sum(
        estimate_probability(event, 400, rng=seed, level=0.9, chunk_size=100).contains(p + 0.08)
        for seed in range(300)
    )
    assert wrong < stats.binom.ppf(0.001, 300, 0.88)  # negative control


@pytest.mark.filterwarnings("ignore:too few draws:gctheory.montecarlo.UnreliableEstimateWarning")
def test_mean_interval_coverage_and_negative_control():
    sampler = functools.partial(ev.exponential, mean=2.0)
    ests = [estimate_mean(sampler, 500, rng=s, level=0.9) for s in range(300)]
    assert sum(e.contains(2.0) for e in ests) >= stats.binom.ppf(0.001, 300, 0.87)
    assert sum(e.contains(2.3) for e in ests) < stats.binom.ppf(0.001, 300, 0.87)
    assert all(e.method == "hall" and e.std > 0 for e in ests)


# --- seeds and chunks ----------------------------------------------------------


def test_chunk_plan():
    assert chunk_plan(10, 3) == [3, 3, 3, 1]
    assert chunk_plan(9, 3) == [3, 3, 3]
    assert chunk_plan(2, 5) == [2]


def test_seed_normalisation():
    assert seed_sequence(5).entropy == 5
    ss = np.random.SeedSequence(9)
    assert seed_sequence(ss) is ss
    g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
    assert seed_sequence(g1).entropy == seed_sequence(g2).entropy
    with pytest.raises(ValueError, match="rng"):
        seed_sequence("seed")
    with pytest.raises(ValueError, match="non-negative"):
        seed_sequence(-1)


def test_same_seed_same_result_and_different_seed_differs():
    event = functools.partial(ev.bernoulli, p=0.37)
    a = estimate_probability(event, 50_000, rng=7, chunk_size=5000)
    b = estimate_probability(event, 50_000, rng=7, chunk_size=5000)
    c = estimate_probability(event, 50_000, rng=8, chunk_size=5000)
    assert a == b
    assert a.successes != c.successes


# --- executors: bit-identical --------------------------------------------------


def test_serial_equals_process_pool_and_thread_pool():
    event = functools.partial(ev.bernoulli, p=0.123)
    sampler = functools.partial(ev.exponential, mean=1.5)
    serial = estimate_probability(event, 100_000, rng=42, chunk_size=7_000)
    pool2 = estimate_probability(event, 100_000, rng=42, chunk_size=7_000, executor=2)
    with ThreadPoolExecutor(3) as tp:
        threads = estimate_probability(event, 100_000, rng=42, chunk_size=7_000, executor=tp)
    assert serial == pool2 == threads
    m_serial = estimate_mean(sampler, 60_000, rng=4, chunk_size=7_000)
    with ProcessPoolExecutor(2) as pp:
        m_pool = estimate_mean(sampler, 60_000, rng=4, chunk_size=7_000, executor=pp)
    assert m_serial == m_pool  # float sums combined in chunk order: identical bits


def test_dask_local_cluster_is_bit_identical():
    distributed = pytest.importorskip("distributed")  # a third-party extra
    from gctheory.montecarlo import ShiftedGaussian, Stop, importance_sampling

    event = functools.partial(ev.bernoulli, p=0.2)
    sampler = functools.partial(ev.exponential, mean=0.5)
    above = functools.partial(ev.first_coordinate_above, t=4.0)
    stop = Stop(rel_half_width=0.05)
    serial = estimate_probability(event, 80_000, rng=2024, chunk_size=6_000)
    m_serial = estimate_mean(sampler, 30_000, rng=5, chunk_size=4_000)
    a_serial = estimate_probability(event, 10**8, rng=3, chunk_size=500, stop=stop)
    i_serial = importance_sampling(above, ShiftedGaussian((4.0,)), 20_000, rng=6, chunk_size=3_000)
    # No fixed port anywhere: the dashboard is off and the scheduler's HTTP server takes any
    # free port (dashboard_address=None alone still binds the default dashboard port).
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        executor = client.get_executor()
        on_dask = estimate_probability(event, 80_000, rng=2024, chunk_size=6_000, executor=executor)
        m_dask = estimate_mean(sampler, 30_000, rng=5, chunk_size=4_000, executor=executor)
        a_dask = estimate_probability(
            event, 10**8, rng=3, chunk_size=500, stop=stop, executor=executor
        )
        i_dask = importance_sampling(
            above, ShiftedGaussian((4.0,)), 20_000, rng=6, chunk_size=3_000, executor=executor
        )
    assert on_dask == serial
    assert m_dask == m_serial
    assert a_dask == a_serial and a_dask.stopped_by == "rel_half_width"
    assert i_dask == i_serial


def test_unpicklable_event_on_a_pool_is_explained():
    with pytest.raises(ValueError, match="picklable"):
        estimate_probability(lambda rng, size: rng.random(size) < 0.5, 100, rng=1, executor=2)


# --- checkpoints -----------------------------------------------------------------


def test_checkpoint_written_and_reused(tmp_path):
    event = functools.partial(ev.bernoulli, p=0.4)
    path = tmp_path / "run.ckpt"
    a = estimate_probability(event, 20_000, rng=3, chunk_size=3_000, checkpoint=path)
    assert chunks_in(path) == 7
    b = estimate_probability(event, 20_000, rng=3, chunk_size=3_000, checkpoint=path)
    assert a == b == estimate_probability(event, 20_000, rng=3, chunk_size=3_000)


@pytest.mark.parametrize(
    "change",
    [{"trials": 21_000}, {"chunk_size": 2_000}, {"rng": 4}, {"event_p": 0.41}],
)
def test_checkpoint_from_other_parameters_is_refused(tmp_path, change):
    path = tmp_path / "run.ckpt"
    estimate_probability(
        functools.partial(ev.bernoulli, p=0.4), 20_000, rng=3, chunk_size=3_000, checkpoint=path
    )
    kwargs = {"trials": 20_000, "rng": 3, "chunk_size": 3_000, "event_p": 0.4} | change
    event = functools.partial(ev.bernoulli, p=kwargs.pop("event_p"))
    with pytest.raises(ValueError, match="different parameters"):
        estimate_probability(event, kwargs.pop("trials"), checkpoint=path, **kwargs)


def test_checkpoint_of_mean_is_not_mixed_with_probability(tmp_path):
    path = tmp_path / "run.ckpt"
    estimate_mean(functools.partial(ev.exponential, mean=1.0), 1000, rng=1, checkpoint=path)
    with pytest.raises(ValueError, match="different parameters"):
        estimate_probability(functools.partial(ev.bernoulli, p=0.5), 1000, rng=1, checkpoint=path)


def test_checkpoint_needs_a_seed(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        estimate_probability(functools.partial(ev.bernoulli, p=0.5), 100, checkpoint=tmp_path / "x")


_KILLED_RUN = textwrap.dedent(
    """
    import functools, sys
    sys.path.insert(0, {root!r})
    from gctheory.montecarlo import estimate_probability
    from tests import _mc_events as ev
    event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.25)
    print(estimate_probability(event, 40_000, rng=99, chunk_size=2_000, checkpoint={path!r}))
    """
)


def test_killed_run_resumes_to_the_identical_result(tmp_path, monkeypatch):
    """SIGKILL a run midway; resuming from its checkpoint gives the uninterrupted result."""
    path = tmp_path / "killed.ckpt"
    script = tmp_path / "run.py"
    script.write_text(_KILLED_RUN.format(root=str(ROOT), path=str(path)))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline:
        time.sleep(0.2)
        if path.exists():
            done = chunks_in(path)
            if done >= 4:
                break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 4 <= done < 20, f"run was not interrupted midway (chunks done: {done})"
    event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.0)
    fast_event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.25)
    # resuming must use the identical event (its fingerprint is in the checkpoint) ...
    with pytest.raises(ValueError, match="different parameters"):
        estimate_probability(event, 40_000, rng=99, chunk_size=2_000, checkpoint=path)
    # ... and the finished chunks were not redone: the resumed run sleeps once per chunk it
    # runs (counted, not timed: a loaded machine cannot change the count)
    on_disk = chunks_in(path)  # the child may have finished a chunk after `done` was read
    slept: list[float] = []
    monkeypatch.setattr(ev, "time", SimpleNamespace(sleep=slept.append))  # this module only
    resumed = estimate_probability(fast_event, 40_000, rng=99, chunk_size=2_000, checkpoint=path)
    monkeypatch.undo()
    assert slept == [0.25] * (20 - on_disk), (on_disk, len(slept))
    fresh = estimate_probability(event, 40_000, rng=99, chunk_size=2_000)
    assert resumed.successes == fresh.successes and resumed == fresh


def test_keyboard_interrupt_keeps_finished_chunks(tmp_path):
    path = tmp_path / "ki.ckpt"
    calls = {"n": 0}

    def interrupting(rng, size):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return rng.random(size) < 0.25

    with pytest.raises(KeyboardInterrupt):
        estimate_probability(interrupting, 10_000, rng=5, chunk_size=1_000, checkpoint=path)
    assert chunks_in(path) == 3


# --- bad input -------------------------------------------------------------------


@pytest.mark.parametrize("trials", [0, -5, 2.5, True, "100"])
def test_bad_trials(trials):
    with pytest.raises(ValueError, match="trials must be a positive integer"):
        estimate_probability(functools.partial(ev.bernoulli, p=0.5), trials, rng=1)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1])
def test_bad_level(level):
    with pytest.raises(ValueError, match=r"level must lie in the open interval \(0, 1\)"):
        estimate_probability(functools.partial(ev.bernoulli, p=0.5), 10, rng=1, level=level)
    with pytest.raises(ValueError, match="level"):
        estimate_mean(functools.partial(ev.exponential, mean=1.0), 10, rng=1, level=level)


def test_event_wrong_shape_and_dtype():
    with pytest.raises(ValueError, match=r"shape \(10,\)"):
        estimate_probability(ev.wrong_shape, 10, rng=1)
    with pytest.raises(ValueError, match="boolean"):
        estimate_probability(ev.wrong_dtype, 10, rng=1)
    with pytest.raises(ValueError, match="boolean"):  # raised inside a worker, re-raised here
        estimate_probability(ev.wrong_dtype, 10, rng=1, executor=2)


def test_sampler_bad_output():
    with pytest.raises(ValueError, match="shape"):
        estimate_mean(lambda rng, size: np.zeros(size + 2), 10, rng=1)
    with pytest.raises(ValueError, match="non-finite"):
        estimate_mean(lambda rng, size: np.full(size, np.inf), 10, rng=1)
    with pytest.raises(ValueError, match="trials must be >= 2"):
        estimate_mean(functools.partial(ev.exponential, mean=1.0), 1, rng=1)


def test_bad_chunk_size_executor_interval():
    event = functools.partial(ev.bernoulli, p=0.5)
    with pytest.raises(ValueError, match="chunk_size"):
        estimate_probability(event, 10, rng=1, chunk_size=0)
    with pytest.raises(ValueError, match="executor"):
        estimate_probability(event, 10, rng=1, executor=0)
    with pytest.raises(ValueError, match="interval"):
        estimate_probability(event, 10, rng=1, interval="wald")
    with pytest.raises(ValueError, match="callable"):
        estimate_probability(0.5, 10, rng=1)


def test_estimate_is_an_estimate():
    e = estimate_probability(functools.partial(ev.bernoulli, p=0.5), 1000, rng=1)
    assert isinstance(e, Estimate) and e.trials == 1000 and e.level == 0.99


# --- progress ----------------------------------------------------------------------


def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    event = functools.partial(ev.bernoulli, p=0.5)
    estimate_probability(event, 4000, rng=1, chunk_size=1000)  # stderr is not a TTY here
    assert capsys.readouterr().err == ""
    estimate_probability(event, 4000, rng=1, chunk_size=1000, progress=False)
    assert capsys.readouterr().err == ""
    estimate_probability(event, 4000, rng=1, chunk_size=1000, progress=True)
    err = capsys.readouterr().err
    assert "100.0%" in err and "4000/4000" in err


def test_binomial_estimate_refuses_impossible_counts():
    with pytest.raises(ValueError, match=r"successes must be an integer in \[0, trials\]"):
        binomial_estimate(5, 3)
    with pytest.raises(ValueError, match="successes"):
        binomial_estimate(-1, 3)
    with pytest.raises(ValueError, match="trials must be a positive integer"):
        binomial_estimate(0, 0)
    assert binomial_estimate(3, 3).value == 1.0  # boundary count is allowed


@pytest.mark.parametrize("bad", [True, np.bool_(False), 2.5, float("nan"), "3"])
def test_binomial_estimate_refuses_counts_that_are_not_whole_numbers(bad):
    # a bool is not a count, though Python calls it an int
    with pytest.raises(ValueError, match="trials must be a positive integer"):
        binomial_estimate(1, bad)
    with pytest.raises(ValueError, match="successes must be an integer"):
        binomial_estimate(bad, 10)
