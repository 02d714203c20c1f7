"""Tests of the Ye-Abbe G = BV codes (Kadhe et al. 2019, Appendix A)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory.codes.base import effective_condition_number, verify_straggler_sets
from gctheory.codes.tandon import cyclic_support
from gctheory.codes.ye_abbe import YeAbbeCode
from gctheory.generators import vandermonde_nodes


@pytest.mark.parametrize("V", ["vandermonde", "gaussian"])
@pytest.mark.parametrize("n", [3, 5, 6, 7])
def test_exhaustive_every_s_m(n, V):
    for s in range(n):
        for m in range(1, n - s + 1):
            code = YeAbbeCode(n, s, m, V=V, rng=10 * n + s)
            assert (code.k, code.load, code.m, code.s) == (n, s + m, m, s)
            check = verify_straggler_sets(code, rng=m)
            assert check.ok and check.sets == math.comb(n, s), (s, m)
            if s + 1 < n:
                # l/k = (s+m)/n is the minimum for (m, s) (eq. (1)): with s + 1
                # stragglers the code would beat it, so some set must fail
                assert verify_straggler_sets(code, s + 1, rng=m).failures


def test_optimal_and_support():
    code = YeAbbeCode(9, 3, 2)
    assert code.is_optimal  # l/k = 5/9 = (s + m)/n
    assert Fraction(code.load, code.k) == Fraction(3 + 2, 9)
    np.testing.assert_array_equal(code.support, cyclic_support(9, 5))
    # G = BV vanishes outside the placement up to rounding before it is zeroed
    assert code.support_residual < 1e-10
    mask = np.repeat(code.support.T, 2, axis=0)
    np.testing.assert_allclose(code.B @ code.V, np.where(mask, code.encoding_matrix, 0), atol=1e-10)


def test_polynomial_scheme_m1_closed_form():
    # m = 1, Vandermonde V: row j of G is prod over workers i not holding j of (x - x_i),
    # evaluated at every worker's node (monic polynomial of degree n - s - 1 = n - l)
    n, s = 7, 2
    code = YeAbbeCode(n, s, 1)
    x = vandermonde_nodes(n, "chebyshev")
    for j in range(n):
        non_holders = np.flatnonzero(~code.support[:, j])
        expected = np.prod(x[:, None] - x[non_holders][None, :], axis=1)
        np.testing.assert_allclose(code.encoding_matrix[j], expected, atol=1e-12)


def test_communication_and_decoding_matrix():
    code = YeAbbeCode(8, 2, 3, V="gaussian", rng=4)
    P = np.random.default_rng(0).standard_normal((8, 10))
    Y = code.encode(P)
    assert Y.shape == (8, 4)  # ceil(10 / 3) numbers per worker
    T = [7, 0, 3, 5, 1, 2]
    res = code.decode_detail(T, Y[T], 10)
    np.testing.assert_allclose(res.gradient, P.sum(0), atol=res.error_bound(10.0 * 8, 24))
    M = code.decoding_matrix(T)
    assert M.shape == (6, 6)
    assert res.condition_number == pytest.approx(effective_condition_number(M))
    # more survivors than n - s: minimum-norm solve of V_T A = [0; I]
    np.testing.assert_allclose(code.decode(range(8), Y, 10), P.sum(0), atol=1e-10)


def test_decoding_cost_cubic_in_n_minus_s():
    c1 = YeAbbeCode(20, 5, 1).decoding_cost()
    c2 = YeAbbeCode(40, 10, 1).decoding_cost()
    # t^3 / 3 + 2 m t^2 with t = n - s (LU and m solves)
    assert c1.setup == 15**3 // 3 + 2 * 15**2
    assert c2.setup == 30**3 // 3 + 2 * 30**2


def test_complex_roots_of_unity_nodes():
    code = YeAbbeCode(6, 2, 2, nodes="roots_of_unity")
    assert code.is_complex
    check = verify_straggler_sets(code, rng=0)
    assert check.ok


def test_bad_input():
    with pytest.raises(ValueError, match="s must be < n"):
        YeAbbeCode(4, 4)
    with pytest.raises(ValueError, match="s \\+ m must be <= n"):
        YeAbbeCode(5, 3, 3)
    with pytest.raises(ValueError, match="V must be"):
        YeAbbeCode(5, 1, V="hadamard")
    with pytest.raises(ValueError, match="V must have shape"):
        YeAbbeCode(5, 1, V=np.ones((5, 5)))
    with pytest.raises(ValueError, match="m must be an integer"):
        YeAbbeCode(5, 1, 0)
    for V in ("vandermonde", "gaussian"):  # the Vandermonde V draws nothing: still refused
        for rng in (True, -1, 1.5, "0"):  # True is not seed 1
            with pytest.raises(ValueError, match=r"^rng "):
                YeAbbeCode(5, 1, V=V, rng=rng)
    # a seed given as an int or as the Generator it makes draws the same Gaussian V
    np.testing.assert_array_equal(
        YeAbbeCode(5, 1, V="gaussian", rng=3).V,
        YeAbbeCode(5, 1, V="gaussian", rng=np.random.default_rng(3)).V,
    )


@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(2, 12), data=st.data())
def test_triple_matches_bound_with_equality(n, data):
    s = data.draw(st.integers(0, n - 1))
    m = data.draw(st.integers(1, n - s))
    V = data.draw(st.sampled_from(["vandermonde", "gaussian"]))
    code = YeAbbeCode(n, s, m, V=V, rng=data.draw(st.integers(0, 2**31)))
    assert code.load * n == code.k * (s + m)  # l/k = (s+m)/n: optimal (Ye-Abbe, eq. (1))
    assert np.all(code.support.sum(axis=1) == s + m)
    assert verify_straggler_sets(code, max_sets=15, rng=0).ok


def test_ye_abbe_coefficients_function():
    from gctheory.codes.ye_abbe import ye_abbe_coefficients

    code = YeAbbeCode(7, 2, 2, V="gaussian", rng=1)
    T = np.array([6, 0, 2, 3, 5])
    A = ye_abbe_coefficients(code.V[:, T], 2)
    np.testing.assert_allclose(
        code.V[:, T] @ A, np.vstack([np.zeros((3, 2)), np.eye(2)]), atol=1e-12
    )
    np.testing.assert_allclose(A, code.decoding_coefficients(T)[0])
    with pytest.raises(ValueError, match="V_T must be"):
        ye_abbe_coefficients(np.ones((5, 4)), 2)
    # what numpy cannot solve is refused by name, not with numpy's UFuncTypeError
    bad = {
        "object": np.array([[1, 0], [0, 1]], dtype=object),
        "string": np.array([["1", "0"], ["0", "1"]]),
        "NaN": np.array([[1.0, 0.0], [0.0, math.nan]]),
        "ragged": [[1.0, 0.0], [1.0]],
    }
    for V_T in bad.values():
        with pytest.raises(ValueError, match=r"^V_T must"):
            ye_abbe_coefficients(V_T, 1)
    # valid input keeps its answer and its precision
    V_T = code.V[:, T[:5]]
    np.testing.assert_array_equal(ye_abbe_coefficients(V_T.tolist(), 2), A)
    assert ye_abbe_coefficients(V_T.astype(np.float32), 2).dtype == np.float32
