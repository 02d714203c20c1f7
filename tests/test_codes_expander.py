"""graph_adversarial_bound and glasgow_wootters_random_bound against independent computations.

Independent means: singular values of the assignment matrix by numpy's SVD
(not the adjacency spectrum the functions use), exhaustive enumeration of
straggler sets and straggler patterns on small graphs, and the Section 5
conditions re-evaluated in mpmath at 50 digits.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from gctheory.codes.expander import (
    GraphAssignmentCode,
    circulant_graph,
    circulant_spectrum,
    glasgow_wootters_random_bound,
    graph_adversarial_bound,
    graph_optimal_alpha,
)


def _petersen() -> np.ndarray:
    A = np.zeros((10, 10), dtype=np.int8)
    for i in range(5):
        for a, b in ((i, (i + 1) % 5), (5 + i, 5 + (i + 2) % 5), (i, 5 + i)):
            A[a, b] = A[b, a] = 1
    return A


K4 = np.ones((4, 4), dtype=np.int8) - np.eye(4, dtype=np.int8)
SMALL = {"K4": K4, "C8(1,2)": circulant_graph(8, [1, 2]), "Petersen": _petersen()}


def _fixed_errors(code: GraphAssignmentCode, s: int) -> list[float]:
    """Error ||A w - 1||^2 of Proposition 39's w = m/(d(m-s)) for every set of s stragglers."""
    A, m, d = code.A.T.astype(float), code.n, code.d
    out = []
    for S in itertools.combinations(range(m), s):
        w = np.full(m, m / (d * (m - s)))
        w[list(S)] = 0.0
        out.append(float(np.sum((A @ w - 1.0) ** 2)))
    return out


def test_adversarial_bound_k4_exact():
    # K4: d = 3, adjacency eigenvalues 3, -1, -1, -1 (closed form), gap 4, m = 6:
    # (2d - gap) m s / ((m - s) d^2) = 2 * 6 * 3 / (3 * 9) = 4/3 at s = 3 (hand computation)
    assert graph_adversarial_bound(4, 3, 4.0, 3) == pytest.approx(4 / 3, rel=1e-15)
    assert graph_adversarial_bound(4, 3, 4.0, 0) == 0.0


@pytest.mark.parametrize("name", sorted(SMALL))
def test_adversarial_bound_equals_svd_form_and_holds_by_enumeration(name):
    code = GraphAssignmentCode(SMALL[name])
    m, d = code.n, code.d
    sigma = np.linalg.svd(code.A.T.astype(float), compute_uv=False)  # independent of the gap
    opt = GraphAssignmentCode(SMALL[name], decoder="lstsq")
    for s in range(1, 4):
        bound = graph_adversarial_bound(code.k, d, code.spectral_gap, s)
        # Proposition 39: sigma_2^2 m s / ((m - s) d^2), sigma_2 from the SVD
        assert bound == pytest.approx(sigma[1] ** 2 * m * s / ((m - s) * d * d), rel=1e-9)
        errs = _fixed_errors(code, s)
        assert max(errs) <= bound * (1 + 1e-9)
        # the optimal decoder does no worse, on a few of the same sets
        for S in list(itertools.combinations(range(m), s))[:10]:
            T = np.setdiff1d(np.arange(m), S)
            w = np.full(m, m / (d * (m - s)))
            w[list(S)] = 0.0
            fixed = float(np.sum((code.A.T @ w - 1.0) ** 2))
            assert opt.decoder_error(T) <= fixed + 1e-9


def test_adversarial_enumeration_rejects_a_bound_too_small():
    # negative control: on K4 with s = 3 some straggler set attains the bound (enumeration),
    # so the same test fails a bound 1% too small
    code = GraphAssignmentCode(K4)
    bound = graph_adversarial_bound(4, 3, code.spectral_gap, 3)
    assert max(_fixed_errors(code, 3)) > 0.99 * bound


@pytest.mark.parametrize(
    "args, match",
    [((4, 3, 4.0, 6), "s must be < M"), ((4, 3, 7.0, 1), "spectral_gap"), ((4, 0, 1.0, 1), "d")],
)
def test_adversarial_bound_refuses_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        graph_adversarial_bound(*args)


# ------------------------------------------------------------------ Section 5 theorem
def _mp_conditions(n, d, lam, p, eps):
    """Conditions (1)-(4) and t of the Section 5 theorem, mpmath 50 digits."""
    with mp.workdps(50):
        n, d, lam, p, eps = (mp.mpf(x) for x in (n, d, lam, p, eps))
        q = 1 - p * mp.e ** (1 / lam)
        t = mp.e**2 * p ** (lam * (1 - 1 / (3 + eps))) / q**2
        c = [
            lam > mp.mpf("1.5"),
            (lam / 2 + 1) * q >= 1 + eps,
            (1 - t) * (lam - (2 * d - lam) * t) >= eps,
            n / mp.log(n) ** 2
            >= 4 * (1 + eps) / eps**2 * (2 - 2 * mp.log(eps) + 2 * mp.log(1 + eps) - mp.log(q)),
        ]
        return c, t


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_random_bound_matches_mpmath(p):
    n, S = 2000, [123, 129, 173, 308, 323, 453, 477, 967]
    d, lam2, _ = circulant_spectrum(n, S)
    gap = d - lam2
    r = glasgow_wootters_random_bound(n, d, gap, p)
    assert r["eps"] is not None and all(r["conditions"])
    conds, t = _mp_conditions(n, d, gap, p, r["eps"])
    assert all(conds)
    assert r["t"] == pytest.approx(float(t), rel=1e-12)
    assert r["r_lower"] == pytest.approx(float(1 - mp.mpf(6) / n - t), rel=1e-12)
    assert r["var_upper"] == pytest.approx(float(mp.mpf(6) / n + t), rel=1e-12)
    # t falls as eps grows, so the smallest t is at the largest feasible eps of the grid:
    # the next grid point must break a condition (mpmath)
    nxt = r["eps"] + 3.99 / 399
    if nxt <= 4:
        assert not all(_mp_conditions(n, d, gap, p, nxt)[0])


def test_random_bound_refuses_regime_mpmath_agrees():
    # p = 0.5 on the same graph: mpmath finds no eps of the grid meeting (1)-(4), and the
    # function says so (eps None) instead of returning a bound
    n, S = 2000, [123, 129, 173, 308, 323, 453, 477, 967]
    d, lam2, _ = circulant_spectrum(n, S)
    assert not any(
        all(_mp_conditions(n, d, d - lam2, 0.5, e)[0]) for e in np.linspace(0.01, 4, 400)
    )
    r = glasgow_wootters_random_bound(n, d, d - lam2, 0.5)
    assert r["eps"] is None and r["r_lower"] is None and not all(r["conditions"])


def _exact_mean_alpha(adj: np.ndarray, p: Fraction) -> list[Fraction]:
    """E[alpha*_v] exactly: every straggler pattern, weighted p^s (1-p)^(m-s)."""
    code = GraphAssignmentCode(adj)
    m, k = code.n, code.k
    out = [Fraction(0)] * k
    for bits in itertools.product((False, True), repeat=m):
        alive = np.array(bits)
        s = m - int(alive.sum())
        weight = p**s * (1 - p) ** (m - s)
        a = graph_optimal_alpha(k, code.edges, alive)
        # closed-form alphas are rationals with denominator <= k (component sizes)
        out = [o + weight * Fraction(float(x)).limit_denominator(k) for o, x in zip(out, a)]
    return out


def test_expected_alpha_is_constant_on_vertex_transitive_graphs_by_enumeration():
    # The theorem's E[alpha*] = r 1 rests on vertex transitivity: exact on K4 and the 3-prism
    # circulant C6(1,3) (every one of the 2^m straggler patterns); a 3-regular graph that is
    # not vertex-transitive (one triangle only, so its vertices differ) is the negative
    # control, with unequal E[alpha*_v].
    p = Fraction(1, 3)
    for adj in (K4, circulant_graph(6, [1, 3])):
        vals = _exact_mean_alpha(adj, p)
        assert len(set(vals)) == 1
        assert 0 < vals[0] <= 1
    # control: a connected 3-regular graph on 8 vertices that is not vertex-transitive
    edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 4), (2, 5), (3, 6), (3, 7), (4, 6), (4, 7),
             (5, 6), (5, 7)]  # fmt: skip
    adj = np.zeros((8, 8), dtype=np.int8)
    for u, v in edges:
        adj[u, v] = adj[v, u] = 1
    assert set(adj.sum(axis=1)) == {3}
    assert len(set(_exact_mean_alpha(adj, p))) > 1


def test_worst_case_lower_bound_is_attained_by_straggling_neighbourhoods():
    import pytest

    from gctheory.codes.expander import (
        ExpanderCode,
        expander_worst_case_lower_bound,
        random_regular_graph,
    )

    assert expander_worst_case_lower_bound(6, 3) == 2.0
    assert expander_worst_case_lower_bound(0, 3) == 0.0
    with pytest.raises(ValueError, match="d"):
        expander_worst_case_lower_bound(3, 0)
    G = random_regular_graph(30, 3, rng=7)
    code = ExpanderCode(G)  # optimal decoder
    # two vertices with disjoint neighbourhoods: their 6 neighbours straggle
    v = 0
    far = next(u for u in range(30) if not (set(np.flatnonzero(G[u])) & set(np.flatnonzero(G[v]))))
    S = set(np.flatnonzero(G[v])) | set(np.flatnonzero(G[far]))
    T = [i for i in range(30) if i not in S]
    assert code.decoder_error(T) >= expander_worst_case_lower_bound(len(S), 3) - 1e-9
