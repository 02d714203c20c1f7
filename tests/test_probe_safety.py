"""Probe findings: silently wrong answers and unbounded work, each with its reproducer.

Every refusal here is asserted directly (a ValueError raised before any work), so a
regression shows as a failure, never as a hang."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from scipy import stats

from gctheory.order_stats import expected_order_statistic, order_statistic_moments
from gctheory.order_stats._common import InfiniteMomentWarning

# ---------------------------------------------------------------------------
# order statistics: beyond the validated range, heavy tails


def test_central_order_statistics_at_huge_n_follow_their_expansion():
    """The normal median's variance was 1.31e-16 at n = 1e18 (pi/(2n) = 1.57e-18), its mean
    1.9e-10 at 1e17 (about -1.25e-17 is right); the Weibull median was off too."""
    for n in (10**16, 10**17, 10**18):
        r = order_statistic_moments(stats.norm(), n // 2, n)
        assert r.variance == pytest.approx(math.pi / (2 * n), rel=1e-9)
        # p = k/(n+1) = 1/2 - 1/(2(n+1)): Q(p) = -sqrt(2 pi)/(2(n+1)) to first order
        assert r.mean == pytest.approx(-math.sqrt(2 * math.pi) / (2 * (n + 1)), rel=1e-6)
        # Weibull(2) median: x = sqrt(ln 2), density 2x e^(-x^2) = sqrt(ln 2) there
        w = order_statistic_moments(stats.weibull_min(2.0), n // 2, n)
        assert w.variance == pytest.approx(0.25 / math.log(2) / n, rel=1e-9)
        assert w.mean == pytest.approx(math.sqrt(math.log(2)), rel=1e-12)
    # k = n/10 at n = 1e16: the integration's variance was 12% off; p q / (n f(Q(p))^2)
    n, k = 10**16, 10**15
    x = stats.norm.ppf(0.1)
    f = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    assert order_statistic_moments(stats.norm(), k, n).variance == pytest.approx(
        0.09 / (f * f) / n, rel=1e-6
    )
    # where the integration is right (n = 1e12) the two routes agree (validation)
    for law in (stats.norm(), stats.lognorm(0.5), stats.gamma(3.0)):
        for k in (10**11, 5 * 10**11, 10**12 - 10**10):
            a = order_statistic_moments(law, k, 10**12)
            b = order_statistic_moments(law, k, 10**12, method="quad")
            assert a.method == "asymptotic-central" and b.method == "quad"
            assert a.variance == pytest.approx(b.variance, rel=1e-8)
            assert abs(a.mean - b.mean) < 1e-6 * math.sqrt(b.variance)
    # not central and beyond the integration's range: refused by name
    for law in (stats.norm(), stats.weibull_min(2.0)):
        with pytest.raises(ValueError, match="n: the integration route is validated"):
            order_statistic_moments(law, 10**5, 10**18)
        with pytest.raises(ValueError, match="n: the integration route is validated"):
            order_statistic_moments(law, 10**17 // 2, 10**17, method="quad")
    # the closed forms have no such limit
    assert order_statistic_moments(stats.expon(), 10**18 // 2, 10**18).variance == (
        pytest.approx(1e-18, rel=1e-9)
    )


def _mp_second_of_three(laws) -> mp.mpf:
    """E[X_(2:3)] = int_0^inf P(at most one of three done by t) dt, with mpmath."""

    def sf(law, t):
        kind, a, scale = law
        if kind == "pareto":
            return mp.mpf(1) if t < scale else (scale / t) ** a
        return mp.e ** (-t / scale)

    def g(t):
        S = [sf(law, t) for law in laws]
        F = [1 - s for s in S]
        return S[0] * S[1] * S[2] + F[0] * S[1] * S[2] + S[0] * F[1] * S[2] + S[0] * S[1] * F[2]

    mp.mp.dps = 30
    cuts = sorted({mp.mpf(0), *(mp.mpf(law[2]) for law in laws if law[0] == "pareto")})
    T = mp.mpf(2000)  # beyond T the exponential worker is done (e^-2000): g = S_0 S_1 exactly
    body = mp.quad(g, [*cuts, mp.mpf(10), mp.mpf(100), T])
    (_, a0, s0), (_, a1, s1) = laws[0], laws[1]
    a = mp.mpf(a0) + mp.mpf(a1)  # S_0 S_1 = s0^a0 s1^a1 t^-a, integrated in closed form
    tail = mp.mpf(s0) ** a0 * mp.mpf(s1) ** a1 * T ** (1 - a) / (a - 1)
    return body + tail


@pytest.mark.parametrize(
    "laws",
    [
        [("pareto", 0.6, 1.0), ("pareto", 0.6, 2.0), ("expon", None, 1.0)],
        [("pareto", 0.6, 1.0), ("pareto", 0.6, 1.0), ("expon", None, 1e-9)],
    ],
)
def test_heavy_tailed_workers_with_a_finite_mean_get_it(laws):
    """The two slowest tail indices sum to 1.2 > 1: the mean is finite (it was inf)."""
    dists = [
        stats.pareto(a, scale=s) if kind == "pareto" else stats.expon(scale=s)
        for kind, a, s in laws
    ]
    ref = float(_mp_second_of_three(laws))
    got = expected_order_statistic(dists, 2)
    assert got == pytest.approx(ref, rel=1e-7)
    r = order_statistic_moments(dists, 2)
    assert math.isinf(r.variance) and "variance" in r.reason  # 1.2 <= 2: infinite
    # negative control: one worker heavier (0.6 + 0.3 <= 1), the mean is infinite
    heavier = [stats.pareto(0.3), *dists[1:]]
    with pytest.warns(InfiniteMomentWarning, match="t\\^-0.9"):
        assert math.isinf(expected_order_statistic(heavier, 2))


# ---------------------------------------------------------------------------
# SGC: the runtime simulator validates every argument; loads share the constructors' rules


def _delays():
    import numpy as np

    return np.array([[1.0, 1.0, 2.0, 1.0], [1.0, 3.0, 2.0, 9.0], [5.0, 1.0, 2.0, 9.0]])


@pytest.mark.parametrize(
    "change, match",
    [
        ({"delays": "nan"}, "delays must be finite and >= 0"),
        ({"delays": "inf"}, "delays must be finite and >= 0"),
        ({"delays": "neg"}, "delays must be finite and >= 0"),
        ({"base_comp": math.nan}, "base_comp"),
        ({"base_comp": -1.0}, "base_comp"),
        ({"base_load": math.inf}, "base_load"),
        ({"base_load": math.nan}, "base_load"),
        ({"delays": "none"}, "at least one worker"),
        ({"base_comp": 100.0, "base_load": 1.0}, "base_comp: the delays at load"),
    ],
)
def test_run_scheme_refuses_each_bad_argument_by_name(change, match):
    from gctheory.sgc import run_scheme

    D = _delays()
    kw = {"jobs": 2, "base_load": 0.0, "base_comp": 0.0}
    kw.update({k: v for k, v in change.items() if k != "delays"})
    what = change.get("delays")
    if what == "nan":
        D[1, 2] = math.nan
    elif what == "inf":
        D[0, 0] = math.inf
    elif what == "neg":
        D[2, 1] = -10.0
    elif what == "none":
        D = D[:0]
    for scheme, params in (("GC", (1,)), ("no coding", ())):
        with pytest.raises(ValueError, match=match):
            run_scheme(D, scheme, params, **kw)
    # the same arguments well-formed run (positive control)
    assert math.isfinite(run_scheme(_delays(), "GC", (1,), jobs=2).runtime)


def test_sgc_runtime_cli_refuses_a_nan_base_comp(tmp_path, capsys):
    from gctheory.cli import main

    D = _delays()
    lines = ["round,worker,load,duration_s"]
    lines += [f"{t},{i},0.0,{D[i, t]}" for t in range(D.shape[1]) for i in range(D.shape[0])]
    good = tmp_path / "good.csv"
    good.write_text("\n".join(lines) + "\n")
    assert main(["sgc", "runtime", str(good), "--jobs", "2", "--base-comp", "nan"]) != 0
    assert "--base-comp" in capsys.readouterr().err
    assert main(["sgc", "runtime", str(good), "--jobs", "2"]) == 0  # positive control


@pytest.mark.parametrize(
    "func, args",
    [("sr_sgc_load", (4, 2, 4, 2)), ("sr_sgc_load", (4, 3, 3, 2)), ("m_sgc_load", (4, 3, 3, 2))],
)
def test_scheme_loads_refuse_what_the_constructors_refuse(func, args):
    from gctheory.codes import sequential as sq

    cls = sq.SRSGC if func == "sr_sgc_load" else sq.MSGC
    with pytest.raises(ValueError) as built:
        cls(*args)
    with pytest.raises(ValueError) as loaded:
        getattr(sq, func)(*args)
    assert str(loaded.value) == str(built.value)  # one rule, one message
    ok = (4, 1, 3, 2)  # accepted by both
    assert getattr(sq, func)(*ok) == cls(*ok).load


# ---------------------------------------------------------------------------
# unbounded work: refused at once, or bounded


def test_msgc_construction_load_at_a_huge_window_is_counted_not_looped():
    from fractions import Fraction

    from gctheory.codes.sequential import MSGC

    code = MSGC(4, 1, 10**18, 2)
    assert code.construction_load() == code.load  # was a loop over 10^18 slots
    for params in ((3, 1, 2, 2), (4, 2, 5, 3), (4, 1, 3, 4)):  # the loop's value, small W
        c = MSGC(*params)
        c1, c2 = c._sizes()
        looped = sum(
            (c1 if m < c.W - 1 or not c.groups else (c.lam + 1) * c2 for m in range(c.slots)),
            Fraction(0),
        )
        assert c.construction_load() == looped == c.load


def test_exhaustive_verification_refuses_a_hopeless_walk_at_once():
    from gctheory.codes.sequential import MSGC, find_failure, verify_sequential

    with pytest.raises(ValueError, match="jobs: an exhaustive walk covers"):
        verify_sequential(MSGC(3, 1, 2, 2), 10**9)
    with pytest.raises(ValueError, match="T alone is too large"):
        verify_sequential(MSGC(3, 1, 100, 2), 1)
    with pytest.raises(ValueError, match="jobs: an exhaustive walk covers"):
        find_failure(MSGC(3, 1, 2, 2), 10**9)
    assert verify_sequential(MSGC(3, 1, 2, 2), 3).ok  # positive control


def test_markov_samplers_and_fit_refuse_unbounded_work_at_once():
    import numpy as np

    from gctheory.delays.markov.bursty import BurstyModel, fit_bursty
    from gctheory.delays.markov.chains import GilbertElliott

    S = BurstyModel(1, 3, 2).sample(200, 4, 0.1, rng=1)
    with pytest.raises(ValueError, match="W: a window of 1000000 rounds is longer"):
        fit_bursty(S, 10**6)
    with pytest.raises(ValueError, match="W: fitting every B < W"):
        fit_bursty(np.zeros((10**5, 4), dtype=np.int8), 10**4)
    with pytest.raises(ValueError, match="rounds: at most"):
        BurstyModel(1, 3, 2).sample(10**9, 4, 0.1)
    with pytest.raises(ValueError, match="rounds: at most|rounds: the .* pattern needs"):
        GilbertElliott(0.1, 0.3).sample(10**6, 10**6)
    with pytest.raises(ValueError, match="rounds: the 1000000 x 1000000 pattern needs"):
        GilbertElliott(0.1, 0.3).sample(10**6, 10**6)
    # positive controls: ordinary sizes run
    assert fit_bursty(S, 4)[0]["B"] == 1
    assert GilbertElliott(0.1, 0.3).sample(50, 3, rng=2).shape == (50, 3)


# ---------------------------------------------------------------------------
# Monte Carlo: an unreachable target is refused at once; a time bound ends the rest


def _rare(rng, size):
    return rng.random(size) < 1e-6


def _expo(rng, size):
    return rng.exponential(size=size)


def test_monte_carlo_refuses_an_unreachable_target_and_honours_max_seconds():
    from gctheory.montecarlo import PrecisionNotReachedWarning, estimate_mean, estimate_probability

    with pytest.raises(ValueError, match="rel_half_width=1e-18 can never trigger"):
        estimate_probability(_rare, 10**15, rng=1, stop={"rel_half_width": 1e-18})
    with pytest.raises(ValueError, match="events=1000000000000000000 can never trigger"):
        estimate_probability(_rare, 10**15, rng=1, stop={"events": 10**18})
    for bad in (0, -1.0, math.nan, "1"):
        with pytest.raises(ValueError, match="max_seconds"):
            estimate_mean(_expo, 100, rng=1, max_seconds=bad)
    # p = 1e-6 to 1e-6 relative needs ~7e18 trials: the time bound ends it (it ran for days)
    with pytest.warns(PrecisionNotReachedWarning, match="max_seconds"):
        est = estimate_probability(
            _rare, 10**15, rng=1, stop={"rel_half_width": 1e-6}, max_seconds=0.05,
            chunk_size=10**4, progress=False,
        )  # fmt: skip
    assert est.stopped_by == "max_seconds" and est.target_met is False
    assert 0 < est.trials < 10**15
    with pytest.warns(PrecisionNotReachedWarning, match="max_seconds"):
        m = estimate_mean(
            _expo, 10**15, rng=1, stop={"rel_half_width": 1e-10}, max_seconds=0.05,
            chunk_size=10**4, progress=False,
        )  # fmt: skip
    assert m.stopped_by == "max_seconds" and m.low < 1.0 < m.high
    # positive control: a generous bound changes nothing (same estimate as without it)
    a = estimate_mean(_expo, 2000, rng=3, chunk_size=500, progress=False)
    b = estimate_mean(_expo, 2000, rng=3, chunk_size=500, progress=False, max_seconds=math.inf)
    assert a == b


# ---------------------------------------------------------------------------
# minor: refusals that name the right thing, signs of divergent means


def test_order_statistics_name_a_dict_and_an_unfrozen_law():
    with pytest.raises(ValueError, match="dist: a dict is neither a law"):
        order_statistic_moments({stats.norm(): 2}, 1)  # was "n: the number of workers..."
    with pytest.raises(ValueError, match="unfrozen discrete distribution scipy.stats.poisson"):
        order_statistic_moments(stats.poisson, 1, 3)
    with pytest.raises(ValueError, match="unfrozen continuous distribution scipy.stats.norm"):
        expected_order_statistic(stats.norm, 1, 3)
    with pytest.raises(ValueError, match=r"dists\[1\]: dist: got the unfrozen discrete"):
        order_statistic_moments([stats.norm(), stats.poisson], 1)


def test_the_minimum_of_cauchy_laws_has_mean_minus_infinity():
    # P(min < -t) ~ n / (pi t): the left tail diverges; the right one, ~ t^-n, does not
    for dists, n in (([stats.cauchy(), stats.cauchy()], None), (stats.cauchy(), 5)):
        r = order_statistic_moments(dists, 1, n)
        assert r.mean == -math.inf and "left tail" in r.reason  # +inf before
    assert order_statistic_moments(stats.cauchy(), 5, 5).mean == math.inf  # the maximum
    one = order_statistic_moments(stats.cauchy(), 1, 1)  # a single Cauchy: no mean at all
    assert math.isnan(one.mean) and "undefined" in one.reason
    with pytest.warns(InfiniteMomentWarning, match="undefined"):
        assert math.isnan(expected_order_statistic(stats.cauchy(), 1, 1))


def test_writers_name_a_folder_or_a_missing_folder(tmp_path):
    import numpy as np

    from gctheory.cluster.checkpoint import save_checkpoint
    from gctheory.delays import read_trace, write_trace
    from gctheory.sweeps.statsfile import LockedFile, write_rows

    (tmp_path / "t.csv").write_text("round,worker,load,time\n0,0,1,1.0\n")
    tr = read_trace(tmp_path / "t.csv")
    missing = tmp_path / "no" / "x.csv"
    cases = [
        (lambda p: write_trace(tr, p), "path"),
        (lambda p: LockedFile(p), "path"),
        (lambda p: write_rows(p, [], overwrite=True), "path"),
        (lambda p: save_checkpoint(p, {"config": {}, "x": np.ones(2)}), "checkpoint"),
    ]
    for write, name in cases:  # IsADirectoryError / FileNotFoundError before
        with pytest.raises(ValueError, match=f"{name}: .* is a folder"):
            write(tmp_path)
        with pytest.raises(ValueError, match=f"{name}: (the )?folder .* does not exist"):
            write(missing)


def test_a_plug_ins_failure_names_the_plug_in():
    from gctheory.codes import CodeFamily
    from gctheory.codes.tandon import CyclicMDSCode

    def broken(n, s):
        return n / (s - s)

    fam = CodeFamily("broken", CyclicMDSCode, build=broken, source="brokenpkg:FAMILY")
    with pytest.raises(ValueError, match=r"'broken' \(plug-in brokenpkg:FAMILY\).*ZeroDivision"):
        fam.make(5, 1)
    own = CodeFamily("own", CyclicMDSCode, build=broken)  # gctheory's own: a bug, not wrapped
    with pytest.raises(ZeroDivisionError):
        own.make(5, 1)
