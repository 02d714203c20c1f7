"""Partial stragglers (gctheory.codes.partial): exact values against enumeration and Monte Carlo."""

import itertools

import numpy as np
import pytest
from scipy import stats

from gctheory.codes import (
    BIBDGradientCode,
    CyclicMDSCode,
    FractionalRepetitionCode,
    PartialCyclicScheme,
    PartialPlacement,
    PartialReplicationScheme,
    bibd,
    estimate_partial,
    scipy_sampler,
)

DIST = stats.expon(loc=1, scale=0.7)  # seconds per unit of data


def enumerate_exact(sch, tau, dist=DIST):
    """E[fraction] and P(exact) by summing over every progress vector (small n)."""
    L = sch.lengths
    pmf = []
    for i in range(sch.n):
        ge = [1.0] + [float(dist.cdf(tau * sch.k / a)) for a in range(1, L[i] + 1)] + [0.0]
        pmf.append([ge[a] - ge[a + 1] for a in range(L[i] + 1)])
    ef = pe = 0.0
    for ms in itertools.product(*[range(L[i] + 1) for i in range(sch.n)]):
        pr = float(np.prod([pmf[i][m] for i, m in enumerate(ms)]))
        if pr:
            r = int(sch.recovered(np.array(ms)))
            ef += pr * r / sch.k
            pe += pr * (r == sch.k)
    return ef, pe


SCHEMES = [
    PartialPlacement.cyclic(5, 2),
    PartialPlacement.cyclic(4, 1),
    PartialPlacement.frc(6, 2),
    PartialPlacement.frc(6, 1),
    PartialCyclicScheme(4, 1, 3),
    PartialCyclicScheme(3, 1, 2),  # p = s + 1: the plain cyclic-MDS code
    PartialReplicationScheme(4, 1, 4),
]


@pytest.mark.parametrize("sch", SCHEMES, ids=repr)
@pytest.mark.parametrize("tau", [0.0, 0.4, 1.0, 1.7])
def test_exact_values_equal_enumeration(sch, tau):
    ef, pe = enumerate_exact(sch, tau)
    assert sch.expected_fraction(tau, DIST) == pytest.approx(ef, abs=1e-12)
    assert sch.exact_probability(tau, DIST) == pytest.approx(pe, abs=1e-12)


def test_expected_fraction_any_placement_equals_enumeration():
    # linearity: exact for any placement, e.g. FRC with every worker in the same order, a BIBD
    for p in (PartialPlacement.frc(6, 1, order="same"),
              PartialPlacement.from_code(BIBDGradientCode(bibd(7, 3)))):  # fmt: skip
        for tau in (0.5, 1.2):
            ef, _ = enumerate_exact(p, tau)
            assert p.expected_fraction(tau, DIST) == pytest.approx(ef, abs=1e-12)
    with pytest.raises(ValueError, match="Monte Carlo"):
        PartialPlacement.frc(6, 1, order="same").exact_probability(0.5, DIST)


def test_staggered_frc_and_cyclic_have_the_same_mean_fraction():
    for tau in (0.2, 0.3):
        a = PartialPlacement.frc(12, 2).expected_fraction(tau, DIST)
        b = PartialPlacement.cyclic(12, 2).expected_fraction(tau, DIST)
        c = PartialPlacement.frc(12, 2, order="same").expected_fraction(tau, DIST)
        assert a == pytest.approx(b, rel=1e-14) and c < a


def test_from_code_placements():
    assert PartialPlacement.from_code(FractionalRepetitionCode(6, 2)).kind == "frc"
    assert PartialPlacement.from_code(CyclicMDSCode(5, 2, rng=0)).kind == "cyclic"
    with pytest.raises(ValueError, match="code must be"):
        PartialPlacement.from_code(object())


@pytest.mark.parametrize(("sch", "tau"), [(PartialPlacement.cyclic(6, 2), 0.3),
                                          (PartialCyclicScheme(6, 2, 4), 0.45),
                                          (PartialReplicationScheme(6, 1, 3), 0.33)],
                         ids=repr)  # fmt: skip
def test_monte_carlo_agrees_and_a_wrong_value_is_caught(sch, tau):
    """Statistical check: the exact value lies in the 99.9% interval; negative control:
    the exact value of a different model (times 30% slower) lies outside it."""
    samp = scipy_sampler(DIST, sch.n)
    slower = stats.expon(loc=1.3, scale=0.7 * 1.3)
    for what in ("fraction", "exact", "time"):
        est = estimate_partial(sch, samp, what=what, tau=tau, trials=40_000, rng=1, level=0.999)
        if what == "fraction":
            exact, wrong = sch.expected_fraction(tau, DIST), sch.expected_fraction(tau, slower)
        elif what == "exact":
            exact, wrong = sch.exact_probability(tau, DIST), sch.exact_probability(tau, slower)
        else:
            exact, wrong = sch.expected_time(DIST), sch.expected_time(slower)
        assert est.low <= exact <= est.high, (what, exact, est)
        assert not est.low <= wrong <= est.high, (what, wrong, est)


def test_expected_time_rules_order():
    p = PartialPlacement.cyclic(12, 2)
    t = {r: p.expected_time(DIST, r) for r in ("partial", "whole", "n-s")}
    assert t["partial"] < t["whole"] < t["n-s"]
    q = PartialReplicationScheme(12, 2, 4)
    assert q.expected_time(DIST, "partial") < q.expected_time(DIST, "whole")


def test_recovery_time_hand_example():
    # cyclic n = 3, s = 1 (k = 3): worker i holds i, i+1; a piece takes X_i / 3
    p = PartialPlacement.cyclic(3, 1)
    X = np.array([3.0, 30.0, 6.0])  # piece times 1, 10, 2
    # partition 0: w0 @1 or w2 @2*2=4 -> 1; 1: w1 @10, w0 @2 -> 2; 2: w2 @2, w1 @20 -> 2
    assert p.recovery_time(X) == pytest.approx(2.0)
    # whole workers: w0 done at 2, w2 at 4: {0,1} u {2,0} covers -> 4
    assert p.recovery_time(X, "whole") == pytest.approx(4.0)
    assert p.recovery_time(X, "n-s") == pytest.approx(4.0)  # 2nd fastest whole worker
    assert p.progress(X, 2.0).tolist() == [2, 0, 1]
    assert p.finished(p.progress(X, 1.0)).tolist() == [True, False, False]


def _partials(k, d=3, seed=0):
    return np.random.default_rng(seed).standard_normal((k, d))


@pytest.mark.parametrize("cls,n,s,p", [(PartialCyclicScheme, 5, 2, 4),
                                       (PartialCyclicScheme, 4, 1, 2),
                                       (PartialReplicationScheme, 6, 2, 5),
                                       (PartialReplicationScheme, 4, 1, 3)])  # fmt: skip
def test_two_message_decode_exact_over_straggler_sets(cls, n, s, p):
    sch = cls(n, s, p)
    P = _partials(sch.k)
    first, second = sch.encode(P)
    total = P.sum(axis=0)
    # every worker's pieces: u uncoded + s + 1 coded, each partition covered as designed
    cover = np.zeros(sch.k, int)
    for i in range(n):
        assert len(sch.order(i)) == p
        cover[sch.order(i)] += 1
    assert (cover[: n * sch.u] == 1).all() and (cover[n * sch.u :] == s + 1).all()
    for size in range(n + 1):
        for S in itertools.combinations(range(n), size):
            alive = [i for i in range(n) if i not in S]
            r = sch.decode(range(n), alive, first, second)  # S: partial stragglers
            should = size <= s if cls is PartialCyclicScheme else all(
                any(i // (s + 1) == g for i in alive) for g in range(n // (s + 1)))  # fmt: skip
            assert r.exact == should
            if r.exact:
                np.testing.assert_allclose(r.gradient, total, atol=1e-9)
            else:  # what is recovered is exactly the sum of the partitions listed
                np.testing.assert_allclose(r.gradient, P[list(r.partitions)].sum(axis=0),
                                           atol=1e-9)  # fmt: skip
    # a missing first message is never exact (unless it is empty: u = 0), but still sums
    # what it lists
    r = sch.decode(range(1, n), range(n), first, second)
    assert r.exact == (sch.u == 0) and r.fraction == 1 - sch.u / sch.k
    np.testing.assert_allclose(r.gradient, P[list(r.partitions)].sum(axis=0), atol=1e-9)


def test_placement_decode_sums_finished_partitions():
    p = PartialPlacement.frc(6, 2)
    P = _partials(6)
    for m in itertools.product(range(4), repeat=3):
        prog = np.array([*m, 0, 0, 0])
        r = p.decode(prog, P)
        fin = np.flatnonzero(p.finished(prog))
        assert r.partitions == tuple(fin) and r.exact == (fin.size == 6)
        np.testing.assert_allclose(r.gradient, P[fin].sum(axis=0) if fin.size else 0)


def test_slowdown_tolerance_of_the_partial_schemes():
    # n - s workers at normal speed finish their p pieces at p / k; s workers up to p/u slower
    # still send their uncoded sum by then: exact recovery at p / k. Slightly slower: later.
    for sch in (PartialCyclicScheme(6, 2, 5), PartialReplicationScheme(6, 2, 5)):
        normal = sch.p / sch.k
        f = sch.slowdown_tolerated
        assert f == pytest.approx(5 / 2)
        for S in itertools.combinations(range(6), 2):
            X = np.ones(6)
            X[list(S)] = f
            assert sch.recovery_time(X) == pytest.approx(normal)
            X[list(S)] = f * 1.01
            assert sch.recovery_time(X) > normal * 1.005  # negative control


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: PartialPlacement.cyclic(4, 1).expected_fraction(-1.0, DIST), "tau .*\\[0, inf"),
        (lambda: PartialCyclicScheme(4, 1, 3).expected_fraction(-0.1, DIST), "deadline"),
        (lambda: PartialCyclicScheme(4, 2, 2), "p \\(pieces per worker\\) must lie in \\[3"),
        (lambda: PartialReplicationScheme(5, 1, 3), "s \\+ 1 must divide n"),
        (lambda: PartialPlacement.frc(5, 1), "s \\+ 1 must divide n"),
        (
            lambda: PartialPlacement.cyclic(4, 1).expected_fraction(1.0, stats.norm()),
            "non-negative times",
        ),
        (lambda: PartialPlacement.cyclic(4, 1).expected_fraction(1.0, 3.0), "dist must be"),
        (lambda: PartialPlacement.cyclic(4, 1).finished([0, 0, 3, 0]), "0 <= m_i <= L_i"),
        (lambda: PartialPlacement.cyclic(4, 1).recovery_time(np.ones(4), "fast"), "rule"),
        (lambda: PartialPlacement([[0, 0]], 1), "repeats a partition"),
        (lambda: PartialPlacement([[0], [0]], 2), "partition 1 is not"),
        # more partitions than entries: refused by k before the (k,) arrays (was MemoryError)
        (lambda: PartialPlacement([[0]], 2), "^k must be at most the 1 entries of orders"),
        (lambda: PartialPlacement([[0, 1], [1, 0]], 10**18), "^k must be at most the 4"),
        # s is checked where given (NaN and True were kept as they came)
        (lambda: PartialPlacement([[0, 1], [1, 0]], 2, s=float("nan")), "^s must be an integer"),
        (lambda: PartialPlacement([[0, 1], [1, 0]], 2, s=True), "^s must be an integer"),
        (lambda: PartialPlacement([[0, 1], [1, 0]], 2, s=2), "^s must lie in \\[0, 1\\]"),
        (lambda: PartialPlacement.from_support(np.ones((2, 2)), s=-1), "^s must lie in"),
        # n = 10**18 workers: refused at once by the memory its arrays need (was MemoryError)
        (lambda: PartialCyclicScheme(10**18, 1, 3), "^n: the .* coding matrix .* use a smaller n"),
        (lambda: PartialCyclicScheme(10**6, 1, 3), "^n: the 1000000 x 1000000 coding matrix"),
        (lambda: PartialReplicationScheme(10**18, 1, 3), "^n: an array .* use a smaller n"),
        (lambda: PartialPlacement.cyclic(10**18, 1), "^n: the orders of .* use a smaller n"),
        (lambda: PartialPlacement.frc(10**18, 1), "^n: the orders of .* use a smaller n"),
        (  # an 'frc' placement built by hand without s: was TypeError on s + 1
            lambda: PartialPlacement([[0, 1], [1, 0]], 2, kind="frc").exact_probability(1.0, DIST),
            "needs its s",
        ),
        (
            lambda: estimate_partial(
                PartialPlacement.cyclic(4, 1), scipy_sampler(DIST, 4), what="fraction"
            ),
            "tau",
        ),
    ],
)
def test_bad_input(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_placement_checks_name_the_first_worker_that_breaks_a_rule():
    # the checks run on whole arrays; the error still names the first offending worker
    with pytest.raises(ValueError, match=r"orders\[1\] repeats a partition"):
        PartialPlacement([[0, 1], [2, 2], [3, 9]], 4)
    with pytest.raises(ValueError, match=r"orders\[1\] must hold partitions in \[0, k\)"):
        PartialPlacement([[0, 1], [2, 9], [3, 3]], 4)
    with pytest.raises(ValueError, match=r"orders\[0\] must hold partitions in \[0, k\)"):
        PartialPlacement([[-1, -1], [2, 1], [3, 0]], 4)


def test_cyclic_and_frc_placements_at_a_million_workers_take_seconds():
    # n = 10**6 answers in seconds (CPU time, not the wall clock: about 0.7 s here; the
    # per-worker loops it replaced took over 10 s)
    import time

    t0 = time.process_time()
    for place in (PartialPlacement.cyclic(10**6, 1), PartialPlacement.frc(10**6, 1)):
        assert place.n == place.k == 10**6 and place.load == 2
    assert time.process_time() - t0 < 10
