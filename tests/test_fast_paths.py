"""Fast paths of issue 27 against the slow paths they replaced (identical results)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import eval_legendre, roots_legendre

from gctheory.generators import legendre_generator
from gctheory.load_bounds import frc_error_pmf
from gctheory.load_bounds.frc import _frc_counts, _tail_binomials


def _pmf_pairwise(n: int, s: int, d: int, rounding: str = "ceil") -> dict[int, Fraction]:
    """The inclusion-exclusion as a double sum over pairs of group-loss counts (the old code)."""
    counts = sorted(_frc_counts(n, d, rounding).items())
    sizes, mult = [a for a, _ in counts], [x for _, x in counts]
    tails = _tail_binomials(n, s)
    S = {}
    for jp in itertools.product(*[range(0, min(x, s // a) + 1) for a, x in counts]):
        m = sum(j * a for j, a in zip(jp, sizes))
        if m <= s:
            S[jp] = math.prod(math.comb(x, j) for x, j in zip(mult, jp)) * tails[m]
    pmf: dict[int, Fraction] = {}
    for j in S:
        num = 0
        for jp, val in S.items():
            if all(b >= a for a, b in zip(j, jp)):
                sign = (-1) ** sum(b - a for a, b in zip(j, jp))
                num += sign * math.prod(math.comb(b, a) for a, b in zip(j, jp)) * val
        if num:
            err = sum(a * k for a, k in zip(sizes, j))
            pmf[err] = pmf.get(err, Fraction(0)) + Fraction(num, tails[0])
    return dict(sorted(pmf.items()))


@pytest.mark.parametrize(
    "n, s, d, rounding",
    [
        (10, 3, 2, "ceil"),
        (12, 5, 3, "floor"),
        (30, 7, 4, "ceil"),
        (60, 20, 5, "floor"),
        (100, 33, 7, "ceil"),
        (200, 150, 3, "ceil"),
        (200, 10, 1, "ceil"),
        (120, 40, 11, "floor"),
        (97, 50, 6, "ceil"),
    ],
)
def test_frc_error_pmf_axis_transform_equals_pairwise_sum(n, s, d, rounding):
    assert frc_error_pmf(n, s, d, rounding) == _pmf_pairwise(n, s, d, rounding)


@pytest.mark.parametrize("K, N", [(1, 1), (2, 3), (5, 7), (37, 60), (100, 101), (300, 301)])
def test_legendre_generator_bit_for_bit_scipy(K, N):
    x, w = roots_legendre(N)
    i = np.arange(K)[:, None]
    ref = np.sqrt(w)[None, :] * np.sqrt(i + 0.5) * eval_legendre(i, x[None, :])
    assert np.array_equal(legendre_generator(K, N), ref)


def test_regular_ensemble_long_codes_same_draws_as_permutation():
    # chk.size >= 8000: the in-place shuffle must give chk[rng.permutation(size)] exactly
    from gctheory.ldpc import regular_ensemble
    from gctheory.ldpc.ensembles import _simple_rows

    n, dv, dc = 4000, 3, 6
    H = regular_ensemble(n, dv, dc, rng=7)
    rng = np.random.default_rng(7)
    chk = np.repeat(np.arange(n * dv // dc, dtype=np.int64), dc)
    while True:
        cand = chk[rng.permutation(chk.size)]
        if _simple_rows(cand.reshape(1, n, dv))[0]:
            break
    ref = np.zeros((n * dv // dc, n), dtype=np.int8)
    ref[cand, np.repeat(np.arange(n), dv)] = 1
    assert np.array_equal(H.toarray(), ref)


@pytest.mark.parametrize(
    "n, s, d, c",
    [(2000, 200, 1, 20), (3000, 1500, 2, 40), (5000, 500, 1, 300), (4000, 3600, 1, 360)],
)
def test_zero_column_tail_walk_stop_matches_exact(n, s, d, c):
    # the walks stop once the rest is below 2^-60 of the total: same value as the exact sum
    from gctheory.load_bounds import zero_column_tail_lower_bound
    from gctheory.load_bounds.finite_n import _zero_column_tail_float

    t = n // (d * d)
    exact = float(zero_column_tail_lower_bound(n, s, d, c))
    got = _zero_column_tail_float(n, s, d, t, c, min(t, s // d))
    assert abs(got - exact) <= 1e-13 * n**0.5  # the float rule's stated error


def test_batch_raptor_coding_matrix_is_the_product():
    from gctheory.codes import BatchRaptorCode

    code = BatchRaptorCode.random(60, 3, [1, 2, 3], [0.2, 0.5, 0.3], k=64, rng=4)
    ref = (code.H.astype(np.int64) @ code._batch_matrix.astype(np.int64)).astype(np.int8)
    assert np.array_equal(code.A, ref) and code.A.dtype == np.int8


@pytest.mark.parametrize("n, gens", [(2001, [3, 17, 400, 1000]), (4096, list(range(1, 600, 7)))])
def test_circulant_spectrum_fft_matches_direct_sums(n, gens):
    import gctheory.codes.expander as ex

    fast = ex.circulant_spectrum(n, gens)
    old, ex._CIRCULANT_DIRECT_MAX = ex._CIRCULANT_DIRECT_MAX, 10**12
    try:
        direct = ex.circulant_spectrum(n, gens)
    finally:
        ex._CIRCULANT_DIRECT_MAX = old
    assert fast[0] == direct[0]
    assert fast[1:] == pytest.approx(direct[1:], abs=1e-12 * len(gens))


def test_random_regular_graph_from_its_edges_and_sparse_lam():
    from gctheory.codes.expander import _random_regular_edges, graph_spectrum, random_regular_graph
    from gctheory.tradeoff.schemes import _sparse_regular_lam

    n, d = 400, 6
    A = random_regular_graph(n, d, rng=np.random.default_rng(5))
    e = _random_regular_edges(n, d, np.random.default_rng(5))
    B = np.zeros((n, n), dtype=np.int8)
    B[e[:, 0], e[:, 1]] = B[e[:, 1], e[:, 0]] = 1
    assert np.array_equal(A, B)
    lam = graph_spectrum(A)[2]
    assert _sparse_regular_lam(n, d, np.random.default_rng(5)) == pytest.approx(lam, abs=1e-12)


@pytest.mark.parametrize(
    "n, s, d, c", [(30, 9, 2, 0), (30, 9, 2, 2), (200, 60, 3, 4), (500, 300, 2, 30)]
)
def test_zero_column_tail_closed_partial_sums_equal_double_sum(n, s, d, c):
    from gctheory.load_bounds import zero_column_tail_lower_bound

    t = n // (d * d)
    kmax = min(t, s // d)
    tails = _tail_binomials(n, s)
    S = [math.comb(t, k) * tails[k * d] for k in range(kmax + 1)]
    below = 0
    for j in range(min(kmax, c) + 1):
        below += sum((-1) ** (k - j) * math.comb(k, j) * S[k] for k in range(j, kmax + 1))
    ref = 1 - Fraction(below, tails[0]) if c < kmax else Fraction(0)
    assert zero_column_tail_lower_bound(n, s, d, c) == ref


@pytest.mark.parametrize("n", [100, 10**4, 10**5, 10**6, 10**9])
def test_harmonic_difference_o1_series_matches_mpmath(n):
    import mpmath as mp

    from gctheory.order_stats.closed_forms import harmonic_difference

    for k in sorted({65, 1000, n // 2, n - 15}):
        if not 65 <= k <= n - 15:
            continue
        for p in (1, 2):
            with mp.workdps(60):
                lo, hi = mp.mpf(n - k + 1), mp.mpf(n + 1)
                ref = mp.psi(0, hi) - mp.psi(0, lo) if p == 1 else mp.psi(1, lo) - mp.psi(1, hi)
            assert harmonic_difference(n, k, p) == pytest.approx(float(ref), rel=5e-16, abs=0)


@pytest.mark.parametrize(
    "n, k, xi", [(1000, 1, 1.1), (10**5, 3, 1.1), (10**5, 2000, 2.5), (10**7, 50, 0.7)]
)
def test_pareto_product_form_matches_mpmath(n, k, xi):
    import mpmath as mp
    from scipy import stats

    from gctheory.order_stats import order_statistic_moments
    from gctheory.order_stats.closed_forms import _pareto_by_products

    m = n - k + 1
    with mp.workdps(60):
        c = 1 / mp.mpf(xi)
        lg = mp.loggamma(n + 1) - mp.loggamma(m)
        E = mp.exp(lg + mp.loggamma(m - c) - mp.loggamma(n + 1 - c))
        V = mp.exp(lg + mp.loggamma(m - 2 * c) - mp.loggamma(n + 1 - 2 * c)) - E * E
    e1, rel = _pareto_by_products(xi, k, n)
    assert e1 == pytest.approx(float(E), rel=4e-15)
    assert e1 * e1 * rel == pytest.approx(float(V), rel=4e-15)
    r = order_statistic_moments(stats.pareto(xi, scale=2.0), k, n)
    assert r.mean == pytest.approx(2 * float(E), rel=4e-15)
    assert r.variance == pytest.approx(4 * float(V), rel=4e-15)


def test_min_load_lower_bound_starts_where_the_single_column_bound_allows():
    from gctheory.load_bounds import (
        min_load_lower_bound,
        single_column_lower_bound,
        union_lower_bound,
        zero_column_tail_lower_bound,
    )
    from gctheory.load_bounds._common import _check_target

    def scan_from_one(n, s, target, eps):
        t, c = _check_target(target), eps * n
        for d in range(1, n + 1):
            lb = union_lower_bound(n, s, d) if c < 1 else zero_column_tail_lower_bound(n, s, d, c)
            if c < 1:
                lb = max(lb, single_column_lower_bound(n, s, d))
            if lb <= t:
                return d

    for n in (7, 40, 120):
        for s in sorted({0, 1, n // 3, n // 2, n - 2, n - 1}):
            for target, eps in ((1e-3, 0.0), (0.2, 0.0), (1e-2, 0.05)):
                got = min_load_lower_bound(n, s, target, eps).load
                assert got == scan_from_one(n, s, target, eps), (n, s, target, eps)


@pytest.mark.parametrize(
    "name, args, kw",
    [("pareto", (1.1,), {"scale": 0.001}), ("expon", (), {"loc": 0.2, "scale": 1.5}),
     ("lognorm", (0.7,), {"scale": 2.0})],
)  # fmt: skip
def test_scaled_law_copy_equals_a_fresh_freeze(name, args, kw):
    from scipy import stats

    from gctheory.runtime.schemes import _scaled

    dist = getattr(stats, name)(*args, **kw)
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    for load in (0.01, 0.5, 3.0):
        got = _scaled(dist, load)
        ref = dist.dist(*shapes, loc=loc * load, scale=scale * load)
        x = np.linspace(0.0, 5.0, 11)
        assert (got.args, got.kwds, got.support()) == (ref.args, ref.kwds, ref.support())
        assert np.array_equal(got.cdf(x), ref.cdf(x)) and got.mean() == ref.mean()
        assert np.array_equal(got.rvs(5, random_state=3), ref.rvs(5, random_state=3))
