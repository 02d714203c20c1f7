"""Tests of gctheory.ldpc: peeling, ensembles, thresholds, raptor codes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from gctheory import ldpc
from gctheory.ldpc import peel, peel_batch, regular_ensemble

BACKENDS = ["numpy"] + (["numba"] if ldpc.HAVE_NUMBA else [])

# ---------------------------------------------------------------------------
# brute-force references (independent of the decoder)
# ---------------------------------------------------------------------------


def _largest_stopping_set(H: np.ndarray, erased: np.ndarray) -> np.ndarray:
    """Union of all stopping sets inside ``erased``, by enumeration of subsets.

    A stopping set S: no check has exactly one neighbour in S. Unions of
    stopping sets are stopping sets, so the union is the largest one; peeling
    leaves exactly it (Richardson-Urbanke 2008, Lemma 3.141).
    """
    idx = np.flatnonzero(erased)
    best = np.zeros(H.shape[1], dtype=bool)
    for r in range(1, idx.size + 1):
        for sub in itertools.combinations(idx, r):
            deg = H[:, list(sub)].sum(axis=1)
            if not np.any(deg == 1):
                best[list(sub)] = True
    return best


def _rank_gf2(A: np.ndarray) -> int:
    A = (np.asarray(A) % 2).astype(np.uint8).copy()
    rank = 0
    rows, cols = A.shape
    for c in range(cols):
        piv = next((r for r in range(rank, rows) if A[r, c]), None)
        if piv is None:
            continue
        A[[rank, piv]] = A[[piv, rank]]
        for r in range(rows):
            if r != rank and A[r, c]:
                A[r] ^= A[rank]
        rank += 1
    return rank


def _ml_recoverable(H: np.ndarray, erased: np.ndarray, field: str) -> np.ndarray:
    """Variables an ML decoder determines: rank(H_E) = rank(H_{E minus v}) + 1."""
    rank = _rank_gf2 if field == "gf2" else (lambda A: np.linalg.matrix_rank(A) if A.size else 0)
    idx = list(np.flatnonzero(erased))
    full = rank(H[:, idx]) if idx else 0
    rec = np.zeros(H.shape[1], dtype=bool)
    for v in idx:
        rest = [u for u in idx if u != v]
        r = rank(H[:, rest]) if rest else 0
        rec[v] = full == r + 1
    return rec


HAMMING_7_4 = np.array(
    [[1, 1, 0, 1, 1, 0, 0], [1, 0, 1, 1, 0, 1, 0], [0, 1, 1, 1, 0, 0, 1]], dtype=np.int8
)  # parity-check matrix of the [7,4] Hamming code


def _small_codes() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    codes = [HAMMING_7_4]
    codes.append(regular_ensemble(8, 2, 4, rng=1).toarray())
    codes.append(regular_ensemble(8, 3, 6, rng=2).toarray())
    codes.append((rng.random((4, 8)) < 0.4).astype(np.int8))  # irregular, may have empty rows/cols
    codes.append(np.array([[1, 0, 0], [0, 0, 0]], dtype=np.int8))  # degree-1 check, empty check
    return codes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("code", range(5))
def test_peel_exhaustive_stopping_sets_and_ml(code, backend):
    H = _small_codes()[code]
    n = H.shape[1]
    patterns = np.array(list(itertools.product([False, True], repeat=n)))
    batch = peel_batch(H, patterns, backend=backend)
    for E, got in zip(patterns, batch):
        np.testing.assert_array_equal(got, _largest_stopping_set(H, E))
        np.testing.assert_array_equal(peel(H, E, backend=backend), got)
        resolved = E & ~got
        # peeling <= ML, over GF(2) and over the reals
        for field in ("gf2", "real"):
            ml = _ml_recoverable(H, E, field)
            assert np.all(ml[resolved]), (E, field)


def test_peel_strictly_weaker_than_ml_somewhere():
    # Hamming [7,4]: erasing {0, 1, 2} leaves a stopping set (each check sees 2).
    # Columns 0, 1, 2 sum to 0 over GF(2) (a codeword), so GF(2)-ML fails too,
    # but over the reals their determinant is -2, so real ML recovers all three.
    E = np.zeros(7, dtype=bool)
    E[[0, 1, 2]] = True
    assert peel(HAMMING_7_4, E).sum() == 3  # brute force: checks see 2, 2, 2 erasures
    assert not _ml_recoverable(HAMMING_7_4, E, "gf2").any()
    assert _ml_recoverable(HAMMING_7_4, E, "real")[E].all()


@pytest.mark.parametrize("eps", [0.0, 0.3, 0.42, 0.44, 0.7, 1.0])
def test_backends_identical_on_random_frames(eps):
    if not ldpc.HAVE_NUMBA:
        pytest.skip("numba not installed")
    H = regular_ensemble(2000, 3, 6, rng=11)
    rng = np.random.default_rng(3)
    E = rng.random((130, 2000)) < eps  # 130: not a multiple of 64
    a = peel_batch(H, E, backend="numba")
    b = peel_batch(H, E, backend="numpy")
    np.testing.assert_array_equal(a, b)
    assert not np.any(a & ~E)  # never un-erases something that was known
    single = np.array([peel(H.toarray(), e, backend="numpy") for e in E[:5]])
    np.testing.assert_array_equal(single, a[:5])


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 7),
    st.integers(0, 2**31 - 1),
    st.floats(0.0, 1.0),
)
def test_peel_hypothesis_matches_stopping_set(m, n, seed, density):
    rng = np.random.default_rng(seed)
    H = (rng.random((m, n)) < density).astype(np.int8)
    E = rng.random((6, n)) < 0.5
    for backend in BACKENDS:
        got = peel_batch(sparse.csr_matrix(H), E, backend=backend)
        for e, g in zip(E, got):
            np.testing.assert_array_equal(g, _largest_stopping_set(H, e))


def test_peel_output_is_a_stopping_set_and_monotone():
    H = regular_ensemble(600, 3, 6, rng=4)
    rng = np.random.default_rng(9)
    E1 = rng.random((50, 600)) < 0.45
    E2 = E1 | (rng.random((50, 600)) < 0.05)
    U1, U2 = peel_batch(H, E1), peel_batch(H, E2)
    deg = (H @ U2.T.astype(np.int64)).T
    assert not np.any(deg == 1)  # what is left is a stopping set
    assert not np.any(U1 & ~U2)  # more erasures never leave less unresolved


def test_peel_bad_input():
    H = HAMMING_7_4
    with pytest.raises(ValueError, match="0/1"):
        peel(2 * H, np.zeros(7, bool))
    with pytest.raises(ValueError, match="0/1"):
        peel(sparse.csr_matrix(-H), np.zeros(7, bool))
    with pytest.raises(ValueError, match="2-D"):
        peel(np.ones(7), np.zeros(7, bool))
    with pytest.raises(ValueError, match="shape"):
        peel(H, np.zeros(6, bool))
    with pytest.raises(ValueError, match="shape"):
        peel_batch(H, np.zeros(7, bool))
    with pytest.raises(ValueError, match="boolean"):
        peel(H, np.full(7, 0.5))
    with pytest.raises(ValueError, match="backend"):
        peel(H, np.zeros(7, bool), backend="gpu")


def test_peel_accepts_01_ints_and_empty_batch():
    H = HAMMING_7_4
    e = np.array([1, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(peel(H, e), np.zeros(7, bool))  # check 0 resolves variable 0
    assert peel_batch(H, np.zeros((0, 7), bool)).shape == (0, 7)


# ---------------------------------------------------------------------------
# regular ensemble
# ---------------------------------------------------------------------------


def test_regular_ensemble_shape_degrees_and_seed():
    H = regular_ensemble(1200, 3, 6, rng=7)
    assert H.shape == (600, 1200)
    assert sparse.issparse(H)
    assert set(np.unique(H.data)) == {1}
    col = np.asarray(H.sum(axis=0)).ravel()
    row = np.asarray(H.sum(axis=1)).ravel()
    # multi-edges cancel mod 2: degrees drop by an even number, never rise
    assert np.all(col <= 3) and np.all(col % 2 == 1)
    assert np.all(row <= 6) and np.all(row % 2 == 0)
    # expected number of double edges ~ (dv-1)(dc-1)/2 = 5 (Richardson-Urbanke
    # Sec. 3.3), so almost all degrees are exact
    assert np.sum(col != 3) <= 30
    H2 = regular_ensemble(1200, 3, 6, rng=7)
    assert (H != H2).nnz == 0  # same seed, same matrix


def test_multi_edges_cancel_mod_2():
    # a double edge (0,0) disappears, a triple edge (1,1) becomes single
    rows = np.array([0, 0, 1, 1, 1, 0])
    cols = np.array([0, 0, 1, 1, 1, 2])
    H = ldpc._edges_to_matrix(rows, cols, 2, 3).toarray()
    np.testing.assert_array_equal(H, [[0, 0, 1], [0, 1, 0]])  # hand count mod 2
    # in the ensemble: a tiny (2,2) code on n=2 always has multi-edges or not;
    # recount every seed's configuration by hand and compare
    for seed in range(20):
        rng = np.random.default_rng(seed)
        perm = rng.permutation(4)
        chk = np.repeat(np.arange(2), 2)[perm]
        var = np.repeat(np.arange(2), 2)
        want = np.zeros((2, 2), int)
        np.add.at(want, (chk, var), 1)
        got = regular_ensemble(2, 2, 2, rng=seed).toarray()
        np.testing.assert_array_equal(got, want % 2)


def test_regular_ensemble_bad_input():
    with pytest.raises(ValueError, match="divisible"):
        regular_ensemble(1001, 3, 6)
    with pytest.raises(ValueError, match="dc"):
        regular_ensemble(10, 3, 1)
    with pytest.raises(ValueError, match="dv"):
        regular_ensemble(10, 0, 6)
    with pytest.raises(ValueError, match="n"):
        regular_ensemble(2.5, 3, 6)
