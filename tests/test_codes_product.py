"""Product gradient codes (Kronecker products of two codes)."""

from __future__ import annotations

import numpy as np
import pytest

from gctheory.codes import (
    BIBDGradientCode,
    CyclicMDSCode,
    FractionalRepetitionCode,
    MatrixGradientCode,
    ProductGradientCode,
    YeAbbeCode,
    bibd,
    product_code,
    projective_plane,
    recovery_error,
    verify_straggler_sets,
)


def test_exact_product_tolerates_s1_plus_s2_every_set():
    for a, b in (
        (CyclicMDSCode(4, 1, rng=0), CyclicMDSCode(4, 1, rng=1)),
        (FractionalRepetitionCode(4, 1), CyclicMDSCode(5, 2, rng=2)),
    ):
        p = product_code(a, b)
        assert isinstance(p, MatrixGradientCode) and p.s == a.s + b.s
        assert (p.n, p.k, p.load) == (a.n * b.n, a.k * b.k, a.load * b.load)
        check = verify_straggler_sets(p)  # every set of s1 + s2 stragglers (exhaustive)
        assert check.exhaustive and check.ok


def test_exact_product_fails_beyond_its_load():
    # negative control: load 4 with k = n cannot tolerate 4 stragglers (Tandon et al. Thm 1:
    # s + 1 <= load), so some 4-sets of the 16 workers must fail
    p = product_code(CyclicMDSCode(4, 1, rng=0), CyclicMDSCode(4, 1, rng=1))
    assert not verify_straggler_sets(p, 4).ok


def test_encoding_is_the_kronecker_product():
    a, b = FractionalRepetitionCode(4, 1), CyclicMDSCode(3, 1, rng=0)
    p = product_code(a, b)
    np.testing.assert_allclose(p.B, np.kron(a.B, b.B))
    P = np.random.default_rng(0).standard_normal((12, 2))
    np.testing.assert_allclose(p.encode(P), np.kron(a.B, b.B) @ P)


def test_approximate_product_uses_least_squares():
    fano = BIBDGradientCode(projective_plane(2))
    p = product_code(fano, fano)
    assert isinstance(p, ProductGradientCode) and (p.n, p.k, p.load) == (49, 49, 9)
    rng = np.random.default_rng(3)
    P = rng.standard_normal((49, 3))
    Y = p.encode(P)
    for _ in range(5):
        T = np.sort(rng.permutation(49)[:40])
        d = p.decode_detail(T, Y[T], 3)
        assert d.err == pytest.approx(recovery_error(p.A[T]), abs=1e-9)
    # no symmetric (49, 9, lambda) design: lambda = 9 * 8 / 48; bibd(49, 9, 1): b = 294 / 9
    with pytest.raises(ValueError, match="not an integer"):
        bibd(49, 9, 1)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="m = 1"):
        product_code(YeAbbeCode(6, 1, 2, V="gaussian", rng=0), CyclicMDSCode(4, 1, rng=0))
    with pytest.raises(ValueError, match="GradientCode"):
        product_code(np.eye(3), CyclicMDSCode(4, 1, rng=0))
    big = FractionalRepetitionCode(100, 0)
    with pytest.raises(ValueError, match="entries"):
        product_code(big, product_code(big, FractionalRepetitionCode(10, 0)))
