"""M-SGC, multiplexed sequential gradient coding (Krishnan, Ebrahimi & Khisti 2023,
Section 3.2): :class:`MSGC` and its master.

Private to :mod:`gctheory.codes.sequential` (import the names from there).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from gctheory.codes.sequential._base import SequentialCode, SequentialMaster
from gctheory.codes.sequential._params import m_sgc_load

__all__ = ["MSGC"]


# -- M-SGC
class _MMaster(SequentialMaster):
    def __init__(self, code: MSGC, jobs: int) -> None:
        super().__init__(code, jobs)
        D1 = code.W - 1
        self.d1 = np.zeros((self.rounds, self.n, D1), bool)  # d1[job, worker, chunk]
        self.d2 = np.zeros((self.rounds, code.B, self.n), bool)  # d2[job, group, worker]

    def _assign(self, t: int) -> np.ndarray:
        c = self.code
        D1 = c.W - 1
        lab = np.empty((self.n, c.slots), dtype=object)
        for m in range(c.slots):
            j = t - m
            if j < 0 or j >= self.jobs:
                continue
            for i in range(self.n):
                if m < D1:
                    lab[i, m] = (j, "D1", m)
                else:
                    miss = np.flatnonzero(~self.d1[j, i])
                    if miss.size:
                        lab[i, m] = (j, "D1", int(miss[0]))
                    elif c.groups:
                        lab[i, m] = (j, "D2", m - D1)
        return lab

    def _record(self, labels: np.ndarray, alive: np.ndarray, sign: int) -> None:
        for i in np.flatnonzero(alive):
            for lab in labels[i]:
                if lab is None:
                    continue
                if lab[1] == "D1":
                    self.d1[lab[0], i, lab[2]] = sign > 0
                else:
                    self.d2[lab[0], lab[2], i] = sign > 0

    def decodable(self, job: int) -> bool:
        if not self.d1[job].all():
            return False
        need = self.n - self.code.lam
        return bool((self.d2[job].sum(axis=1) >= need).all()) if self.code.groups else True

    def encode_round(self, labels: np.ndarray, partials: dict[int, np.ndarray]) -> dict:
        out = {}
        for i in range(self.n):
            for m in range(labels.shape[1]):
                lab = labels[i, m]
                if lab is not None and lab[0] in partials:
                    out[(i, m)] = ((*lab, i), self.code._transmit(i, lab, partials[lab[0]]))
        return out


class MSGC(SequentialCode):
    """Multiplexed SGC (Krishnan et al., ICLR 2023): D1 repeated across rounds, D2 coded.

    Parameters
    ----------
    n : int
        Workers.
    B : int
        Burst length of the straggler model.
    W : int
        Window length.
    lam : int
        Stragglers allowed per round inside a burst.

    Examples
    --------
    >>> from gctheory.codes.sequential import MSGC, verify_sequential
    >>> code = MSGC(3, 1, 3, 2)
    >>> code, code.load
    (MSGC(n=3, B=1, W=3, lambda=2), Fraction(3, 7))
    >>> verify_sequential(code, jobs=2).ok
    True
    """

    name = "M-SGC"
    scheme_key = "m-sgc"

    def __init__(self, n: int, B: int, W: int, lam: int) -> None:
        super().__init__(n, B, W, lam)
        self.T = self.W - 2 + self.B
        self.slots = self.W - 1 + self.B
        self.groups = self.B if self.lam < self.n else 0
        self.load = m_sgc_load(self.n, self.B, self.W, self.lam)
        # partitions: n (W - 1) D1 chunks, then groups x n D2 partitions
        self.partitions = self.n * (self.W - 1) + self.groups * self.n
        self._gc: Any = None

    def master(self, jobs: int) -> SequentialMaster:
        return _MMaster(self, jobs)

    def _sizes(self) -> tuple[Fraction, Fraction]:
        """Data fraction of one D1 chunk and one D2 partition, from equal minitasks."""
        D1 = self.W - 1
        if not self.groups:
            return Fraction(1, self.n * D1), Fraction(0)
        # minitask = c1 = (lambda + 1) c2 ; n D1 c1 + B n c2 = 1
        c2 = Fraction(1, self.n * D1 * (self.lam + 1) + self.n * self.B)
        return (self.lam + 1) * c2, c2

    def construction_load(self) -> Fraction:
        """Sum over a worker's W - 1 + B slots of the data each slot's task touches."""
        c1, c2 = self._sizes()
        # slots 0..W-2 hold a D1 chunk each; the B slots after them a D2 task of lambda + 1
        # partitions of its group (cyclic placement), or a D1 chunk when D2 is empty:
        # counted by kind, not slot by slot (W may be huge)
        if self.groups:
            total = (self.W - 1) * c1 + self.B * (self.lam + 1) * c2
        else:
            total = self.slots * c1
        job = self.n * (self.W - 1) * c1 + self.groups * self.n * c2
        assert job == 1
        return total

    def _code(self) -> Any:
        return self._cyclic_mds(self.lam)

    def _transmit(self, i: int, lab: tuple, partials: np.ndarray) -> np.ndarray:
        D1n = self.n * (self.W - 1)
        if lab[1] == "D1":  # worker i's chunk number lab[2]
            return np.asarray(partials[i * (self.W - 1) + lab[2]], dtype=float)
        g = lab[2]
        block = partials[D1n + g * self.n : D1n + (g + 1) * self.n]
        return self._code().encode(block)[i]

    def _decode(self, job: int, items: list) -> np.ndarray:
        D1 = self.W - 1
        chunks: dict[tuple[int, int], np.ndarray] = {}
        groups: dict[int, dict[int, np.ndarray]] = {}
        for lab, v in items:
            i = lab[3]
            if lab[1] == "D1":
                chunks[(i, lab[2])] = v
            else:
                groups.setdefault(lab[2], {})[i] = v
        if len(chunks) < self.n * D1:
            raise ValueError(f"job {job}: only {len(chunks)} of {self.n * D1} D1 chunks arrived")
        total = sum(chunks.values())
        for g in range(self.groups):
            got = groups.get(g, {})
            surv = sorted(got)
            total = total + self._code().decode(surv, np.array([got[i] for i in surv]))
        return np.asarray(total)
