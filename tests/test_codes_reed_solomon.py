"""Tests of gctheory.codes.reed_solomon (Halbawi et al. 2017, Algorithms 1-4)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from gctheory.codes import DecodingPrecisionWarning
from gctheory.codes.base import ye_abbe_lower_bound
from gctheory.codes.reed_solomon import (
    ReedSolomonCode,
    mask_matrix,
    row_balanced_mask_matrix,
    rs_decoding_vector,
    rs_decoding_vector_solve,
    rs_encoding_matrix,
    rs_inverse_table,
    rs_polynomials,
    rs_tolerance,
)

EPS = np.finfo(float).eps


# ------------------------------------------------------------ Algorithm 1
def test_eq5_mask_from_row_balanced_mask_matrix():
    # Halbawi et al. eq. (5), the printed mask of RowBalancedMaskMatrix(8, 4, 6, 0); checked by
    # hand against eq. (24): column j has ones exactly at rows {6j, ..., 6j + 5} mod 8.
    expected = np.array(
        [
            [1, 1, 1, 0],
            [1, 1, 1, 0],
            [1, 1, 0, 1],
            [1, 1, 0, 1],
            [1, 0, 1, 1],
            [1, 0, 1, 1],
            [0, 1, 1, 1],
            [0, 1, 1, 1],
        ],
        dtype=bool,
    )
    M = row_balanced_mask_matrix(8, 4, 6, 0)
    assert M.dtype == bool
    np.testing.assert_array_equal(M, expected)
    # eq. (24) directly
    for j in range(4):
        assert set(np.flatnonzero(M[:, j])) == {(6 * j + i) % 8 for i in range(6)}
    # n w / k = 6 is an integer, so Algorithm 4 returns the same mask (Appendix 8.3)
    np.testing.assert_array_equal(mask_matrix(8, 4, 3), expected)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_row_weights_corollary1(data):
    n = data.draw(st.integers(1, 30))
    k = data.draw(st.integers(0, 30))
    d = data.draw(st.integers(1, n))
    t = data.draw(st.integers(0, n - 1))
    M = row_balanced_mask_matrix(n, k, d, t)
    np.testing.assert_array_equal(M.sum(axis=0), np.full(k, d))
    # Corollary 1 (eq. (26)): the (kd mod n) rows t, t+1, ... (cyclically) have ceil(kd/n),
    # the others floor(kd/n). (The printed "{0, t-1}" means {0, ..., t-1}.)
    heavy = {(t + i) % n for i in range((k * d) % n)}
    for r in range(n):
        want = -(-k * d // n) if r in heavy else k * d // n
        assert M[r].sum() == want


# ------------------------------------------------------------ Algorithm 4
def test_mask_matrix_non_integer_nw_over_k():
    # n w / k = 21/5 is not an integer: k_h = 21 mod 5 = 1 column of weight d_h = 5 and
    # k_l = 4 columns of weight d_l = 4 (Algorithm 4, hand computation); every row weight 3.
    M = mask_matrix(7, 5, 3)
    np.testing.assert_array_equal(M.sum(axis=1), np.full(7, 3))
    np.testing.assert_array_equal(M.sum(axis=0), [5, 4, 4, 4, 4])
    assert rs_tolerance(7, 5, 3) == 3  # floor(21/5) - 1, eq. (2)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_mask_matrix_row_and_column_weights(data):
    k = data.draw(st.integers(1, 25))
    w = data.draw(st.integers(1, k))
    n = data.draw(st.integers(max(1, -(-k // w)), 40))
    M = mask_matrix(n, k, w)
    # Appendix 8.3: every row has weight exactly w
    np.testing.assert_array_equal(M.sum(axis=1), np.full(n, w))
    k_h = (n * w) % k
    col = M.sum(axis=0)
    np.testing.assert_array_equal(col[:k_h], np.full(k_h, -(-n * w // k)))
    np.testing.assert_array_equal(col[k_h:], np.full(k - k_h, n * w // k))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_tolerance_meets_eq2_and_ye_abbe_bound(data):
    k = data.draw(st.integers(1, 20))
    w = data.draw(st.integers(1, k))
    n = data.draw(st.integers(max(1, -(-k // w)), 30))
    code = ReedSolomonCode(n, k, w)
    assert code.s == n * w // k - 1  # eq. (2) with equality
    assert code.load == w and code.m == 1
    assert code.f == n - code.s
    if code.s < n:
        # the load bound l/k >= (s + m)/n (Ye-Abbe), with equality iff k | n w
        bound = ye_abbe_lower_bound(n, k, code.s, 1)
        assert Fraction(w, k) >= bound
        assert (Fraction(w, k) == bound) == ((n * w) % k == 0)
        assert code.is_optimal == ((n * w) % k == 0)


# ------------------------------------------------------------ Algorithm 2
def test_t_polynomials_eqs_7_to_10():
    # eqs. (7)-(10): t_j = kappa_j (x - alpha^a)(x - alpha^b), kappa_j with t_j(0) = 1; the
    # reference coefficients come from a sympy expansion with alpha = exp(2 pi i / 8).
    x = sp.symbols("x")
    alpha = sp.exp(2 * sp.pi * sp.I / 8)
    zeros = [(6, 7), (4, 5), (2, 3), (0, 1)]  # eqs. (7), (8), (9), (10)
    T = rs_polynomials(mask_matrix(8, 4, 3))
    assert T.shape == (3, 4)  # f = n - s = 8 - 5 = 3 coefficients each
    for j, (a, b) in enumerate(zeros):
        poly = (x - alpha**a) * (x - alpha**b)
        kappa = 1 / poly.subs(x, 0)
        coeffs = sp.Poly(sp.expand(kappa * poly), x).all_coeffs()[::-1]
        ref = np.array([complex(sp.N(c, 30)) for c in coeffs])
        np.testing.assert_allclose(T[:, j], ref, rtol=0, atol=1e-14)
        assert T[0, j] == 1


@pytest.mark.parametrize("n,k,w", [(8, 4, 3), (7, 5, 3), (10, 4, 3), (9, 6, 4), (12, 12, 5)])
def test_encoding_matrix_structure(n, k, w):
    B = rs_encoding_matrix(n, k, w)
    M = mask_matrix(n, k, w)
    assert np.all(B[~M] == 0)  # exact zeros off the mask
    assert np.all(np.abs(B[M]) > 1e-8)  # on the mask: t_j(alpha^i) != 0 (its roots are off)
    # B = G T (eq. (11)), G the n x f Vandermonde matrix of eq. (6)
    T = rs_polynomials(M)
    f = T.shape[0]
    G = np.exp(2j * np.pi * np.outer(np.arange(n), np.arange(f)) / n)
    np.testing.assert_allclose(G @ T, B, atol=1e-12 * np.abs(B).max())


# ------------------------------------------------------------ Algorithm 3
def test_inverse_table():
    n = 9
    tab = rs_inverse_table(n)
    alpha = np.exp(2j * np.pi / n)
    assert tab[0] == 1
    for i in range(1, n):
        assert abs(tab[i] * (1 - alpha**i) - 1) < 1e-15
    # prod_{i=1}^{n-1} (1 - alpha^i) = n (value at 1 of (x^n - 1)/(x - 1)), so the
    # decoding vector of all n workers is 1/n each.
    np.testing.assert_allclose(rs_decoding_vector(np.arange(n), n), np.full(n, 1 / n), atol=1e-15)


def _reference_vector(F, n, dps=50):
    """First row of G_F^{-1} (eq. (12)) by mpmath LU at ``dps`` digits."""
    with mp.workdps(dps):
        f = len(F)
        alpha = mp.exp(2j * mp.pi / n)
        G = mp.matrix(f, f)
        for l, i in enumerate(F):
            for c in range(f):
                G[l, c] = alpha ** (i * c)
        e1 = mp.matrix([1] + [0] * (f - 1))
        a = mp.lu_solve(G.T, e1)
        return np.array([complex(a[i]) for i in range(f)])


def test_decoding_vector_against_mpmath():
    F = [3, 0, 11, 7, 5, 19, 2, 14]
    n = 20
    ref = _reference_vector(F, n)  # mpmath, 50 digits
    a = rs_decoding_vector(F, n)
    # Alg. 3 multiplies f - 1 table entries per component: relative error <~ 4 f eps
    np.testing.assert_allclose(a, ref, rtol=4 * len(F) * EPS, atol=0)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_alg3_equals_generic_solve(data):
    n = data.draw(st.integers(1, 48))
    f = data.draw(st.integers(1, n))
    F = data.draw(st.permutations(list(range(n))))[:f]
    a = rs_decoding_vector(F, n)
    b = rs_decoding_vector_solve(F, n)
    G = np.exp(2j * np.pi * np.outer(F, np.arange(f)) / n)
    kappa = np.linalg.cond(G)
    # both solve a^T G_F = e_1; a backward-stable solve has forward error <~ f kappa eps
    assert np.max(np.abs(a - b)) <= 10 * f * kappa * EPS * np.max(np.abs(b))


# ------------------------------------------------------------ the code
def _decode_tolerance(code, res, g):
    """Rounding bound of a^T (B_F g): c eps (k + f) sum_l |a_l| (|B_F| |g|)_l, componentwise."""
    T = list(res.survivors)
    a = res.coefficients[:, 0]
    mag = np.abs(a) @ (np.abs(code.B[T]) @ np.abs(g))
    return 10 * EPS * (code.k + code.f) * mag


PARAMS = [(8, 4, 3), (7, 5, 3), (6, 6, 2), (9, 6, 4), (10, 4, 3), (8, 8, 1), (5, 3, 3)]


@pytest.mark.parametrize("n,k,w", PARAMS)
def test_exhaustive_decoding_every_straggler_set(n, k, w):
    code = ReedSolomonCode(n, k, w)
    rng = np.random.default_rng([n, k, w])
    g = rng.standard_normal((k, 5))
    Y = code.encode(g)
    assert Y.shape == (n, 5) and np.iscomplexobj(Y)
    truth = g.sum(axis=0)
    for stragglers in itertools.combinations(range(n), code.s):
        F = [i for i in range(n) if i not in stragglers]
        F = list(rng.permutation(F))  # any order
        res = code.decode_detail(F, Y[F])
        assert res.gradient.dtype == float and res.exact
        tol = _decode_tolerance(code, res, g)
        assert np.all(np.abs(res.gradient - truth) <= tol)
        # the imaginary part of a real problem is rounding error within the same bound
        assert res.imag_residue <= tol.max()
        # ... and the Skeel-condition bound of RSDecodeResult holds as well
        assert np.all(tol <= res.error_bound(np.abs(g).max(axis=1).sum(), k + code.f))


@pytest.mark.parametrize("n,k,w", PARAMS[:-1])  # the last has s = n - 1
def test_fails_with_s_plus_1_stragglers_where_theory_says(n, k, w):
    code = ReedSolomonCode(n, k, w)
    assert code.s + 1 < n
    # straggling the s + 1 = d_l workers holding a light column leaves partition j unseen
    j = int(np.argmin(code.support.sum(axis=0)))
    lost = set(np.flatnonzero(code.support[:, j]).tolist())
    assert len(lost) == code.s + 1
    F = [i for i in range(n) if i not in lost]
    B_F = code.B[F]
    # theory: 1 is not in the row space of B_F (column j of B_F is zero), not only refused
    a, *_ = np.linalg.lstsq(B_F.T, np.ones(k), rcond=None)
    assert np.linalg.norm(B_F.T @ a - 1) >= 1 - 1e-9
    Y = code.encode(np.ones((k, 2)))
    with pytest.raises(ValueError, match="too few survivors"):
        code.decode(F, Y[F])


def test_more_survivors_than_f_uses_the_first_f():
    code = ReedSolomonCode(10, 5, 3)  # s = 5, f = 5
    g = np.random.default_rng(3).standard_normal((5, 4))
    Y = code.encode(g)
    F = [9, 1, 4, 7, 0, 2, 8]
    res = code.decode_detail(F, Y[F])
    assert np.all(res.coefficients[5:] == 0)
    np.testing.assert_allclose(res.coefficients[:5, 0], rs_decoding_vector(F[:5], 10))
    assert np.all(np.abs(res.gradient - g.sum(0)) <= _decode_tolerance(code, res, g))


def test_imaginary_residue_of_a_real_problem_n60():
    n, k, w = 60, 60, 12  # s = 11
    code = ReedSolomonCode(n, k, w)
    rng = np.random.default_rng(11)
    g = rng.standard_normal((k, 3))
    Y = code.encode(g)
    F = list(rng.permutation(n)[: code.f])
    res = code.decode_detail(F, Y[F])
    tol = _decode_tolerance(code, res, g)
    assert res.imag_residue <= tol.max()
    assert np.all(np.abs(res.gradient - g.sum(0)) <= tol)
    # measured (seed 11): the relative error is far below 1e-6 at n = 60
    assert np.max(np.abs(res.gradient - g.sum(0))) / np.abs(g.sum(0)).max() < 1e-6


def test_numerical_breakdown_is_reported_not_hidden():
    # n = 200, s = 39: |B| ~ 1e25 (products of 160 chords), so a^T B_F = 1 fails in floating
    # point; the decoder must refuse instead of returning garbage.
    code = ReedSolomonCode(200, 200, 40)
    assert np.abs(code.B).max() > 1e20
    F = list(np.random.default_rng(0).permutation(200)[: code.f])
    Y = code.encode(np.ones((200, 1)))
    with pytest.raises(ValueError, match="cannot decode"):
        code.decode(F, Y[F])
    with pytest.warns(DecodingPrecisionWarning, match="forward error"):
        res = code.decode_detail(F, Y[F], check=False)
    assert not res.exact and res.condition_number > 1e15
    assert res.noise_bound > 1e-6  # the precision check says so too (issue 30, S1)


def test_complex_problem():
    code = ReedSolomonCode(8, 4, 3)
    rng = np.random.default_rng(5)
    g = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    Y = code.encode(g)
    F = [0, 3, 6]
    out = code.decode(F, Y[F], real=False)
    np.testing.assert_allclose(out, g.sum(0), atol=1e-12)
    res = code.decode_detail(F, Y[F])  # real=True keeps the real part, reports the rest
    np.testing.assert_allclose(res.gradient, g.sum(0).real, atol=1e-12)
    np.testing.assert_allclose(res.imag_residue, np.abs(g.sum(0).imag).max(), rtol=1e-12)


def test_decoding_matrix_and_cost():
    code = ReedSolomonCode(8, 4, 3)
    G = code.decoding_matrix([2, 5, 7, 1])
    assert G.shape == (3, 3)
    a = code.decoding_vector([2, 5, 7, 1])
    np.testing.assert_allclose(a @ G, [1, 0, 0], atol=1e-14)  # eq. (12)
    cost = code.decoding_cost(d=10)
    assert cost.setup == 3 * 2 and cost.apply == 30  # f (f - 1) of Section 5, f d


def test_w_equals_k_and_d_equals_n():
    code = ReedSolomonCode(5, 3, 3)  # everyone holds everything: s = n - 1, f = 1
    assert code.s == 4 and code.f == 1
    np.testing.assert_allclose(code.B, np.ones((5, 3)))
    g = np.arange(6.0).reshape(3, 2)
    Y = code.encode(g)
    np.testing.assert_allclose(code.decode([3], Y[[3]]), g.sum(0))


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "args,match",
    [
        ((4, 3, 4), "w must be <= k"),
        ((2, 5, 2), "n\\*w must be >= k"),
        ((0, 3, 1), "n must be"),
        ((4, 3, 0), "w must be"),
        ((4.0, 3, 1), "n must be an integer"),
    ],
)
def test_bad_parameters(args, match):
    with pytest.raises(ValueError, match=match):
        ReedSolomonCode(*args)


def test_bad_mask_parameters():
    with pytest.raises(ValueError, match="d must be in"):
        row_balanced_mask_matrix(4, 2, 5, 0)
    with pytest.raises(ValueError, match="t must be in"):
        row_balanced_mask_matrix(4, 2, 2, 4)


def test_bad_survivors_and_shapes():
    code = ReedSolomonCode(8, 4, 3)
    Y = code.encode(np.ones((4, 2)))
    with pytest.raises(ValueError, match="distinct"):
        code.decode([1, 1, 2], Y[[1, 1, 2]])
    with pytest.raises(ValueError, match="too few survivors"):
        code.decode([1, 2], Y[[1, 2]])
    with pytest.raises(ValueError, match="in \\[0, n\\)"):
        code.decode([1, 2, 8], Y[[1, 2, 3]])
    with pytest.raises(ValueError, match="received must have shape"):
        code.decode([1, 2, 3], Y[[1, 2]])
    with pytest.raises(ValueError, match="partials must have shape"):
        code.encode(np.ones((5, 2)))
    with pytest.raises(ValueError, match="distinct"):
        rs_decoding_vector([0, 3, 3], 8)
    with pytest.raises(ValueError, match="table must have shape"):
        rs_decoding_vector([0, 3], 8, table=np.ones(7))


def test_tolerance_reaches_lower_bound_formula():
    # eq. (2): w/k >= (s + 1)/n for every scheme; the RS code attains s = floor(wn/k) - 1.
    for n, k, w in [(80, 12, 2), (80, 80, 13), (17, 9, 4)]:
        s = rs_tolerance(n, k, w)
        assert Fraction(w, k) >= Fraction(s + 1, n)
        assert Fraction(w, k) < Fraction(s + 2, n)  # s + 1 stragglers would violate eq. (2)


@pytest.mark.parametrize("n,k,w", [(8, 4, 3), (7, 5, 3), (10, 4, 3), (30, 17, 6), (40, 40, 9)])
def test_cyclic_shift_fast_path_equals_direct_products(n, k, w):
    # Algorithm 2 literally: B[i, j] = prod over the zero rows r of column j of (1 - alpha^(i-r))
    M = mask_matrix(n, k, w)
    alpha = np.exp(2j * np.pi / n)
    direct = np.zeros((n, k), dtype=complex)
    for j in range(k):
        for i in range(n):
            if M[i, j]:
                direct[i, j] = np.prod(
                    [1 - alpha ** ((i - r) % n) for r in np.flatnonzero(~M[:, j])]
                )
    B = rs_encoding_matrix(n, k, w)
    np.testing.assert_allclose(B, direct, rtol=1e-12 * n, atol=0)


def test_decode_many_goes_through_the_rs_decoder():
    """decode_many passes rtol/check to decode; RS.decode used to refuse them (TypeError)."""
    import numpy as np

    from gctheory.codes.reed_solomon import ReedSolomonCode

    code = ReedSolomonCode(6, 6, 3)
    P = np.arange(12.0).reshape(6, 2)
    Y = code.encode(P)
    sets = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    out = code.decode_many(sets, Y)
    np.testing.assert_allclose(out, np.tile(P.sum(axis=0), (2, 1)), rtol=1e-9, atol=1e-9)
