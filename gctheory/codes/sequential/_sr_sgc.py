"""SR-SGC, selective-repeat sequential gradient coding (Krishnan, Ebrahimi & Khisti
2023, Section 3.1): :class:`SRSGC` and its master.

Private to :mod:`gctheory.codes.sequential` (import the names from there).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from gctheory.codes.sequential._base import SequentialCode, SequentialMaster
from gctheory.codes.sequential._params import sr_sgc_load, sr_sgc_s

__all__ = ["SRSGC"]


# -- SR-SGC
class _SRMaster(SequentialMaster):
    def __init__(self, code: SRSGC, jobs: int, prefer: str) -> None:
        super().__init__(code, jobs)
        self.s = code.s
        self.got = np.zeros((self.rounds, self.n), bool)  # got[job, worker]
        self.prefer = prefer

    def _assign(self, t: int) -> np.ndarray:
        lab = np.empty((self.n, 1), dtype=object)
        for i in range(self.n):
            lab[i, 0] = (t, 0) if t < self.jobs else None
        j = t - self.code.B
        if j >= 0:
            missing = np.flatnonzero(~self.got[j])
            need = missing.size - self.s
            if need > 0:
                if self.prefer == "stragglers":  # the job's own stragglers first
                    own = self.stragglers[j][missing]
                    missing = np.concatenate([missing[own], missing[~own]])
                for i in missing[:need]:
                    lab[i, 0] = (j, 1)
        return lab

    def _record(self, labels: np.ndarray, alive: np.ndarray, sign: int) -> None:
        for i in np.flatnonzero(alive):
            lab = labels[i, 0]
            if lab is not None:
                self.got[lab[0], i] = sign > 0

    def decodable(self, job: int) -> bool:
        return int(self.got[job].sum()) >= self.n - self.s


class SRSGC(SequentialCode):
    """Selective-repeat SGC (Krishnan, Ebrahimi and Khisti, ICLR 2023): an (n, s) code per round.

    ``prefer``: which of job ``t``'s missing workers repeat in round ``t + B``:
    ``"stragglers"`` (those that straggled in round ``t`` first, then by
    index; default) or ``"index"`` (by index, as the authors' scripts do).

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
    prefer : {"stragglers", "index"}
        Which missing workers repeat a job.

    Examples
    --------
    >>> from gctheory.codes.sequential import SRSGC, verify_sequential
    >>> code = SRSGC(3, 1, 3, 2)
    >>> code, code.load
    (SRSGC(n=3, B=1, W=3, lambda=2), Fraction(2, 3))
    >>> verify_sequential(code, jobs=2).ok
    True
    """

    name = "SR-SGC"
    scheme_key = "sr-sgc"

    def __init__(self, n: int, B: int, W: int, lam: int, *, prefer: str = "stragglers") -> None:
        super().__init__(n, B, W, lam)
        if prefer not in ("stragglers", "index"):
            raise ValueError(f"prefer must be 'stragglers' or 'index', got {prefer!r}")
        self.prefer = prefer
        self.s = sr_sgc_s(self.B, self.W, self.lam)  # <= n - 1: checked by check_sgc_params
        self.T = self.B
        self.load = sr_sgc_load(self.n, self.B, self.W, self.lam)
        self.partitions = self.n
        self._gc: Any = None

    def master(self, jobs: int) -> SequentialMaster:
        return _SRMaster(self, jobs, self.prefer)

    def construction_load(self) -> Fraction:
        from gctheory.codes.tandon import cyclic_support

        sup = cyclic_support(self.n, self.s + 1)
        return Fraction(int(sup.sum(axis=1).max()), self.partitions)

    def _code(self) -> Any:
        return self._cyclic_mds(self.s)

    def _transmit(self, i: int, lab: tuple, partials: np.ndarray) -> np.ndarray:
        return self._code().encode(partials)[i]

    def _decode(self, job: int, items: list) -> np.ndarray:
        # a repeat carries the same transmission as the original task: keep one per worker
        workers: dict[int, np.ndarray] = {}
        for lab, v in items:
            workers.setdefault(lab[2], v)
        surv = sorted(workers)
        return self._code().decode(surv, np.array([workers[i] for i in surv]))


# SR-SGC labels carry the worker too (a repeat is the same transmission)
def _sr_encode_round(self: SequentialMaster, labels: np.ndarray, partials: dict) -> dict:
    out = {}
    for i in range(self.n):
        lab = labels[i, 0]
        if lab is not None and lab[0] in partials:
            out[(i, 0)] = ((lab[0], lab[1], i), self.code._transmit(i, lab, partials[lab[0]]))
    return out


_SRMaster.encode_round = _sr_encode_round  # type: ignore[method-assign]
