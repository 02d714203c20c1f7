"""CommFR-GC: communication-efficient fractional-repetition gradient coding on any linear code.

Kadhe, Koyluoglu, Ramchandran 2019, Section III. Given an [N, K, delta] code
with K x N generator G over the reals (or complexes), ``N | n`` and
``n | k N``:

- placement (Section III-A.1): p = n / N groups of N consecutive workers;
  group g holds the l = k N / n consecutive partitions g l, ..., g l + l - 1;
- encoding (eqs. (2)-(4)): every worker of group g sums its partitions,
  ``g^(g) = sum_{u in D^(g)} g_u``, cuts it into K chunks (the columns of
  ``g_mat`` in eq. (4)), and worker c of the group sends ``g_mat G_c``;
- decoding (eq. (5)): per group, solve ``[y_{i_1} ... y_{i_t}] = g_mat G^(g)``
  from its t survivors and add the groups' sums.

Theorem 1: the scheme achieves ``(l, m, s) = (k N / n, K, delta - 1)``; with an
MDS code (delta = N - K + 1) it meets eq. (1) with equality (Corollary 1);
with the [N, 1, N] repetition code it is Tandon et al.'s fractional repetition
code (Remark 1). With a systematic MDS code each group only solves a system of
size e <= min(K, s) (the erased systematic coordinates), which gives the
decoding complexity of Proposition 1; an LDPC code decoded by peeling
(:class:`CommFRLDPCCode`) decodes in time linear in n (Proposition 2).

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019 (Section III,
   Theorem 1, Corollary 1, Remark 1, Propositions 1-2).
.. [2] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding", ICML 2017.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.linalg

from gctheory._names import COMMFR_FAMILIES as _COMMFR_FAMILIES
from gctheory._validate import check_array, check_choice, check_int, check_memory
from gctheory.codes.base import (
    DecodingCost,
    GradientCode,
    check_positive_int,
    effective_condition_number,
    split_chunks,
    validate_survivors,
)
from gctheory.generators import (
    gaussian_generator,
    systematic_generator,
    vandermonde_generator,
)

__all__ = [
    "COMMFR_FAMILIES",
    "CommFRCode",
    "CommFRLDPCCode",
    "commfr_code",
    "commfr_triple",
    "minimum_distance",
]

COMMFR_FAMILIES = _COMMFR_FAMILIES  # gaussian, systematic, vandermonde(-complex), ...

_EPS = float(np.finfo(float).eps)


def _check_nk_NK(n: Any, k: Any, N: Any, K: Any) -> tuple[int, int, int, int]:
    n = check_positive_int("n", n)
    k = check_positive_int("k", k)
    N = check_positive_int("N", N)
    K = check_positive_int("K", K)
    if K > N:
        raise ValueError(f"K must be <= N for an [N, K] code, got K={K}, N={N}")
    if n % N:
        raise ValueError(f"N must divide n (groups of N workers), got N={N}, n={n}")
    if (k * N) % n:
        raise ValueError(f"n must divide k N (load l = k N / n), got n={n}, k={k}, N={N}")
    return n, k, N, K


def _check_commfr_memory(n: int, k: int) -> None:
    check_memory(1 * n * k, "n", f"the {n} x {k} placement")


def commfr_triple(n: int, k: int, N: int, K: int, delta: int) -> tuple[int, int, int]:
    """Theorem 1 of Kadhe et al. 2019: ``(l, m, s) = (k N / n, K, delta - 1)``.

    Requires ``N | n``, ``n | k N`` and ``1 <= delta <= N - K + 1`` (Singleton).

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    N, K : int
        Length and dimension of the underlying code.
    delta : int
        Its minimum distance.

    Returns
    -------
    tuple of int
        ``(l, m, s)``: load, communication reduction, stragglers.

    Examples
    --------
    >>> from gctheory.codes import commfr_triple
    >>> commfr_triple(n=12, k=12, N=6, K=3, delta=4)
    (6, 3, 3)
    """
    n, k, N, K = _check_nk_NK(n, k, N, K)
    delta = check_positive_int("delta", delta)
    if delta > N - K + 1:
        raise ValueError(
            f"delta must satisfy the Singleton bound delta <= N - K + 1 = {N - K + 1}, got {delta}"
        )
    return k * N // n, K, delta - 1


def _full_rank(M: np.ndarray, K: int) -> bool:
    sv = np.linalg.svd(M, compute_uv=False)
    return sv.size >= K and sv[0] > 0 and sv[K - 1] > max(M.shape) * _EPS * sv[0] * 1e3


def minimum_distance(G: Any, *, max_subsets: int = 200_000) -> int:
    """Minimum distance delta of the code spanned by G (K x N), by enumeration (Theorem 1's delta).

    ``delta - 1`` is the largest e such that every N - e columns of G have rank
    K (the erasure-correction view used in the proof of Theorem 1 of Kadhe et
    al. 2019). Numerical rank with tolerance ``1e3 max(K, N) eps sigma_max``;
    raises ValueError if more than ``max_subsets`` column subsets would be
    needed (pass ``delta`` to the code instead).

    Parameters
    ----------
    G : array_like, shape (K, N)
        Generator matrix.
    max_subsets : int
        Refuse when more column subsets would be needed.

    Returns
    -------
    int
        The minimum distance ``delta``.

    Examples
    --------
    >>> from gctheory.codes import minimum_distance
    >>> import numpy as np
    >>> minimum_distance(np.random.default_rng(0).standard_normal((3, 6)))  # MDS: N - K + 1
    4
    >>> minimum_distance(np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]))
    2
    """
    max_subsets = check_int(max_subsets, "max_subsets", low=0)
    G = check_array(G, "G", ndim=2, complex_ok=True, min_size=0)
    if G.shape[0] > G.shape[1] or G.shape[0] < 1:
        raise ValueError(f"G must be a K x N matrix with 1 <= K <= N, got shape {G.shape}")
    K, N = G.shape
    if not _full_rank(G, K):
        raise ValueError("G must have rank K (its rows must be a basis of the code)")
    checked = 0
    e = 0
    while N - (e + 1) >= K:
        size = N - (e + 1)
        checked += math.comb(N, size)
        if checked > max_subsets:
            raise ValueError(
                f"minimum_distance needs more than max_subsets={max_subsets} rank checks for "
                f"N={N}, K={K}; pass delta explicitly"
            )
        if not all(_full_rank(G[:, list(S)], K) for S in itertools.combinations(range(N), size)):
            break
        e += 1
    return e + 1


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


class CommFRLDPCCode(CommFRCode):
    """CommFR-GC on the real LDPC code ``{c : H c = 0}``, decoded by peeling (Prop. 2).

    Parameters
    ----------
    n, k : int
        Workers and partitions, ``N | n``, ``n | k N``.
    H : array or scipy.sparse (checks x N)
        0/1 parity-check matrix (e.g. :func:`gctheory.ldpc.regular_ensemble`).
        Over the reals the code has dimension ``K = N - rank(H)`` and a
        systematic generator on the information set found by pivoted QR of H.
    s : int, optional
        Guaranteed tolerance of the peeling decoder. By default the largest e
        such that every erasure set of size e in one group is peeled (the
        stopping distance minus one), found by enumeration within
        ``max_subsets``; beyond the budget, the largest e verified so far
        (a valid, possibly pessimistic guarantee).

    Notes
    -----
    Decoding of group g: its survivors' transmissions are known coordinates
    of ``r`` codewords; a check with exactly one unknown coordinate fixes it
    (``y_e = -sum_{c != e} H[ch, c] y_c / H[ch, e]``), repeated until no check
    applies (peeling, Kadhe et al. 2019, Section IV-A). The erasure pattern
    left is cross-checked with :func:`gctheory.ldpc.peel`. The peeling is run
    on decoding coefficients (exact: sums of +-1 multiples), so the cost is
    linear in the number of edges of H per survivor column.

    Examples
    --------
    >>> from gctheory.codes import CommFRLDPCCode
    >>> import numpy as np
    >>> H = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 1, 1, 1, 0], [1, 0, 0, 0, 1, 1]])
    >>> code = CommFRLDPCCode(6, 6, H)
    >>> code.N, code.K, code.s
    (6, 3, 2)
    >>> g = np.ones((6, 3))
    >>> y = code.encode(g)
    >>> code.decode([1, 2, 3, 4, 5], y[1:]).round(6).tolist()
    [6.0, 6.0, 6.0]
    """

    def __init__(
        self,
        n: int,
        k: int,
        H: Any,
        *,
        s: int | None = None,
        max_subsets: int = 20_000,
    ) -> None:
        from gctheory import ldpc  # lazy: only the LDPC path needs it

        n = check_positive_int("n", n)
        k = check_positive_int("k", k)
        max_subsets = check_int(max_subsets, "max_subsets", low=0)
        if s is not None:
            s = check_int(s, "s", low=0)
        Hd = check_array(H.toarray() if hasattr(H, "toarray") else H, "H", ndim=2)
        if not np.all((Hd == 0) | (Hd == 1)):
            raise ValueError("H must be a 0/1 parity-check matrix (checks x N)")
        N = Hd.shape[1]
        _, R, piv = scipy.linalg.qr(Hd, pivoting=True, mode="economic")
        diag = np.abs(np.diag(R))
        rank = int(np.sum(diag > max(Hd.shape) * _EPS * (diag[0] if diag.size else 0) * 1e3))
        K = N - rank
        if K < 1:
            raise ValueError(f"H has full column rank {rank} = N: the code is {{0}} (K = 0)")
        P, I_ = np.sort(piv[:rank]), np.sort(piv[rank:])
        G = np.zeros((K, N))
        G[:, I_] = np.eye(K)
        # H_P y_P + H_I y_I = 0 with H_P of full column rank
        G[:, P] = -np.linalg.lstsq(Hd[:, P], Hd[:, I_], rcond=None)[0].T
        self.H = Hd
        self._ldpc = ldpc
        self._info = I_
        self._check_vars = [np.flatnonzero(row) for row in Hd]
        super().__init__(n, k, G, delta=1, name=f"CommFR-GC LDPC [{N}, {K}]")
        self.s = self._stopping_tolerance(max_subsets) if s is None else int(s)
        if not 0 <= self.s < N:
            raise ValueError(f"s must be in [0, N) for an LDPC group of N={N}, got {s}")
        self.delta = None  # minimum distance not computed; s is the peeling guarantee

    @property
    def min_survivors(self) -> int:
        """``p K``: peeling may decode beyond s (Prop. 2), each group needs K survivors.

        Sets of more than s stragglers are accepted and decoded when peeling
        succeeds; ``decode`` raises ValueError when it stalls.
        """
        return self.groups * self.K

    def _stopping_tolerance(self, max_subsets: int) -> int:
        N = self.N
        e, checked = 0, 0
        while e + 1 < N:
            checked += math.comb(N, e + 1)
            if checked > max_subsets:
                break
            ok = True
            for S in itertools.combinations(range(N), e + 1):
                er = np.zeros(N, dtype=bool)
                er[list(S)] = True
                if self._ldpc.peel(self.H, er).any():
                    ok = False
                    break
            if not ok:
                break
            e += 1
        return e

    def _group_coefficients(self, cols: np.ndarray) -> np.ndarray:
        N, t = self.N, cols.size
        coef = np.zeros((N, t))
        known = np.zeros(N, dtype=bool)
        coef[cols, np.arange(t)] = 1.0
        known[cols] = True
        progress = True
        while progress and not known.all():
            progress = False
            for row, vars_ in zip(self.H, self._check_vars):
                unk = vars_[~known[vars_]]
                if unk.size == 1:
                    e = unk[0]
                    others = vars_[vars_ != e]
                    coef[e] = -(row[others] @ coef[others]) / row[e]
                    known[e] = True
                    progress = True
        left = self._ldpc.peel(self.H, ~np.isin(np.arange(N), cols))
        if not np.array_equal(left, ~known):
            raise RuntimeError("peeling value recovery disagrees with gctheory.ldpc.peel")
        coef[~known] = 0.0  # unresolved: the residual reports the failure
        return coef[self._info].T

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Peeling: one pass over the edges of H per group and chunk (linear in n, Prop. 2)."""
        r = -(-check_positive_int("d", d) // self.K)
        edges = int(self.H.sum())
        return DecodingCost(
            setup=self.groups * edges,
            apply=self.groups * (edges + self.K) * r,
            method="peeling",
        )
