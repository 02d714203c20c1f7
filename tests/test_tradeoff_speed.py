"""Fast paths of the tradeoff atlas at large n (issue 27) against their slow paths.

Each fast path must give the answer of the code it replaced: the d-FRC's tail and mean
from a partial inclusion-exclusion (against the whole exact law), the configuration
model's incremental repair (against the pass-per-try original, kept here as the
reference), the unchecked circulant spectrum (against the checked public function and
the original sort-based kernel), and the batch raptor code's lazy matrices and batched
peeling (against the per-set decoder). Each has a negative control showing the
comparison can fail.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from gctheory.codes import BatchRaptorCode, circulant_spectrum, estimate_decoding_failure
from gctheory.codes.approximate import _random_survivors
from gctheory.codes.expander import _circulant_spectrum, _configuration_repaired
from gctheory.load_bounds import frc_error_pmf
from gctheory.load_bounds.frc import _frc_error_counts, _frc_error_tail

# ----------------------------------------------------------------- d-FRC tail


def _tail_from_law(n, s, d, threshold, rounding="ceil"):
    nums, den = _frc_error_counts(n, s, d, rounding)
    above = sum(q for e, q in nums.items() if e > threshold)
    return above, sum(e * q for e, q in nums.items()), den


@pytest.mark.parametrize("n", [2, 3, 7, 12, 17, 30])
def test_frc_error_tail_equals_the_whole_law_exhaustively(n):
    # every s, d, rounding and a spread of thresholds (floats as tradeoff makes them)
    for s, d, rounding in itertools.product(range(n), range(1, n + 1), ("ceil", "floor")):
        for thr in (0.0, 0.5, 1.0, 0.05 * n, 0.2 * n, n / 3, n - 1.0):
            assert _frc_error_tail(n, s, d, thr, rounding) == _tail_from_law(
                n, s, d, thr, rounding
            ), (n, s, d, rounding, thr)


@pytest.mark.parametrize(
    "n, s, d", [(1000, 357, 3), (1000, 714, 9), (1000, 928, 28), (997, 500, 6), (1000, 999, 1000)]
)
def test_frc_error_tail_equals_the_whole_law_at_larger_n(n, s, d):
    assert _frc_error_tail(n, s, d, 0.05 * n) == _tail_from_law(n, s, d, 0.05 * n)


def test_frc_error_tail_negative_control():
    # the comparison sees a wrong threshold (one partition off) and a wrong load
    n, s, d = 60, 30, 4
    ref = _tail_from_law(n, s, d, 3.0)
    assert _frc_error_tail(n, s, d, 4.0) != ref
    assert _frc_error_tail(n, s, d + 1, 3.0) != ref


@pytest.mark.parametrize("n", [30, 61])
def test_dfrc_load_of_the_atlas_equals_a_scan_with_the_public_law(n):
    # slow path: the smallest d whose exact law (frc_error_pmf) meets the target
    from gctheory.tradeoff import tradeoff

    eps, error = 1e-3, 0.05
    table = tradeoff(n, eps=eps, error=error, schemes=["d-frc"], s_values=range(n), rng=0)
    rows = {r["s"]: r for r in table.rows if r["scheme"] == "d-frc"}
    target = Fraction(repr(eps))
    for s in range(n):
        for d in range(1, n + 1):
            law = frc_error_pmf(n, s, d)
            p = sum(q for e, q in law.items() if e > error * n)
            if p <= target:
                break
        assert rows[s]["load"] == d and rows[s]["failure"] == float(p), s
        mean = sum(e * q for e, q in law.items())
        assert f"E[err]/k = {float(mean) / n:.3g}" in rows[s]["note"]


# ------------------------------------------------------- configuration model


def _configuration_repaired_reference(n, d, gen):
    """The original repair: recomputes every edge's defect status on each try."""
    stubs = gen.permutation(np.repeat(np.arange(n), d))
    edges = stubs.reshape(-1, 2)
    for _ in range(100 * n * d):
        key = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
        dup = np.ones(len(edges), dtype=bool)
        dup[first[counts == 1]] = False
        bad = np.flatnonzero((edges[:, 0] == edges[:, 1]) | dup)
        if bad.size == 0:
            return edges
        i = int(bad[gen.integers(bad.size)])
        j = int(gen.integers(len(edges)))
        (u, v), (x, y) = edges[i], edges[j]
        if gen.random() < 0.5:
            x, y = y, x
        k1, k2 = min(u, x) * n + max(u, x), min(v, y) * n + max(v, y)
        if u == x or v == y or k1 == k2:
            continue
        existing = set(key.tolist())
        if k1 in existing or k2 in existing:
            continue
        edges[i], edges[j] = (u, x), (v, y)
    return None


@pytest.mark.parametrize(
    "n, d", [(4, 3), (6, 3), (10, 4), (12, 5), (20, 9), (30, 14), (100, 3), (400, 16)]
)
def test_configuration_repair_equals_the_pass_per_try_original(n, d):
    for seed in range(8):
        fast = _configuration_repaired(n, d, np.random.default_rng(seed))
        slow = _configuration_repaired_reference(n, d, np.random.default_rng(seed))
        assert (fast is None) == (slow is None)
        if fast is not None:
            assert np.array_equal(fast, slow), (n, d, seed)


def test_configuration_repair_negative_control():
    fast = _configuration_repaired(100, 6, np.random.default_rng(0))
    other = _configuration_repaired_reference(100, 6, np.random.default_rng(1))
    assert not np.array_equal(fast, other)


# ------------------------------------------------------------ circulant spectrum


def _circulant_spectrum_reference(n, gens, direct_max):
    """The original kernel: the connection set as a Python set, a full sort."""
    conn = {g % n for g in gens} | {(-g) % n for g in gens}
    if n * len(conn) <= direct_max:
        j = np.arange(n)
        ev = np.zeros(n)
        for g in conn:
            ev += np.cos(2 * np.pi * j * g / n)
    else:
        ind = np.zeros(n)
        ind[sorted(conn)] = 1.0
        ev = np.fft.rfft(ind).real
        ev = np.concatenate([ev, ev[1 : n - ev.size + 1][::-1]])
    ev.sort()
    return len(conn), float(ev[-2]), float(max(abs(ev[-2]), abs(ev[0])))


@pytest.mark.parametrize("n", [9, 10, 200, 2001, 10000])
def test_circulant_kernel_is_bit_for_bit_the_checked_original(n):
    import gctheory.codes.expander as ex

    rng = np.random.default_rng(n)
    for d in sorted({2, 4, 6, 2 * (n // 8), 2 * (n // 2) - 2, 2 * ((n - 1) // 2)} - {0}):
        if n == 10000 and 20 < d < 9000:
            continue  # the direct path at n = 10**4 is slow; covered at n = 2001
        gens = np.sort(rng.choice(np.arange(1, (n + 1) // 2), d // 2, replace=False)).tolist()
        ref = _circulant_spectrum_reference(n, gens, ex._CIRCULANT_DIRECT_MAX)
        assert _circulant_spectrum(n, gens) == ref, (n, d)
        assert circulant_spectrum(n, gens) == ref
    if n % 2 == 0:  # n/2 is its own inverse: one fewer neighbour
        gens = [1, n // 2]
        ref = _circulant_spectrum_reference(n, gens, ex._CIRCULANT_DIRECT_MAX)
        assert _circulant_spectrum(n, gens) == ref and ref[0] == 3


def test_circulant_kernel_negative_control():
    assert _circulant_spectrum(200, [1, 5, 9]) != _circulant_spectrum(200, [1, 5, 10])


# --------------------------------------------------------------- batch raptor


def _codes():
    yield BatchRaptorCode.theorem6(60, 5, 0.05, rng=np.random.default_rng(1))
    yield BatchRaptorCode.theorem6(300, 60, 0.05, rng=np.random.default_rng(2))
    yield BatchRaptorCode.theorem6(1000, 400, 0.1, rng=np.random.default_rng(3))
    # uneven batches and a hand-made integer H (validated as numbers, not booleans)
    H = (np.random.default_rng(4).random((40, 7)) < 0.3).astype(int)
    H[H.sum(axis=1) == 0, 0] = 1
    yield BatchRaptorCode([[0, 1], [2], [3, 4, 5], [6], [7, 8], [9], [10, 11, 12]], H)


def test_batch_raptor_load_and_lazy_matrices():
    for code in _codes():
        batch_of = np.empty(code.k, dtype=np.intp)
        for b, bt in enumerate(code.batches):
            batch_of[bt] = b
        A = code.H[:, batch_of].astype(np.int8)  # the matrix __init__ used to build
        assert np.array_equal(code.A, A) and code.A.dtype == np.int8
        assert np.array_equal(code.support, A.astype(bool))
        assert code.load == int(A.astype(bool).sum(axis=1).max())


def test_batch_raptor_rejects_non_binary_H_as_before():
    with pytest.raises(ValueError, match="0/1"):
        BatchRaptorCode([[0], [1]], [[1, 2], [0, 1]])
    with pytest.raises(ValueError, match="n x K"):
        BatchRaptorCode([[0], [1]], np.ones((3, 3), dtype=bool))


@pytest.mark.parametrize("s_frac", [0.0, 0.2, 0.6, 0.9])
def test_batched_peeling_equals_the_per_set_decoder(s_frac):
    for code in _codes():
        s = int(s_frac * (code.n - 1))
        T = _random_survivors(np.random.default_rng(9), 70, code.n, s)  # > 64: two words
        per_set = np.array([code.decoder_error(t) for t in T])
        assert np.array_equal(code._decoder_errors(T), per_set)
        # negative control: another draw of survivor sets gives other errors somewhere
        if s_frac >= 0.6:
            other = _random_survivors(np.random.default_rng(10), 70, code.n, s)
            assert not np.array_equal(code._decoder_errors(other), per_set)


def test_batched_peeling_numba_and_numpy_sizes_agree():
    code = BatchRaptorCode.theorem6(300, 90, 0.05, rng=np.random.default_rng(6))
    T = _random_survivors(np.random.default_rng(7), 600, 300, 90)  # > 512: the "auto" backend
    big = code._decoder_errors(T)
    small = np.concatenate([code._decoder_errors(T[:300]), code._decoder_errors(T[300:])])
    assert np.array_equal(big, small)
    assert np.array_equal(big[:50], [code.decoder_error(t) for t in T[:50]])


def test_estimate_decoding_failure_same_with_or_without_the_batched_path(monkeypatch):
    code = BatchRaptorCode.theorem6(300, 90, 0.05, rng=np.random.default_rng(5))
    fast = estimate_decoding_failure(code, 90, 500, threshold=6, rng=11)
    monkeypatch.setattr(BatchRaptorCode, "_decoder_errors", lambda self, T: None)
    slow = estimate_decoding_failure(code, 90, 500, threshold=6, rng=11)
    assert fast == slow and 0 < fast.value < 1
    lstsq = BatchRaptorCode(code.batches, code.H, decoder="lstsq")
    assert lstsq._decoder_errors(np.zeros((1, 300), dtype=int)) is None


# ------------------------------------------------------- the sweep's time optima

_LAWS = [
    ("pareto", 1.1, 0.0, 0.001),  # Halbawi et al.'s tail: infinite means near s = 0
    ("pareto", 3.0, 0.5, 0.2),
    ("pareto", 0.7, 0.0, 1.0),
    ("expon", None, 1.0, 1.0),
    ("expon", None, 0.05, 0.02),  # Xu et al.'s shifted exponential
]


def _law(name, shape, loc, scale):
    from scipy import stats

    if name == "pareto":
        return stats.pareto(shape, loc=loc, scale=scale)
    return stats.expon(loc=loc, scale=scale)


# n = 2000 costs about 5 s of CPU: slow; n = 301 takes the same screened path
@pytest.mark.parametrize("n", [2, 3, 12, 60, 301, pytest.param(2000, marks=pytest.mark.slow)])
def test_screened_time_optimum_is_the_scans(n):
    from gctheory.runtime import optimal_straggler_tolerance
    from gctheory.runtime.schemes import _optimum_screened

    for law in _LAWS:
        dist = _law(*law)
        for scheme, m in (("cyclic-mds", 1), ("ye-abbe", 2), ("ye-abbe", 3), ("ignore-s", 1)):
            if scheme == "ye-abbe" and m > n or n == 2000 and scheme != "cyclic-mds":
                continue
            for tau in (0.0, 0.3):
                got = _optimum_screened(scheme, dist, n, m, tau=tau)
                ref = optimal_straggler_tolerance(scheme, dist, n, m, tau=tau)
                if got is None:  # declined: only where every time is infinite
                    assert all(t == float("inf") for t in ref[1].values())
                else:
                    assert got == ref[0], (n, law, scheme, m, tau)


def test_screened_time_optimum_declines_what_it_does_not_cover():
    from scipy import stats

    from gctheory.runtime.schemes import _optimum_screened

    assert _optimum_screened("frc", stats.expon(), 12) is None  # grouped layout
    assert _optimum_screened("cyclic-mds", stats.gamma(2.0), 12) is None  # no closed form
    # negative control: the optimum moves with the law (the check can see a wrong one)
    a = _optimum_screened("cyclic-mds", _law(*_LAWS[0]), 300)
    b = _optimum_screened("cyclic-mds", _law(*_LAWS[4]), 300)
    assert a != b


# ------------------------------------------------------------- expander screens


@pytest.mark.parametrize("n, d", [(1200, 3), (1500, 4), (2000, 8), (3000, 16)])
def test_rayleigh_lower_bound_of_lam_is_below_the_exact_one(n, d):
    from gctheory.tradeoff.schemes.expander import (
        _lam_of_regular,
        _regular_lam_lower,
        _sparse_regular_adjacency,
    )

    A = _sparse_regular_adjacency(n, d, np.random.default_rng(n + d))
    exact, low = _lam_of_regular(A, d), _regular_lam_lower(A, d)
    assert low <= exact + 1e-12 * d
    assert low > 0.9 * exact  # negative control: a screen that never rejects would show here


@pytest.mark.parametrize("n", [1200, pytest.param(2500, marks=pytest.mark.slow)])  # 2500: 7 s
def test_expander_rows_same_with_and_without_the_screens(n, monkeypatch):
    from gctheory.tradeoff import tradeoff
    from gctheory.tradeoff.schemes import expander as ex

    # at n = 1200 the s past 3n/4 cost most of the unscreened run (3 s of CPU at s = 1000,
    # 1100) and reach no screen the smaller s do not; n = 2500 takes every s
    top = n if n >= 2500 else 3 * n // 4
    kw = dict(schemes=["expander"], s_values=range(0, top, n // 12), rng=3)
    screen, fired = ex._fails_surely, []

    def counted(ctx, s, d):
        out = screen(ctx, s, d)
        fired.append((d <= ex._RRG_MAX_D, out))
        return out

    monkeypatch.setattr(ex, "_fails_surely", counted)
    fast = tradeoff(n, **kw)
    assert (False, True) in fired  # a circulant degree was rejected by the screen
    assert (True, True) in fired or n < 2500  # and a random regular one (at n = 2500)
    monkeypatch.setattr(ex, "_fails_surely", lambda ctx, s, d: False)
    slow = tradeoff(n, **kw)
    assert fast.rows == slow.rows and fast.notes == slow.notes
    assert any(r["scheme"] == "expander" for r in fast.rows)


def test_circulant_screen_leaves_graphs_past_the_direct_path_to_the_fft():
    # the n = 2500 case above reaches this branch too (slow): here it is reached directly. Past
    # the direct path's size the screen decides nothing and computes nothing (a context with
    # no memo would raise if it tried), so the exact lam comes from the FFT
    from types import SimpleNamespace

    from gctheory.codes.expander import _CIRCULANT_DIRECT_MAX
    from gctheory.tradeoff.schemes import expander as ex

    d = ex._RRG_MAX_D + 1  # a circulant degree
    big = SimpleNamespace(n=_CIRCULANT_DIRECT_MAX // d + 1, cache={})
    assert ex._fails_surely(big, 0, d) is False and big.cache == {}
    small = SimpleNamespace(n=_CIRCULANT_DIRECT_MAX // d - 1, cache={})
    with pytest.raises(AttributeError, match="memo"):  # the direct path computes
        ex._fails_surely(small, 0, d)
