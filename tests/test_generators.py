"""Tests of the generator families (gctheory.generators), issue 13."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory.codes import CommFRCode, YeAbbeCode, verify_straggler_sets
from gctheory.generators import (
    GENERATOR_FAMILIES,
    chebyshev_vandermonde_generator,
    check_generator,
    circulant_embedding_generator,
    generator,
    generator_block,
    generator_family,
    legendre_generator,
    rotation_embedding_generator,
    vandermonde_generator,
)


def _worker_cols(T, b):
    return [w * b + c for w in T for c in range(b)]


@pytest.mark.parametrize("family", GENERATOR_FAMILIES)
@pytest.mark.parametrize("K, N", [(1, 4), (2, 5), (3, 7), (4, 8), (5, 9)])
def test_every_family_is_mds_exhaustively(family, K, N):
    # every K-worker submatrix has full rank (enumeration of all C(N, K) subsets); the
    # rank is decided with a margin: smallest singular value > 1e-8 * largest
    if family == "circulant-embedding" and N > 7:
        N = 7  # q - 1 = 6 columns per worker keeps the enumeration small
    G = generator(family, K, N, rng=[K, N])
    b = generator_block(family, N)
    assert G.shape == (b * K, b * N) and np.all(np.isfinite(G))
    for T in itertools.combinations(range(N), K):
        sv = np.linalg.svd(G[:, _worker_cols(T, b)], compute_uv=False)
        assert sv[-1] > 1e-8 * sv[0], (family, T)


@pytest.mark.parametrize("family", GENERATOR_FAMILIES)
def test_systematic_form_of_each_family(family):
    G = generator(family, 3, 7, rng=3)
    S = generator(family, 3, 7, systematic=True, rng=3)
    b = generator_block(family, 7)
    np.testing.assert_allclose(S[:, : 3 * b], np.eye(3 * b), atol=1e-12)
    # same code: S = G[:, :K]^-1 G
    np.testing.assert_allclose(G[:, : 3 * b] @ S, G, atol=1e-9 * np.abs(G).max())


def test_rotation_embedding_has_the_complex_vandermonde_singular_values():
    # R = Q diag(w, conj w) Q^H: every worker submatrix has the singular values of the complex
    # Vandermonde on those workers' nodes, each twice (block diagonalisation, closed form)
    K, N = 4, 9
    G = rotation_embedding_generator(K, N)
    V = vandermonde_generator(K, N, nodes="roots_of_unity")
    for T in itertools.combinations(range(N), 5):
        a = np.linalg.svd(G[:, _worker_cols(T, 2)], compute_uv=False)
        v = np.linalg.svd(V[:, list(T)], compute_uv=False)
        np.testing.assert_allclose(a, np.repeat(v, 2), rtol=1e-10)


def test_rotation_embedding_matches_the_authors_definition():
    # block (i, j) = rot(2 pi / N)^(i j), as in stableCodedComputing's getRotEmbedEncodingMat
    K, N = 3, 5
    G = rotation_embedding_generator(K, N)
    a = np.exp(2j * np.pi / N)
    R = np.array([[a.real, -a.imag], [a.imag, a.real]])
    for i, j in itertools.product(range(K), range(N)):
        np.testing.assert_allclose(
            G[2 * i : 2 * i + 2, 2 * j : 2 * j + 2], np.linalg.matrix_power(R, i * j), atol=1e-12
        )


def test_circulant_embedding_spectrum():
    # C = E^T P E is orthogonal with eigenvalues the q-th roots of unity except 1 (closed form)
    G = circulant_embedding_generator(2, 5)  # q = 5
    C = G[4:8, 4:8]  # block (1, 1) = C
    np.testing.assert_allclose(C @ C.T, np.eye(4), atol=1e-12)
    ev = np.sort_complex(np.linalg.eigvals(C))
    ref = np.sort_complex(np.exp(2j * np.pi * np.arange(1, 5) / 5))
    np.testing.assert_allclose(ev, ref, atol=1e-12)


def test_orthogonal_square_forms():
    # Chebyshev: discrete orthogonality of T_0..T_{N-1} on the Chebyshev grid,
    # G G^T = diag(N, N/2, ..., N/2) (closed form); Legendre: Gauss rule exact -> identity
    N = 9
    C = chebyshev_vandermonde_generator(N, N)
    np.testing.assert_allclose(C @ C.T, np.diag([N] + [N / 2] * (N - 1)), atol=1e-12)
    L = legendre_generator(N, N)
    np.testing.assert_allclose(L @ L.T, np.eye(N), atol=1e-12)


def test_rkrp_columns_are_kronecker_products():
    G = generator("rkrp", 6, 10, rng=5)  # K = 2 x 3
    for j in range(10):
        assert np.linalg.matrix_rank(G[:, j].reshape(2, 3), tol=1e-12) == 1


@pytest.mark.parametrize("family", [f for f in GENERATOR_FAMILIES if generator_block(f, 6) == 1])
def test_usable_as_commfr_g_and_ye_abbe_v(family):
    # CommFR-GC on the family's [6, 2] code tolerates s = 4 per group (every set, enumeration)
    code = CommFRCode(12, 12, generator(family, 2, 6, rng=1), delta=5)
    assert verify_straggler_sets(code, 4).ok
    # Ye-Abbe with V the family's (n - s) x n matrix, n = 8, s = 2, m = 2
    ya = YeAbbeCode(8, 2, 2, V=generator(family, 6, 8, rng=2))
    assert verify_straggler_sets(ya, 2).ok


def test_bad_input():
    with pytest.raises(ValueError, match=r"family must be one of \['gaussian'"):
        generator("polar", 2, 4)
    with pytest.raises(ValueError, match="K must be <= N"):
        generator("gaussian", 5, 4)
    with pytest.raises(ValueError, match="N must be an integer"):
        generator("legendre", 2, 4.5)
    with pytest.raises(ValueError, match="finite entries"):
        check_generator([[1.0, np.nan]])
    with pytest.raises(ValueError, match="K <= N"):
        check_generator(np.ones((3, 2)))
    with pytest.raises(ValueError, match="q must be a prime"):
        circulant_embedding_generator(2, 5, q=9)
    with pytest.raises(ValueError, match="systematic must be True or False"):
        generator("gaussian", 2, 4, systematic=1)
    with pytest.raises(ValueError, match="rng must be None"):
        generator("gaussian", 2, 4, rng=True)
    assert generator_family("rkrp").mds == "with probability one"


@settings(max_examples=40, deadline=None)
@given(
    family=st.sampled_from(GENERATOR_FAMILIES),
    K=st.integers(1, 6),
    extra=st.integers(0, 5),
    systematic=st.booleans(),
)
def test_fuzz_families_give_finite_matrices_of_the_promised_shape(family, K, extra, systematic):
    N = K + extra
    G = generator(family, K, N, systematic=systematic, rng=0)
    b = generator_block(family, N)
    assert G.shape == (b * K, b * N) and np.all(np.isfinite(G))
