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
