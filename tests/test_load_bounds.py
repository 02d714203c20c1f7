"""Tests of gctheory.load_bounds: exact probabilities against brute force and Monte Carlo,
monotonicity and ordering identities, closed forms against their sympy derivations, bad input."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gctheory import load_bounds as lb
from gctheory.codes import approximate as ap

# ---------------------------------------------------------------------------
# independent references (brute force, built from the definitions, not from the module)


def frc_matrix(n: int, d: int, rounding: str = "ceil") -> np.ndarray:
    """The d-FRC coding matrix built from Definition 4 / Remark 1 (rows workers, cols data)."""
    q = -(-n // d) if rounding == "ceil" else n // d
    worker_group = np.repeat(np.arange(q), [n // q + (g < n % q) for g in range(q)])
    data_block = np.repeat(np.arange(q), [n // q + (g < n % q) for g in range(q)])
    return (worker_group[:, None] == data_block[None, :]).astype(float)


def frc_definition4(n: int, d: int) -> np.ndarray:
    """Definition 4 literally: d stacked copies of A_b (n/d x n, block rows of d ones)."""
    Ab = np.kron(np.eye(n // d), np.ones((1, d)))
    return np.vstack([Ab] * d)


def err(A_S: np.ndarray) -> float:
    """err(A_S) = min_u ||A_S^T u - 1||^2, eq. (5), by least squares."""
    ones = np.ones(A_S.shape[1])
    if A_S.shape[0] == 0:
        return float(A_S.shape[1])
    u, *_ = np.linalg.lstsq(A_S.T, ones, rcond=None)
    return float(np.sum((A_S.T @ u - ones) ** 2))


def brute_failure(A: np.ndarray, s: int, threshold: float = 0.0) -> Fraction:
    """P(err(A_S) > threshold) over all C(n, s) straggler sets (rows removed)."""
    n = A.shape[0]
    bad = total = 0
    for strag in itertools.combinations(range(n), s):
        keep = np.setdiff1d(np.arange(n), strag)
        bad += err(A[keep]) > threshold + 1e-9
        total += 1
    return Fraction(bad, total)


def brute_groups(n: int, s: int, sizes: list[int]) -> Fraction:
    """P(some group fully straggles) by enumeration; groups are consecutive workers."""
    starts = np.cumsum([0] + sizes[:-1])
    hit = 0
    combos = list(itertools.combinations(range(n), s))
    for strag in combos:
        st_ = set(strag)
        hit += any(all(w in st_ for w in range(a, a + k)) for a, k in zip(starts, sizes))
    return Fraction(hit, len(combos))


def random_regular_support(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """A random matrix in U_n^d: a circulant with d random distinct offsets, rows and
    columns randomly permuted, random non-zero values."""
    offsets = rng.choice(n, size=d, replace=False)
    A = np.zeros((n, n))
    for i in range(n):
        A[i, (i + offsets) % n] = rng.uniform(0.5, 2.0, size=d)
    return A[rng.permutation(n)][:, rng.permutation(n)]


def cyclic_support(n: int, d: int) -> np.ndarray:
    """Tandon et al.'s cyclic support: worker i holds partitions i, ..., i+d-1 (mod n)."""
    A = np.zeros((n, n))
    for i in range(n):
        A[i, [(i + j) % n for j in range(d)]] = 1.0
    return A


# ---------------------------------------------------------------------------
# exact FRC failure probability


@pytest.mark.parametrize("n", [4, 6, 7, 8])
@pytest.mark.parametrize("rounding", ["ceil", "floor"])
def test_frc_exact_equals_brute_force_over_all_straggler_sets(n, rounding):
    for d in range(1, n + 1):
        A = frc_matrix(n, d, rounding)
        for s in range(n):
            # brute force: every straggler set, err by least squares (Definition 1)
            assert lb.frc_failure_probability(n, s, d, rounding) == brute_failure(A, s)


def test_frc_definition4_matrix_equals_exact_when_d_divides_n():
    for n, d in [(6, 2), (6, 3), (8, 4), (9, 3)]:
        A = frc_definition4(n, d)
        assert (A != 0).sum(axis=1).max() == d  # load d
        for s in range(n):
            assert lb.frc_failure_probability(n, s, d) == brute_failure(A, s)


def test_frc_closed_form_single_group_size():
    # d | n: (38) = sum_k (-1)^{k+1} C(n/d, k) C(n-kd, s-kd) / C(n, s)  (Appendix D, written out)
    n, s, d = 60, 17, 3
    direct = sum(
        Fraction((-1) ** (k + 1) * math.comb(n // d, k) * math.comb(n - k * d, s - k * d))
        for k in range(1, s // d + 1)
    ) / math.comb(n, s)
    assert lb.frc_failure_probability(n, s, d) == direct


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    extra=st.integers(0, 3),
    data=st.data(),
)
def test_group_failure_probability_matches_enumeration(sizes, extra, data):
    n = max(2, sum(sizes) + extra)
    s = data.draw(st.integers(0, n - 1))
    assert lb.group_failure_probability(n, s, sizes) == brute_groups(n, s, sizes)


def test_frc_group_sizes():
    assert lb.frc_group_sizes(12, 3) == (3, 3, 3, 3)
    assert lb.frc_group_sizes(10, 3) == (3, 3, 2, 2)  # ceil: 4 groups, load <= 3
    assert lb.frc_group_sizes(10, 3, "floor") == (4, 3, 3)  # floor: 3 groups, >= 3 replicas
    for n in range(2, 40):
        for d in range(1, n + 1):
            g = lb.frc_group_sizes(n, d)
            assert sum(g) == n and max(g) - min(g) <= 1
            assert max(g) <= d  # every worker holds at most d partitions
            assert -(-n // len(g)) <= d


def test_frc_exact_agrees_with_monte_carlo_and_negative_control():
    n, s, d = 30, 9, 2
    exact = float(lb.frc_failure_probability(n, s, d))
    est = lb.frc_failure_mc(n, s, d, 40_000, rng=20190, level=0.99)
    assert est.contains(exact)
    # negative control: the independence approximation 1 - (1 - delta^d)^(n/d) of eq. (39)(f)
    wrong = 1 - (1 - (s / n) ** d) ** (n / d)
    assert abs(wrong - exact) > 0.03
    assert not est.contains(wrong)
    # d not dividing n (Remark 1), both readings
    for rounding in ("ceil", "floor"):
        ex = float(lb.frc_failure_probability(31, 9, 3, rounding))
        assert lb.frc_failure_mc(31, 9, 3, 20_000, rng=7, rounding=rounding).contains(ex)


def test_frc_mc_is_reproducible_across_executors():
    a = lb.frc_failure_mc(40, 12, 3, 5_000, rng=3)
    b = lb.frc_failure_mc(40, 12, 3, 5_000, rng=3, executor=2)
    assert a.successes == b.successes


def test_frc_min_load_is_smallest():
    for n, s, target in [(100, 10, 0.01), (60, 20, 0.05), (1000, 100, 0.01)]:
        d = lb.frc_min_load(n, s, target)
        assert lb.frc_failure_probability(n, s, d) <= Fraction(repr(target))
        assert all(
            lb.frc_failure_probability(n, s, e) > Fraction(repr(target)) for e in range(1, d)
        )


# ---------------------------------------------------------------------------
# finite-n lower bounds and Lemma 2


def test_single_column_bound_closed_form():
    # C(n-d, s-d)/C(n, s) = prod_{i<d} (s-i)/(n-i)  (falling factorials)
    n, s = 50, 12
    for d in range(1, 15):
        prod = math.prod(Fraction(s - i, n - i) for i in range(d))
        assert lb.single_column_lower_bound(n, s, d) == (prod if d <= s else 0)


@pytest.mark.parametrize("seed", range(4))
def test_lower_bounds_hold_for_random_codes_exhaustively(seed):
    # every straggler set enumerated; err by least squares; random supports of load <= d
    rng = np.random.default_rng(seed)
    n, d = 7, 2
    A = np.zeros((n, n))
    for i in range(n):
        A[i, rng.choice(n, size=d, replace=False)] = rng.normal(size=d)
    for s in range(1, n):
        exact = brute_failure(A, s)
        assert lb.single_column_lower_bound(n, s, d) <= exact
        assert lb.matrix_union_lower_bound(A, s) <= exact


def test_matrix_union_bound_is_exact_for_frc():
    for n, d in [(12, 3), (10, 3), (20, 4)]:
        A = frc_matrix(n, d)
        for s in (2, 5, 8):
            assert lb.matrix_union_lower_bound(A, s) == lb.frc_failure_probability(n, s, d)


def _check_disjoint(A, cols):
    supp = A[:, cols] != 0
    assert (supp.sum(axis=1) <= 1).all()  # no row touches two chosen columns


@pytest.mark.parametrize("n,d", [(20, 2), (30, 3), (50, 4), (64, 5), (100, 3)])
def test_lemma2_constructive_random_and_structured(n, d):
    rng = np.random.default_rng(n * d)
    mats = [random_regular_support(n, d, rng) for _ in range(3)]
    mats.append(cyclic_support(n, d))
    if n % d == 0:
        mats.append(frc_definition4(n, d))
    for A in mats:
        assert ((A != 0).sum(axis=0) == d).all() and ((A != 0).sum(axis=1) == d).all()
        cols = lb.disjoint_support_columns(A)
        _check_disjoint(A, cols)
        assert len(cols) >= n // d**2  # Lemma 2
        assert len(cols) >= -(-n // (d * d - d + 1))  # the greedy's own guarantee
    # for the cyclic code the optimum is floor(n/d) (consecutive windows); greedy finds it
    assert len(lb.disjoint_support_columns(cyclic_support(n, d))) == n // d


def test_union_bound_equals_its_sum_and_is_below_frc():
    n, s = 100, 20
    for d in range(1, 8):
        t = n // d**2
        direct = sum(
            Fraction((-1) ** (k + 1) * math.comb(t, k) * math.comb(n - k * d, s - k * d))
            for k in range(1, min(t, s // d) + 1)
        ) / math.comb(n, s)  # eq. (24), middle line, written out
        assert lb.union_lower_bound(n, s, d) == direct
        assert lb.zero_column_tail_lower_bound(n, s, d, 0) == direct
        if n % d == 0:
            assert direct <= lb.frc_failure_probability(n, s, d)


def test_zero_column_pmf_against_enumeration():
    n, s, sizes = 10, 5, [2, 2, 3]
    pmf = lb.zero_column_count_pmf(n, s, sizes)
    counts = [0] * (len(sizes) + 1)
    starts = [0, 2, 4]
    combos = list(itertools.combinations(range(n), s))
    for strag in combos:
        st_ = set(strag)
        y = sum(all(w in st_ for w in range(a, a + k)) for a, k in zip(starts, sizes))
        counts[y] += 1
    assert pmf == [Fraction(c, len(combos)) for c in counts]  # brute-force enumeration
    equal = lb.zero_column_count_pmf(30, 9, [2] * 7)
    for c in (0, 1, 2.5):
        tail = sum((p for j, p in enumerate(equal) if j > c), Fraction(0))
        assert lb.zero_column_tail_lower_bound(30, 9, 2, c) == tail


def test_finite_lower_bound_below_frc_achievability():
    # no construction uses fewer partitions than a valid lower bound for its guarantee
    for n in (12, 30, 100, 1000):
        for s in sorted({1, n // 10, n // 3, n // 2, n - 2}):
            for target in (0.1, 0.01):
                bound = lb.min_load_lower_bound(n, s, target)
                assert bound.load <= lb.frc_min_load(n, s, target)
                assert bound.load <= lb.worst_case_load(n, s).load


# ---------------------------------------------------------------------------
# closed forms, orderings and monotonicity


def test_paper_examples_numbers():
    # base-free closed forms evaluated independently with math.log
    n, s = 1000, 100
    L = math.log(n / s)
    thm3 = math.log(n * L**2 / math.log(n) ** 2) / L
    eq52 = math.log(n * L**2 / (24 * math.log(n / 24) ** 2)) / L
    thm5 = math.log(n * L**2 / (24 * math.log(n) ** 2)) / L
    assert lb.exact_recovery_lower_bound(n, s).value == pytest.approx(thm3, rel=1e-12)
    assert lb.approximate_recovery_lower_bound(n, s, 0.01, "proof").value == pytest.approx(
        eq52, rel=1e-12
    )
    with pytest.warns(lb.LoadBoundRegimeWarning):
        b = lb.approximate_recovery_lower_bound(n, s, 0.01)
    assert b.value == pytest.approx(thm5, rel=1e-12)
    # the integer loads are the ceilings of the independent values above (2.046, 1.201, 0.666),
    # not the paper's printed 3 and 2 (which they are compared with in paper_checks)
    assert lb.exact_recovery_lower_bound(n, s).load == math.ceil(thm3) == 3
    assert lb.approximate_recovery_lower_bound(n, s, 0.01, "proof").load == math.ceil(eq52) == 2
    assert b.load == math.ceil(thm5) == 1


def test_theorem5_at_eps0_is_below_theorem3_by_log4():
    # "the above result also holds for eps = 0, which is slightly lower than Theorem 3"
    for n, s in [(100, 5), (1000, 100), (10**6, 10**3)]:
        t3 = lb.exact_recovery_lower_bound(n, s, warn=False).value
        t5 = lb.approximate_recovery_lower_bound(n, s, 0, warn=False).value
        assert t3 - t5 == pytest.approx(math.log(4) / math.log(n / s), rel=1e-9)


def test_proof_form_of_theorem3_adds_one_over_log():
    for n, s in [(100, 10), (1000, 100), (5000, 7)]:
        t = lb.exact_recovery_lower_bound(n, s, warn=False).value
        p = lb.exact_recovery_lower_bound(n, s, "proof", warn=False).value
        assert p - t == pytest.approx(1 / math.log(n / s), rel=1e-9)


def test_sympy_derivation_of_theorem3_closed_form_and_monotone_region():
    n, L, d = sp.symbols("n L d", positive=True)
    # proof of Thm 3: delta^d n / d^2 = 1/e with d^2 replaced by (log n / L)^2 gives eq. (29)
    eq = sp.Eq(sp.exp(-L * d) * n / (sp.log(n) / L) ** 2, sp.exp(-1))
    sol = sp.solve(eq, d)[0]
    d29 = sp.log(n * sp.E * L**2 / sp.log(n) ** 2) / L
    assert sp.simplify(sp.expand_log(sol - d29, force=True)) == 0
    # monotone in s (i.e. decreasing in L = ln(n/s)) iff a + 2 ln L > 2, a = ln n - 2 ln ln n
    a = sp.symbols("a", real=True)
    f = (a + 2 * sp.log(L)) / L
    assert sp.simplify(sp.diff(f, L) - (2 - a - 2 * sp.log(L)) / L**2) == 0
    # numerically: increasing in s below the threshold, and the module warns beyond it
    n_ = 1000
    vals = [lb.exact_recovery_lower_bound(n_, s, warn=False) for s in range(1, 540)]
    assert all(v.in_regime for v in vals)
    assert all(x.value <= y.value for x, y in zip(vals, vals[1:]))
    with pytest.warns(lb.LoadBoundRegimeWarning, match="decreases as s grows"):
        lb.exact_recovery_lower_bound(n_, 900)


def test_bounds_monotone_in_s_and_eps():
    n = 1000
    wc = [lb.worst_case_load(n, s).load for s in range(n)]
    assert wc == list(range(1, n + 1))
    fin = [lb.min_load_lower_bound(n, s, 0.01).load for s in range(0, n, 37)]
    assert fin == sorted(fin)
    frc = [lb.frc_min_load(n, s, 0.01) for s in range(0, n, 37)]
    assert frc == sorted(frc)
    for s in (10, 100, 300):
        for form in ("theorem", "proof"):
            vals = [
                lb.approximate_recovery_lower_bound(n, s, e, form, warn=False).value
                for e in (0, 0.001, 0.005, 0.01, 0.02, 0.1)
            ]
            assert vals == sorted(vals, reverse=True)  # non-increasing in eps
        # eq. (52) is above Theorem 5 as stated (log^2(n/(2c+4)) < log^2 n)
        for e in (0, 0.01, 0.1):
            th = lb.approximate_recovery_lower_bound(n, s, e, warn=False).value
            pr = lb.approximate_recovery_lower_bound(n, s, e, "proof", warn=False).value
            assert pr > th
    fin_eps = [lb.min_load_lower_bound(n, 100, 0.01, e).load for e in (0, 0.001, 0.01, 0.05)]
    assert fin_eps == sorted(fin_eps, reverse=True)


def test_frc_failure_increasing_in_s_decreasing_in_d():
    n = 60
    for d in (2, 3, 4, 5, 6):
        p = [lb.frc_failure_probability(n, s, d) for s in range(n)]
        assert p == sorted(p)
    for s in (10, 30):
        p = [lb.frc_failure_probability(n, s, d) for d in (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)]
        assert p == sorted(p, reverse=True)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 300), data=st.data())
def test_halbawi_equals_ye_abbe_m1(n, data):
    s = data.draw(st.integers(0, n - 1))
    k = data.draw(st.integers(1, 3 * n))
    h = lb.halbawi_load(n, s, k)
    assert h.load == lb.worst_case_load(n, s, 1, k).load
    assert lb.halbawi_max_stragglers(n, k, h.load) >= s
    if h.load > 1:
        assert lb.halbawi_max_stragglers(n, k, h.load - 1) < s


def test_worst_case_ye_abbe_values():
    assert lb.worst_case_load(100, 10).load == 11  # Tandon: s + 1
    assert lb.worst_case_load(12, 2, m=2, k=12).load == 4  # (s + m) k / n
    assert lb.worst_case_load(12, 2, m=2, k=6).value == 2.0


def test_frc_load_closed_form():
    n, s = 1000, 100
    L = math.log(10)
    assert lb.frc_load(n, s).value == pytest.approx(math.log(n * L) / L, rel=1e-12)
    assert lb.frc_load(n, s, "proof").value == pytest.approx(1 + math.log(n) / L, rel=1e-12)
    assert lb.frc_load(n, 0).load == 1


# ---------------------------------------------------------------------------
# Appendix C and Theorem 6 (sympy)


def test_appendix_c_limit_and_constant():
    t, lam = sp.symbols("t lambda", positive=True)
    assert sp.limit((1 - lam / t) ** t, t, sp.oo) == sp.exp(-lam)
    c = 1 - sp.exp(-sp.exp(-1))
    assert sp.N(c, 30) > sp.Rational(307, 1000)
    assert sp.N(c, 30) < sp.Rational(308, 1000)
    # the choice delta^d t = 1/e makes the terms of (28) equal 1/k^k: C(t,k) delta^{kd} <= 1/k^k
    k = sp.symbols("k", positive=True, integer=True)
    assert sp.simplify((sp.E * t * (sp.exp(-1) / t) / k) ** k - k ** (-k)) == 0


def test_theorem6_degree_distribution_identities():
    u, x = sp.symbols("u x", positive=True)
    D = 6
    p = [u / (u + 1)] + [1 / (k * (k - 1) * (u + 1)) for k in range(2, D + 1)] + [1 / (D * (u + 1))]
    assert sp.simplify(sum(p) - 1) == 0
    avg = sum(k * pk for k, pk in enumerate(p, start=1))
    H = sum(sp.Rational(1, j) for j in range(1, D))
    assert sp.simplify(avg - (u + H + sp.Rational(D + 1, D)) / (u + 1)) == 0
    # eq. (55): Omega'(x) = (u - ln(1-x) + x^D - sum_{j>D} x^j/j)/(u+1), as power series
    omega_prime = sum(k * pk * x ** (k - 1) for k, pk in enumerate(p, start=1))
    series_55 = (
        u
        + sum(x**j / j for j in range(1, 3 * D))
        + x**D
        - sum(x**j / j for j in range(D + 1, 3 * D))
    ) / (u + 1)
    assert sp.simplify(sp.expand(omega_prime - series_55)) == 0
    # module: exact rationals for eps = 1/10
    par = lb.brc_parameters(1000, 100, Fraction(1, 10))
    assert sum(par.degree_distribution) == 1
    uu = Fraction(2, 10) * Fraction(8, 10) / Fraction(6, 10) ** 2
    assert par.u == uu and par.D == 10
    harmonic = sum(Fraction(1, j) for j in range(1, 10))  # H_{D-1}
    assert par.average_degree == (uu + harmonic + Fraction(11, 10)) / (uu + 1)
    assert par.b == 2 and par.condition_53  # ceil(1/ln 10) + 1 = 2


def test_theorem6_condition_54_holds():
    for e in (0.01, 0.05, 0.1, 0.2):
        assert lb.brc_condition_54_margin(e) > 0


# ---------------------------------------------------------------------------
# bad input and regimes


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: lb.frc_failure_probability(10, 10, 2), "s must be smaller than n"),
        (lambda: lb.frc_failure_probability(10, -1, 2), "s must be non-negative"),
        (lambda: lb.frc_failure_probability(10, 3, 0), "d must be at least 1"),
        (lambda: lb.frc_failure_probability(10, 3, 11), "d must not exceed n"),
        (lambda: lb.frc_failure_probability(1, 0, 1), "n must be at least 2"),
        (lambda: lb.frc_failure_probability(10.5, 3, 2), "n must be an integer"),
        (lambda: lb.exact_recovery_lower_bound(True, 1), "n must be an integer"),
        (lambda: lb.approximate_recovery_lower_bound(100, 10, -0.1), "eps must lie in"),
        (lambda: lb.approximate_recovery_lower_bound(100, 10, 1.0), "eps must lie in"),
        (lambda: lb.approximate_recovery_lower_bound(100, 10, float("nan")), "eps must be finite"),
        (lambda: lb.approximate_recovery_lower_bound(100, 10, 0.5, "proof"), "eq. \\(52\\) needs"),
        (lambda: lb.approximate_recovery_lower_bound(100, 10, 0.0, "stated"), "form must be"),
        (lambda: lb.worst_case_load(10, 5, m=6), "s \\+ m must not exceed n"),
        (lambda: lb.worst_case_load(10, 5, m=0), "m must be at least 1"),
        (lambda: lb.halbawi_max_stragglers(10, 5, 6), "w must satisfy"),
        (lambda: lb.brc_parameters(100, 10, 0.25), "eps must lie in \\(0, 1/4\\)"),
        (lambda: lb.frc_min_load(100, 10, 0.0), "target must be a probability"),
        (lambda: lb.frc_failure_mc(10, 3, 0, 10), "d must be at least 1"),
        (lambda: lb.group_failure_probability(5, 2, [3, 3]), "disjoint groups must fit"),
        (lambda: lb.frc_group_sizes(10, 3, "round"), "rounding must be"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_regime_warnings():
    with pytest.warns(lb.LoadBoundRegimeWarning, match="1/ln\\^2"):
        lb.approximate_recovery_lower_bound(100, 10, 0.1)  # 0.1 >= 1/ln^2(100) = 0.047
    b = lb.approximate_recovery_lower_bound(100, 10, 0.1, warn=False)
    assert not b.in_regime and b.asymptotic
    # in regime: no warning (filterwarnings=error would fail the test otherwise)
    assert lb.approximate_recovery_lower_bound(1000, 100, 0.01, "proof").in_regime
    assert lb.exact_recovery_lower_bound(1000, 0).load == 1  # s = 0: d* = 1 exactly


def test_frc_load_warns_where_its_proof_remainder_is_not_small():
    with pytest.warns(lb.LoadBoundRegimeWarning, match="remainder"):
        b = lb.frc_load(1000, 995)
    assert not b.in_regime
    # the exact d-FRC at eq. (14)'s load (322) fails most of the time there
    assert lb.frc_failure_probability(1000, 995, b.load) > Fraction(3, 4)  # exact: 0.764


def test_load_curves_columns_and_orderings():
    c = lb.load_curves(100, [1, 5, 10, 30, 60, 95], eps=0.01, target=0.05)
    assert len({len(v) for v in c.values()}) == 1
    for lo, frc in zip(c["finite_n_lb_eps0"], c["frc_exact_min_load"]):
        assert lo <= frc
    for lo_eps, lo0 in zip(c["finite_n_lb_eps"], c["finite_n_lb_eps0"]):
        assert lo_eps <= lo0


def test_integer_valued_closed_forms_are_not_pushed_up_by_rounding():
    for n in (10, 100, 1000, 12345):
        # eq. (13) at s = 1 is ln(n ln^2 n / ln^2 n) / ln n = 1 exactly
        b = lb.exact_recovery_lower_bound(n, 1)
        assert b.value == pytest.approx(1.0, abs=1e-12) and b.load == 1
    # d = 1 + ln(1000)/ln(10) = 4 exactly (proof of Theorem 4)
    assert lb.frc_load(1000, 100, "proof").load == 4


# ---------------------------------------------------------------------------
# the constructions of gctheory.codes.approximate against the bounds


def test_codes_module_frc_agrees_with_exact():
    for n, d in [(12, 3), (30, 5), (100, 4)]:
        for s in (0, 3, 7, 11):
            assert ap.dfrc_failure_probability(n, d, s) == lb.frc_failure_probability(n, s, d)
    code = ap.DFractionalRepetitionCode(30, 3)
    est = ap.estimate_decoding_failure(code, 9, 4000, rng=11, level=0.99)
    assert est.contains(float(lb.frc_failure_probability(30, 9, 3)))
    assert not est.contains(float(lb.frc_failure_probability(30, 9, 2)))  # negative control


@pytest.mark.parametrize(
    "family,eps,params", [("frc", 0.0, None), ("brc", 0.1, [1, 2]), ("bgc", 0.1, [2, 4, 6])]
)
def test_no_construction_beats_a_valid_lower_bound(family, eps, params):
    n, s = 30, 6
    best, tried = lb.achieved_load_mc(
        family, n, s, eps, 0.05, 400, parameters=params, rng=2019, level=0.98
    )
    assert tried
    for row in tried:
        p_hi = row.estimate.high  # one-sided 99% upper limit of P(err > eps n)
        if p_hi < 1:
            assert lb.min_load_lower_bound(n, s, p_hi, eps).load <= row.max_load
        # fully rigorous (no lemma): P(err > 0) >= single-column bound at the code's load;
        # P(err > eps n) <= P(err > 0), so only the eps = 0 estimate can be held to it
        if eps == 0:
            assert p_hi >= lb.single_column_lower_bound(n, s, row.max_load)
    if best is not None:
        assert best.max_load >= lb.min_load_lower_bound(n, s, 0.05, eps).load


# ---------------------------------------------------------------------------
# CLI


def test_cli_load_and_grid(capsys):
    import json

    from gctheory.cli import main

    assert main(["load", "--n", "100", "--s", "10", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    by = {r["bound"]: r for r in rows}
    assert by["worst case (Tandon / Ye-Abbe m=1)"]["load"] == 11  # s + 1
    assert by["exact whp, Thm 3 eq. (13)"]["load"] == 2
    # the column tells the user what the bound's load gives at their n (exact FRC)
    assert by["exact whp, Thm 3 eq. (13)"]["FRC P(fail) at load"] == pytest.approx(
        float(lb.frc_failure_probability(100, 10, 2))
    )
    assert main(["load-grid", "--n", "60", "--delta", "0.1", "0.5", "--format", "csv"]) == 0
    out = [x for x in capsys.readouterr().out.splitlines() if not x.startswith("#")]
    assert len(out) == 3 and out[1].startswith("60,6,7")  # n, s = 0.1 n, worst case s + 1
    assert main(["load", "--n", "10", "--s", "10"]) == 2
    assert "s must be smaller than n" in capsys.readouterr().err


def test_eq14_depends_on_the_log_base():
    # eq. (14) has log(1/delta) inside a log: unlike (13) and (52) it is not base-free
    n, s = 1000, 100
    nat = lb.frc_load(n, s).value
    base10 = math.log10(n * math.log10(n / s)) / math.log10(n / s)
    assert nat == pytest.approx(3.3622, abs=1e-4)  # math.log by hand: ln(1000 ln 10)/ln 10
    assert base10 == pytest.approx(3.0, abs=1e-12)


def _min_union_probability(n: int, d: int, s: int) -> tuple[Fraction, Fraction]:
    """min P(some column of A_S is zero) over all supports with max row weight d, and over U_n^d.

    Exhaustive over supports (bitmasks); straggler sets enumerated."""
    rows = [
        sum(1 << j for j in c) for w in range(1, d + 1) for c in itertools.combinations(range(n), w)
    ]
    strag = [sum(1 << i for i in c) for c in itertools.combinations(range(n), s)]
    best_all = best_u = None
    for supp in itertools.product(rows, repeat=n):
        weights = [bin(r).count("1") for r in supp]
        if max(weights) != d:
            continue
        cols = [sum(1 << i for i in range(n) if supp[i] >> j & 1) for j in range(n)]
        p = Fraction(sum(any(c & ~S == 0 for c in cols) for S in strag), len(strag))
        best_all = p if best_all is None or p < best_all else best_all
        if min(weights) == d and all(bin(c).count("1") == d for c in cols):
            best_u = p if best_u is None or p < best_u else best_u
    return best_all, best_u


@pytest.mark.parametrize("n,d", [(4, 2), (4, 3)])
def test_lemma1_reduction_holds_exhaustively_for_small_n(n, d):
    # Lemma 1: the minimum over A_n^d equals (is at least) the minimum over U_n^d
    for s in range(1, n):
        best_all, best_u = _min_union_probability(n, d, s)
        assert best_all >= best_u


@pytest.mark.parametrize(
    "n,d,rounding", [(6, 2, "ceil"), (7, 3, "ceil"), (7, 3, "floor"), (8, 3, "ceil")]
)
def test_frc_error_pmf_equals_enumeration_of_least_squares_error(n, d, rounding):
    A = frc_matrix(n, d, rounding)
    for s in range(n):
        counts: dict[int, int] = {}
        combos = list(itertools.combinations(range(n), s))
        for strag in combos:
            e = err(A[np.setdiff1d(np.arange(n), strag)])  # eq. (5) by least squares
            counts[round(e)] = counts.get(round(e), 0) + 1
        assert lb.frc_error_pmf(n, s, d, rounding) == {
            k: Fraction(v, len(combos)) for k, v in sorted(counts.items())
        }


def test_frc_error_distribution_monte_carlo_twin():
    n, s, d = 30, 12, 3
    pmf = lb.frc_error_pmf(n, s, d)
    mean = sum(k * p for k, p in pmf.items())
    assert mean == ap.dfrc_expected_error(n, d, s)  # closed form n C(n-d,s-d)/C(n,s)
    code = ap.DFractionalRepetitionCode(n, d)
    est = ap.estimate_mean_error(code, s, 4000, rng=5, level=0.99)
    assert est.contains(float(mean))
    assert not est.contains(float(mean) * 1.1)  # negative control: a 10% wrong target
    tail = float(sum(p for k, p in pmf.items() if k > 3))  # P(err > 3)
    est_tail = ap.estimate_decoding_failure(code, s, 4000, threshold=3, rng=6, level=0.99)
    assert est_tail.contains(tail)
    # negative control: P(err > 2) from the same exact pmf is a wrong target
    assert not est_tail.contains(float(sum(p for k, p in pmf.items() if k > 2)))


def test_cli_load_mc_rows(capsys):
    # issue 6: `load --mc TRIALS` appends Monte Carlo achieved-load rows for the batch raptor
    # code and the Bernoulli gradient code (opt-in: absent by default)
    import json

    from gctheory.cli import main

    argv = ["load", "--n", "40", "--s", "4", "--eps", "0.1", "--target", "0.05", "--format", "json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert not [r for r in rows if r["kind"] == "achieved (MC)"]
    assert main([*argv, "--mc", "200", "--seed", "3"]) == 0
    mc = [r for r in json.loads(capsys.readouterr().out)["rows"] if r["kind"] == "achieved (MC)"]
    assert [r["bound"].split(" ")[0] for r in mc] == ["BRC", "Bernoulli"]
    floor = lb.min_load_lower_bound(40, 4, 0.05, 0.1).load  # a valid finite-n lower bound
    for r in mc:
        if r["load"] is not None:  # accepted: its one-sided 99% upper limit met the target
            assert r["load"] >= floor and "<= target" in r["notes"]
    # same rows as the library call with the same seed (the CLI adds nothing of its own)
    best, _ = lb.achieved_load_mc("bgc", 40, 4, 0.1, 0.05, 200, rng=3 + 1, level=0.98)
    assert mc[1]["load"] == (None if best is None else best.max_load)
    assert main([*argv, "--mc", "0", "--eps", "0.3"]) == 0  # 0 = off
    capsys.readouterr()
    argv = ["load", "--n", "40", "--s", "4", "--eps", "0.3", "--mc", "50", "--format", "md"]
    assert main(argv) == 0  # md keeps each cell on one line (text wraps long cells)
    assert "BRC of Theorem 6 needs 0 < eps < 1/4" in capsys.readouterr().out
    assert main(["load", "--n", "40", "--s", "4", "--mc", "-5"]) == 2  # bad input: named rule
    assert "--mc must be an integer >= 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# issue 12: scale (answer in seconds or refuse), exact vs float paths, JSON numbers


@pytest.mark.parametrize(
    "n,s,d",
    [(1000, 100, 3), (1000, 999, 7), (2000, 1000, 40), (5000, 2500, 200), (3000, 1500, 2)],
)
def test_frc_failure_float_path_matches_the_exact_fraction(n, s, d):
    # the saddle-point float (used where the exact sum would take too long) against the
    # exact inclusion-exclusion Fraction: relative error about 1e-13 sqrt(n), also for
    # probabilities near 1e-61 where 1 - P(no failure) would have lost everything
    from collections import Counter

    counts = lb._frc_counts(n, d, "ceil")
    exact = lb._group_failure(n, s, counts)
    assert isinstance(exact, Fraction)
    got = lb._group_failure_float(n, s, Counter({a: x for a, x in counts.items() if a <= s}))
    assert got == pytest.approx(float(exact), rel=1e-11)


def test_zero_column_tail_float_path_matches_the_exact_fraction():
    for n, s, d, c in [(1000, 100, 2, 3), (1000, 100, 2, 20), (3000, 1000, 2, 100)]:
        t = n // (d * d)
        exact = lb.zero_column_tail_lower_bound(n, s, d, c)
        got = lb._zero_column_tail_float(n, s, d, t, c, min(t, s // d))
        assert got == pytest.approx(float(exact), rel=1e-10, abs=1e-14)


def test_frc_failure_at_a_million_workers_answers_in_seconds():
    import time

    t = time.process_time()  # CPU time: a loaded machine does not move it
    # was over 60 s (exact integer inclusion-exclusion with a degree-1e5 polynomial)
    p = lb.frc_failure_probability(10**6, 10**5, 3)
    q = lb.frc_failure_probability(10**6, 10**5, 10)
    assert time.process_time() - t < 20
    # closed-form sandwich (Bonferroni): S1 - S2 <= P <= S1 with S1 = (n/d) C(n-d,s-d)/C(n,s)
    n, s, d = 10**6, 10**5, 10  # d | n: n/d groups of d
    s1 = (n // d) * math.prod((s - i) / (n - i) for i in range(d))
    s2 = math.comb(n // d, 2) * math.prod((s - i) / (n - i) for i in range(2 * d))
    assert s1 - s2 <= q <= s1
    assert p == 1.0  # P(no failure) ~ exp(-333): the float nearest P is 1


def test_frc_failure_is_non_increasing_in_d_for_every_small_n():
    # frc_min_load bisects over d: this exhaustive check is what licenses it
    for n in range(2, 41):
        for s in range(n):
            for rounding in ("ceil", "floor"):
                ps = [lb.frc_failure_probability(n, s, d, rounding) for d in range(1, n + 1)]
                assert all(a >= b for a, b in zip(ps, ps[1:])), (n, s, rounding)


def test_frc_min_load_bisection_equals_the_scan():
    for n, s, target in [(100, 10, 0.01), (1000, 100, 0.01), (500, 250, 1e-6), (60, 59, 0.5)]:
        scan = next(d for d in range(1, n + 1) if lb.frc_failure_probability(n, s, d) <= target)
        assert lb.frc_min_load(n, s, target) == scan


def test_cli_load_at_a_hundred_thousand_workers(capsys):
    import json
    import time

    from gctheory.cli import main

    t = time.process_time()  # CPU time: a loaded machine does not move it
    assert main(["load", "--n", "100000", "--s", "10000", "--format", "json"]) == 0
    assert time.process_time() - t < 60  # was over 60 s with no output
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert all(isinstance(r["d"], float) for r in rows)  # numbers as numbers, not ">= 2.046"
    assert {r["rel"] for r in rows} <= {">=", ">", "="}


def test_cli_load_text_fits_a_100_column_terminal(capsys):
    from gctheory.cli import main

    assert main(["load", "--n", "1000", "--s", "100"]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 100
