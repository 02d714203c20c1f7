"""The CommFR gradient code and its builder by family."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.linalg

from gctheory._validate import check_array, check_choice
from gctheory.codes.base import (
    DecodingCost,
    GradientCode,
    check_positive_int,
    effective_condition_number,
    split_chunks,
    validate_survivors,
)
from gctheory.codes.commfr._construction import (
    _EPS,
    COMMFR_FAMILIES,
    _check_commfr_memory,
    _check_nk_NK,
    commfr_triple,
    minimum_distance,
)
from gctheory.generators import (
    gaussian_generator,
    systematic_generator,
    vandermonde_generator,
)

__all__ = ["CommFRCode", "commfr_code"]


class CommFRCode(GradientCode):
    """CommFR-GC on the [N, K, delta] code with generator G (Kadhe et al. 2019, Section III).

    Parameters
    ----------
    n : int
        Workers; ``N | n``.
    k : int
        Partitions; ``n | k N``.
    G : array (K, N)
        Generator of the underlying code (real or complex), rank K.
    delta : int, optional
        Minimum distance; computed by :func:`minimum_distance` when omitted.
        Theorem 1 then gives s = delta - 1.
    name : str, optional

    Attributes
    ----------
    N, K, delta, groups (= p = n / N), G, systematic_columns (column of G equal
    to e_u for each u, or None): see Section III-A.

    Examples
    --------
    >>> from gctheory.codes import CommFRCode
    >>> import numpy as np
    >>> G = np.random.default_rng(0).standard_normal((2, 4))  # a [4, 2, 3] code
    >>> code = CommFRCode(8, 8, G)  # 2 groups of 4 workers
    >>> code.triple  # (l, m, s) of Theorem 1
    (4, 2, 2)
    >>> g = np.arange(16.0).reshape(8, 2)
    >>> y = code.encode(g)
    >>> survivors = [0, 1, 4, 5, 6, 7]  # workers 2 and 3 (group 0) straggle
    >>> code.decode(survivors, y[survivors]).round(6).tolist(), g.sum(axis=0).tolist()
    ([56.0, 64.0], [56.0, 64.0])
    """

    s: int  # an exact code: Theorem 1's tolerance (the peeling guarantee for LDPC)
    delta: int | None  # None on CommFRLDPCCode, whose minimum distance is not computed

    def __init__(
        self, n: int, k: int, G: Any, *, delta: int | None = None, name: str | None = None
    ) -> None:
        G = check_array(G, "G", ndim=2, complex_ok=True, min_size=0)
        K, N = G.shape
        n, k, N, K = _check_nk_NK(n, k, N, K)
        _check_commfr_memory(n, k)
        self.G = G.astype(np.result_type(G.dtype, float))
        if delta is None:
            delta = minimum_distance(self.G)
        self.delta = check_positive_int("delta", delta)
        self.load, self.m, self.s = commfr_triple(n, k, N, K, self.delta)
        self.n, self.k, self.N, self.K = n, k, N, K
        self.groups = n // N
        l_ = self.load
        self.support = np.zeros((n, k), dtype=bool)
        for g in range(self.groups):
            self.support[g * N : (g + 1) * N, g * l_ : (g + 1) * l_] = True
        self._E: np.ndarray | None = None  # built on first use (k K x n can be large)
        self.systematic_columns = self._find_systematic()
        self.name = name or f"CommFR-GC [{N}, {K}, {self.delta}]"

    def _find_systematic(self) -> np.ndarray | None:
        """For each u the first column of G equal to e_u exactly, or None if some u has none."""
        G = self.G
        unit = (np.count_nonzero(G, axis=0) == 1) & np.any(G == 1, axis=0)
        cols = np.full(self.K, -1)
        for c in np.flatnonzero(unit)[::-1]:  # reversed: the first such column wins
            cols[int(np.flatnonzero(G[:, c])[0])] = c
        return cols if np.all(cols >= 0) else None

    @property
    def encoding_matrix(self) -> np.ndarray:
        """(k K) x n, block (partition j of group g, workers of group g) = G; built lazily.

        ``encode`` and ``decode`` work per group and never form it.
        """
        if self._E is None:
            l_, N, K = self.load, self.N, self.K
            E = np.zeros((self.k * K, self.n), dtype=self.G.dtype)
            for g in range(self.groups):
                for j in range(g * l_, (g + 1) * l_):
                    E[j * K : (j + 1) * K, g * N : (g + 1) * N] = self.G
            self._E = E
        return self._E

    def encode(self, partials: np.ndarray) -> np.ndarray:
        """Eqs. (2)-(4): group sums, cut into K chunks, times G; shape (n, ceil(d / K))."""
        P = self._check_partials(partials)
        l_, K = self.load, self.K
        sums = P.reshape(self.groups, l_, -1).sum(axis=1)  # g^(i) of eq. (2)
        rows, _ = split_chunks(sums, K)  # (groups K, r): chunk u of group g at g K + u
        r = rows.shape[1]
        g_mat = rows.reshape(self.groups, K, r)  # eq. (4), transposed
        out = np.einsum("gur,uc->gcr", g_mat, self.G)  # worker c of group g sends g_mat G_c
        return out.reshape(self.n, r)

    def _residual(self, T: np.ndarray, A: np.ndarray) -> float:
        # ||E_T A - C||_F^2 = sum_g l ||G^(g) A_g - I_K||_F^2 and ||C||_F^2 = k K
        total = 0.0
        eye = np.eye(self.K)
        for pos, cols in self._groups_of(T):
            total += self.load * float(np.linalg.norm(self.G[:, cols] @ A[pos] - eye) ** 2)
        return math.sqrt(total / (self.k * self.K))

    @property
    def triple(self) -> tuple[int, int, int]:
        """``(l, m, s)`` of Theorem 1."""
        return self.load, self.m, self.s

    def _groups_of(self, T: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per group: positions in T and the group-local column indices of its survivors."""
        out = []
        for g in range(self.groups):
            pos = np.flatnonzero((T >= g * self.N) & (T < (g + 1) * self.N))
            out.append((pos, T[pos] - g * self.N))
        return out

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """Block-diagonal (p K) x |T| matrix, block g = ``G^(g)`` of eq. (5), columns in T order."""
        T = validate_survivors(survivors, self.n, 1)
        M = np.zeros((self.groups * self.K, T.size), dtype=self.G.dtype)
        for g, (pos, cols) in enumerate(self._groups_of(T)):
            M[g * self.K : (g + 1) * self.K, pos] = self.G[:, cols]
        return M

    def _group_coefficients(self, cols: np.ndarray) -> np.ndarray:
        """A_g (t_g x K) with ``G[:, cols] A_g = I_K`` (eq. (5)); systematic fast path."""
        K = self.K
        if self.systematic_columns is not None and cols.size >= K:
            sys_pos = {int(c): u for u, c in enumerate(self.systematic_columns)}
            have = {sys_pos[int(c)]: q for q, c in enumerate(cols) if int(c) in sys_pos}
            missing = np.array([u for u in range(K) if u not in have], dtype=np.intp)
            cand = [q for q, c in enumerate(cols) if int(c) not in sys_pos]
            e = missing.size
            if e == 0 or len(cand) >= e:
                A = np.zeros((cols.size, K), dtype=self.G.dtype)
                for u, q in have.items():
                    A[q, u] = 1.0
                if e == 0:
                    return A
                # e parity survivors whose block G[M, P] is best conditioned: the first e
                # pivots of a column-pivoted QR (any e of them for an MDS code)
                block = self.G[np.ix_(missing, cols[cand])]
                piv = scipy.linalg.qr(block, pivoting=True, mode="r")[1]
                parity = [cand[i] for i in sorted(piv[:e])]
                Pc = cols[parity]
                Gmp = self.G[np.ix_(missing, Pc)]
                if effective_condition_number(Gmp) < 1 / _EPS and np.linalg.matrix_rank(Gmp) == e:
                    # y_P = x_S G[S, P] + x_M G[M, P]  =>  x_M = (y_P - x_S G[S, P]) W
                    W = np.linalg.inv(Gmp)
                    A[np.ix_(parity, missing)] = W
                    S = np.array(list(have), dtype=np.intp)
                    if S.size:
                        corr = -self.G[np.ix_(S, Pc)] @ W  # |S| x e
                        for a, u in enumerate(S):
                            A[have[u], missing] += corr[a]
                    return A
                # singular erased block (not MDS): the generic solve below reports it
        return np.linalg.lstsq(self.G[:, cols], np.eye(K), rcond=None)[0]

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        A = np.zeros((T.size, self.K), dtype=self.G.dtype)
        kappa = 1.0
        for pos, cols in self._groups_of(T):
            if cols.size == 0:
                kappa = math.inf
                continue
            A[pos] = self._group_coefficients(cols)
            kappa = max(kappa, effective_condition_number(self.G[:, cols]))
        return A, kappa

    def _condition(self, T: np.ndarray) -> float:
        # the per-group condition numbers only: the coefficients come from the cache
        kappa = 1.0
        for _, cols in self._groups_of(T):
            if cols.size == 0:
                return math.inf
            kappa = max(kappa, effective_condition_number(self.G[:, cols]))
        return kappa

    def _coefficients(self, T: np.ndarray) -> np.ndarray:
        A = np.zeros((T.size, self.K), dtype=self.G.dtype)
        for pos, cols in self._groups_of(T):
            if cols.size:
                A[pos] = self._group_coefficients(cols)
        return A

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Multiply-adds of the per-group decoder (Kadhe et al. 2019, Proposition 1).

        Systematic generator: each group inverts the e x e block of its e
        erased systematic coordinates (``e^3``, worst case ``e = min(K, s)``)
        and corrects ``K`` coordinates (``K e r``); otherwise each group solves
        a K x K system (``K^3 / 3 + K^2 r``). Adding the p group sums costs
        ``p K r``. ``r = ceil(d / K)``.
        """
        r = -(-check_positive_int("d", d) // self.K)
        if survivors is None:
            per_group = [self.N - self.s] * self.groups
            erased = [min(self.K, self.s)] * self.groups
        else:
            T = validate_survivors(survivors, self.n, 1)
            per_group, erased = [], []
            for _, cols in self._groups_of(T):
                per_group.append(cols.size)
                if self.systematic_columns is not None:
                    erased.append(len(set(self.systematic_columns.tolist()) - set(cols.tolist())))
        if self.systematic_columns is not None:
            setup = sum(e**3 for e in erased)
            apply = sum(self.K * e * r for e in erased) + self.groups * self.K * r
            return DecodingCost(setup, apply, "systematic: invert erased block per group")
        setup = self.groups * (self.K**3 // 3 + self.K**2)
        apply = self.groups * self.K * self.K * r + self.groups * self.K * r
        return DecodingCost(setup, apply, "dense K x K solve per group")


def commfr_code(
    n: int,
    k: int,
    N: int,
    K: int,
    *,
    family: str = "gaussian",
    nodes: str = "chebyshev",
    rng: Any = None,
) -> CommFRCode:
    """CommFR-GC on a standard [N, K] code family (Kadhe et al. 2019, Section III and IV).

    ``family``:

    - ``"gaussian"``: i.i.d. N(0, 1) generator (MDS with probability one, Thm. 2);
    - ``"systematic"``: systematic form ``[I | P]`` of a Gaussian generator (Prop. 1);
    - ``"vandermonde"``: real Vandermonde on ``nodes`` (default Chebyshev);
    - ``"vandermonde-complex"``: Vandermonde on the N-th roots of unity (complex);
    - ``"systematic-vandermonde"``: systematic form of the real Vandermonde;
    - ``"repetition"``: the [N, 1, N] repetition code (needs K = 1), which
      reduces to fractional repetition (Remark 1).

    The MDS families get ``delta = N - K + 1`` (MDS by construction: any K
    columns of a Vandermonde matrix with distinct nodes, or of a Gaussian
    matrix with probability one, are independent); the tests verify it by
    enumeration for small N.

    Parameters
    ----------
    n : int
        Workers; ``N | n``.
    k : int
        Partitions; ``n | k N``.
    N, K : int
        Length and dimension of the underlying code.
    family : str
        The generator family (listed above).
    nodes : str
        Node family of the Vandermonde generators.
    rng : None, int or numpy.random.Generator
        Seed of the random families.

    Returns
    -------
    CommFRCode
        The code, with ``delta = N - K + 1`` for the MDS families.

    Examples
    --------
    >>> from gctheory.codes import commfr_code
    >>> code = commfr_code(12, 12, N=6, K=3, family="gaussian", rng=0)
    >>> code, code.triple
    (CommFRCode(n=12, k=12, load=6, m=3, s=3), (6, 3, 3))
    """
    n, k, N, K = _check_nk_NK(n, k, N, K)
    check_choice(family, "family", COMMFR_FAMILIES)
    _check_commfr_memory(n, k)
    if family == "gaussian":
        G = gaussian_generator(K, N, rng=rng)
    elif family == "systematic":
        G = systematic_generator(gaussian_generator(K, N, rng=rng))
    elif family == "vandermonde":
        G = vandermonde_generator(K, N, nodes=nodes)
    elif family == "vandermonde-complex":
        G = vandermonde_generator(K, N, nodes="roots_of_unity")
    elif family == "systematic-vandermonde":
        G = systematic_generator(vandermonde_generator(K, N, nodes=nodes))
    elif family == "repetition":
        if K != 1:
            raise ValueError(f"the repetition code has K = 1, got K={K}")
        G = np.ones((1, N))
    else:
        raise ValueError(f"family must be one of {COMMFR_FAMILIES}, got {family!r}")
    label = f"CommFR-GC {family} [{N}, {K}]"
    return CommFRCode(n, k, G, delta=N - K + 1, name=label)
