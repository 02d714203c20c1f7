"""Tests of gctheory.tradeoff (the atlas table), its figure and its command.

The table's entries are held against the module functions they come from and against
independent references (enumeration of straggler sets, the independent eq. (7) scan of
tests/test_tables.py); the dominance relation against a hand-built table; the certified
s_kappa intervals against exhaustive enumeration; the figure by the lines it draws.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import gctheory
from gctheory.cli import main
from gctheory.conditioning import empirical_s_kappa, s_kappa_commfr, s_kappa_ye_abbe
from gctheory.load_bounds import (
    approximate_recovery_lower_bound,
    exact_recovery_lower_bound,
    frc_error_pmf,
    min_load_lower_bound,
    worst_case_load,
)
from gctheory.runtime import scheme_expected_time, scheme_time_moments
from gctheory.tradeoff import (
    TRADEOFF_AXES,
    TRADEOFF_COLUMNS,
    TRADEOFF_SCHEMES,
    TradeoffTable,
    dominance,
    empirical_s_kappa_interval,
    generator_families,
    tradeoff,
)
from tests.test_tables import _s_kappa_reference

N = 12
DELAY = stats.expon(loc=1.0, scale=1.0)  # shifted exponential: closed-form order statistics


@pytest.fixture(scope="module")
def table():
    return tradeoff(N, s=3, m=2, kappa=1000, eps=0.01, delay=DELAY, error=0.2, quick=True, rng=7)


def _or_none(func, *args):
    """The theorem's value, or None where it refuses (outside its regime)."""
    try:
        return func(*args)
    except ValueError:
        return None


def _one(table, **where):
    rows = table.select(**where)
    assert len(rows) == 1, (where, len(rows))
    return rows[0]


# --------------------------------------------------------------------------- shape


def test_every_row_has_every_column_and_the_callable_module(table):
    assert all(tuple(r) == TRADEOFF_COLUMNS for r in table.rows)
    assert set(table.schemes()) == set(TRADEOFF_SCHEMES)
    # Theorem 6's code needs D + 1 = 6 batches: b = 3 leaves 4 at s = 6 (b = 13 > k at 11)
    assert any(x.startswith("batch-raptor: left out at s = 6: ") for x in table.notes)
    assert _one(table, scheme="bibd", s=0)["note"].startswith("complete (12,2)")
    # gctheory.tradeoff is the package; calling it still calls tradeoff_table(), with a warning
    with pytest.warns(DeprecationWarning, match="gctheory.tradeoff_table"):
        small = gctheory.tradeoff(4, schemes=["cyclic-mds"], quick=True, rng=0)
    assert isinstance(small, TradeoffTable) and small.schemes() == ["cyclic-mds"]
    assert gctheory.tradeoff_table is gctheory.tradeoff.tradeoff_table


# ------------------------------------------------- entries equal their module functions


def test_bound_rows_are_the_load_bounds_functions(table):
    eps, error = table.parameters["eps"], table.parameters["error"]
    sweep = [int(x) for x in table.parameters["s_values"].split(",")]
    assert sweep == list(range(N))  # n = 12: every s
    for s in sweep:
        assert _one(table, scheme="bound:exact", s=s)["load"] == worst_case_load(N, s).load
        t3 = exact_recovery_lower_bound(N, s, warn=False)
        row = _one(table, scheme="bound:thm3", s=s)
        assert (row["load_value"], row["load"]) == (t3.value, t3.load)
        assert row["covered"] == t3.in_regime and row["asymptotic"] == t3.asymptotic
        t5 = approximate_recovery_lower_bound(N, s, error, warn=False)
        assert _one(table, scheme="bound:thm5", s=s)["load_value"] == t5.value
        fin = min_load_lower_bound(N, s, eps, error).load
        assert _one(table, scheme="bound:thm5-finite", s=s)["load"] == fin
        assert (
            _one(table, scheme="bound:thm3-finite", s=s)["load"]
            == min_load_lower_bound(N, s, eps).load
        )
    for m in (1, 2, 4, 8):
        row = _one(table, scheme="bound:ye-abbe", m=m)
        assert row["load_value"] == worst_case_load(N, 3, m).value  # Ye-Abbe eq. (1)


def test_exact_scheme_rows_are_runtime_and_theorem2(table):
    for s in range(N):
        cyc = _one(table, scheme="cyclic-mds", s=s)
        assert cyc["load"] == s + 1 and cyc["failure"] == 0.0 and cyc["exact"]
        assert cyc["time"] == scheme_expected_time("cyclic-mds", DELAY, N, s)
        assert _one(table, scheme="reed-solomon", s=s)["time"] == cyc["time"]
        ya = _one(table, scheme="ye-abbe", s=s, m=2, generator="gaussian") if s <= 10 else None
        if ya is not None:
            assert ya["load"] == s + 2 and ya["communication"] == 0.5
            assert ya["time"] == scheme_expected_time("ye-abbe", DELAY, N, s, 2)
            assert ya["s_kappa_guaranteed"] == _or_none(s_kappa_ye_abbe, N, s, 1000, 0.01)
        if N % (s + 1) == 0:
            frc = _one(table, scheme="frc", s=s)
            assert frc["time"] == scheme_time_moments("frc", DELAY, N, s).mean
        else:
            assert not table.select(scheme="frc", s=s)
        cf = table.select(scheme="commfr-gc", s=s, m=2, generator="gaussian")
        if N % (s + 2):
            assert not cf
        else:
            (cf,) = cf
            code = (s + 2, 2, s + 1)
            assert cf["time"] == scheme_expected_time("commfr-gc", DELAY, N, code=code)
            assert cf["s_kappa_guaranteed"] == _or_none(s_kappa_commfr, s, 2, 1000, 0.01)


def test_theorem2_cells_match_table1_and_the_independent_scan():
    # Table I's (60, 8, 2) row, both cells, against the independent eq. (7) scan
    t = tradeoff(
        60,
        s=8,
        m=2,
        kappa=1000,
        eps=1e-3,
        schemes=["ye-abbe", "commfr-gc"],
        s_values=[8],
        generators=["gaussian"],
        quick=True,
        rng=0,
    )
    ya = _one(t, scheme="ye-abbe", s=8, m=2, generator="gaussian")
    cf = _one(t, scheme="commfr-gc", s=8, m=2, generator="gaussian")
    assert ya["s_kappa_guaranteed"] == _s_kappa_reference(60, 52)
    assert cf["s_kappa_guaranteed"] == _s_kappa_reference(10, 2)


def _brute_dfrc_tail(n, s, d, c):
    """P(err > c) for the d-FRC with d | n by enumerating every straggler set: groups of d
    consecutive workers hold the same d partitions; a group fully straggling loses them."""
    bad = 0
    sets = list(itertools.combinations(range(n), s))
    for S in sets:
        lost = sum(d for g in range(n // d) if set(range(g * d, g * d + d)) <= set(S))
        bad += lost > c
    return Fraction(bad, len(sets))


def test_dfrc_row_is_the_smallest_load_meeting_eps_by_enumeration(table):
    eps, c = Fraction("0.01"), 0.2 * N
    for s in range(1, N):
        row = _one(table, scheme="d-frc", s=s)
        d = int(row["load"])
        pmf = frc_error_pmf(N, s, d)
        tail = sum((q for e, q in pmf.items() if e > c), Fraction(0))
        assert row["failure"] == float(tail) and tail <= eps
        if N % d == 0:
            assert tail == _brute_dfrc_tail(N, s, d, c)  # enumeration of straggler sets
        if d > 1:  # minimal: one partition less misses the target
            below = frc_error_pmf(N, s, d - 1)
            assert sum((q for e, q in below.items() if e > c), Fraction(0)) > eps


def test_bibd_row_is_the_closed_form_lowest_load_design():
    from gctheory.codes import bibd, bibd_error

    # 13 points, lambda = 1: the complete design (13, 2) (load 13*12/78 = 2), the
    # Steiner triple system STS(13) (load 13*6/26 = 3) and PG(2, 3) (load 4)
    designs = [bibd(13, 2, 1), bibd(13, 3, 1), bibd(13, 4, 1)]
    assert [13 * D.r / D.b for D in designs] == [2.0, 3.0, 4.0]
    t = tradeoff(13, schemes=["bibd"], error=0.3, quick=True, rng=0)
    rows = [r for r in t.rows if r["kind"] != "bound"]
    assert rows
    for row in rows:
        ok = [D for D in designs if bibd_error(D.v, D.b, D.r, D.lam, row["s"]) <= 0.3 * D.b]
        best = min(ok, key=lambda D: Fraction(13 * D.r, D.b))
        assert row["note"].startswith(best.name) and row["load"] == 13 * best.r / best.b
        assert row["error_bound"] == float(bibd_error(13, best.b, best.r, 1, row["s"]) / best.b)
        assert row["failure"] == 0.0
    # a heavier design takes over as s grows (which ones: the closed form above decides)
    assert len({r["load"] for r in rows}) >= 2


def test_monte_carlo_time_intervals_hold_the_exact_mean_and_reject_a_wrong_one(table):
    mc = [r for r in table.rows if r["time_mc"] is not None]
    assert len(mc) >= 10
    misses = sum(not r["time_low"] <= r["time"] <= r["time_high"] for r in mc)
    # 99% intervals: with these few rows, more than 2 misses has probability below 0.2%
    assert misses <= 2
    # negative control: a mean 10% off is rejected by (almost) every interval
    wrong = sum(not r["time_low"] <= 1.1 * r["time"] <= r["time_high"] for r in mc)
    assert wrong >= len(mc) - 2


def test_approximate_time_is_ignore_s_scaled_by_the_load(table):
    for r in table.rows:
        if r["kind"] == "approximate":
            base = scheme_time_moments("ignore-s", DELAY, N, r["s"]).mean
            assert r["time"] == pytest.approx(r["load"] * base, rel=1e-12)


def test_a_measured_trace_gives_the_delays_modules_empirical_times(tmp_path):
    from gctheory.delays import fit_load_scaling, make_trace, scheme_times, write_trace

    rng = np.random.default_rng(5)
    rnd, wkr = np.divmod(np.arange(12 * 10), 10)  # 12 rounds of 10 workers, three loads
    load = np.repeat([0.1, 0.4, 1.0], rnd.size)
    trace = make_trace(
        np.tile(rnd, 3), np.tile(wkr, 3), load, 0.3 + load + rng.exponential(0.2, load.size)
    )
    path = write_trace(trace, tmp_path / "t.csv")
    t = tradeoff(
        10, delay=f"trace:{path}", schemes=["cyclic-mds", "frc", "d-frc"], quick=True, rng=0
    )
    assert t.parameters["delay"] == f"trace:{path}"
    lm = fit_load_scaling(trace)
    for s in (1, 4):
        row = _one(t, scheme="cyclic-mds", s=s)
        ref = scheme_times(trace, "cyclic-mds", 10, s=[s], laws=(), load_model=lm, bootstrap=0)
        assert row["time"] == pytest.approx(ref.at("empirical", s), rel=1e-12)
        assert row["time_low"] <= row["time"] <= row["time_high"] and row["time_mc"] is None
        assert "bootstrap" in row["note"]
        # an approximate code: the ignore-s layout at its own load, on the measured times
        dfrc = _one(t, scheme="d-frc", s=s)
        ref = scheme_times(
            trace, "ignore-s", 10, s=[s], laws=(), load_model=lm, bootstrap=0,
            load=dfrc["load"] / 10,
        )  # fmt: skip
        assert dfrc["time"] == pytest.approx(ref.at("empirical", s), rel=1e-12)
        assert dfrc["time_low"] <= dfrc["time"] <= dfrc["time_high"]
    # the same layout at the same load is the same time: cyclic-MDS is ignore-s at (s+1)/n
    same = scheme_times(trace, "ignore-s", 10, s=[3], laws=(), load_model=lm, bootstrap=0,
                        load=0.4)  # fmt: skip
    mds = scheme_times(trace, "cyclic-mds", 10, s=[3], laws=(), load_model=lm, bootstrap=0)
    assert same.at("empirical", 3) == mds.at("empirical", 3)
    with pytest.raises(ValueError, match=r"load must lie in \(0, 1\]"):
        scheme_times(trace, "ignore-s", 10, s=[3], laws=(), bootstrap=0, load=1.5)
    with pytest.raises(ValueError, match="does not exist"):
        tradeoff(10, delay=f"trace:{tmp_path / 'missing.csv'}")


# ------------------------------------------------------------ certified s_kappa intervals


@settings(max_examples=40, deadline=None)
@given(
    K=st.integers(1, 3),
    extra=st.integers(0, 5),
    family=st.sampled_from(sorted(generator_families(systematic=True))),
    budget=st.sampled_from([0.0, 3e3, 3e4, 1e12]),
    kappa=st.sampled_from([3.0, 30.0, 1e3]),
    seed=st.integers(0, 10_000),
)
def test_interval_contains_the_enumerated_empirical_s_kappa(K, extra, family, budget, kappa, seed):
    maker = generator_families(systematic=True)[family]
    N = K + extra
    try:
        G = maker.build(K, N, np.random.default_rng(seed))
    except ValueError:  # a systematic form whose first K columns are singular
        return
    b = maker.block(N)
    iv = empirical_s_kappa_interval(G, kappa, budget=budget, block=b, rng=seed)
    # reference: every step enumerated by the conditioning module's certified search
    ref = empirical_s_kappa(G, kappa, block=b, exhaustive_limit=10**6)
    if not ref.exact:  # float64 cannot resolve a step: nothing to compare exactly
        return
    truth = -1 if ref.value is None else ref.value
    assert iv.low <= truth <= iv.high
    if budget >= 1e12:
        assert iv.exact and iv.low == truth


def test_interval_with_one_terrible_subset():
    # columns 0 and 1 nearly parallel: only the subsets holding both are ill conditioned
    G = np.random.default_rng(3).standard_normal((2, 9))
    G[:, 1] = G[:, 0] + 1e-7
    truth = empirical_s_kappa(G, 100.0, exhaustive_limit=10**6).value
    for budget in (0.0, 1e3, 1e4, 1e5, 1e9):
        iv = empirical_s_kappa_interval(G, 100.0, budget=budget, rng=1)
        assert iv.low <= truth <= iv.high
    assert truth < 7  # the pair {0, 1} alone (s' = 7) fails
    assert empirical_s_kappa_interval(G, 100.0, budget=1e9).low == truth


# ---------------------------------------------------------------------- dominance


def test_dominance_on_a_hand_built_table():
    rows = [
        dict(scheme="a", s=2, m=1, load=3, communication=1, failure=0.0, time=1.0),
        dict(scheme="b", s=2, m=1, load=4, communication=1, failure=0.0, time=2.0),  # by a
        dict(scheme="c", s=2, m=2, load=4, communication=0.5, failure=0.0, time=2.0),  # trade
        dict(scheme="d", s=2, m=1, load=3, communication=1, failure=0.0, time=1.0),  # ties a
        dict(scheme="e", s=1, m=1, load=2, communication=1, failure=0.0, time=3.0),  # trade
        dict(scheme="f", s=2, m=1, load=3, communication=1, failure=None, time=0.5),  # unknown
        dict(scheme="bound:x", kind="bound", s=2, m=1, load=1, communication=1),
    ]
    t = TradeoffTable.from_rows(rows)
    marks = dominance(t.rows, ["load", "communication", "tolerance", "failure", "time"])
    assert [m[0] for m in marks] == [False, True, False, False, False, False, None]
    assert marks[1][1] == "a s=2 m=1"
    # on fewer axes c loses its communication advantage and is dominated by a
    assert dominance(t.rows, ["load", "time"])[2] == (True, "a s=2 m=1")
    # the missing failure of f makes it incomparable on "failure", but not on load/time
    assert dominance(t.rows, ["load", "time"])[0] == (True, "f s=2 m=1")
    with pytest.raises(ValueError, match="axis must be one of"):
        dominance(t.rows, ["speed"])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(*[st.one_of(st.none(), st.integers(0, 3))] * 4), min_size=1, max_size=12))
def test_dominance_is_a_strict_partial_order(values):
    rows = [
        dict(scheme=f"x{i}", s=v[0], m=1, load=v[1], communication=1, failure=v[2], time=v[3])
        for i, v in enumerate(values)
    ]
    axes = ["tolerance", "load", "failure", "time"]
    t = TradeoffTable.from_rows(rows)
    dom = np.array([[False] * len(rows) for _ in rows])
    for j, r in enumerate(t.rows):  # j dominates i iff i is dominated by a table of {i, j}
        for i, q in enumerate(t.rows):
            if i != j:
                dom[j, i] = dominance([q, r], axes)[0][0]
    assert not (dom & dom.T).any()  # antisymmetric
    assert ((dom.astype(int) @ dom.astype(int) > 0) <= dom).all()  # transitive
    marks = dominance(t.rows, axes)
    assert [m[0] for m in marks] == list(dom.any(axis=0))


def test_table_dominance_flags_and_dominated_schemes(table):
    assert all(r["dominated"] is None for r in table.rows if r["kind"] == "bound")
    assert all(isinstance(r["dominated"], bool) for r in table.rows if r["kind"] != "bound")
    for name in table.dominated_schemes():
        assert all(r["dominated"] for r in table.select(scheme=name))
    assert table.parameters["axes"] == ",".join(TRADEOFF_AXES)


# ------------------------------------------------------------ not covered, never guessed


def test_theorem2_outside_eq8_is_marked_not_extrapolated():
    t = tradeoff(
        40,
        s=10,
        m=2,
        kappa=2.0,
        eps=0.5,
        schemes=["ye-abbe", "commfr-gc"],
        generators=["gaussian"],
        quick=True,
        rng=0,
    )
    for r in t.rows:
        if r["kind"] == "bound" or r["generator"] != "gaussian":
            continue
        scheme = r["scheme"]
        try:
            expected = (
                s_kappa_ye_abbe(40, r["s"], 2.0, 0.5)
                if scheme == "ye-abbe"
                else s_kappa_commfr(r["s"], r["m"], 2.0, 0.5)
            )
        except ValueError:
            expected = None
        assert r["s_kappa_guaranteed"] == expected
        if expected is None:
            assert not r["covered"] and "Theorem 2 not covered" in r["note"]
    assert any(r["s_kappa_guaranteed"] is None for r in t.rows if r["kind"] != "bound")


def test_asymptotic_and_out_of_regime_bounds_are_marked(table):
    rows = table.select(scheme="bound:thm3")
    assert all(r["asymptotic"] and "asymptotic" in r["note"] for r in rows if r["s"] > 0)
    for r in rows:
        b = exact_recovery_lower_bound(N, r["s"], warn=False)
        assert r["covered"] == b.in_regime
        assert all(x in r["note"] for x in b.notes)
    assert any(not r["covered"] for r in rows)  # eq. (13) decreases in s at n = 12


def test_batch_raptor_outside_theorem6_is_marked(table):
    rows = table.select(scheme="batch-raptor")
    assert rows
    for r in rows:
        assert r["asymptotic"]
        if not r["covered"]:
            assert "eq. (53) fails" in r["note"] or "eq. (54) fails" in r["note"]


def test_infinite_times_are_inf_with_the_reason_and_no_monte_carlo():
    t = tradeoff(
        10, delay="pareto(scale=0.001, shape=0.5)", schemes=["cyclic-mds"], quick=True, rng=0
    )
    rows = [r for r in t.rows if r["kind"] != "bound"]
    inf = [r for r in rows if math.isinf(r["time"])]
    assert inf and all("expected time infinite" in r["note"] for r in inf)
    assert all(r["time_mc"] is None for r in inf)
    # pareto(scale, shape): "pareto(1.1, 0.001)" has shape 0.001, every mean is infinite;
    # the positional spec warns, naming the reading taken
    with pytest.warns(UserWarning, match=r"pareto\(scale=1.1, shape=0.001\).*infinite mean"):
        t = tradeoff(10, delay="pareto(1.1, 0.001)", schemes=["cyclic-mds"], quick=True, rng=0)
    assert any("pareto(scale, shape)" in x and "every expected" in x for x in t.notes)


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n=1), "n must lie in"),
        (dict(n=10, s=10), "s must lie in"),
        (dict(n=10, s=-1), "s must lie in"),
        (dict(n=10, kappa=0.5), "kappa must lie in"),
        (dict(n=10, eps=0.0), "eps must lie in"),
        (dict(n=10, eps=1.0), "eps must lie in"),
        (dict(n=10, error=1.0), "error must lie in"),
        (dict(n=10, schemes=["nope"]), "scheme must be one of .*cyclic-mds"),
        (dict(n=10, delay="weibull(1, 2)"), "unknown delay .*valid delays"),
        (dict(n=10, generators=["hadamard"]), "generator must be one of .*gaussian"),
        (dict(n=10, axes=["speed"]), "axis must be one of"),
        (dict(n=10, s=8, m=3), "s \\+ m <= n"),
        (dict(n=10**6), "n must be at most"),
        (dict(n=10, s_values=[]), "s_values must hold"),
        (dict(n=True), "n must be an integer"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tradeoff(**kwargs)


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(-1, 9),
    s=st.one_of(st.none(), st.integers(-2, 10)),
    m=st.one_of(st.none(), st.integers(0, 4)),
    kappa=st.one_of(st.none(), st.sampled_from([0.5, 1.0, 50.0])),
    eps=st.sampled_from([0.0, 0.01, 0.5, 1.0]),
    error=st.sampled_from([-0.1, 0.0, 0.2, 1.0]),
)
def test_fuzzed_parameters_give_a_table_or_a_named_error(n, s, m, kappa, eps, error):
    kw = dict(
        s=s,
        m=m,
        kappa=kappa,
        eps=eps,
        error=error,
        quick=True,
        rng=0,
        trials=20,
        schemes=["cyclic-mds", "ye-abbe", "commfr-gc", "d-frc", "bibd", "expander"],
        generators=["gaussian", "vandermonde-chebyshev"],
    )
    try:
        t = tradeoff(n, **kw)
    except ValueError as exc:
        assert any(p in str(exc) for p in ("n ", "s ", "m ", "kappa", "eps", "error", "s + m"))
        return
    for r in t.rows:
        assert 0 <= r["s"] <= n - 1 and r["load"] >= 1
        exact = _one(t, scheme="bound:exact", s=r["s"])["load"]
        if r["kind"] == "exact":  # every exact code meets Ye-Abbe's bound (s + m >= s + 1)
            assert r["load"] >= exact
        if r["scheme"] == "d-frc":  # the finite-n lower bound holds for the d-FRC
            assert r["load"] >= _one(t, scheme="bound:thm5-finite", s=r["s"])["load"]
            assert r["failure"] <= eps


def test_a_scheme_that_cannot_exist_is_a_note_not_a_failure():
    t = tradeoff(7, schemes=["frc", "commfr-gc", "cyclic-mds"], m=2, quick=True, rng=0)
    assert sorted({r["s"] for r in t.select(scheme="frc")}) == [0, 6]  # (s + 1) | 7
    assert any(x.startswith("frc: left out at s = 1-5") for x in t.notes)
    assert any(x.startswith("commfr-gc: left out") for x in t.notes)
    t = tradeoff(7, schemes=["sgc"], quick=True, rng=0)
    assert not t.schemes() and "sgc: left out" in t.notes[0]


# ------------------------------------------------------------------ figure and command


def test_figure_has_one_line_per_scheme_per_panel(table):
    from gctheory.plots.tradeoff import plot_tradeoff, plt

    fig = plot_tradeoff(table)
    gids = [ln.get_gid() for ax in fig.axes for ln in ax.get_lines() if ln.get_gid()]
    plt.close(fig)
    assert len(gids) == len(set(gids))  # one line per scheme per panel
    for name in table.schemes():
        assert f"a:{name}" in gids
        assert f"d:{name}" in gids
        if table.select(scheme=name, s=3):
            assert f"b:{name}" in gids
    for name in ("ye-abbe", "commfr-gc"):
        assert f"c:{name}:theorem2" in gids
        for fam in generator_families():
            assert f"c:{name}:{fam}" in gids
    approx = [x for x in table.schemes() if TRADEOFF_SCHEMES[x][0] == "approximate"]
    assert all(f"a-failure:{x}" in gids for x in approx)


def test_cli_writes_the_three_files_and_lists_non_dominated(tmp_path, capsys):
    out = tmp_path / "atlas"
    rc = main(
        [
            "tradeoff",
            "--n",
            "12",
            "--s",
            "3",
            "--kappa",
            "1000",
            "--eps",
            "0.01",
            "--delay",
            "shifted_exp(1, 1)",
            "--quick",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0
    for ext in ("png", "csv"):
        assert (tmp_path / f"atlas.{ext}").stat().st_size > 0
    assert not (tmp_path / "atlas.svg").exists()  # --quick: raster only, as reproduce --quick
    assert "Schemes not dominated at s = 3" in text and "cyclic-mds" in text
    header = (tmp_path / "atlas.csv").read_text().splitlines()[0].split(",")
    assert header == list(TRADEOFF_COLUMNS)
    rc = main(
        [
            "tradeoff",
            "--n",
            "4",
            "--schemes",
            "cyclic-mds",
            "frc",
            "--quick",
            "--delay",
            "none",
            "--format",
            "json",
            "--out",
            str(tmp_path / "b"),
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert rc == 0 and payload["parameters"]["n"] == 4
    assert {r["scheme"] for r in payload["rows"]} >= {"cyclic-mds", "frc", "bound:exact"}


def test_cli_bad_input_exits_2(tmp_path, capsys):
    assert main(["tradeoff", "--n", "12", "--schemes", "nope", "--out", str(tmp_path / "x")]) == 2
    assert "unknown scheme 'nope'; did you mean" in capsys.readouterr().err
    assert main(["tradeoff", "--n", "1", "--out", str(tmp_path / "x")]) == 2
