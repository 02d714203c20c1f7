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
