"""Tests of gctheory.ldpc: peeling, ensembles, thresholds, raptor codes."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from gctheory import _compiled, ldpc
from gctheory.ldpc import peel, peel_batch, regular_ensemble
from gctheory.montecarlo import UnreliableEstimateWarning, binomial_estimate

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
    H = regular_ensemble(1200, 3, 6, rng=7, multi_edges="cancel")
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
    H2 = regular_ensemble(1200, 3, 6, rng=7, multi_edges="cancel")
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
        got = regular_ensemble(2, 2, 2, rng=seed, multi_edges="cancel").toarray()
        np.testing.assert_array_equal(got, want % 2)
        kept = regular_ensemble(2, 2, 2, rng=seed, multi_edges="keep").toarray()
        np.testing.assert_array_equal(kept, want)  # multiplicities, hand count


def test_resample_gives_simple_graphs_with_exact_degrees():
    for seed in range(5):
        H = regular_ensemble(600, 3, 6, rng=seed)  # default: multi_edges="resample"
        assert set(np.unique(H.data)) == {1}
        assert np.all(np.asarray(H.sum(axis=0)).ravel() == 3)  # exact column weights
        assert np.all(np.asarray(H.sum(axis=1)).ravel() == 6)  # exact row weights
        assert H.nnz == 1800  # no edge lost to a multi-edge: simple


def test_resample_is_uniform_over_simple_graphs():
    # (2,2)-regular bipartite graphs on 3 + 3 nodes: the simple ones are the 6 labelled
    # 6-cycles (3! 2!/2 = 6, enumeration below); rejection must hit each with probability 1/6
    from scipy import stats

    seen: dict[bytes, int] = {}
    for seed in range(1800):
        H = regular_ensemble(3, 2, 2, rng=[3, seed]).toarray()
        seen[H.tobytes()] = seen.get(H.tobytes(), 0) + 1
    simple = [
        P
        for P in (np.array(a).reshape(3, 3) for a in itertools.product([0, 1], repeat=9))
        if np.all(P.sum(0) == 2) and np.all(P.sum(1) == 2)
    ]
    assert len(simple) == 6  # enumeration of 0/1 3x3 matrices with all line sums 2
    assert set(seen) == {P.astype(np.int8).tobytes() for P in simple}
    p = stats.chisquare(list(seen.values())).pvalue
    assert p > 1e-3  # uniform; a 2:1 bias on one graph would give p ~ 1e-9


def test_keep_counts_multiplicities_and_their_mean():
    # the number of multi-edges per (3,6) code tends to Poisson((dv-1)(dc-1)/2 = 5)
    from gctheory.montecarlo import estimate_mean

    def multi(rng, size):
        return np.array(
            [
                (regular_ensemble(2000, 3, 6, rng=rng, multi_edges="keep").data >= 2).sum()
                for _ in range(size)
            ],
            dtype=float,
        )

    est = estimate_mean(multi, 400, rng=5, level=0.999)
    assert est.contains(5.0)  # (dv - 1)(dc - 1)/2 = 2 * 5 / 2
    assert not est.contains(4.0) and not est.contains(6.0)  # negative control
    assert ldpc.expected_resample_draws(3, 6) == pytest.approx(np.exp(5.0))  # closed form


def test_waterfall_artifact_was_a_cancelled_double_edge():
    # issue 14: the CLI's n = 1000 code (seed 2019) failed with probability ~eps^2. Its
    # failures leave exactly columns 547 and 736: weight-1 columns on one check (a stopping
    # set of size 2), each the remnant of a double edge cancelled mod 2.
    from gctheory.montecarlo import seed_sequence

    root = seed_sequence(2019)

    def draw(me):
        ss = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, 1000))
        return regular_ensemble(1000, 3, 6, rng=np.random.default_rng(ss), multi_edges=me)

    H = draw("cancel").tocsc()
    E = np.random.default_rng(5).random((2000, 1000)) < 0.1
    U = peel_batch(H, E)
    failed = U[U.any(axis=1)]
    assert len(failed) > 0 and np.all(np.flatnonzero(failed.any(axis=0)) == [547, 736])
    assert [int(H[:, v].sum()) for v in (547, 736)] == [1, 1]
    assert H[:, 547].nonzero()[0].tolist() == H[:, 736].nonzero()[0].tolist() == [113]
    K = draw("keep").tocsc()  # the same draw with multiplicities: a double edge each
    assert sorted(K[:, 547].data.tolist()) == sorted(K[:, 736].data.tolist()) == [1, 2]
    S = draw("resample")  # the simple graph for the same seed has no weight-1 column
    assert np.all(np.asarray(S.sum(axis=0)).ravel() == 3)


def test_regular_ensemble_refuses_what_does_not_fit(monkeypatch):
    # issue 12: regular_ensemble(10**9, 3, 6) was killed by the OOM killer after 56 s
    monkeypatch.setattr(ldpc.ensembles, "available_memory", lambda: 8 * 10**9)
    with pytest.raises(ValueError, match=r"needs about 144 GB.*8 GB are available"):
        regular_ensemble(10**9, 3, 6)  # 3e9 edges x 48 bytes = 144 GB (closed form)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="GB of memory"):
        regular_ensemble(10**13, 3, 6)  # 1.44 PB: more than any machine here
    with pytest.raises(ValueError, match="multi_edges='keep'"):
        regular_ensemble(1000, 5, 10)  # rejection would need e^18 draws
    with pytest.raises(ValueError, match="multi_edges"):
        regular_ensemble(1000, 3, 6, multi_edges="drop")


def test_regular_ensemble_bad_input():
    with pytest.raises(ValueError, match="divisible"):
        regular_ensemble(1001, 3, 6)
    with pytest.raises(ValueError, match="dc"):
        regular_ensemble(10, 3, 1)
    with pytest.raises(ValueError, match="dv"):
        regular_ensemble(10, 0, 6)
    with pytest.raises(ValueError, match="n"):
        regular_ensemble(2.5, 3, 6)


# ---------------------------------------------------------------------------
# degree distributions, thresholds, density evolution
# ---------------------------------------------------------------------------


def _mp_threshold(lam: dict, rho: dict, x0: str) -> tuple:
    """eps* = f(x*) with f'(x*) = 0, f(x) = x / lambda(1 - rho(1 - x)), mpmath at 50 digits."""
    from mpmath import diff, findroot, mp, mpf

    with mp.workdps(50):
        lp = lambda z: sum(mpf(f) * z ** (d - 1) for d, f in lam.items())  # noqa: E731
        rp = lambda z: sum(mpf(f) * z ** (d - 1) for d, f in rho.items())  # noqa: E731
        f = lambda x: x / lp(1 - rp(1 - x))  # noqa: E731
        xs = findroot(lambda x: diff(f, x), mpf(x0))
        return float(f(xs)), float(xs)


@pytest.mark.parametrize(
    "lam, rho, x0",
    [
        ({3: 1}, {6: 1}, "0.26"),
        ({4: 1}, {8: 1}, "0.26"),
        ({3: 1}, {5: 1}, "0.33"),
        ({5: 1}, {10: 1}, "0.25"),
        ({2: 0.3, 3: 0.7}, {6: 1}, "0.19"),
        ({2: 0.25, 3: 0.35, 8: 0.4}, {7: 0.5, 8: 0.5}, "0.2"),
    ],
)
def test_threshold_against_mpmath(lam, rho, x0):
    want_eps, want_x = _mp_threshold(lam, rho, x0)  # mpmath, 50 digits
    got = ldpc.bec_threshold(lam, rho)
    assert not got.stability
    assert abs(got.eps - want_eps) < 1e-12
    assert abs(got.x - want_x) < 1e-8


def test_threshold_3_6_value_and_definition():
    th = ldpc.regular_threshold(3, 6)
    assert abs(th.eps - 0.42943981441949183716) < 1e-13  # mpmath 50 digits (above)
    x = np.linspace(1e-6, 1, 200001)
    lam_of = lambda e: e * (1 - (1 - x) ** 5) ** 2  # noqa: E731  Kadhe et al. Sec. IV-A
    assert np.all(lam_of(th.eps * (1 - 1e-9)) < x)  # below eps*: DE fixed point only at 0
    assert np.any(lam_of(th.eps * (1 + 1e-6)) >= x)  # negative control: above eps* it sticks


def test_threshold_stability_and_degenerate_cases():
    th = ldpc.regular_threshold(2, 4)
    assert th.stability and abs(th.eps - 1 / 3) < 1e-15  # closed form 1/(lambda_2 rho'(1)) = 1/3
    assert ldpc.regular_threshold(1, 3).eps == 0.0  # degree-1 variables: x/lambda -> 0 at x -> 0
    # irregular ensemble where stability binds: lambda_2 = 0.5, rho'(1) = 5 -> 0.4 (closed form)
    th = ldpc.bec_threshold({2: 0.5, 20: 0.5}, {6: 1})
    assert th.stability and abs(th.eps - 0.4) < 1e-14


def test_degree_conversions_exact():
    from fractions import Fraction as F

    L = {2: F(1, 2), 3: F(1, 3), 6: F(1, 6)}
    lam = ldpc.node_to_edge(L)
    # hand computation: sum j L_j = 1 + 1 + 1 = 3 -> lambda = {2: 1/3, 3: 1/3, 6: 1/3}
    assert lam == {2: F(1, 3), 3: F(1, 3), 6: F(1, 3)}
    assert ldpc.edge_to_node(lam) == L
    assert ldpc.design_rate({3: F(1)}, {6: F(1)}) == F(1, 2)  # 1 - dv/dc
    assert ldpc.design_rate({3: 1.0}, {4: 1.0}) == pytest.approx(0.25, abs=1e-15)  # 1 - 3/4


def test_distribution_bad_input():
    # issue 12: a string fraction passed float() and then broke sum() with a TypeError
    with pytest.raises(ValueError, match=r"lam: fractions must be real numbers.*'1.0'"):
        ldpc.bec_threshold({3: "1.0"}, {6: 1.0})
    with pytest.raises(ValueError, match="rho: fractions must be real numbers"):
        ldpc.bec_threshold({3: 1.0}, {6: True})
    with pytest.raises(ValueError, match="sum to 1"):
        ldpc.bec_threshold({3: 0.5}, {6: 1})
    with pytest.raises(ValueError, match=">= 0"):
        ldpc.bec_threshold({3: 1.5, 4: -0.5}, {6: 1})
    with pytest.raises(ValueError, match=">= 2"):
        ldpc.bec_threshold({3: 1}, {1: 1})
    with pytest.raises(ValueError, match=">= 1"):
        ldpc.bec_threshold({0: 1}, {6: 1})
    with pytest.raises(ValueError, match="integers"):
        ldpc.bec_threshold({2.5: 1}, {6: 1})
    with pytest.raises(ValueError, match="mapping"):
        ldpc.bec_threshold([1.0], {6: 1})
    with pytest.raises(ValueError, match="eps"):
        ldpc.de_trajectory({3: 1}, {6: 1}, 1.2)
    with pytest.raises(ValueError, match="eps"):
        ldpc.block_failure_rate(HAMMING_7_4, -0.1, 10)


def test_de_trajectory_and_fixed_point():
    th = ldpc.regular_threshold(3, 6).eps
    below = ldpc.de_trajectory({3: 1}, {6: 1}, th - 0.01, 2000)
    assert np.all(np.diff(below) <= 0) and below[-1] < 1e-12
    above = ldpc.de_trajectory({3: 1}, {6: 1}, th + 0.01, 5000)
    x_inf, res = ldpc.de_fixed_point({3: 1}, {6: 1}, th + 0.01)
    assert abs(above[-1] - x_inf) < 1e-9 and x_inf > 0.1
    # residual fraction: eps * L(1 - rho(1 - x)) with L = x^3 for the (3,6) ensemble
    assert abs(res - (th + 0.01) * (1 - (1 - x_inf) ** 5) ** 3) < 1e-12
    assert ldpc.de_fixed_point({3: 1}, {6: 1}, th - 0.01) == (0.0, 0.0)


# ---------------------------------------------------------------------------
# Monte Carlo at finite length
# ---------------------------------------------------------------------------


def test_residual_rate_matches_density_evolution():
    H = regular_ensemble(4000, 3, 6, rng=21)
    est = ldpc.residual_erasure_rate(H, 0.5, 200, rng=5, level=0.999)
    _, res = ldpc.de_fixed_point({3: 1}, {6: 1}, 0.5)
    # finite-length bias is O(1/n), far inside the interval's width (~2e-3)
    assert est.contains(res)
    _, wrong = ldpc.de_fixed_point({3: 1}, {6: 1}, 0.48)  # negative control
    assert not est.contains(wrong)


def test_failure_rate_sides_of_threshold():
    H = regular_ensemble(4000, 3, 6, rng=22)
    lo = ldpc.block_failure_rate(H, 0.33, 300, rng=1)
    hi = ldpc.block_failure_rate(H, 0.47, 300, rng=1)
    assert lo.high < 0.05  # well below eps* = 0.4294: peeling succeeds w.h.p.
    assert hi.low > 0.95  # well above: peeling fails w.h.p.
    # same seed -> same frames -> failure indicator consistent with residual > 0
    res = ldpc.residual_erasure_rate(H, 0.47, 300, rng=1)
    assert res.value > 0


def test_count_model_agrees_with_critical_counts():
    H = regular_ensemble(600, 3, 6, rng=3)
    Hc = ldpc._as_parity_check(H)
    crit = ldpc._critical_counts(Hc, ldpc._resolve_backend("auto"), np.random.default_rng(8), 400)

    def emp(t):  # an independent sample of P(fail | t erasures), its own 99% interval
        return binomial_estimate(int(np.sum(crit < t)), len(crit), level=0.99)

    def agree(a, b):  # two independent 99% intervals overlap
        return a.low <= b.high and b.low <= a.high

    for t in (230, 250, 270):
        est = ldpc.count_failure_rate(H, t, 400, rng=9)
        assert agree(est, emp(t))
    # negative control: the same comparison fails against the count shifted by 5 either way
    est = ldpc.count_failure_rate(H, 250, 400, rng=9)
    assert not agree(est, emp(245)) and not agree(est, emp(255))
    mean = ldpc.critical_erasure_count(H, 100, rng=4)
    # below the density-evolution limit n eps* (finite-length waterfall shifts down), one-sided
    assert 200 < mean.low and mean.high < 600 * ldpc.regular_threshold(3, 6).eps


def test_monte_carlo_reproducible_across_chunks_and_executor():
    H = regular_ensemble(500, 3, 6, rng=1)
    a = ldpc.block_failure_rate(H, 0.42, 200, rng=7, chunk_size=50)
    b = ldpc.block_failure_rate(H, 0.42, 200, rng=7, chunk_size=50, executor=2)
    assert a.successes == b.successes


# ---------------------------------------------------------------------------
# batch raptor code (Wang et al. 2019, Theorem 6)
# ---------------------------------------------------------------------------


def test_raptor_distribution_exact_and_eq_55():
    from fractions import Fraction as F

    p = ldpc.raptor_degree_distribution(F(1, 10))
    assert sum(p.values()) == 1  # exact: u/(u+1) + (1 - 1/D)/(u+1) + 1/(D(u+1))
    assert p[1] == F(4, 13)  # u = 2(1/10)(8/10)/(6/10)^2 = 4/9 -> u/(u+1) = 4/13
    assert max(p) == 11  # D + 1 with D = floor(1/eps) = 10
    # eq. (55): Omega'(x) = (u - ln(1-x) + x^D - sum_{d>D} x^d/d)/(u+1), mpmath series
    from mpmath import log, mp, mpf, nsum

    with mp.workdps(30):
        u, D, x = mpf(4) / 9, 10, mpf("0.7")
        lhs = sum(k * mpf(v.numerator) / v.denominator * x ** (k - 1) for k, v in p.items())
        tail = nsum(lambda d: x**d / d, [D + 1, mp.inf])
        rhs = (u - log(1 - x) + x**D - tail) / (u + 1)
        assert abs(lhs - rhs) < mpf(10) ** -25


def test_condition_54_and_residual():
    p = ldpc.raptor_degree_distribution(0.1)
    need = (1 - 0.2) / (1 - 0.4)
    margin, _ = ldpc.check_condition_54(p, need, 0.9)
    assert margin > 0  # (54) holds on [0, 1 - eps]
    margin, _ = ldpc.check_condition_54(p, 1.0, 0.9)
    assert margin < 0  # negative control: overhead 1 is not enough
    res = ldpc.lt_residual_fraction(p, need)
    assert 0 < res < 0.1  # (54) on [0, 1 - eps] means peeling passes 1 - eps
    assert ldpc.lt_residual_fraction(p, need * 1.2) < res  # more overhead, less residue


@pytest.mark.parametrize("overhead", [True, float("nan"), float("inf"), 0.0, -1.0, "1.5"])
def test_lt_residual_fraction_refuses_a_bad_overhead(overhead):
    # True is not an overhead of 1, nor the string "1.5" one of 1.5
    with pytest.raises(ValueError, match=r"^overhead must"):
        ldpc.lt_residual_fraction({1: 0.2, 2: 0.5, 3: 0.3}, overhead)


def test_raptor_monte_carlo_matches_asymptotics():
    n, s, eps = 1000, 200, 0.1
    prm = ldpc.raptor_parameters(eps, s / n)
    assert prm.b == 2 and prm.condition_53  # ceil(1/ln 5) + 1 = 2; 1.333 < 2 * 0.8
    est = ldpc.raptor_residual_rate(n, s, eps, 200, rng=3, level=0.999)
    want = ldpc.lt_residual_fraction(ldpc.raptor_degree_distribution(eps), prm.overhead)
    # finite-length bias O(1/K) is inside the 99.9% interval at n = 1000 (was + 0.002 slack,
    # 20% of the value, wide enough to accept a 5% error in the overhead)
    assert est.contains(want)
    # negative control: the LT residual at an overhead 5% off either way is rejected
    p = ldpc.raptor_degree_distribution(eps)
    for f in (0.95, 1.05):
        assert not est.contains(ldpc.lt_residual_fraction(p, prm.overhead * f))
    assert est.high < eps
    fail = ldpc.raptor_failure_rate(n, s, eps, 100, rng=4)
    assert fail.high < 0.1


def test_raptor_bad_input():
    with pytest.raises(ValueError, match="1/4"):
        ldpc.raptor_degree_distribution(0.3)
    with pytest.raises(ValueError, match="delta"):
        ldpc.raptor_parameters(0.1, 1.5)
    with pytest.raises(ValueError, match="divide"):
        ldpc.raptor_code_matrix(11, 2, {1: 1.0})
    with pytest.raises(ValueError, match="K"):
        ldpc.raptor_code_matrix(4, 2, {3: 1.0})
    with pytest.raises(ValueError, match="overhead"):
        ldpc.check_condition_54({1: 1.0}, -1, 0.5)


# ---------------------------------------------------------------------------
# fallback path, waterfall, CLI
# ---------------------------------------------------------------------------


def test_auto_backend_is_numpy_without_numba(monkeypatch):
    monkeypatch.setattr(_compiled, "HAVE_NUMBA", False)  # the flag every compiled path reads
    assert ldpc._resolve_backend("auto") == "numpy"
    with pytest.raises(ValueError, match="numba"):
        ldpc._resolve_backend("numba")
    H = regular_ensemble(300, 3, 6, rng=2)
    E = np.random.default_rng(1).random((20, 300)) < 0.45
    np.testing.assert_array_equal(peel_batch(H, E), peel_batch(H, E, backend="numpy"))


def test_waterfall_points_and_monotonicity():
    pts = ldpc.waterfall([500, 1000], [0.30, 0.50], 3, 6, 100, rng=1)
    assert [(p.n, p.eps) for p in pts] == [(500, 0.3), (500, 0.5), (1000, 0.3), (1000, 0.5)]
    for lo, hi in ((pts[0], pts[1]), (pts[2], pts[3])):
        assert lo.failure.high < hi.failure.low  # failure grows with eps, beyond the noise
        assert lo.residual.value < hi.residual.value
    again = ldpc.waterfall([500], [0.5], 3, 6, 100, rng=1)
    assert again[0].failure.successes == pts[1].failure.successes  # per-point seeds


def test_cli_threshold_and_waterfall(capsys, tmp_path):
    from gctheory.cli import main

    assert main(["threshold", "--dv", "3", "--dc", "6", "--n", "10000", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "0.429439814419" in out and "4294.40" in out  # mpmath value above; 10000 eps*
    f = tmp_path / "ens.json"
    f.write_text('{"lam": {"2": 0.5, "20": 0.5}, "rho": {"6": 1}}')
    assert main(["threshold", "--file", str(f), "--format", "json"]) == 0
    eps_json = json.loads(capsys.readouterr().out)["rows"][0]["eps*"]  # a JSON number, not a string
    assert eps_json == pytest.approx(0.4, abs=1e-12)  # stability 1/(0.5*5), closed form
    assert main(["threshold", "--lam", "3:0.5", "--rho", "6:1"]) == 2  # bad input -> exit 2
    assert "sum to 1" in capsys.readouterr().err
    argv = ["waterfall", "--n", "200", "--eps", "0.3", "0.5", "--trials", "20", "--format", "csv"]
    assert main(argv) == 0
    lines = [x for x in capsys.readouterr().out.strip().splitlines() if not x.startswith("#")]
    assert len(lines) == 3 and lines[0].startswith("n,eps")


# ---------------------------------------------------------------------------
# symbolic derivations (sympy) and fuzzing of the threshold's definition
# ---------------------------------------------------------------------------


def test_sympy_stability_limit_and_pw_normalisation():
    import sympy as sp

    x, l2, r5 = sp.symbols("x lambda2 rho5", positive=True)
    lam = lambda z: l2 * z + (1 - l2) * z**2  # noqa: E731  lambda = {2: l2, 3: 1 - l2}
    rho = lambda z: r5 * z**4 + (1 - r5) * z**5  # noqa: E731  rho = {5: r5, 6: 1 - r5}
    lim = sp.limit(x / lam(1 - rho(1 - x)), x, 0)
    # the x -> 0 limit of the threshold function is 1/(lambda_2 rho'(1)) (stability)
    assert sp.simplify(lim - 1 / (l2 * sp.diff(rho(x), x).subs(x, 1))) == 0
    th = ldpc.bec_threshold({2: 0.5, 3: 0.5}, {5: 1 / 3, 6: 2 / 3})
    bound = float(lim.subs({l2: sp.Rational(1, 2), r5: sp.Rational(1, 3)}))
    assert th.eps <= bound + 1e-15  # eps* = min over x <= the x -> 0 limit
    # P_w of Wang et al. eq. (17) sums to 1 for every D: u/(u+1) + sum 1/(k(k-1)(u+1)) + 1/(D(u+1))
    k, D, u = sp.symbols("k D u", positive=True, integer=True)
    total = u / (u + 1) + sp.summation(1 / (k * (k - 1)), (k, 2, D)) / (u + 1) + 1 / (D * (u + 1))
    assert sp.simplify(total) == 1


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(2, 8), min_size=1, max_size=3, unique=True),
    st.lists(st.integers(3, 12), min_size=1, max_size=3, unique=True),
    st.integers(0, 2**31 - 1),
)
def test_threshold_definition_fuzz(lam_degs, rho_degs, seed):
    rng = np.random.default_rng(seed)
    w = rng.random(len(lam_degs)) + 0.05
    v = rng.random(len(rho_degs)) + 0.05
    lam = dict(zip(lam_degs, w / w.sum()))
    rho = dict(zip(rho_degs, v / v.sum()))
    th = ldpc.bec_threshold(lam, rho)
    x = np.concatenate([np.geomspace(1e-7, 1e-2, 300), np.linspace(1e-2, 1, 20001)])

    def de(eps):
        y = 1 - sum(f * (1 - x) ** (d - 1) for d, f in rho.items())
        return eps * sum(f * y ** (d - 1) for d, f in lam.items())

    assert np.all(de(th.eps * (1 - 1e-6)) < x)  # below eps*: the DE map stays under x
    if th.stability:
        assert 2 in lam  # only lambda_2 > 0 can make x -> 0 bind
        assert th.eps == pytest.approx(1 / (lam[2] * sum(f * (d - 1) for d, f in rho.items())))
    else:
        near = np.abs(x - th.x) < 1e-3
        assert np.any(de(th.eps * (1 + 1e-6))[near] >= x[near])  # above: it touches at x*


def test_cli_threshold_json_numbers(capsys):
    # issue 5: eps*, critical x and eps* x n are JSON numbers, not strings
    from gctheory.cli import main

    assert main(["threshold", "--dv", "3", "--dc", "6", "--n", "100", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    for col in ("eps*", "critical x", "eps* x n (n=100)", "design rate"):
        assert isinstance(row[col], float), (col, row[col])
    assert abs(row["eps*"] - 0.42943981441949183716) < 1e-13  # mpmath 50 digits (above)
    assert row["eps* x n (n=100)"] == pytest.approx(100 * row["eps*"])
    assert 0 < row["critical x"] < 1
    # human formats keep the fixed 12-digit string (not cut to 6 significant digits)
    assert main(["threshold", "--dv", "3", "--dc", "6"]) == 0
    assert "0.429439814419" in capsys.readouterr().out  # mpmath value above, 12 decimals


@pytest.mark.filterwarnings("ignore::gctheory.montecarlo.UnreliableEstimateWarning")
def test_residual_interval_is_the_unclipped_clt_interval(capsys):
    # issue 5: the residual fraction's interval is the engine's, reported as is (documented);
    # where residuals are rare the fractions are skewed: Hall's interval leans right (the
    # normal one went below 0) and the engine warns that 200 frames cannot support it
    H = ldpc.regular_ensemble(2000, 3, 6, rng=0)
    with pytest.warns(UnreliableEstimateWarning, match="too few draws"):
        e = ldpc.residual_erasure_rate(H, 0.4, 200, rng=1)
    assert e.method == "hall" and e.low < e.value < e.high
    assert e.high - e.value > e.value - e.low  # skewness-corrected: not symmetric
    assert "not clipped" in ldpc.residual_erasure_rate.__doc__
    from gctheory.cli import main

    argv = ["waterfall", "--n", "200", "--eps", "0.3", "--trials", "20", "--format", "md"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "residual CLT CI" in out and "may be < 0" in out


def test_cli_issue12_bad_counts_are_errors(capsys):
    # issue 12: `threshold --n -5` printed a negative eps* x n; `waterfall --points 0` printed an
    # empty table with exit 0. Both are CLI errors now (exit 2, the rule named).
    from gctheory.cli import main

    assert main(["threshold", "--n", "-5"]) == 2
    assert "--n must be an integer >= 1" in capsys.readouterr().err
    assert main(["waterfall", "--points", "0", "--trials", "10"]) == 2
    assert "--points must be an integer >= 1" in capsys.readouterr().err
    assert main(["waterfall", "--codes", "0", "--trials", "10"]) == 2
    assert "--codes" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least one n and one eps"):
        ldpc.waterfall([1000], [], 3, 6, 10)


def test_cli_map_finite_length_and_predict(capsys):
    from gctheory.cli import main

    assert main(["threshold", "--map", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["eps_MAP (Maxwell)"] == pytest.approx(ldpc.regular_map_threshold(3, 6).eps)
    assert row["eps*"] < row["eps_MAP (Maxwell)"] < row["capacity 1-R"]
    argv = ["finite-length", "--dv", "3", "--dc", "6", "--n", "60", "--eps", "0.3", "0.4"]
    for fmt in ("text", "md", "csv"):
        assert main([*argv, "--format", fmt]) == 0
        assert "0.4" in capsys.readouterr().out
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    prof = ldpc.erasure_profile(60, 3, 6)
    assert rows[1]["block erasure"] == pytest.approx(prof.block_erasure(0.4), rel=1e-12)
    assert main(["finite-length", "--n", "60", "--erasures", "20", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["P(fail | t)"] == pytest.approx(
        prof.block_given_erasures(20), rel=1e-12
    )
    assert main(["finite-length", "--n", "100000"]) == 2  # refused at once, alternatives named
    assert "Monte Carlo" in capsys.readouterr().err
    assert main(["finite-length", "--n", "60", "--eps", "1.5"]) == 2
    argv = ["waterfall", "--n", "120", "--eps", "0.4", "--trials", "50", "--ensemble", "keep"]
    assert main([*argv, "--predict", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["exact (config. model)"] == pytest.approx(
        ldpc.erasure_profile(120, 3, 6).block_erasure(0.4), rel=1e-12
    )
    assert 0 < row["scaling law"] < 1 and 0 < row["floor (small stopping sets)"] < 1
