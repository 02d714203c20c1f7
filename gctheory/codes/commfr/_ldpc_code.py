"""CommFR with an LDPC outer code, decoded by peeling."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.linalg

from gctheory._validate import check_array, check_int
from gctheory.codes.base import (
    DecodingCost,
    check_positive_int,
)
from gctheory.codes.commfr._code import CommFRCode
from gctheory.codes.commfr._construction import _EPS

__all__ = ["CommFRLDPCCode"]


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
