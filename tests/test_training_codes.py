"""Tests of the coded schemes' code options (gctheory.training.codes via make_scheme)."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory import training as tr
from gctheory.codes import bibd_error, dfrc_theorem4_load, margulis_graph
from gctheory.training.codes import CODE_OPTIONS
from gctheory.training.schemes import Iteration


def _one_step(sch, rng=0, dim=3):
    """One server step on random partials and delays; returns (step, G)."""
    gen = np.random.default_rng(rng)
    G = gen.normal(size=(sch.k, dim))
    X = gen.exponential(size=sch.n)
    return sch.step(Iteration(G, X, np.zeros(dim), 0, lambda *a: None)), G


# ------------------------------------------------------------- option d (the bug)
def test_code_option_d_is_honoured_for_expander_and_dfrc():
    # the old builder had its own d= parameter, so code_options["d"] never reached the code
    assert tr.make_scheme("expander", 20, s=4, code_options={"d": 5}, rng=0).code.d == 5
    assert tr.make_scheme("expander", 20, s=4, rng=0).code.d == 3  # default max(3, ceil(ln 20))
    assert np.ceil(dfrc_theorem4_load(20, 4)) != 5  # the default differs from the option
    assert tr.make_scheme("dfrc", 20, s=4, code_options={"d": 5}, rng=0).code.d == 5
    assert tr.make_scheme("dfrc", 20, s=4, code_options={"d": 2}, rng=0).code.load == 2


@pytest.mark.parametrize(
    ("scheme", "d", "match"),
    [
        ("expander", 99, r"d \(--degree.*n - 1\) must lie in \[1, 19\], got 99"),
        ("expander", 20, r"must lie in \[1, 19\], got 20"),
        ("expander", 0, r"must lie in \[1, 19\], got 0"),
        ("expander", 2.5, r"d \(--degree.*must be an integer"),
        ("dfrc", 99, r"d \(--degree.*1 <= d <= n\) must lie in \[1, 20\], got 99"),
        ("dfrc", -1, r"must lie in \[1, 20\]"),
        ("graph_assignment", 7, r"d must divide 2n = 40.*valid: \[1, 2, 4, 5\]"),
        ("graph_assignment", 99, r"must lie in \[1, 40\]"),
    ],
)
def test_impossible_d_is_refused_before_any_work(monkeypatch, scheme, d, match):
    import gctheory.codes as codes

    def boom(*a, **k):  # building anything would mean the check came too late
        raise AssertionError("a code or graph was built before d was checked")

    for name in ("random_regular_graph", "DFractionalRepetitionCode", "ExpanderCode"):
        monkeypatch.setattr(codes, name, boom)
    with pytest.raises(ValueError, match=match):
        tr.make_scheme(scheme, 20, s=4, code_options={"d": d}, rng=0)


def test_odd_degree_on_odd_n_is_refused_with_the_rule():
    with pytest.raises(ValueError, match=r"times n must be even.*n=21, d=5"):
        tr.make_scheme("expander", 21, s=4, code_options={"d": 5}, rng=0)


def test_unknown_code_options_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"\['d'\] are not options of scheme 'cyclic_mds'"):
        tr.make_scheme("cyclic_mds", 10, s=2, code_options={"d": 3})
    with pytest.raises(ValueError, match=r"\['loud'\].*'dfrc'; its options: d, decoder"):
        tr.make_scheme("dfrc", 10, s=2, code_options={"loud": 3})
    assert set(CODE_OPTIONS) <= set(tr.SCHEMES)


def test_make_scheme_docstring_examples_run():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    (test,) = finder.find(tr.make_scheme, "make_scheme", globs={"make_scheme": tr.make_scheme})
    assert test.examples  # the examples exist
    result = runner.run(test)
    assert result.failed == 0


# ------------------------------------------------------------------- expander graphs
def test_expander_on_the_margulis_graph_by_name_or_adjacency():
    by_name = tr.make_scheme("expander", 9, s=2, code_options={"graph": "margulis"}).code
    # raised TypeError (multiple values for 'adjacency') before
    by_adj = tr.make_scheme("expander", 9, s=2, code_options={"adjacency": margulis_graph(3)})
    assert by_name.d == by_adj.code.d == 8
    assert np.array_equal(by_name.adjacency, margulis_graph(3))
    run = tr.simulate("expander", n=16, s=3, iterations=3, rng=0,
                      code_options={"graph": "margulis"})  # fmt: skip
    assert run.loss[-1] < run.loss[0]


@pytest.mark.parametrize(
    ("opts", "match"),
    [
        ({"graph": "margulis"}, r"n = m\^2 workers.*got n=10"),
        ({"graph": "margulis", "d": 4}, r"d \(--degree; the Margulis graph is 8-regular\)"),
        ({"graph": "ramanujan"}, r"graph \(--graph\) must be one of \['random', 'margulis'\]"),
        ({"adjacency": margulis_graph(3)}, r"must be 10 x 10"),
        ({"adjacency": np.eye(10, dtype=int), "d": 3}, r"either as adjacency or by d"),
        ({"decoder": "peeling"}, r"decoder must be one of \['optimal', 'fixed'\]"),
    ],
)
def test_expander_bad_graph_options(opts, match):
    with pytest.raises(ValueError, match=match):
        tr.make_scheme("expander", 10, s=2, code_options=opts, rng=0)


def test_expander_fixed_decoder_is_the_scaled_survivor_sum():
    sch = tr.make_scheme("expander", 12, s=3, code_options={"decoder": "fixed", "d": 4}, rng=2)
    step, G = _one_step(sch)
    S = np.asarray(sch.last_decode.survivors)
    Y = sch.code.A @ G  # what the workers send
    np.testing.assert_allclose(step.grad, Y[S].sum(axis=0) * 12 / 9, rtol=1e-12)


# ------------------------------------------------------------------- graph assignment
def test_graph_assignment_default_and_optimal_error():
    sch = tr.make_scheme("graph-assignment", 12, s=3, rng=1)
    code = sch.code
    assert (code.n, code.k, code.d) == (12, 8, 3)  # smallest d >= 3 with d | 24, d < 24/d
    assert sch.k == 8 and np.all(sch.support.sum(axis=1) == 2)
    _one_step(sch, rng=3)
    S = list(sch.last_decode.survivors)
    # the decode (least squares) makes the components' closed-form optimal error
    assert sch.last_decode.err == pytest.approx(code.decoder_error(S), abs=1e-10)


def test_graph_assignment_bad_options():
    with pytest.raises(ValueError, match="self-loops"):
        tr.make_scheme("graph_assignment", 12, s=3, code_options={"graph": "margulis"})
    with pytest.raises(ValueError, match=r"no default degree for n=7.*one of \[1, 2\]"):
        tr.make_scheme("graph_assignment", 7, s=1)
    adj = np.ones((9, 9), dtype=int) - np.eye(9, dtype=int)  # K9: 36 edges
    with pytest.raises(ValueError, match=r"has 36 edges \(machines\), but n=12"):
        tr.make_scheme("graph_assignment", 12, s=3, code_options={"adjacency": adj})
    assert tr.make_scheme("graph_assignment", 36, s=3, code_options={"adjacency": adj}).k == 9


# ------------------------------------------------------------------------------- BIBD
@pytest.mark.parametrize(("n", "b", "r", "lam"), [(7, 7, 3, 1), (9, 12, 4, 1), (13, 13, 4, 1)])
def test_bibd_scheme_default_designs_make_the_closed_form_error(n, b, r, lam):
    # defaults: PG(2,2) (Fano), AG(2,3), PG(2,3); err = b - r^2 w/(r - lam + lam w)
    sch = tr.make_scheme("bibd", n, s=2)
    D = sch.code.design
    assert (D.v, D.b, D.r, D.lam) == (n, b, r, lam)
    _one_step(sch, rng=n)
    assert sch.last_decode.err == pytest.approx(float(bibd_error(n, b, r, lam, 2)), rel=1e-9)


def test_bibd_scheme_options():
    code = tr.make_scheme("bibd", 12, s=2, code_options={"block_size": 2}).code
    assert (code.n, code.k, code.load) == (12, 66, 11)  # the complete (12, 2, 1) design
    lstsq = tr.make_scheme("bibd", 7, s=2, code_options={"decoder": "lstsq"}).code
    assert lstsq.decoder == "lstsq"
    with pytest.raises(ValueError, match=r"no default design with 10 points.*block_size"):
        tr.make_scheme("bibd", 10, s=2)
    with pytest.raises(ValueError, match=r"no \(10,4,1\) design exists"):
        tr.make_scheme("bibd", 10, s=2, code_options={"block_size": 4})
    with pytest.raises(ValueError, match=r"block_size.*must lie in \[2, 9\]"):
        tr.make_scheme("bibd", 10, s=2, code_options={"block_size": 10})


# -------------------------------------------------------------------------------- SGC
def _mean_over_all_sets(sch, G):
    """The average decoded gradient over every K-subset of survivors (enumeration)."""
    Y = sch.code.encode(G)
    sets = list(itertools.combinations(range(sch.n), sch.f))
    return sum(sch.code.decode(list(S), Y[list(S)], G.shape[1]).real for S in sets) / len(sets)


def test_sgc_default_p_makes_the_estimator_unbiased_over_random_survivors():
    # p = s/n: every worker survives a uniformly random K-subset with probability K/n = 1 - p,
    # so the mean over all C(n, K) sets is the full sum (enumeration); negative control: p = 0.5
    sch = tr.make_scheme("sgc", 7, s=2)
    assert sch.code.p == pytest.approx(2 / 7) and sch.code.d == 3  # d defaults to s + 1
    G = np.random.default_rng(5).normal(size=(sch.k, 4))
    np.testing.assert_allclose(_mean_over_all_sets(sch, G), G.sum(axis=0), rtol=1e-12)
    wrong = tr.make_scheme("sgc", 7, s=2, code_options={"p": 0.5})
    assert not np.allclose(_mean_over_all_sets(wrong, G), G.sum(axis=0), rtol=1e-3)


@pytest.mark.parametrize(("n", "k", "r"), [(7, 7, 3), (12, 9, 4)])
def test_sgc_pairwise_balanced_placements(n, k, r):
    # n workers = the blocks of PG(2,2) (7) or AG(2,3) (12): every pair of partitions shares
    # exactly one worker, every partition is on r workers
    sch = tr.make_scheme("sgc", n, s=2, code_options={"placement": "pairwise-balanced"})
    A = sch.code.A.astype(int)
    assert A.shape == (n, k)
    C = A.T @ A
    assert np.all(np.diag(C) == r) and np.all(C[~np.eye(k, dtype=bool)] == 1)
    G = np.random.default_rng(n).normal(size=(k, 2))
    np.testing.assert_allclose(_mean_over_all_sets(sch, G), G.sum(axis=0), rtol=1e-12)


def test_sgc_bad_options():
    with pytest.raises(ValueError, match=r"p \(--p.*must lie in \[0, 1\)"):
        tr.make_scheme("sgc", 10, s=2, code_options={"p": 1.0})
    with pytest.raises(ValueError, match=r"v, block_size and lam are options of placement"):
        tr.make_scheme("sgc", 10, s=2, code_options={"lam": 2})
    with pytest.raises(ValueError, match=r"d is an option of placement='cyclic'"):
        tr.make_scheme("sgc", 7, s=2, code_options={"placement": "pairwise-balanced", "d": 2})
    with pytest.raises(ValueError, match=r"no default design with 10 blocks: give v"):
        tr.make_scheme("sgc", 10, s=2, code_options={"placement": "pairwise-balanced"})
    with pytest.raises(ValueError, match=r"b = n = 10 blocks.*has b = 7"):
        opts = {"placement": "pairwise-balanced", "v": 7, "block_size": 3}
        tr.make_scheme("sgc", 10, s=2, code_options=opts)
    with pytest.raises(ValueError, match=r"d \(--degree.*must lie in \[1, 10\]"):
        tr.make_scheme("sgc", 10, s=2, code_options={"d": 11})


# ----------------------------------------------------------------------------- IS-GC
def test_isgc_placement_fr_is_frc():
    assert tr.make_scheme("isgc", 12, s=2, code_options={"placement": "fr"}).code.placement == (
        "frc"
    )
    hyb = tr.make_scheme("isgc", 12, s=3, code_options={"placement": "hybrid", "c1": 2,
                                                        "groups": 3})  # fmt: skip
    assert (hyb.code.c1, hyb.code.groups) == (2, 3)


# ------------------------------------------------------------------------------- CLI
def test_cli_simulate_code_options(tmp_path, capsys):
    from gctheory.cli import main

    base = ["simulate", "--iterations", "2", "--out", str(tmp_path / "r"), "--format", "csv"]
    ok = [
        ["--scheme", "expander", "--n", "16", "--s", "3", "--graph", "margulis",
         "--decoder", "fixed"],
        ["--scheme", "expander", "--n", "12", "--s", "3", "--degree", "5"],
        ["--scheme", "isgc", "--n", "12", "--s", "3", "--placement", "hybrid", "--c1", "2",
         "--groups", "3"],
        ["--scheme", "isgc", "--n", "12", "--s", "2", "--placement", "fr"],
        ["--scheme", "bibd", "--n", "7", "--s", "2", "--decoder", "lstsq"],
        ["--scheme", "sgc", "--n", "12", "--s", "2", "--placement", "pairwise-balanced"],
        ["--scheme", "graph-assignment", "--n", "12", "--s", "3", "--degree", "4"],
    ]  # fmt: skip
    for argv in ok:
        assert main(base + argv) == 0, argv
    capsys.readouterr()
    bad = [
        (["--scheme", "gd", "--degree", "3"], "--degree is not an option of scheme 'gd'"),
        (["--scheme", "cyclic_mds", "--s", "2", "--graph", "margulis"],
         "--graph is not an option of scheme 'cyclic_mds'; it applies to: expander"),
        (["--scheme", "expander", "--n", "20", "--s", "4", "--degree", "99"],
         "must lie in [1, 19], got 99"),
        (["--scheme", "expander", "--n", "20", "--s", "4", "--decoder", "group"],
         "decoder must be one of ['optimal', 'fixed']"),
        (["--scheme", "isgc", "--n", "12", "--s", "3", "--placement", "diagonal"],
         "placement must be one of"),
        (["--scheme", "bibd", "--n", "7", "--s", "2", "--p", "0.1"],
         "--p is not an option of scheme 'bibd'; it applies to: bgc, sgc"),
    ]  # fmt: skip
    for argv, msg in bad:
        assert main(base + argv) == 2, argv
        assert msg in capsys.readouterr().err, argv


def test_isgc_design_s_junk_is_a_value_error():
    # was a TypeError ('x' + 1) before the option was checked
    for bad in ("x", [], 12, -1):
        with pytest.raises(ValueError, match=r"design_s \(storage design_s \+ 1\) must"):
            tr.make_scheme("isgc", 12, s=2, code_options={"design_s": bad})


@settings(max_examples=120, deadline=None)
@given(
    scheme=st.sampled_from(["expander", "dfrc", "graph_assignment", "sgc"]),
    n=st.integers(2, 40),
    d=st.one_of(st.integers(-3, 90), st.floats(-5, 90), st.sampled_from([None, "3", True])),
)
def test_option_d_builds_exactly_when_its_rule_holds(scheme, n, d):
    # the rules, restated: expander 1 <= d <= n - 1 and n d even; dfrc and cyclic sgc
    # 1 <= d <= n; graph assignment d | 2n and d < 2n / d (a simple graph on k = 2n/d blocks)
    is_int = isinstance(d, int | float) and not isinstance(d, bool) and float(d).is_integer()
    k = int(d) if is_int else None
    ok = (
        k is not None
        and {
            "expander": 1 <= k <= n - 1 and n * k % 2 == 0,
            "dfrc": 1 <= k <= n,
            "sgc": 1 <= k <= n,
            "graph_assignment": k >= 1 and 2 * n % k == 0 and k < 2 * n // k,
        }[scheme]
    )
    if not ok:
        with pytest.raises(ValueError, match=r"\bd\b"):
            tr.make_scheme(scheme, n, s=1, code_options={"d": d}, rng=0)
        return
    code = tr.make_scheme(scheme, n, s=1, code_options={"d": d}, rng=0).code
    assert code.d == k
    if scheme == "graph_assignment":
        assert (code.n, code.k) == (n, 2 * n // k)


@pytest.mark.parametrize(("n", "name"), [(21, "PG(2,4)"), (16, "AG(2,4)"), (64, "AG(2,8)")])
def test_bibd_default_design_over_prime_power_fields(n, name):
    # planes over GF(q) exist for every prime power q (gctheory.codes.bibd builds them);
    # the default used to stop at prime q and refused n = 16, 21, 64
    code = tr.make_scheme("bibd", n, s=1).code
    assert code.design.name == name and code.design.v == n


def test_bibd_no_default_design_names_prime_powers():
    with pytest.raises(ValueError, match="prime power"):
        tr.make_scheme("bibd", 10, s=1)


# ------------------------------------------------------------- BRC: the first decodable set
def test_brc_server_waits_for_the_first_decodable_set_not_a_count():
    sch = tr.make_scheme("brc", 12, s=2, rng=1)
    counted = 0
    for seed in range(12):
        step, G = _one_step(sch, rng=seed)
        gen = np.random.default_rng(seed)
        gen.normal(size=(sch.k, 3))
        T = sch.finish_times(gen.exponential(size=sch.n))  # the step's own draw
        order = np.argsort(T, kind="stable")
        L = next(j for j in range(1, 13) if sch.peeling.decodable(order[:j]))
        assert step.wait == T[order[L - 1]], seed  # the moment the first decodable set is in
        assert sch.peeling.first_decodable(order) == L
        counted += L != sch.f
    # negative control: the old rule (the fastest wait_for = n - s) waits otherwise
    assert counted > 0
