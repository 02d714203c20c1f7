"""Tests of gctheory.training: the straggler simulator of distributed training."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from gctheory import order_stats as os_
from gctheory import runtime as rt
from gctheory import training as tr
from gctheory.training import simulator
from gctheory.training.schemes import Iteration

# a training run is expensive: these tests estimate means from a few runs, and the engine
# says so (UnreliableEstimateWarning "too few draws"); the intervals are not what they test
pytestmark = pytest.mark.filterwarnings(
    "ignore:too few draws:gctheory.montecarlo.UnreliableEstimateWarning"
)

EXP = "exp(1)"


# ---------------------------------------------------------------- models


def _partition_loss(model, w, X, y, N, share):
    loss, _, _ = model.forward(w, X, y)
    return loss / N + 0.5 * share * model.l2 * float(w @ w)


@pytest.mark.parametrize("kind", ["logistic", "softmax"])
def test_partial_gradients_match_finite_differences(kind):
    model = tr.LogisticRegression(0.01) if kind == "logistic" else tr.SoftmaxRegression(0.01)
    data = tr.load_digits_dataset("binary" if kind == "logistic" else "multiclass")
    rng = np.random.default_rng(0)
    parts = tr.partition_indices(data.classes, 5, rng=1)
    N, k = len(data.y), 5
    w = 0.1 * rng.standard_normal(model.dim(data))
    full = np.zeros_like(w)
    for p in parts:
        X, y = data.X[p], data.y[p]
        _, resid, _ = model.forward(w, X, y)
        g = model.back(X, resid) / N + model.l2 / k * w
        full += g
        # central differences on a few random directions: error O(h^2) ~ 1e-10
        for _ in range(3):
            v = rng.standard_normal(w.size)
            h = 1e-5
            fd = (
                _partition_loss(model, w + h * v, X, y, N, 1 / k)
                - _partition_loss(model, w - h * v, X, y, N, 1 / k)
            ) / (2 * h)
            assert abs(fd - g @ v) <= 1e-7 * max(1.0, abs(fd))
    # the partials sum to the gradient of the full loss
    _, resid, _ = model.forward(w, data.X, data.y)
    assert np.allclose(full, model.back(data.X, resid) / N + model.l2 * w, atol=1e-12)


def test_model_dataset_mismatch_is_rejected():
    with pytest.raises(ValueError, match="binary"):
        tr.simulate("gd", n=4, model="logistic", data="digits", iterations=2)
    with pytest.raises(ValueError, match="model must be"):
        tr.simulate("gd", n=4, model="svm", iterations=2)


def test_non_iid_partition_holds_c_classes_and_covers_the_data():
    data = tr.load_digits_dataset()
    for c in (1, 2, 3):
        parts = tr.partition_indices(data.classes, 10, classes_per_part=c, rng=3)
        assert all(len(np.unique(data.classes[p])) == c for p in parts)
        allidx = np.concatenate(parts)
        assert len(allidx) == len(data.y) and len(np.unique(allidx)) == len(data.y)
    with pytest.raises(ValueError, match="classes_per_part"):
        tr.partition_indices(data.classes, 10, classes_per_part=11)


# ---------------------------------------------------------------- delays


def test_delay_specs_and_bad_delays():
    d = tr.parse_delay("shifted_exp(0.05, 0.02)")
    assert d.dist.mean() == pytest.approx(0.07)  # 0.05 + 0.02
    with pytest.raises(ValueError, match="valid delays"):
        tr.parse_delay("weibull(1)")
    with pytest.raises(ValueError, match="negative"):
        tr.parse_delay("shifted_exp(-0.05, 0.02)")
    with pytest.raises(ValueError, match="nonnegative"):
        tr.DelayModel(stats.norm())
    with pytest.raises(ValueError, match="persist"):
        tr.parse_delay(EXP, persist=0)


def test_persistent_draws_are_kept_for_h_iterations():
    run = tr.simulate("gd", n=5, iterations=12, persist=4, record_draws=True, rng=1)
    D = run.draws
    for t in range(12):
        assert np.array_equal(D[t], D[4 * (t // 4)])
    assert not np.array_equal(D[0], D[4])


# ---------------------------------------------------------------- schemes


def test_unknown_scheme_lists_the_valid_ones_and_K_above_n_fails():
    with pytest.raises(ValueError, match="valid schemes: uncoded, ignore-s, lgc"):
        tr.simulate("async", n=4)
    with pytest.raises(ValueError, match="K must be at most n=4"):
        tr.simulate("ignore", n=4, K=5)
    with pytest.raises(ValueError, match="needs K"):
        tr.simulate("lgc", n=4)


@pytest.mark.parametrize(
    "scheme, opts, rank",
    [
        ("gd", {}, lambda T, n: np.sort(T)[n - 1]),
        ("ignore", {"K": 7}, lambda T, n: np.sort(T)[6]),
        ("lgc", {"K": 7}, lambda T, n: np.sort(T)[6]),
        ("cyclic_mds", {"s": 2}, lambda T, n: np.sort(T)[n - 3]),
        ("ggd", {"r": 2}, lambda T, n: T.reshape(-1, 2).min(axis=1).max()),
    ],
)
def test_waiting_time_is_the_order_statistic_of_the_draws(scheme, opts, rank):
    run = tr.simulate(scheme, n=10, iterations=6, record_draws=True, rng=7, **opts)
    for t in range(run.iterations):
        T = run.loads * run.draws[t]
        assert run.wait[t] == rank(T, 10)  # exact: the same floats, sorted
    assert np.allclose(np.diff(run.time), run.wait)


def test_mean_iteration_time_agrees_with_expected_order_statistic():
    dist = stats.expon(loc=0.05, scale=0.02)
    # 30 runs of 20 iterations (40 cost twice the CPU), the interval at the same 99%: its
    # half-width ~0.001 at 20 against a gap of 0.037 to the negative control
    kw = dict(scheme="ignore", K=7, n=10, delay="shifted_exp(0.05, 0.02)", iterations=20)
    est = tr.estimate_run_metric("mean_wait", 30, rng=11, level=0.99, **kw)
    exact = os_.expected_order_statistic(dist, 7, 10)  # 0.05 + 0.02 (H_10 - H_3)
    assert exact == pytest.approx(0.05 + 0.02 * (sum(1 / j for j in range(4, 11))))
    assert est.contains(exact)
    # negative control: the wrong order statistic (the maximum) lies outside
    assert not est.contains(os_.expected_order_statistic(dist, 10, 10))


EXACT = [
    ("cyclic_mds", {"s": 2}),
    ("frc", {"s": 2}),
    ("ye_abbe", {"s": 2, "m": 2}),
    ("rs", {"s": 2}),
    ("commfr", {"s": 2, "m": 2}),
    ("ggd", {"r": 3}),
    ("lag", {"xi": 0.0}),
    ("glag", {"r": 3, "xi": 0.0}),
    ("lagc", {"r": 2, "groups": 2, "xi": 0.0}),
    ("lgc", {"K": 12}),
]


@pytest.mark.parametrize("scheme, opts", EXACT, ids=[e[0] for e in EXACT])
def test_exact_schemes_reproduce_gd_iterates_without_stragglers(scheme, opts):
    base = dict(n=12, delay="constant(1)", iterations=15, rng=3)
    gd = tr.simulate("gd", **base)
    try:
        run = tr.simulate(scheme, **base, **opts)
    except ValueError as exc:
        if "not available in this build" in str(exc):
            pytest.skip(str(exc))
        raise
    # rounding of the decoders only: relative 1e-9 on the model after 15 steps
    assert np.allclose(run.w, gd.w, rtol=1e-9, atol=1e-12)
    assert np.allclose(run.loss, gd.loss, rtol=1e-12)


def test_ignore_stragglers_is_not_exact():
    # negative control of the test above: K-SGD under constant delays uses the same
    # 7 workers every time, so its iterates differ from GD's
    base = dict(n=12, delay="constant(1)", iterations=15, rng=3, partition=2)
    gd, ks = tr.simulate("gd", **base), tr.simulate("ignore", K=7, **base)
    assert not np.allclose(ks.w, gd.w, rtol=1e-3)


@pytest.mark.parametrize(
    "scheme, opts", [("cyclic_mds", {"s": 3}), ("rs", {"s": 3}), ("ye_abbe", {"s": 2, "m": 2})]
)
def test_decoded_gradient_within_decoding_error_bound(scheme, opts):
    rng = np.random.default_rng(5)
    sch = tr.make_scheme(scheme, 12, rng=1, **opts)
    for _ in range(5):
        G = rng.standard_normal((sch.k, 37))
        X = rng.exponential(size=12)
        step = sch.step(Iteration(G, X, np.zeros(1), 0, lambda *a: None))
        res = sch.last_decode
        bound = res.error_bound(scale=float(np.abs(G).max(axis=1).sum()), size=sch.n)
        assert np.max(np.abs(step.grad - G.sum(axis=0))) <= bound
        assert len(res.survivors) == sch.f


def test_lgc_compensation_matches_eq7():
    rng = np.random.default_rng(2)
    N, K = 10, 7
    for _ in range(20):
        g = rng.standard_normal((N, 6))
        S = rng.choice(N, K, replace=False)
        notS = np.setdiff1d(np.arange(N), S)
        e = tr.lgc_compensation(g, S)
        # eq. (7), first line: mean over all N minus mean over the K fastest
        assert np.allclose(e, g.mean(axis=0) - g[S].mean(axis=0), atol=1e-14)
        # eq. (7), second line
        bracket = g[notS].mean(axis=0) - g[S].mean(axis=0)
        assert np.allclose(e, (N - K) / N * bracket, atol=1e-14)
    with pytest.raises(ValueError):
        tr.lgc_compensation(g, [])


def test_lgc_update_is_fresh_mean_plus_previous_compensation():
    # Algorithm 1, line 22 of Xu et al.: g_t = g'_t + e_{t-1}
    rng = np.random.default_rng(4)
    n, K = 8, 5
    sch = tr.make_scheme("lgc", n, K=K)
    G0, G1 = rng.standard_normal((2, n, 3))
    X0, X1 = rng.exponential(size=(2, n))
    s0 = sch.step(Iteration(G0, X0, np.zeros(3), 0, lambda *a: None))
    S0 = np.argsort(X0, kind="stable")[:K]
    assert np.allclose(s0.grad, (n * G0[S0]).mean(axis=0))
    s1 = sch.step(Iteration(G1, X1, np.zeros(3), 1, lambda *a: None))
    S1 = np.argsort(X1, kind="stable")[:K]
    expect = (n * G1[S1]).mean(axis=0) + tr.lgc_compensation(n * G0, S0)
    assert np.allclose(s1.grad, expect)
    # summed over the two steps, the compensation restores the full gradient of step 0
    assert np.allclose(s0.grad + tr.lgc_compensation(n * G0, S0), G0.sum(axis=0))


def test_lgc_partial_work_and_linear_scaling():
    base = dict(n=10, K=7, delay="shifted_exp(0.05, 0.02)", iterations=30, rng=2, partition=3)
    full = tr.simulate("lgc", **base)
    part = tr.simulate("lgc", partial_work=True, blocks=4, **base)
    noscale = tr.simulate("lgc", partial_work=True, blocks=4, linear_scaling=False, **base)
    assert np.array_equal(full.time, part.time)  # same draws, same waits
    assert part.comp.sum() < full.comp.sum()  # stragglers stopped early
    assert not np.allclose(part.w, noscale.w)


def test_lag_saves_communication_and_runs_are_reproducible():
    base = dict(n=10, delay=EXP, iterations=60, rng=5)
    gd, lag = tr.simulate("gd", **base), tr.simulate("lag", **base)
    assert lag.comm.sum() < gd.comm.sum()
    again = tr.simulate("lag", **base)
    assert np.array_equal(lag.w, again.w) and np.array_equal(lag.time, again.time)
    # random code constructions draw from the run's rng too: bit-identical reruns
    for name, o in (("lagc", {"r": 2, "groups": 2}), ("cyclic_mds", {"s": 2}), ("bgc", {"s": 2})):
        a = tr.simulate(name, n=10, iterations=5, rng=6, **o)
        b = tr.simulate(name, n=10, iterations=5, rng=6, **o)
        assert np.array_equal(a.w, b.w), name


def test_lazy_schemes_record_how_often_each_group_was_selected():
    base = dict(n=10, delay=EXP, iterations=60, rng=5)
    lag = tr.simulate("lag", **base)
    # LAG: one group per worker; each selected at the first iteration, and the counts
    # add up to the uploads (a selected worker downloads and uploads: comm = 2 per worker)
    assert lag.selected.shape == (10,) and lag.selected.min() >= 1
    assert lag.selected.sum() == lag.comm.sum() / 2
    ggd = tr.simulate("ggd", r=2, **base)  # every group every iteration
    assert np.array_equal(ggd.selected, np.full(5, 60))
    assert tr.simulate("gd", **base).selected is None


def test_estimate_run_metric_validates_and_is_seeded():
    kw = dict(scheme="gd", n=4, iterations=5)
    a = tr.estimate_run_metric("total_time", 3, rng=1, **kw)
    b = tr.estimate_run_metric("total_time", 3, rng=1, **kw)
    assert a == b
    with pytest.raises(ValueError, match="metric"):
        tr.estimate_run_metric("speed", 3, **kw)
    with pytest.raises(ValueError, match="target_loss"):
        tr.estimate_run_metric("time_to_target", 3, **kw)


def test_every_registered_scheme_builds_and_runs():
    opts = {"ignore": {"K": 9}, "lgc": {"K": 9}, "ggd": {"r": 3}, "glag": {"r": 3}}
    opts.update(lagc={"r": 2, "groups": 2}, gd={}, lag={}, ye_abbe={"s": 2, "m": 2})
    opts.update(commfr={"s": 2, "m": 2})
    # 12 points: no projective or affine plane; the complete (12, 2, 1) design (66 blocks)
    opts.update(bibd={"s": 2, "code_options": {"block_size": 2}})
    for name in tr.SCHEMES:
        run = tr.simulate(name, n=12, iterations=3, rng=1, **opts.get(name, {"s": 2}))
        assert run.iterations == 3 and np.all(np.isfinite(run.loss))
        assert run.loss[-1] < run.loss[0]


def test_cli_simulate_writes_csv_and_figure(tmp_path, capsys):
    from gctheory.cli import main

    out = tmp_path / "run"
    argv = ["simulate", "--scheme", "lgc", "--n", "10", "--K", "7", "--iterations", "5"]
    argv += ["--delay", "shifted_exp(0.05, 0.02)", "--out", str(out), "--format", "csv"]
    assert main(argv) == 0
    text = (tmp_path / "run.csv").read_text().splitlines()
    assert text[0].startswith("trial,iteration,time,loss") and len(text) == 1 + 6
    assert (tmp_path / "run.png").stat().st_size > 0
    assert "final_loss" in capsys.readouterr().out
    assert main(["simulate", "--scheme", "nope"]) == 2
    assert "unknown scheme 'nope'" in capsys.readouterr().err
    assert main(["simulate", "--scheme", "gd", "--delay", "weibull(1)"]) == 2
    assert main(["simulate", "--scheme", "ignore", "--n", "4", "--K", "5"]) == 2


def test_estimates_are_identical_serially_and_on_a_process_pool():
    kw = dict(scheme="lgc", K=3, n=4, iterations=5, delay="shifted_exp(0.05, 0.02)")
    serial = tr.estimate_run_metric("final_loss", 2, rng=9, **kw)
    tr._MEMO.clear()  # make the pool recompute rather than reuse this process's runs
    pooled = tr.estimate_run_metric("final_loss", 2, rng=9, executor=2, **kw)
    assert serial == pooled


def test_divergence_is_reported_not_hidden():
    with pytest.warns(tr.DivergenceWarning, match="stops"):
        run = tr.simulate("gd", n=4, iterations=200, step_size=1e6, model="logistic", rng=0)
    assert run.iterations < 200


@pytest.mark.parametrize(
    "scheme, opts, groups, size, wait",
    [("ggd", {"r": 3}, 4, 3, 1), ("frc", {"s": 2}, 4, 3, 1), ("commfr", {"s": 2, "m": 2}, 3, 4, 2)],
)
def test_grouped_iteration_time_agrees_with_eq28(scheme, opts, groups, size, wait):
    # Zhang & Simeone eq. (28) / Kadhe et al. Theorem 1: the clock stops when every group has
    # `wait` survivors; workers hold `size` partitions' worth (load 3 or 4), so T = load * X
    load = {"ggd": 3, "frc": 3, "commfr": 4}[scheme]
    kw = dict(scheme=scheme, n=12, delay="exp(1)", iterations=15, **opts)
    est = tr.estimate_run_metric("mean_wait", 20, rng=3, level=0.99, **kw)
    exact = os_.expected_grouped_completion(stats.expon(scale=load), groups, size, wait)
    assert est.contains(exact)
    # negative control: waiting for the slowest of each group instead
    assert not est.contains(
        os_.expected_grouped_completion(stats.expon(scale=load), groups, size, size)
    )


RUNTIME_CASES = [
    ("uncoded", "gd", {}),
    ("ignore-s", "ignore", {"K": 10}),
    ("cyclic-mds", "cyclic_mds", {"s": 2}),
    ("frc", "frc", {"s": 2}),
    ("ye-abbe", "ye_abbe", {"s": 2, "m": 2}),
    ("commfr-gc", "commfr", {"s": 2, "m": 2}),
]


@pytest.mark.parametrize("rt_name, scheme, opts", RUNTIME_CASES, ids=[c[0] for c in RUNTIME_CASES])
def test_mean_iteration_time_agrees_with_runtime_model(rt_name, scheme, opts):
    # gctheory.runtime: a worker with data share `load` returns after load * X, X the time
    # for the whole dataset, plus tau/m; here X per n-th of the data, so X_runtime = n X
    n, tau = 12, 0.03
    kw = dict(scheme=scheme, n=n, delay="shifted_exp(0.05, 0.02)", comm_time=tau, iterations=10)
    est = tr.estimate_run_metric("mean_wait", 16, rng=5, level=0.99, **kw, **opts)
    dist = stats.expon(loc=n * 0.05, scale=n * 0.02)
    code = (4, 2, 3) if rt_name == "commfr-gc" else None
    exact = rt.scheme_expected_time(
        rt_name, dist, n, opts.get("s", n - opts.get("K", n)), opts.get("m", 1), tau=tau, code=code
    )
    assert est.contains(exact)
    # negative control: the same model without the upload time
    wrong = rt.scheme_expected_time(
        rt_name, dist, n, opts.get("s", n - opts.get("K", n)), opts.get("m", 1), tau=0, code=code
    )
    assert not est.contains(wrong)


# ---------------------------------------------------------------- issue 12: no silent wrong number


def test_a_loss_growing_by_orders_of_magnitude_is_a_divergence():
    # softmax with step 1e6 reaches a finite loss of 1e25 in 4 steps: a divergence all the same
    with pytest.warns(tr.DivergenceWarning, match="more than 1000 times its start"):
        run = tr.simulate("gd", n=4, iterations=4, step_size=1e6, rng=0)
    assert run.iterations == 1 and np.isfinite(run.loss).all()
    # a large but converging step is not flagged (filterwarnings=error would raise)
    tr.simulate("gd", n=4, iterations=20, step_size=5.0, rng=0)


def test_cli_simulate_reports_a_divergence(tmp_path, capsys):
    from gctheory.cli import main

    argv = ["simulate", "--scheme", "gd", "--n", "4", "--iterations", "4", "--step-size", "1e6"]
    with pytest.warns(tr.DivergenceWarning):
        assert main([*argv, "--out", str(tmp_path / "d")]) == 0


@pytest.mark.parametrize("bad", [float("nan"), -1.0, float("inf")])
def test_target_loss_must_be_a_number_at_least_zero(bad):
    with pytest.raises(ValueError, match="target_loss"):
        tr.simulate("gd", n=4, iterations=3, target_loss=bad)


def test_too_many_workers_is_refused_before_any_work(monkeypatch):
    def no_work(*a, **k):
        raise AssertionError("make_scheme called: the check came too late")

    # simulate looks make_scheme up in its own module (gctheory.training.simulator); the
    # package's attribute is only a re-export, so patching it would not reach the call
    monkeypatch.setattr(simulator, "make_scheme", no_work)
    with pytest.raises(ValueError, match=r"n=5000 workers is more than the 1797 samples"):
        tr.simulate("gd", n=5000)


def test_an_unknown_option_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['bogus_option'\].*K, s, r"):
        tr.simulate("gd", n=4, bogus_option=3)
    with pytest.raises(ValueError, match="rng must be None"):
        tr.simulate("gd", n=4, iterations=2, rng=True)


def test_cli_simulate_writes_nothing_into_the_current_folder(tmp_path, monkeypatch, capsys):
    from gctheory.cli import main

    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "--scheme", "gd", "--n", "4", "--iterations", "3", "--format", "json"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["rows"][0]["iterations"] == 3  # stdout stays a clean JSON table
    assert list(tmp_path.iterdir()) == []
    m = re.search(r"wrote (\S+\.csv) and (\S+\.png)", out.err)
    assert m and Path(m[1]).is_file() and Path(m[2]).is_file()
    shutil.rmtree(Path(m[1]).parent)


def test_paired_metric_refuses_an_unknown_metric_or_a_missing_target():
    from gctheory.training.studies import estimate_paired_metric

    a = dict(scheme="gd", n=4, iterations=3)
    with pytest.raises(ValueError, match="metric must be one of"):
        estimate_paired_metric("final_los", 2, a, a, rng=1)
    with pytest.raises(ValueError, match="needs target_loss"):
        estimate_paired_metric("time_to_target", 2, a, a, rng=1)
