"""Expander, graph-assignment, BIBD, SGC and IS-GC constructions (issue 16)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory.codes import (
    BIBDGradientCode,
    ExpanderCode,
    GraphAssignmentCode,
    ISGCDecoder,
    StochasticGradientCode,
    affine_plane,
    bibd,
    bibd_error,
    circulant_graph,
    circulant_spectrum,
    cyclic_max_disjoint,
    expander_error_bound,
    frc_expected_recovered,
    graph_spectrum,
    margulis_graph,
    projective_plane,
    random_regular_graph,
    recovery_error,
    sgc_variance,
)
from gctheory.montecarlo import estimate_mean


# ------------------------------------------------------------------ graphs
@settings(max_examples=25, deadline=None)
@given(n=st.integers(4, 40), d=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_random_regular_graph_is_simple_and_regular(n, d, seed):
    if d >= n or (n * d) % 2:
        with pytest.raises(ValueError, match="d must be < n|must be even"):
            random_regular_graph(n, d, rng=seed)
        return
    A = random_regular_graph(n, d, rng=seed)
    assert np.array_equal(A, A.T) and not np.diag(A).any()
    assert set(np.unique(A).tolist()) <= {0, 1} and np.all(A.sum(axis=1) == d)


def test_margulis_is_8_regular_with_gabber_galil_gap():
    for m in (2, 5, 9):
        d, lam2, _ = graph_spectrum(margulis_graph(m))
        assert d == 8 and lam2 <= 5 * math.sqrt(2) + 1e-9  # Gabber-Galil 1981


def test_circulant_spectrum_matches_dense():
    for n, g in ((12, [1, 3]), (15, [2, 5, 7]), (10, [5, 1])):
        np.testing.assert_allclose(circulant_spectrum(n, g), graph_spectrum(circulant_graph(n, g)))


def test_non_regular_graph_refused():
    A = np.zeros((4, 4), dtype=np.int8)
    A[0, 1] = A[1, 0] = A[1, 2] = A[2, 1] = 1
    with pytest.raises(ValueError, match="non-regular"):
        ExpanderCode(A)
    with pytest.raises(ValueError, match="symmetric"):
        ExpanderCode(np.triu(np.ones((4, 4), dtype=np.int8), 1))


# --------------------------------------------------------------- expander
def test_expander_fixed_decoder_within_spectral_bound_exhaustive():
    A = random_regular_graph(12, 4, rng=3)
    fixed, opt = ExpanderCode(A, decoder="fixed"), ExpanderCode(A)
    for s in (1, 2, 3):
        bound = fixed.error_bound(s)
        for S in itertools.combinations(range(12), s):
            T = np.setdiff1d(np.arange(12), S)
            ef, eo = fixed.decoder_error(T), opt.decoder_error(T)
            assert eo <= ef + 1e-12 <= bound + 1e-12
    # negative control: the bound with a too-small eigenvalue fails somewhere
    small = expander_error_bound(12, 3, fixed.d, fixed.lam / 3)
    T = np.arange(9)
    assert (
        max(
            fixed.decoder_error(np.setdiff1d(np.arange(12), S))
            for S in itertools.combinations(range(12), 3)
        )
        > small
    )
    assert fixed.decoder_error(T) >= 0


def test_expander_decode_matches_its_error():
    code = ExpanderCode(margulis_graph(4), decoder="fixed")
    P = np.random.default_rng(0).standard_normal((16, 3))
    Y = code.encode(P)
    T = np.arange(12)
    res = code.decode_detail(T, Y[T])
    u = np.full(12, 16 / 12)
    np.testing.assert_allclose(res.gradient, (u @ code.A[T]) @ P)
    assert res.err == pytest.approx(code.decoder_error(T))


# ------------------------------------------------------ graph assignment
def test_graph_optimal_alpha_equals_least_squares():
    rng = np.random.default_rng(1)
    for A in (circulant_graph(14, [1, 3]), random_regular_graph(16, 3, rng=2)):
        code = GraphAssignmentCode(A)
        for p in (0.2, 0.5, 0.8):
            T = np.flatnonzero(rng.random(code.n) >= p)
            M = code.A[T].T.astype(float)
            a_ls = M @ np.linalg.lstsq(M, np.ones(code.k), rcond=None)[0]
            np.testing.assert_allclose(code.alpha(T), a_ls, atol=1e-9)


def test_graph_alpha_bipartite_component_closed_form():
    # a path 0-1-2 (bipartite, sides {0, 2} and {1}) plus an isolated vertex 3 in C_4
    code = GraphAssignmentCode(circulant_graph(4, [1]))  # edges 01, 03, 12, 23
    alive = [i for i, e in enumerate(code.edges.tolist()) if e in ([0, 1], [1, 2])]
    a = code.alpha(alive)
    np.testing.assert_allclose(a, [1 - 1 / 3, 1 + 1 / 3, 1 - 1 / 3, 0])  # closed form, Sec. 4
    assert code.decoder_error(alive) == pytest.approx(1 / 9 * 3 + 1)


# ------------------------------------------------------------------ BIBDs
def test_designs_and_their_parameters():
    F = projective_plane(2)
    assert (F.v, F.b, F.r, F.k, F.lam) == (7, 7, 3, 3, 1)  # Fano plane
    P3 = projective_plane(3)
    assert (P3.v, P3.k, P3.lam) == (13, 4, 1)
    A3 = affine_plane(3)
    assert (A3.v, A3.b, A3.r, A3.k, A3.lam) == (9, 12, 4, 3, 1)
    assert bibd(7, 3, 2).b == 14 and bibd(6, 3, 4).b == 20


@pytest.mark.parametrize(
    "args, match",
    [
        ((6, 3, 1), "not an integer"),  # r = 5/2
        ((22, 7, 2), "Bruck-Ryser-Chowla"),
        ((16, 6, 2), "no construction here"),
        ((5, 5, 1), "k must be < v"),
    ],
)
def test_impossible_or_unbuilt_designs_refused(args, match):
    with pytest.raises(ValueError, match=match):
        bibd(*args)


def test_bibd_error_is_the_same_for_every_straggler_set():
    for D in (projective_plane(2), affine_plane(3)):
        code = BIBDGradientCode(D)
        A = D.incidence.astype(float)
        for e in range(D.v):
            errs = {
                round(recovery_error(A[np.setdiff1d(np.arange(D.v), S)]), 9)
                for S in itertools.combinations(range(D.v), e)
            }
            assert errs == {round(float(code.error(e)), 9)}
    assert bibd_error(7, 7, 3, 1, 1) == Fraction(1, 4)  # closed form 7 - 9*6/(2 + 6)


def test_bibd_decode_uses_the_closed_form_coefficients():
    code = BIBDGradientCode(projective_plane(2))
    P = np.random.default_rng(2).standard_normal((7, 3))
    Y = code.encode(P)
    T = np.array([0, 2, 3, 6])
    c = 3 / (3 - 1 + 4)  # r / (r - lambda + lambda w)
    np.testing.assert_allclose(code.decode(T, Y[T]), c * Y[T].sum(0))


def test_bibd_closed_form_is_the_least_squares_optimum_and_the_public_forks_weight():
    # the least-squares decoder on every survivor set of three designs gives the uniform
    # weight r / (r - lambda + lambda w), which is L / (L + lambda (w - 1)) with L = r, the
    # weight of the public BIBD fork of Tandon et al.'s scripts (src/bibd.py)
    for D in (projective_plane(2), affine_plane(3)):
        A = D.incidence.astype(float)
        for w in range(1, D.v + 1):
            for T in list(itertools.combinations(range(D.v), w))[:40]:
                u = np.linalg.lstsq(A[list(T)].T, np.ones(D.b), rcond=None)[0]
                np.testing.assert_allclose(u, D.r / (D.r + D.lam * (w - 1)), atol=1e-10)


# -------------------------------------------------------------------- SGC
def test_sgc_variance_by_monte_carlo_with_negative_control():
    code = StochasticGradientCode.pairwise_balanced(affine_plane(3), 0.3)
    G = np.random.default_rng(4).standard_normal((code.k, 2)) + 1
    exact = code.variance(G)
    from functools import partial

    est = estimate_mean(partial(code.sample_error, G), 60_000, rng=5, progress=False)
    assert est.contains(exact)
    wrong = code.p / (code.d**2 * (1 - code.p)) * code.d * float((G * G).sum())
    assert not est.contains(wrong)  # ignoring shared workers is rejected


def test_sgc_bad_input():
    with pytest.raises(ValueError, match="same number d"):
        StochasticGradientCode(np.array([[1, 0], [1, 1]]), 0.1)
    with pytest.raises(ValueError, match="p must be < 1"):
        sgc_variance(np.ones((2, 1)), np.eye(2), 1.0)


# ------------------------------------------------------------------ IS-GC
def _brute(n, w, T):
    for r in range(len(T), 0, -1):
        for c in itertools.combinations(T, r):
            cov = np.zeros(n, dtype=int)
            for i in c:
                cov[(i + np.arange(w)) % n] += 1
            if cov.max() <= 1:
                return r
    return 0


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_cyclic_max_disjoint_is_maximum(data):
    n = data.draw(st.integers(2, 11))
    w = data.draw(st.integers(1, n))
    T = data.draw(st.lists(st.integers(0, n - 1), unique=True))
    chosen = cyclic_max_disjoint(n, w, T)
    assert len(chosen) == _brute(n, w, T)  # enumeration
    cov = np.zeros(n, dtype=int)
    for i in chosen:
        cov[(i + np.arange(w)) % n] += 1
    assert cov.max(initial=0) <= 1


def test_isgc_decode_partial_sum_and_empty_flag():
    dec = ISGCDecoder(12, 2, "cyclic")
    P = np.random.default_rng(3).standard_normal((12, 4))
    Y = dec.encode(P)
    T = np.array([0, 1, 5, 7, 8])
    r = dec.decode(T, Y[T])
    assert not r.empty and r.recovered == 9
    np.testing.assert_allclose(r.gradient, P[list(r.partitions)].sum(0))
    empty = dec.decode([], np.zeros((0, 4)))
    assert empty.empty and empty.recovered == 0 and not empty.gradient.any()
    with pytest.raises(ValueError, match="s \\+ 1 must divide n"):
        ISGCDecoder(10, 2, "frc")


def test_frc_expected_recovered_exact_by_enumeration():
    n, s = 9, 2
    dec = ISGCDecoder(n, s, "frc")
    for e in range(n + 1):
        tot = Fraction(0)
        sets = list(itertools.combinations(range(n), n - e))
        for T in sets:
            tot += dec.recovered_count(T)
        assert tot / len(sets) == frc_expected_recovered(n, s, e)


# ------------------------------------------------------- training simulator
def test_expander_scheme_in_the_training_simulator():
    from gctheory.training import SCHEMES, make_scheme, simulate

    assert "expander" in SCHEMES
    sch = make_scheme("expander", 12, K=9, rng=1)
    assert isinstance(sch.code, ExpanderCode) and sch.code.d == 3  # ceil(log 12)
    run = simulate("expander", n=12, K=9, iterations=3, rng=0)
    assert np.all(np.isfinite(run.loss)) and len(run.loss) == 4
