"""What SR-SGC and M-SGC share: the code's parameters (:class:`SequentialCode`) and the
master's state machine over rounds (:class:`SequentialMaster`).

Private to :mod:`gctheory.codes.sequential` (import the names from there).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory.codes.sequential._model import BurstyStragglerModel
from gctheory.codes.sequential._params import _int, check_sgc_params

__all__ = ["SequentialCode", "SequentialMaster"]


def _check_code(code: Any) -> Any:
    """``code`` must be a sequential code (an int came back as AttributeError 'n')."""
    if not isinstance(code, SequentialCode):
        raise ValueError(
            f"code must be a sequential code (SRSGC or MSGC), got {type(code).__name__}"
        )
    return code


# ----------------------------------------------------------------------------- masters
class SequentialMaster:
    """State of the master of a sequential code over ``jobs`` jobs (rounds ``jobs + T``).

    ``assignment(t)`` is the task of every worker in every slot of round
    ``t = len(self)``: an (n, slots) object array of labels (``None`` = idle).
    ``push(stragglers)`` records round ``t`` (stragglers deliver nothing);
    ``pop()`` undoes the last round. ``decodable(job)`` says whether job's
    gradient can be decoded from what arrived so far.

    Parameters
    ----------
    code : SequentialCode
        The code whose master this is.
    jobs : int
        Jobs to run (rounds ``jobs + T``).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes.sequential import SRSGC
    >>> master = SRSGC(3, 1, 3, 2).master(jobs=2)
    >>> labels = master.push(np.array([True, False, False]))  # worker 0 straggles in round 0
    >>> labels.shape, len(master)
    ((3, 1), 1)
    """

    def __init__(self, code: SequentialCode, jobs: int) -> None:
        self.code = _check_code(code)
        self.n = code.n
        self.jobs = _int("jobs", jobs, 1)
        self.rounds = self.jobs + code.T
        self.stragglers: list[np.ndarray] = []
        self._assigned: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self.stragglers)

    # subclasses: _assign(t), _record(labels, alive, sign), decodable(job)
    def _assign(self, t: int) -> np.ndarray:
        raise NotImplementedError

    def _record(self, labels: np.ndarray, alive: np.ndarray, sign: int) -> None:
        raise NotImplementedError

    def decodable(self, job: int) -> bool:
        """Whether ``job``'s gradient can be decoded from what arrived so far."""
        raise NotImplementedError

    def assignment(self) -> np.ndarray:
        """Labels (n, slots) of round ``len(self)`` given what arrived before."""
        return self._assign(len(self))

    def push(self, stragglers: Any) -> np.ndarray:
        """Record the next round with ``stragglers`` (n,) booleans; returns its assignment."""
        t = len(self)
        if t >= self.rounds:
            raise ValueError(f"all {self.rounds} rounds (jobs + T) are already recorded")
        st = np.asarray(stragglers, dtype=bool).reshape(self.n)
        labels = self._assign(t)
        self._record(labels, ~st, +1)
        self.stragglers.append(st)
        self._assigned.append(labels)
        return labels

    def pop(self) -> None:
        """Undo the last :meth:`push`."""
        st = self.stragglers.pop()
        labels = self._assigned.pop()
        self._record(labels, ~st, -1)

    def idle_round(self) -> bool:
        """True when the next round has no task at all (every job already decoded)."""
        a = self._assign(len(self))
        return all(x is None for x in a.ravel())

    def decoded_by(self, job: int) -> bool:
        """Whether ``job`` is decodable now (call after its deadline round was pushed)."""
        return self.decodable(job)

    # numeric layer
    def encode_round(self, labels: np.ndarray, partials: dict[int, np.ndarray]) -> dict:
        """Transmissions of every (worker, slot) with a task: ``{(i, slot): (label, vector)}``.

        ``partials[job]`` holds that job's partition gradients (k, d) with
        ``k = code.partitions``.
        """
        out = {}
        for i in range(self.n):
            for m in range(labels.shape[1]):
                lab = labels[i, m]
                if lab is not None and lab[0] in partials:
                    out[(i, m)] = (lab, self.code._transmit(i, lab, partials[lab[0]]))
        return out

    def decode_job(self, job: int, received: Sequence[tuple[tuple, np.ndarray]]) -> np.ndarray:
        """The gradient sum of ``job`` from received ``(label, vector)`` pairs (any order)."""
        return self.code._decode(job, [(lab, v) for lab, v in received if lab[0] == job])


class SequentialCode:
    """Common part of SR-SGC and M-SGC: parameters, load, delay, model.

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
    >>> from gctheory.codes.sequential import SRSGC
    >>> code = SRSGC(4, 1, 3, 2)  # any SequentialCode
    >>> code.params, code.s, code.T, code.load
    ((1, 3, 2), 1, 1, Fraction(1, 2))
    """

    name = "sequential"
    scheme_key = "model"
    #: decoding delay in rounds, set by each scheme
    T: int
    #: task slots per worker and round (M-SGC), groups of the second part (M-SGC)
    slots: int
    groups: int
    #: the inner cyclic-MDS code, made on first use (:meth:`_cyclic_mds`)
    _gc: Any

    def __init__(self, n: int, B: int, W: int, lam: int) -> None:
        check_sgc_params(n, B, W, lam, self.scheme_key)
        self.n, self.B, self.W, self.lam = int(n), int(B), int(W), int(lam)
        self.model = BurstyStragglerModel(self.n, self.B, self.W, self.lam)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, B={self.B}, W={self.W}, lambda={self.lam})"

    @property
    def params(self) -> tuple[int, int, int]:
        return (self.B, self.W, self.lam)

    def master(self, jobs: int) -> SequentialMaster:
        raise NotImplementedError

    def construction_load(self) -> Fraction:
        """Data a worker processes in a full round, counted from the construction itself."""
        raise NotImplementedError

    def _cyclic_mds(self, s: int) -> Any:
        """The inner cyclic-MDS code (n workers, ``s`` stragglers) of the scheme, made once
        (``self._gc``). Every job is decoded by the same factorised decoder
        (``decode_direct_sets = 0``), whatever was decoded before: a resumed run and its
        replay agree bit for bit."""
        if self._gc is None:
            from gctheory.codes.tandon import CyclicMDSCode

            self._gc = CyclicMDSCode(self.n, s, rng=0)
            self._gc.decode_direct_sets = 0
        return self._gc

    def _transmit(self, i: int, lab: tuple, partials: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _decode(self, job: int, items: list) -> np.ndarray:
        raise NotImplementedError
