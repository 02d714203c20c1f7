"""Tests of gctheory.delays: traces, the safe unpickler, summaries, load scaling, order statistics
and decisions. Synthetic traces only: nothing here needs the shared measurements."""

from __future__ import annotations

import itertools
import math
import os
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gctheory import delays as dl
from gctheory import order_stats, runtime


def _trace(M: np.ndarray, load: float = 0.5, **cols) -> dl.Trace:
    """A one-load trace from a (rounds, workers) matrix of times."""
    R, W = M.shape
    r, w = np.divmod(np.arange(R * W), W)
    extra = {k: np.full(R * W, v) for k, v in cols.items()}
    return dl.make_trace(r, w, np.full(R * W, load), M.ravel(), **extra)


def _multi(Ms: dict[float, np.ndarray]) -> dl.Trace:
    return dl.concat_traces([_trace(M, ld) for ld, M in Ms.items()])


# ---------------------------------------------------------------- trace


def test_make_trace_names_the_bad_row():
    ok = dict(round=[0, 0, 1], worker=[0, 1, 0], load=[0.5] * 3)
    with pytest.raises(ValueError, match=r"times must be >= 0: row 2 has time=-1"):
        dl.make_trace(**ok, time=[1.0, 2.0, -1.0])
    with pytest.raises(ValueError, match=r"times must be finite: row 1 has time=nan"):
        dl.make_trace(**ok, time=[1.0, np.nan, 1.0])
    with pytest.raises(ValueError, match=r"times must be finite: row 0 has time=inf"):
        dl.make_trace(**ok, time=[np.inf, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"row 1 repeats row 0"):
        dl.make_trace(round=[0, 0], worker=[3, 3], load=[0.5, 0.5], time=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"loads must be finite and >= 0: row 0"):
        dl.make_trace(round=[0], worker=[0], load=[-0.5], time=[1.0])
    with pytest.raises(ValueError, match="no rows"):
        dl.make_trace(round=[], worker=[], load=[], time=[])
    with pytest.raises(ValueError, match="'worker' has 1 rows but 'time' has 2"):
        dl.make_trace(round=[0, 1], worker=[0], load=[0.5, 0.5], time=[1.0, 1.0])


def test_csv_round_trip_and_the_shared_format(tmp_path):
    M = np.arange(1, 13, dtype=float).reshape(3, 4) / 7
    tr = _trace(M, 0.25, region="London")
    path = dl.write_trace(tr, tmp_path / "t.csv")
    back = dl.read_trace(path)
    assert np.array_equal(back.time, tr.time) and np.array_equal(back.rounds(0.25), M)
    assert back.campaigns() == [{"region": "London"}]
    # the shared data's layout: duration_s as the time column, campaign columns first
    text = "profile,model,region,load,batch,round,worker,start_offset_s,duration_s\n"
    text += "p,cnn,Canada,0.5,256,0,0,-1.5,0.75\np,cnn,Canada,0.5,256,0,1,-1.4,0.5\n"
    (tmp_path / "s.csv").write_text(text)
    s = dl.read_trace(tmp_path / "s.csv")
    assert s.time.tolist() == [0.75, 0.5] and s.loads.tolist() == [0.5]
    assert s.campaigns() == [{"profile": "p", "model": "cnn", "region": "Canada", "batch": "256"}]
    assert s.columns["start_offset_s"].tolist() == [-1.5, -1.4]


@pytest.mark.parametrize(
    "text, message",
    [
        ("round,worker,time\n0,0,1\n", r"missing column\(s\) \['load'\]"),
        ("round,worker,load\n0,0,1\n", r"missing column\(s\) \['time'\]"),
        ("round,worker,load,time\n0,0,0.5,-2\n", r"times must be >= 0: row 0 \(line 2 of"),
        ("round,worker,load,time\n0,0,0.5,1\n0,1,0.5,nan\n", r"row 1 \(line 3 of .*time=nan"),
        ("round,worker,load,time\n0,0,0.5,1\n0,1,,1\n", r"line 3: column 'load' is empty"),
        ("round,worker,load,time\n0,0,0.5,abc\n", r"line 2: column 'time' must be a number"),
        ("round,worker,load,time\n0,0.5,0.5,1\n", r"line 2: column 'worker' must be an integer"),
        ("round,worker,load,time\n0,0,0.5\n", r"line 2: 3 fields, but the header has 4"),
        ("", "the file is empty"),
        ("round,worker,load,time\n", "no data rows"),
    ],
)
def test_bad_csv_is_a_value_error_naming_the_problem_and_the_line(tmp_path, text, message):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(ValueError, match=message):
        dl.read_trace(p)


def test_loads_rounds_and_selection():
    tr = _multi({0.0: np.ones((2, 3)), 0.5: 2 * np.ones((4, 3))})
    assert tr.loads.tolist() == [0.0, 0.5] and tr.rounds(0.5).shape == (4, 3)
    with pytest.raises(ValueError, match=r"load 0.3 is not in the trace.*measured loads: 0, 0.5"):
        tr.times(0.3)
    with pytest.raises(ValueError, match="no column 'region'"):
        tr.select(region="x")
    with pytest.raises(ValueError, match="no row .* has load=0.7"):
        tr.select(load=0.7)
    gap = dl.make_trace([0, 0, 1], [0, 1, 0], [0.5] * 3, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="round 1 at load 0.5 .* has no time for worker 1"):
        gap.rounds(0.5)


def test_a_trace_of_several_campaigns_must_be_narrowed():
    a = _trace(np.ones((2, 2)), region="London")
    b = _trace(np.ones((2, 2)), region="Canada")
    both = dl.concat_traces([a, b])
    with pytest.raises(ValueError, match="holds 2: region=London; region=Canada"):
        both.require_single_campaign()
    assert both.select(region="Canada").campaigns() == [{"region": "Canada"}]


# ---------------------------------------------------------------- profile pickles


def _profile(rounds=3, workers=4, with_payload=False):
    rng = np.random.default_rng(0)
    out = []
    for r in range(rounds):
        res = []
        for w in range(workers):
            a = float(rng.random())
            item = {
                "worker_id": np.int64(w) if r % 2 else np.int32(w),
                "started": a,
                "finished": a + 1 + float(rng.random()),
                "response": {"ResponseMetadata": {"HTTPStatusCode": 200}, "StatusCode": 200},
                "payload": "removed",
            }
            if with_payload:
                item["payload"] = {"load": 0.5, "grads": {"type": list, "len": 10}}
            res.append(item)
        out.append({"round": r, "started": 0.5, "finished": 9.0, "results": res})
    return out


def test_profile_pickle_reads_like_the_repository_files(tmp_path):
    data = _profile(with_payload=True)
    name = tmp_path / "campaign" / "w4-n3-l0_500-b256-cno_forloop-Canada.pkl"
    name.parent.mkdir()
    name.write_bytes(pickle.dumps(data, protocol=4))
    tr = dl.read_trace(name)
    assert tr.loads.tolist() == [0.5]
    assert tr.campaigns() == [{"profile": "campaign", "region": "Canada", "batch": "256"}]
    expect = [it["finished"] - it["started"] for rd in data for it in rd["results"]]
    assert tr.time.tolist() == expect  # the same subtraction, bit for bit
    assert tr.rounds(0.5).shape == (3, 4)
    # a payload load that contradicts the file name is refused
    with pytest.raises(ValueError, match="payloads say load 0.5"):
        dl.read_profile_pickle(name, load=0.25)


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _Custom:
    pass


def test_the_unpickler_refuses_anything_but_lists_dicts_and_numpy_scalars(tmp_path):
    marker = tmp_path / "pwned"
    evil = pickle.dumps([{"round": 0, "results": [_Evil(marker)]}])
    with pytest.raises(ValueError, match=r"refused to load (posix|os|nt)\.system"):
        dl.safe_loads(evil)
    assert not marker.exists()  # nothing ran
    with pytest.raises(ValueError, match=r"refused to load tests\.test_delays\._Custom"):
        dl.safe_loads(pickle.dumps({"x": _Custom()}))
    with pytest.raises(
        ValueError, match=r"refused to load numpy\._?core\.multiarray\._reconstruct"
    ):
        dl.safe_loads(pickle.dumps(np.arange(3)))
    with pytest.raises(ValueError, match="only numeric dtypes"):
        dl.safe_loads(pickle.dumps(np.dtype(object)))
    with pytest.raises(ValueError, match="refused to load builtins.eval"):
        dl.safe_loads(b"cbuiltins\neval\n(S'1'\ntR.")
    p = tmp_path / "w4-n1-l0_000-b2-cx-Canada.pkl"
    p.write_bytes(evil)
    with pytest.raises(ValueError, match="refused"):
        dl.read_trace(p)
    # what is admitted comes back as it went in
    ok = {"a": [np.float64(1.5), np.int32(-3), np.uint8(7), np.bool_(True)], "t": list}
    back = dl.safe_loads(pickle.dumps(ok))
    assert back == ok and type(back["a"][1]) is np.int32 and back["t"] is list
    with pytest.raises(ValueError, match="truncated|not a readable pickle"):
        dl.safe_loads(b"garbage")


# ---------------------------------------------------------------- summaries


def _persistent(R, W, h, rng):
    """Times frozen for h rounds, then redrawn (Xu et al. 2021, Sec. V-B)."""
    blocks = rng.exponential(size=(math.ceil(R / h), W))
    return 1 + np.repeat(blocks, h, axis=0)[:R]


def test_persistence_recovers_h_and_rejects_the_wrong_one():
    rng = np.random.default_rng(1)
    froz = _persistent(200, 50, 4, rng)
    p, pci, h, hci = dl.persistence(froz, 0.1, rng=2)
    assert hci[0] <= 4 <= hci[1]  # planted h = 4
    iid = 1 + rng.exponential(size=(200, 50))
    _, _, h1, hci1 = dl.persistence(iid, 0.1, rng=2)
    assert hci1[0] <= 1 <= hci1[1] and not hci1[0] <= 4 <= hci1[1]  # negative control


def test_summary_sees_stragglers_that_come_together():
    rng = np.random.default_rng(3)
    M = 1 + 0.1 * rng.random((40, 100))
    M[::10, :5] = 30  # every 10th round: 5 stragglers at once
    s = dl.summarize(_trace(M), rng=0)[0]
    assert s.stragglers == 20 and s.straggler_rate == pytest.approx(20 / 4000)
    assert s.rounds_with_stragglers == pytest.approx(0.1)
    # independent workers with that rate would hit 1 - (1 - 0.005)^100 = 39% of rounds
    assert s.iid_rounds_with_stragglers == pytest.approx(1 - (1 - 0.005) ** 100)
    assert s.dispersion > 4  # var/mean of counts (0 or 5): 5 * 40/39 - 0.5 * 40/39
    assert s.repeat_stragglers == 0 and s.repeat_opportunities == 20
    assert s.quantiles[0.5] == pytest.approx(np.median(M))


# ---------------------------------------------------------------- load scaling


def test_affine_load_scaling_recovers_the_slope_and_beats_the_proportional_model():
    rng = np.random.default_rng(4)
    base = 0.6 + rng.exponential(0.2, size=(5, 20, 64))
    Ms = {ld: base[i] + 1.5 * ld for i, ld in enumerate((0.0, 0.25, 0.5, 0.75, 1.0))}
    sc = dl.fit_load_scaling(_multi(Ms))
    assert abs(sc.slope - 1.5) <= 4 * sc.slope_se  # planted slope 1.5
    assert np.all(np.abs(sc.free_slopes - 1.5) < 0.3)
    # the runtime's proportional model cannot fit a fixed cost: residuals many times larger
    assert sc.rms("proportional") > 5 * sc.rms()
    moved = sc.move([1.0, 2.0], 0.5, 0.75)
    assert moved.tolist() == pytest.approx([1 + sc.slope * 0.25, 2 + sc.slope * 0.25])
    with pytest.raises(ValueError, match=">= 2 measured loads"):
        dl.fit_load_scaling(_trace(base[0]))


# ---------------------------------------------------------------- order statistics


def _enumerate(values, groups, size, wait):
    """E[max_g X^(g)_(wait:size)] by enumerating every draw with replacement (exact)."""
    vals = [Fraction(v) for v in values]
    total = Fraction(0)
    for draw in itertools.product(vals, repeat=groups * size):
        g = [sorted(draw[i * size : (i + 1) * size])[wait - 1] for i in range(groups)]
        total += max(g)
    return total / len(vals) ** (groups * size)


@pytest.mark.parametrize(
    "groups, size, wait", [(1, 3, 1), (1, 3, 2), (1, 3, 3), (2, 2, 1), (2, 2, 2)]
)
def test_empirical_order_statistic_equals_enumeration(groups, size, wait):
    values = [1, 2, 2, 5]  # with a tie
    exact = _enumerate(values, groups, size, wait)
    got = dl.empirical_grouped_mean(values, groups, size, wait)
    assert got == pytest.approx(float(exact), rel=1e-13)  # enumeration in Fractions


def test_law_order_statistics_agree_with_closed_forms_and_the_runtime_quadrature():
    ex = stats.expon(loc=0.5, scale=0.2)
    for k in (1, 17, 100):
        closed = 0.5 + 0.2 * sum(1 / j for j in range(100 - k + 1, 101))  # H_n - H_{n-k}
        assert dl.law_order_statistic(ex, k, 100) == pytest.approx(closed, rel=1e-9)
    par = stats.pareto(1.5, scale=0.3)
    for k in (5, 50):
        ref = order_stats.order_statistic_moments(par, k, 50).mean  # closed form (gamma ratios)
        assert dl.law_order_statistic(par, k, 50) == pytest.approx(ref, rel=1e-7)
    assert dl.law_order_statistic(stats.pareto(0.9, scale=1), 10, 10) == math.inf
    ln = stats.lognorm(0.5, loc=0.4, scale=0.3)
    ref = order_stats.grouped_completion_moments(ln, 4, 8, 2).mean  # adaptive quadrature
    assert dl.law_grouped_means(ln, [(4, 8, 2)])[0] == pytest.approx(ref, rel=1e-7)
    mix = dl.body_tail(0.02, 0.3, 0.5, 1.0, 2.5, 4.0)
    ref = order_stats.order_statistic_moments(mix, 20, 20).mean
    assert dl.law_order_statistic(mix, 20, 20) == pytest.approx(ref, rel=1e-6)


def test_the_mixture_is_a_proper_distribution():
    mix = dl.body_tail(0.05, 0.3, 0.5, 1.0, 2.0, 4.0)
    q = np.array([1e-6, 0.01, 0.3, 0.5, 0.9, 0.99, 1 - 1e-6])
    assert np.allclose(mix.cdf(mix.ppf(q)), q, rtol=1e-9)
    assert np.allclose(mix.sf(mix.isf(q)), q, rtol=1e-9)
    # P(X > t) for t beyond the body: the tail weight times the Pareto survival
    assert mix.sf(100.0) == pytest.approx(0.05 * (4 / 100) ** 2, rel=1e-6)
    # mean: (1-w)(loc + scale exp(sigma^2/2)) + w xi t0 / (xi - 1)
    mean = 0.95 * (0.5 + math.exp(0.045)) + 0.05 * 2 * 4 / (2 - 1)
    assert mix.mean() == pytest.approx(mean, rel=1e-9)
    x = mix.rvs(size=20000, random_state=np.random.default_rng(5))
    assert stats.kstest(x, mix.cdf).pvalue > 0.01
    # every runtime function takes it (scaled by the load as the runtime's laws are)
    t = runtime.scheme_expected_time("cyclic-mds", mix, 10, 2)
    assert math.isfinite(t) and t > 0


# ---------------------------------------------------------------- decisions


def _four_loads(rng, R=6, W=4):
    return {ld: 0.5 + ld + rng.exponential(0.3, size=(R, W)) for ld in (0.25, 0.5, 0.75, 1.0)}


def test_decisions_at_measured_loads_are_the_exact_order_statistics():
    Ms = _four_loads(np.random.default_rng(6))
    tr = _multi(Ms)
    res = dl.scheme_times(tr, "cyclic-mds", 4, laws=(), load_model=None, bootstrap=0)
    for s in range(4):  # load (s + 1)/4 is measured: no load model used
        M = Ms[(s + 1) / 4]
        assert res.at("empirical", s) == pytest.approx(dl.empirical_order_statistic(M, 4 - s, 4))
        per_round = np.sort(M, axis=1)[:, 4 - s - 1].mean()  # each round's (n-s)-th fastest
        assert res.at("rounds", s) == pytest.approx(per_round, rel=1e-14)
    frc = dl.scheme_times(tr, "frc", 4, laws=(), load_model=None, bootstrap=0)
    M = Ms[0.5]  # s = 1: two groups of two, the faster of each, the slower group decides
    assert frc.at("rounds", 1) == pytest.approx(M.reshape(6, 2, 2).min(axis=2).max(axis=1).mean())
    with pytest.raises(ValueError, match=r"s=0: the scheme's load 0.125 is not a measured load"):
        dl.scheme_times(tr, "cyclic-mds", 8, laws=(), load_model=None, bootstrap=0)


def test_interpolation_between_measured_loads_and_the_decision_table():
    rng = np.random.default_rng(7)
    Ms = _four_loads(rng, R=10, W=8)
    tr = _multi(Ms)
    res = dl.scheme_times(tr, "cyclic-mds", 8, laws=("shifted_exp",), bootstrap=40, rng=1)
    # s = 2: load 3/8, halfway between 0.25 and 0.5 -> the average of the two estimates
    a = dl.empirical_order_statistic(Ms[0.25], 6, 8)
    b = dl.empirical_order_statistic(Ms[0.5], 6, 8)
    assert res.at("empirical", 2) == pytest.approx((a + b) / 2)
    lo, hi = res.interval("empirical", 2)
    assert lo <= res.at("empirical", 2) <= hi
    # s = 0: load 1/8, below the measured range -> shifted by the fitted slope
    sc = dl.fit_load_scaling(tr)
    e0 = dl.empirical_order_statistic(Ms[0.25], 8, 8) + sc.slope * (1 / 8 - 0.25)
    assert res.at("empirical", 0) == pytest.approx(e0)
    rows = dl.decision_table(res)
    emp = next(r for r in rows if r["estimator"] == "empirical")
    assert emp["lost"] == 0 and emp["agrees"]
    assert all(r["lost"] >= 0 for r in rows)  # nothing beats the reference on its own terms
    with pytest.raises(ValueError, match="scheme must be one of"):
        dl.scheme_times(tr, "lagc", 8)
    with pytest.raises(ValueError, match="s=2 is not valid for frc"):
        dl.scheme_times(tr, "frc", 8, s=[2])


# ---------------------------------------------------------------- fuzzing


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(width=64), min_size=1, max_size=8))
def test_fuzz_make_trace_accepts_clean_times_or_names_the_row(times):
    n = len(times)
    try:
        tr = dl.make_trace(np.zeros(n, int), np.arange(n), np.full(n, 0.5), times)
    except ValueError as exc:
        assert "row" in str(exc)
        assert not all(math.isfinite(t) and t >= 0 for t in times)
    else:
        assert np.all(np.isfinite(tr.time)) and np.all(tr.time >= 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=4), st.integers(1, 3), st.data())
def test_fuzz_empirical_order_statistic_equals_enumeration(values, n, data):
    k = data.draw(st.integers(1, n))
    exact = float(_enumerate(values, 1, n, k))  # enumeration in Fractions
    assert dl.empirical_order_statistic(values, k, n) == pytest.approx(exact, rel=1e-12, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_the_unpickler_raises_only_value_errors(data):
    try:
        dl.safe_loads(data)
    except ValueError:
        pass


def test_delay_specs_take_keyword_arguments_and_positional_pareto_warns():
    import warnings

    from gctheory.delays import parse_delay

    # every law's parameters can be named, in any order; same law as the positional form
    pairs = [
        ("shifted_exp(0.05, 0.02)", "shifted_exp(mean=0.02, shift=0.05)"),
        ("exp(2)", "exp(mean=2)"),
        ("uniform(1, 3)", "uniform(high=3, low=1)"),
        ("constant(1.5)", "constant(c=1.5)"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of these may warn
        for positional, named in pairs:
            a, b = parse_delay(positional).dist, parse_delay(named).dist
            assert a.mean() == pytest.approx(b.mean())
            if hasattr(a, "ppf"):  # the whole law, not just its mean
                x = np.linspace(0.05, 0.95, 5)
                assert np.allclose(a.ppf(x), b.ppf(x))
        d = parse_delay("pareto(shape=1.1, scale=0.001)").dist
        assert d.mean() == pytest.approx(1.1 * 0.001 / 0.1)  # closed form xi t0 / (xi - 1)
    # issue 18: "pareto(1.1, 0.001)" reads as scale=1.1, shape=0.001 (infinite mean): warned
    with pytest.warns(UserWarning, match=r"pareto\(scale=1.1, shape=0.001\).*infinite mean"):
        d = parse_delay("pareto(1.1, 0.001)").dist
    assert math.isinf(d.mean())
    with pytest.warns(UserWarning, match=r"pareto\(scale=0.001, shape=1.1\).*finite mean"):
        parse_delay("pareto(0.001, 1.1)")
    with pytest.raises(ValueError, match="unknown parameter 'xi'"):
        parse_delay("pareto(xi=1.1, scale=0.001)")
    with pytest.raises(ValueError, match="positional argument follows a keyword"):
        parse_delay("pareto(scale=0.001, 1.1)")


def test_law_grouped_means_shares_the_logit_logs_bit_for_bit(monkeypatch):
    # issue 27: log_expit(+-v) on the quadrature grid is computed once for every layout;
    # recomputing it per layout (as before) gives the same floats
    from scipy import stats

    from gctheory.delays import orderstats as os_

    lays = [(1, 256, 200), (4, 64, 50), (16, 16, 14), (2, 128, 1)]
    laws = [stats.lognorm(0.5, loc=0.3), stats.pareto(2.5, scale=0.5)]
    fast = [os_.law_grouped_means(d, lays) for d in laws]
    orig = os_._log_density_v
    monkeypatch.setattr(os_, "_log_density_v", lambda v, g, r, w, logs=None: orig(v, g, r, w))
    slow = [os_.law_grouped_means(d, lays) for d in laws]
    assert all(np.array_equal(a, b) for a, b in zip(fast, slow))
    assert np.isfinite(fast[0]).all()


def test_quick_delays_figures_leave_the_mixture_to_the_full_ones(tmp_path, monkeypatch):
    # issue 27: the quick figures fit and draw every law but the mixture; the full ones
    # every law, as before
    import csv

    from gctheory.delays import LAWS
    from gctheory.plots import delays as pd

    assert pd._laws(False) == tuple(LAWS)
    assert pd._laws(True) == tuple(law for law in LAWS if law != "mixture")
    asked = []
    monkeypatch.setattr(pd, "_fitted", lambda path, mtime, laws: asked.append(laws) or (0, {}))
    monkeypatch.setattr(pd, "data_path", lambda: tmp_path / "x.csv")
    (tmp_path / "x.csv").write_text("")
    pd._load(True)
    pd._load()
    assert asked == [pd._laws(True), tuple(LAWS)]
    monkeypatch.undo()
    if not pd.data_path().is_file():
        pytest.skip(f"the measured delays are not on this machine ({pd.data_path()})")
    from gctheory.plots import all_figures
    from gctheory.plots._base import raster_only

    (maker,) = [m for m in all_figures() if m.name == "delays-cdf-fits"]
    with raster_only():  # the curves are in the CSV; the SVG's second render cost ~1 s
        maker.make(tmp_path, True)
    with open(tmp_path / "delays-cdf-fits.csv") as fh:
        curves = {r["curve"] for r in csv.DictReader(fh)}
    assert "mixture" not in curves and "lognormal" in curves


def test_round_statistics_without_rounds_are_nan_and_count_nothing():
    import math

    from gctheory.delays.summary import _round_statistics

    got = _round_statistics(None, 1.0, 0.1, 0.2, 9, 0.95, np.random.default_rng(0))
    assert got["rounds"] == got["workers"] == got["repeat_stragglers"] == 0
    assert got["top"] == 0.2 and math.isnan(got["persistence"]) and math.isnan(got["icc_log"])
    M = np.array([[1.0, 5.0, 1.0], [1.0, 5.0, 1.0], [5.0, 1.0, 1.0]])
    got = _round_statistics(M, 2.0, 1 / 3, 0.34, 0, 0.95, np.random.default_rng(0))
    # one straggler per round; worker 1 straggles in rounds 0 and 1 (once again of 2 chances)
    assert got["rounds_with_stragglers"] == 1.0 and got["dispersion"] == 0.0
    assert (got["repeat_stragglers"], got["repeat_opportunities"]) == (1, 2)
