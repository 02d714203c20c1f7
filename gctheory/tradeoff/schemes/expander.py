"""Rows of the expander code (Raviv et al. 2020): the smallest even degree whose
spectral bound ``(lam/d)^2 n s/(n - s)`` meets the error level for every straggler set,
on a random regular graph (small degrees) or a random circulant graph (exact spectrum)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory.tradeoff.schemes.approximate import _approx_row
from gctheory.tradeoff.schemes.context import (
    CannotExist,
    Context,
    _exact_failure,
    _finish,
    seed_for,
)

__all__ = ["EXPANDER_BUILDERS"]

_RRG_MAX_D = 16  # random regular graphs above this degree are slow to sample (switching)


#: above this n the random regular graph's lam comes from a sparse Lanczos solver (ARPACK,
#: to machine precision: 8e-15 from the dense solver at n = 1500) on its n d / 2 edges, not a
#: dense n x n eigensolver (O(n^3): about 1.5 s at n = 2000, minutes at 10**4)
_DENSE_SPECTRUM_MAX_N = 1000


def _sparse_regular_lam(n: int, d: int, rng: np.random.Generator) -> float:
    """``max(|lambda_2|, |lambda_n|)`` of the graph ``random_regular_graph(n, d, rng=rng)``
    (the same draws), from its edges: the two largest and the smallest eigenvalue."""
    return _lam_of_regular(_sparse_regular_adjacency(n, d, rng), d)


def _sparse_regular_adjacency(n: int, d: int, rng: np.random.Generator) -> Any:
    """The sparse adjacency of ``random_regular_graph(n, d, rng=rng)`` (the same draws)."""
    from scipy import sparse

    from gctheory.codes.expander import _random_regular_edges

    e = _random_regular_edges(n, d, rng)
    rows, cols = np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]]
    return sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))


def _lam_of_regular(A: Any, d: int) -> float:
    """``lam`` of the d-regular graph with sparse adjacency ``A`` (ARPACK to machine
    precision, or the closed forms of a disconnected graph and of a cycle)."""
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import eigsh

    n = A.shape[0]
    if connected_components(A, directed=False)[0] > 1:
        return float(d)  # d is an eigenvalue of every component: lambda_2 = d
    if d == 2:  # one cycle C_n: eigenvalues 2 cos(2 pi j / n); Lanczos crawls on them
        return 2.0 if n % 2 == 0 else 2.0 * math.cos(math.pi / n)
    v0 = 1.0 + np.arange(n) / n  # deterministic start (ARPACK's default is random)
    # both ends in one Lanczos run: the two largest (d, lambda_2) and the smallest
    ev = np.sort(
        eigsh(A, k=3, which="BE", tol=0, ncv=min(n - 1, 64), return_eigenvectors=False, v0=v0)
    )
    return float(max(abs(ev[1]), abs(ev[0])))


def _regular_lam_lower(A: Any, d: int) -> float:
    """A lower bound on ``lam`` of the d-regular graph ``A``, cheaply: Rayleigh quotients
    ``x^T A x / x^T x`` of vectors ``x`` orthogonal to the all-ones vector (the eigenvector
    of ``d``) lie in ``[lambda_n, lambda_2]``, so ``max(q_top, -q_bottom) <= lam``. The
    vectors are loose Lanczos approximations (tolerance 1e-3) of the two ends on ``1^perp``;
    the quotients themselves are exact up to rounding. 0 when Lanczos does not converge."""
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    n = A.shape[0]

    def on_perp(x: np.ndarray) -> np.ndarray:
        x = np.ravel(x) - np.mean(x)
        y = A @ x
        return y - np.mean(y)

    op = LinearOperator((n, n), matvec=on_perp, dtype=float)
    v0 = np.cos(np.arange(n) * 2.0)  # deterministic start
    out = 0.0
    for which, sign in (("LA", 1.0), ("SA", -1.0)):
        try:
            _, vec = eigsh(op, k=1, which=which, tol=1e-3, ncv=min(n - 1, 24), v0=v0)
        except ArpackNoConvergence:
            continue
        x = vec[:, 0] - vec[:, 0].mean()
        out = max(out, sign * float(x @ (A @ x)) / float(x @ x))
    return out


def _circulant_generators(ctx: Context, d: int) -> list[int]:
    """The connection set of the random circulant graph of degree ``d`` (``d > 16``)."""

    def make() -> list[int]:
        rng = np.random.default_rng(seed_for(ctx.root, "expander", d))
        gens = rng.choice(np.arange(1, (ctx.n + 1) // 2), d // 2, replace=False)
        return np.sort(gens).tolist()

    return ctx.memo(("circulant", d), make)


def _regular_adjacency(ctx: Context, d: int) -> Any:
    """The sparse adjacency of the random regular graph of degree ``d`` (``n > 1000``)."""

    def make() -> Any:
        rng = np.random.default_rng(seed_for(ctx.root, "expander", d))
        return _sparse_regular_adjacency(ctx.n, d, rng)

    return ctx.memo(("regular", d), make)


def _expander_graph(ctx: Context, d: int) -> tuple[float, str]:
    """``lam`` of a d-regular graph on n vertices: random regular for small d, a random
    circulant (exact spectrum) above."""
    from gctheory.codes import graph_spectrum, random_regular_graph
    from gctheory.codes.expander import _circulant_spectrum

    def make() -> tuple[float, str]:
        if d > _RRG_MAX_D:
            # circulant_spectrum without checking each drawn generator (distinct, in [1, n/2])
            _, _, lam = _circulant_spectrum(ctx.n, _circulant_generators(ctx, d))
            return lam, "random circulant graph"
        if ctx.n > _DENSE_SPECTRUM_MAX_N:
            return _lam_of_regular(_regular_adjacency(ctx, d), d), "random regular graph"
        rng = np.random.default_rng(seed_for(ctx.root, "expander", d))
        _, _, lam = graph_spectrum(random_regular_graph(ctx.n, d, rng=rng))
        return lam, "random regular graph"

    return ctx.memo(("graph", d), make)


#: absolute margin on a screened lam: a circulant's FFT and cosine sums differ by a few
#: 1e-12 at most (|S| <= 2e6 / n terms of size <= 1, each rounded), a Rayleigh quotient of
#: a sparse 0/1 matrix is exact to about 1e-15 d
_SCREEN_LAM_MARGIN = 1e-9


def _fails_surely(ctx: Context, s: int, d: int) -> bool:
    """True if degree ``d``'s graph fails the spectral bound at ``s`` whatever the last
    digits of its lam: a circulant's checked with the FFT's lam less a margin where the
    exact lam sums ``|S|`` cosine vectors (O(n |S|), the direct path of
    circulant_spectrum); a sparse random regular graph's with a Rayleigh-quotient lower
    bound (:func:`_regular_lam_lower`, a few dozen products with A) instead of ARPACK to
    machine precision (hundreds). Only a failure is decided this way; a degree that may
    pass gets its exact lam, so the scan's answer is the one without the screen."""
    from gctheory.codes import expander_error_bound
    from gctheory.codes.expander import _CIRCULANT_DIRECT_MAX, _circulant_spectrum

    if ("graph", d) in ctx.cache or d == 2 or d <= _RRG_MAX_D and ctx.n <= _DENSE_SPECTRUM_MAX_N:
        return False  # a lam already known, a cycle, or a small dense graph
    if d <= _RRG_MAX_D:  # a random regular graph: Rayleigh quotients bound lam from below
        A = _regular_adjacency(ctx, d)
        lam = ctx.memo(("regular-low", d), lambda: _regular_lam_lower(A, d))
    elif ctx.n * d > _CIRCULANT_DIRECT_MAX:
        return False  # the exact lam is the FFT's
    else:

        def screen() -> float:
            return _circulant_spectrum(ctx.n, _circulant_generators(ctx, d), direct_max=0)[2]

        lam = ctx.memo(("circulant-fft", d), screen)
    low = max(0.0, lam - _SCREEN_LAM_MARGIN)
    return expander_error_bound(ctx.n, s, d, low) > ctx.threshold


def _expander(ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    from gctheory.codes import expander_error_bound

    n = ctx.n
    found = None
    # Every d-regular graph on n vertices has lam^2 >= d (n - d)/(n - 1) (the trace of A^2 is
    # n d, and lam bounds all eigenvalues but d), so the bound is at least
    # (n - d)/(d (n - 1)) n s/(n - s): it cannot reach the threshold below d = n/(1 + R), R
    # = threshold (n - 1)(n - s)/(n s). The scan starts two even degrees below that (the
    # degrees skipped would all have failed, whatever their graphs), which spares building
    # and solving up to n/2 graphs at the s where no degree works.
    if s > 0:
        ratio = ctx.threshold * (n - 1) * (n - s) / (n * s)
        first = max(2, 2 * int(n / (1 + ratio) / 2) - 2)
    else:
        first = 2
    for d in range(first, n, 2):  # even degrees: a d-regular graph on n vertices exists
        if _fails_surely(ctx, s, d):
            continue
        lam, kind = _expander_graph(ctx, d)
        bound = expander_error_bound(n, s, d, lam)
        if bound <= ctx.threshold:
            found = (d, lam, kind, bound)
            break
    if found is None:
        raise CannotExist(
            f"no even degree d < n gives the spectral bound (lam/d)^2 n s/(n-s) <= "
            f"{ctx.threshold:g} at s = {s}"
        )
    d, lam, kind, bound = found
    row, notes = _approx_row(
        ctx,
        "expander",
        s,
        d,
        n,
        guarantee=f"err <= {bound:.3g} for every set of {s} stragglers (fixed decoder)",
        **_exact_failure(0.0, "every straggler set (spectral bound)"),
        error_bound=bound / n,
        stable_s=s,
        s_kappa_method="no system solved (fixed decoder)",
        source="Raviv et al. 2020 (code); bound derived here (expander_error_bound)",
        note=f"{kind}, d = {d}, lam = {lam:.4g}",
    )
    return [_finish(row, notes)]


EXPANDER_BUILDERS = {"expander": _expander}
