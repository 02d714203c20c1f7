"""Fast paths of issue 27 at large sizes (``gctheory load --n 10**6``, ``regular_ensemble(10**6,
3, 6)``, ``decode_many`` at n = 1000, lazy first ``decode``) against the slow paths they
replaced: identical results, or within a stated tolerance."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

import gctheory._group_failure as gf
from gctheory.load_bounds import finite_n

# ---------------------------------------------------------------------------
# gctheory load: the saddle-point integrals on half the circle, the walk's global stop


def _full_circle(n: int, s: int) -> tuple[np.ndarray, np.ndarray]:
    """The whole circle (the old ``_saddle_circle``)."""
    size = gf._saddle_size(n, s)
    r = s / (n - s)
    theta = 2 * np.pi * (np.arange(size) + 0.5) / size
    z = r * np.exp(1j * theta)
    return z, n * gf._clog1p((z - r) / (1 + r)) - 1j * s * theta


def _group_failure_full_circle(n: int, s: int, counts: Counter) -> float:
    """The old float path: the integrand of ``_group_failure_float`` on the whole circle."""
    z, log_w = _full_circle(n, s)
    log_t = np.log(z) - gf._clog1p(z)
    acc = np.zeros_like(z)
    for a, x in counts.items():
        la = a * log_t
        small = la.real < math.log(0.5)
        term = np.empty_like(z)
        term[small] = gf._clog1p(-np.exp(la[small]))
        term[~small] = la[~small] + 1j * np.pi + gf._clog1p(-np.exp(-la[~small]))
        acc += x * term
    out = np.empty_like(z)
    lo = acc.real < 0.5
    out[lo] = np.log(-gf._cexpm1(acc[lo]))
    out[~lo] = acc[~lo] + np.log(gf._cexpm1(-acc[~lo]))
    with np.errstate(divide="ignore", under="ignore"):
        mean = float(np.real(np.mean(np.exp(log_w + out))))
    return min(1.0, gf._saddle_finish(n, s, mean))


@pytest.mark.parametrize(
    "n, s, counts",
    [
        (10**6, 10**5, {7: 142857, 1: 1}),
        (10**6, 10**5, {8: 125000}),
        (2 * 10**5, 10**5, {3: 66666, 2: 1}),
        (10**6, 4 * 10**5, {20: 50000}),
    ],
)
def test_group_failure_half_circle_equals_the_whole_circle(n, s, counts):
    got = gf._group_failure_float(n, s, Counter(counts))
    ref = _group_failure_full_circle(n, s, Counter(counts))
    # the same sum, conjugate pairs folded: rounding only (the rule's error is 1e-13 sqrt(n))
    assert got == pytest.approx(ref, rel=1e-12)


def _tail_full_walk(n: int, s: int, d: int, c: int) -> float:
    """``P(Y > c)`` by the same walk from the same anchor, over the whole circle, summing
    every term of the shorter side at every point (no early stop): the slow path of the
    walk's stopping rule."""
    t = n // (d * d)
    kmax = min(t, s // d)
    upper = kmax - c <= max(c + 1, 2000)
    js = range(c + 1, kmax + 1) if upper else range(0, c + 1)
    z, log_w = _full_circle(n, s)
    log_u = d * (np.log(z) - gf._clog1p(z))
    small = log_u.real < math.log(0.5)
    log_1mu = np.empty_like(z)
    log_1mu[small] = gf._clog1p(-np.exp(log_u[small]))
    log_1mu[~small] = log_u[~small] + 1j * np.pi + gf._clog1p(-np.exp(-log_u[~small]))
    step = log_u - log_1mu
    ratio = np.exp(step)
    mode = min(max(math.floor((t + 1) * (s / n) ** d), js[0]), js[-1])
    log_c = math.lgamma(t + 1) - math.lgamma(mode + 1) - math.lgamma(t - mode + 1)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        anchor = np.exp(log_w + t * log_1mu + log_c + mode * step)
        total, term = anchor.copy(), anchor
        for j in range(mode, js[-1]):
            term = term * ratio * ((t - j) / (j + 1))
            total += term
        term = anchor
        for j in range(mode, js[0], -1):
            term = term / ratio * (j / (t - j + 1))
            total += term
    part = gf._saddle_finish(n, s, float(np.real(np.mean(total))))
    return min(1.0, part) if upper else max(0.0, 1.0 - part)


@pytest.mark.parametrize(
    "n, s, d, c",
    [
        (10**5, 10**4, 2, 1000),  # lower side, walks both ways from the mode
        (10**5, 5 * 10**4, 3, 1000),  # lower side, the answer near 1
        (10**5, 5 * 10**4, 4, 1000),  # lower side, the answer far from 0 and 1
        (2 * 10**4, 2000, 3, 150),  # upper side (kmax - c small)
        (4 * 10**4, 2 * 10**4, 5, 600),  # upper side, a tiny tail
    ],
)
def test_zero_column_tail_global_stop_equals_the_full_sum(n, s, d, c):
    t = n // (d * d)
    kmax = min(t, s // d)
    got = finite_n._zero_column_tail_float(n, s, d, t, c, kmax)
    ref = _tail_full_walk(n, s, d, c)
    # the stop leaves out below 2^-60 of the sum: rounding only, relative where the side
    # summed is the answer (upper), absolute where the answer is 1 minus it (the mean of
    # half as many points rounds differently, about 1e-14)
    upper = kmax - c <= max(c + 1, 2000)
    assert abs(got - ref) <= (1e-12 * ref if upper else 1e-13)


def test_the_full_walk_reference_can_fail():
    # negative control: the reference sees a walk cut short (one side only)
    n, s, d, c = 10**5, 5 * 10**4, 4, 1000
    ref = _tail_full_walk(n, s, d, c)
    t = n // (d * d)
    z, log_w = gf._saddle_circle(n, s)
    walk = finite_n._zero_column_tail_sum(n, s, d, t, range(0, c + 1), False, z, log_w)
    assert abs(walk - ref) <= 1e-13  # the real walk agrees ...
    u_r = (s / n) ** d
    mode = math.floor((t + 1) * u_r)
    short = finite_n._zero_column_tail_sum(n, s, d, t, range(0, mode + 1), False, z, log_w)
    assert abs(short - ref) > 1e-3  # ... a walk that stops at the mode does not


def _poly_comb(sizes: Counter, degree: int) -> list[int]:
    """The old ``_poly_prod_one_minus``: ``math.comb`` afresh for every coefficient."""
    poly = [0] * (degree + 1)
    poly[0] = 1
    for a, x in sizes.items():
        factor = {a * j: (-1) ** j * math.comb(x, j) for j in range(0, min(x, degree // a) + 1)}
        new = [0] * (degree + 1)
        for i, c in enumerate(poly):
            if c:
                for m, f in factor.items():
                    if i + m > degree:
                        break
                    new[i + m] += c * f
        poly = new
    return poly


@pytest.mark.parametrize(
    "counts, degree",
    [({7: 142857, 1: 1}, 300), ({3: 5, 2: 1}, 40), ({1: 10**6}, 200), ({40: 25000}, 1000)],
)
def test_poly_prod_one_minus_recurrence_equals_math_comb(counts, degree):
    assert gf._poly_prod_one_minus(Counter(counts), degree) == _poly_comb(Counter(counts), degree)


def test_load_bounds_import_no_codes_package():
    # gctheory load --n 1000000 spent 0.9 s importing the codes package through the
    # group-failure core: it now lives on the bottom floor
    import subprocess
    import sys

    code = "import sys, gctheory.load_bounds; print('gctheory.codes' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------
# regular_ensemble: the compiled early-stopping rejection sampler


def _kernel_draws(n, dv, dc, pool_size, draws, seed):
    """``draws`` configurations from the compiled sampler (a fresh xoshiro seed each)."""
    from gctheory.ldpc._ensemble_kernel import draw_simple_configuration

    rng = np.random.default_rng(seed)
    m = n * dv // dc
    out, attempts = [], 0
    for _ in range(draws):
        chk = np.empty(n * dv, dtype=np.int32)
        counts = np.empty(m, dtype=np.uint8)
        pool = np.empty(pool_size, dtype=np.int32)
        s = rng.integers(0, 1 << 64, size=4, dtype=np.uint64)
        attempts += draw_simple_configuration(s, n, dv, dc, chk, counts, pool)
        out.append(chk)
    return out, attempts


def _simple_graphs(n, dv, dc):
    """Every m x n 0/1 matrix with column sums dv and row sums dc (as bytes)."""
    import itertools

    m = n * dv // dc
    cols = [c for c in itertools.combinations(range(m), dv)]
    found = set()
    for pick in itertools.product(range(len(cols)), repeat=n):
        P = np.zeros((m, n), dtype=np.int8)
        for v, k in enumerate(pick):
            P[list(cols[k]), v] = 1
        if np.all(P.sum(axis=1) == dc):
            found.add(P.tobytes())
    return found


def _as_matrix(chk, n, dv, dc):
    m = n * dv // dc
    P = np.zeros((m, n), dtype=np.int8)
    P[chk, np.repeat(np.arange(n), dv)] += 1
    return P


@pytest.mark.parametrize("pool_size", [0, 3, 8])  # no shuffle, both phases, all shuffle
def test_compiled_sampler_is_uniform_over_simple_graphs(pool_size):
    pytest.importorskip("numba")
    from scipy import stats

    n, dv, dc = 4, 2, 2  # 4 checks and 4 variables of degree 2: 90 simple graphs
    graphs = _simple_graphs(n, dv, dc)
    draws, attempts = _kernel_draws(n, dv, dc, pool_size, 30 * len(graphs), seed=pool_size)
    seen: dict[bytes, int] = dict.fromkeys(graphs, 0)
    for chk in draws:
        P = _as_matrix(chk, n, dv, dc)
        assert P.max() == 1  # simple
        seen[P.tobytes()] += 1  # KeyError if not a (dv, dc)-regular graph
    assert len(seen) == len(graphs)
    assert stats.chisquare(list(seen.values())).pvalue > 1e-3
    assert attempts > len(draws)  # some configurations were rejected
    # negative control: the same test sees a 2:1 bias on a fifth of the graphs
    biased = [k * (2 if i % 5 == 0 else 1) for i, k in enumerate(seen[g] for g in sorted(seen))]
    assert stats.chisquare(biased).pvalue < 1e-3


@pytest.mark.parametrize("n, dv, dc", [(180000, 3, 6), (300000, 2, 4), (200000, 3, 4)])
def test_regular_ensemble_fast_path_degrees_and_simplicity(n, dv, dc):
    pytest.importorskip("numba")
    from gctheory.ldpc import ensembles

    assert n * dv >= ensembles._FAST_SOCKETS  # the compiled path
    H = ensembles.regular_ensemble(n, dv, dc, rng=7)
    m = n * dv // dc
    assert H.shape == (m, n) and H.dtype == np.int8 and H.nnz == n * dv
    assert set(np.unique(H.data)) == {1}
    assert np.all(np.diff(H.indptr) == dc)  # exact row weights
    assert np.all(np.bincount(H.indices, minlength=n) == dv)  # exact column weights
    assert H.has_sorted_indices
    assert np.all(np.diff(H.indices.reshape(m, dc), axis=1) > 0)  # no repeated entry
    # the counting-sort matrix equals the old scipy construction from the same sockets
    cols = np.repeat(np.arange(n), dv)
    chk = H.tocsc().indices  # each column's checks, sorted
    ref = ensembles._simple_matrix(chk, m, n, dv)
    assert (H != ref).nnz == 0
    assert ensembles.regular_ensemble(n, dv, dc, rng=7).indices.tobytes() == H.indices.tobytes()
    assert cols.size == H.nnz


def test_regular_ensemble_small_codes_keep_their_seeded_draws():
    # below _FAST_SOCKETS the numpy rejection draws the same codes as before (paper checks)
    from gctheory.ldpc import ensembles

    for n, seed in [(2000, 2000), (10000, 5)]:
        H = ensembles.regular_ensemble(n, 3, 6, rng=seed)
        rng = np.random.default_rng(seed)
        chk = ensembles._configurations(1, n, 3, 6, rng, simple=True)[0]
        ref = ensembles._simple_matrix(chk, n // 2, n, 3)
        assert (H != ref).nnz == 0


@pytest.mark.slow  # compiles in two fresh processes (seconds of CPU each)
def test_ensemble_kernels_load_from_numba_cache_in_a_fresh_process(tmp_path):
    pytest.importorskip("numba")
    import os
    import subprocess
    import sys

    script = (
        "from gctheory.ldpc import ensembles\n"
        "ensembles.regular_ensemble(2 * (ensembles._FAST_SOCKETS // 6 + 1), 3, 6, rng=1)\n"
        "from gctheory.ldpc import _ensemble_kernel as k\n"
        "ks = (k.draw_simple_configuration, k.sockets_to_csr)\n"
        "print(sum(sum(f.stats.cache_hits.values()) for f in ks),"
        " sum(sum(f.stats.cache_misses.values()) for f in ks))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run():
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        files = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
        return [int(v) for v in out.stdout.split()], files

    (hits1, misses1), files1 = run()
    (hits2, misses2), files2 = run()
    assert (hits1, misses1) == (0, 2) and files1  # compiled and cached
    assert (hits2, misses2) == (2, 0) and files2 == files1  # loaded, nothing written


# ---------------------------------------------------------------------------
# decoding: the compiled loop of LAPACK solves (e > 40), the lazy first decodes


def _dense_code(n, s, seed=1, complex_=False):
    from gctheory.codes.tandon import MatrixGradientCode
    from gctheory.generators import gaussian_generator

    rng = np.random.default_rng(seed)
    G = gaussian_generator(n - s, n, rng=rng)
    M = rng.standard_normal((n - s, n))
    if complex_:
        G = G + 1j * gaussian_generator(n - s, n, rng=rng)
    M[0] = 1.0
    return MatrixGradientCode(G.T @ M, s), rng


@pytest.mark.parametrize("e", [41, 60, 100])
def test_lapack_loop_kernel_equals_numpy_stacked_solve(e):
    pytest.importorskip("numba")
    from gctheory.codes import _stacked_solve as st

    rng = np.random.default_rng(e)
    n, N, m = 3 * e, 50, 2
    W = rng.standard_normal((n, e + m))
    SS = np.array([np.sort(rng.choice(n, e, replace=False)) for _ in range(N)])
    Y1, R1, norms1, ok1 = st.gather_solve(W, SS, e, backend="numba")
    Y2, R2, norms2, ok2 = st.gather_solve(W, SS, e, backend="numpy")
    assert ok1 and ok2
    np.testing.assert_allclose(Y1, Y2, rtol=1e-9, atol=1e-9 * np.abs(Y2).max())
    np.testing.assert_allclose(norms1[:, 1], norms2[:, 1], rtol=1e-9)
    assert np.all(norms1[:, 0] <= 1e-10 * (1 + norms1[:, 1]))  # both residuals are rounding
    assert np.all(norms2[:, 0] <= 1e-10 * (1 + norms2[:, 1]))


def test_lapack_loop_kernel_reports_a_singular_system_alone():
    pytest.importorskip("numba")
    from gctheory.codes import _stacked_solve as st

    rng = np.random.default_rng(3)
    e, n = 50, 120
    W = rng.standard_normal((n, e + 1))
    W[7, :e] = 0.0  # a zero row on the system's side: every set holding row 7 is singular
    SS = np.array([np.arange(8, 8 + e), np.arange(5, 5 + e), np.arange(60, 60 + e)])
    Y, _, norms, ok = st.gather_solve(W, SS, e, backend="numba")
    assert ok and np.all(np.isfinite(Y[0])) and np.all(np.isfinite(Y[2]))
    assert np.all(np.isnan(Y[1])) and np.all(np.isnan(norms[1]))
    _, _, _, ok_numpy = st.gather_solve(W, SS, e, backend="numpy")
    assert not ok_numpy  # numpy's stack fails whole (the old behaviour, kept)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_decode_many_large_s_equals_a_loop_of_decode(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    n, s, N = 300, 60, 40  # e = 60 > 40: the compiled LAPACK loop
    code, rng = _dense_code(n, s)
    Y = code.encode(rng.standard_normal((n, 5)))
    S = np.array([np.sort(rng.permutation(n)[: n - s]) for _ in range(N)])
    many = code.decode_many(S, Y, backend=backend)
    loop = np.array([code.decode(T, Y[T]) for T in S])
    np.testing.assert_allclose(many, loop, rtol=1e-8, atol=1e-8 * np.abs(loop).max())


def test_batch_norm_of_e_from_the_factorisation_svd():
    code, _ = _dense_code(120, 12)
    code._nullspace_data()
    extra = code._nullspace_extra()
    assert extra["normE"] == pytest.approx(np.linalg.norm(code.encoding_matrix, 2), rel=1e-13)


@pytest.mark.slow  # compiles in two fresh processes (about 10 s of CPU)
def test_lapack_loop_kernel_loads_from_numba_cache_in_a_fresh_process(tmp_path):
    pytest.importorskip("numba")
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np\n"
        "from gctheory.codes import _stacked_solve as st\n"
        "rng = np.random.default_rng(0)\n"
        "W = rng.standard_normal((120, 51))\n"
        "SS = np.array([np.sort(rng.choice(120, 50, replace=False)) for _ in range(3)])\n"
        "st.gather_solve(W, SS, 50, backend='numba')\n"
        "from gctheory.codes._stacked_kernel import gather_solve_lapack_kernel as k\n"
        "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run():
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        files = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
        return [int(v) for v in out.stdout.split()], files

    (hits1, misses1), files1 = run()
    (hits2, misses2), files2 = run()
    assert (hits1, misses1) == (0, 1) and files1
    assert (hits2, misses2) == (1, 0) and files2 == files1


@pytest.mark.parametrize(
    "make",
    [
        lambda: _dense_code(200, 20)[0],
        lambda: _dense_code(60, 6, complex_=True)[0],
        lambda: __import__("gctheory.codes", fromlist=["x"]).CyclicMDSCode(30, 5, rng=2),
        lambda: __import__("gctheory.codes", fromlist=["x"]).CyclicMDSCode(
            24, 4, construction="deterministic"
        ),
    ],
)
def test_first_decodes_are_direct_and_equal_the_factorised_decoder(make):
    code = make()
    n, s = code.n, code.s
    rng = np.random.default_rng(5)
    P = rng.standard_normal((n, 3))
    Y = code.encode(P)
    truth = P.sum(axis=0)
    sets = [np.sort(rng.permutation(n)[: n - s]), np.sort(rng.permutation(n)[: n - s + 2])]
    first = [code.decode(T, Y[T]) for T in sets]  # the second: fewer stragglers than s
    assert "_nullspace_cache" not in code.__dict__  # no SVD of E yet
    assert code.__dict__["_direct_solves"] == code.decode_direct_sets == 2
    code.decode(sets[0], Y[sets[0]])  # a cached set: no solve, nothing counted
    assert "_nullspace_cache" not in code.__dict__
    third = np.sort(rng.permutation(n)[: n - s])
    code.decode(third, Y[third])  # a further set: the factorisation is made
    assert "_nullspace_cache" in code.__dict__
    fresh = make()
    fresh.decode_direct_sets = 0  # the factorised decoder from the first set
    for T, got in zip(sets, first):
        ref = fresh.decode(T, Y[T])
        scale = np.abs(truth).max()
        assert np.abs(got - ref).max() <= 1e-9 * scale
        assert np.abs(got - truth).max() <= 1e-7 * scale
    code.clear_decode_cache()
    assert "_direct_solves" not in code.__dict__


def test_first_decode_refuses_what_the_factorised_decoder_refuses():
    # a set that cannot decode (more stragglers than s, so 1 is outside the rows' span)
    # is refused by the direct first solve as by the null-space decoder
    from gctheory.codes import CyclicMDSCode

    code = CyclicMDSCode(20, 3, rng=1)
    Y = code.encode(np.ones((20, 2)))
    T = np.arange(16)  # 4 stragglers > s = 3
    with pytest.raises(ValueError):
        code.decode(T, Y[T])
    fresh = CyclicMDSCode(20, 3, rng=1)
    fresh.decode_direct_sets = 0
    with pytest.raises(ValueError):
        fresh.decode(T, Y[T])


def test_decode_direct_sets_zero_factorises_at_the_first_decode():
    code, rng = _dense_code(100, 10)
    code.decode_direct_sets = 0
    Y = code.encode(rng.standard_normal((100, 2)))
    T = np.sort(rng.permutation(100)[:90])
    code.decode(T, Y[T])
    assert "_nullspace_cache" in code.__dict__ and "_direct_solves" not in code.__dict__
