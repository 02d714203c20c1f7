"""Sequential gradient coding: SR-SGC and M-SGC under the (B, W, lambda) straggler model.

Krishnan, Ebrahimi and Khisti, "Sequential gradient coding for straggler
mitigation", ICLR 2023. Jobs (gradients) ``g(0), g(1), ...`` arrive one per
round; job ``t`` starts in round ``t`` and must be decoded by the end of round
``t + T``. Coding runs across workers *and* rounds.

**Straggler model** (:class:`BurstyStragglerModel`): in every window of ``W``
consecutive rounds, (i) at most ``lambda`` distinct workers straggle, and (ii)
the rounds in which one worker straggles lie within ``B`` consecutive rounds
(a burst of length at most ``B``). Windows that start before round 0 are cut
at round 0.

**SR-SGC** (selective-repeat SGC, :class:`SRSGC`): every round each worker
computes its part of the current job under an ``(n, s)`` gradient code,
``s = ceil(B lambda / (W - 1 + B))``, ``B`` dividing ``W - 1``. If more than
``s`` transmissions of job ``t`` are missing after round ``t``, in round
``t + B`` that many workers minus ``s`` that did not deliver job ``t`` repeat
their job-``t`` task instead of job ``t + B``'s; job ``t`` decodes from rounds
``t`` and ``t + B``. Delay ``T = B``, load ``(s + 1) / n``.

**M-SGC** (multiplexed SGC, :class:`MSGC`): job ``t`` is split into ``D1``
(``n (W - 1)`` uncoded chunks, worker ``i``'s ``W - 1`` chunks processed in
rounds ``t .. t + W - 2``) and ``D2`` (``B`` groups, each under an
``(n, lambda)`` gradient code, group ``b`` in round ``t + W - 1 + b``). Every
round a worker does ``W - 1 + B`` equal minitasks, one per job in flight; a
worker that missed some of its D1 chunks redoes them in its D2 slots (one per
slot) before doing D2 work. Delay ``T = W - 2 + B``; load
``(lambda + 1)(W - 1 + B) / (n (B + (W - 1)(lambda + 1)))``
(``(W - 1 + B) / (n (W - 1))`` when ``lambda = n``: D2 is empty).

Both schemes are *masters*: :meth:`SequentialCode.master` returns a state
machine that assigns each round's tasks from what arrived before
(:meth:`SequentialMaster.assignment`), records a round's stragglers
(:meth:`~SequentialMaster.push`, undone by :meth:`~SequentialMaster.pop`) and
says which jobs decode. The numeric layer (:meth:`SequentialMaster.encode_round`,
:meth:`SequentialMaster.decode_job`) computes real transmissions with
:class:`gctheory.codes.CyclicMDSCode` and decodes the gradient sum of job ``t``
from whatever arrived. :func:`verify_sequential` checks every admissible
straggler pattern (exhaustive, small sizes); :func:`find_failure` searches the
patterns *outside* the model for one that breaks decoding (negative control).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "BurstyStragglerModel",
    "SequentialCode",
    "SequentialMaster",
    "SRSGC",
    "MSGC",
    "SequentialVerification",
    "sr_sgc_s",
    "sr_sgc_load",
    "m_sgc_load",
    "check_sgc_params",
    "verify_sequential",
    "find_failure",
]


def _int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_sgc_params(n: int, B: int, W: int, lam: int, scheme: str = "model") -> None:
    """Raise ``ValueError`` naming the parameter and the rule when (n, B, W, lambda) is invalid.

    ``scheme``: ``"model"`` (the straggler model only: n >= 1, B >= 1, W >= 2,
    B <= W, 1 <= lambda <= n), ``"sr-sgc"`` (also B <= W - 1 and B divides
    W - 1) or ``"m-sgc"`` (also B <= W - 1).
    """
    _int("n", n, 1)
    _int("B", B, 1)
    if isinstance(W, bool) or not isinstance(W, (int, np.integer)) or W < 2:
        raise ValueError(f"W must be an integer >= 2 (a window of at least two rounds), got {W!r}")
    _int("lambda", lam, 1)
    if lam > n:
        raise ValueError(f"lambda must satisfy lambda <= n (= {n}): got lambda = {lam}")
    if B > W:
        raise ValueError(f"B must satisfy B <= W (a burst fits in its window): B={B}, W={W}")
    if scheme == "model":
        return
    if scheme not in ("sr-sgc", "m-sgc"):
        raise ValueError(f"scheme must be 'model', 'sr-sgc' or 'm-sgc', got {scheme!r}")
    if B > W - 1:
        raise ValueError(
            f"{scheme} needs B <= W - 1 (no scheme for B = W = {W}: "
            "the window holds only one burst)"
        )
    if scheme == "sr-sgc" and (W - 1) % B:
        raise ValueError(f"sr-sgc needs B to divide W - 1: B={B}, W - 1={W - 1}")


def _check_code(code: Any) -> Any:
    """``code`` must be a sequential code (an int came back as AttributeError 'n')."""
    if not isinstance(code, SequentialCode):
        raise ValueError(
            f"code must be a sequential code (SRSGC or MSGC), got {type(code).__name__}"
        )
    return code


def sr_sgc_s(B: int, W: int, lam: int) -> int:
    """SR-SGC's per-round tolerance ``s = ceil(B lambda / (W - 1 + B))``."""
    # B=True, lam=nan or an array B came back as numbers or raised ZeroDivisionError
    # (issue 30's refusal fuzzer)
    B = _int("B", B, 1)
    if isinstance(W, bool) or not isinstance(W, (int, np.integer)) or W < 2:
        raise ValueError(f"W must be an integer >= 2 (a window of at least two rounds), got {W!r}")
    lam = _int("lam (lambda)", lam, 1)
    return -(-(B * lam) // (W - 1 + B))


def sr_sgc_load(n: int, B: int, W: int, lam: int) -> Fraction:
    """Normalised load of SR-SGC, ``(s + 1) / n``."""
    check_sgc_params(n, B, W, lam, "model")
    return Fraction(sr_sgc_s(B, W, lam) + 1, n)


def m_sgc_load(n: int, B: int, W: int, lam: int) -> Fraction:
    """Normalised load of M-SGC (paper formula; D2 empty when lambda = n)."""
    check_sgc_params(n, B, W, lam, "model")  # an array B raised TypeError (issue 30 fuzzer)
    if lam == n:
        return Fraction(W - 1 + B, n * (W - 1))
    return Fraction((lam + 1) * (W - 1 + B), n * (B + (W - 1) * (lam + 1)))


# ----------------------------------------------------------------------------- model
@dataclass(frozen=True)
class BurstyStragglerModel:
    """The (B, W, lambda)-bursty straggler model for ``n`` workers."""

    n: int
    B: int
    W: int
    lam: int

    def __post_init__(self) -> None:
        check_sgc_params(self.n, self.B, self.W, self.lam, "model")

    def round_violation(self, history: np.ndarray, row: np.ndarray) -> str | None:
        """Why appending straggler set ``row`` (n,) after ``history`` (r, n) leaves the model.

        Only windows ending at the new round are checked (earlier ones were
        checked when their last round was added). ``None`` when it stays inside.
        """
        r = len(history)
        lo = max(0, r - self.W + 1)
        row = np.asarray(row, dtype=bool)
        win = np.asarray(history[lo:r], dtype=bool).reshape(-1, self.n)
        distinct = win.any(axis=0) | row
        if distinct.sum() > self.lam:
            return (
                f"{int(distinct.sum())} distinct stragglers in rounds {lo}..{r} "
                f"(a window of W = {self.W}) > lambda = {self.lam}"
            )
        old = win[: max(0, r - self.B + 1 - lo)].any(axis=0) & row
        if old.any():
            i = int(np.flatnonzero(old)[0])
            first = lo + int(np.flatnonzero(win[:, i])[0])
            return (
                f"worker {i} straggles in rounds {first} and {r}: {r - first + 1} > B = {self.B} "
                f"consecutive rounds within a window of W = {self.W}"
            )
        return None

    def violation(self, pattern: Any) -> str | None:
        """The first reason the pattern (rounds, n) of booleans (True = straggler) is outside."""
        P = np.asarray(pattern, dtype=bool)
        if P.ndim != 2 or P.shape[1] != self.n:
            raise ValueError(f"pattern must have shape (rounds, n={self.n}), got {P.shape}")
        for r in range(len(P)):
            why = self.round_violation(P[:r], P[r])
            if why:
                return why
        return None

    def admissible(self, pattern: Any) -> bool:
        """Whether the pattern lies in the (B, W, lambda) model."""
        return self.violation(pattern) is None

    def patterns(self, rounds: int) -> Iterator[np.ndarray]:
        """Every admissible pattern over ``rounds`` rounds (depth-first; small sizes only)."""
        rows = [np.array([(m >> i) & 1 for i in range(self.n)], bool) for m in range(2**self.n)]
        hist = np.zeros((rounds, self.n), bool)

        def rec(r: int) -> Iterator[np.ndarray]:
            if r == rounds:
                yield hist.copy()
                return
            for row in rows:
                if self.round_violation(hist[:r], row) is None:
                    hist[r] = row
                    yield from rec(r + 1)
            hist[r] = False

        yield from rec(0)


# ----------------------------------------------------------------------------- masters
class SequentialMaster:
    """State of the master of a sequential code over ``jobs`` jobs (rounds ``jobs + T``).

    ``assignment(t)`` is the task of every worker in every slot of round
    ``t = len(self)``: an (n, slots) object array of labels (``None`` = idle).
    ``push(stragglers)`` records round ``t`` (stragglers deliver nothing);
    ``pop()`` undoes the last round. ``decodable(job)`` says whether job's
    gradient can be decoded from what arrived so far.
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
    """Common part of SR-SGC and M-SGC: parameters, load, delay, model."""

    name = "sequential"
    scheme_key = "model"
    #: decoding delay in rounds, set by each scheme
    T: int
    #: task slots per worker and round (M-SGC), groups of the second part (M-SGC)
    slots: int
    groups: int

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

    def _transmit(self, i: int, lab: tuple, partials: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _decode(self, job: int, items: list) -> np.ndarray:
        raise NotImplementedError


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
    """Selective-repeat SGC: an (n, s) gradient code per round plus selective repetition.

    ``prefer``: which of job ``t``'s missing workers repeat in round ``t + B``:
    ``"stragglers"`` (those that straggled in round ``t`` first, then by
    index; default) or ``"index"`` (by index, as the authors' scripts do).
    """

    name = "SR-SGC"
    scheme_key = "sr-sgc"

    def __init__(self, n: int, B: int, W: int, lam: int, *, prefer: str = "stragglers") -> None:
        super().__init__(n, B, W, lam)
        if prefer not in ("stragglers", "index"):
            raise ValueError(f"prefer must be 'stragglers' or 'index', got {prefer!r}")
        self.prefer = prefer
        self.s = sr_sgc_s(self.B, self.W, self.lam)
        if self.s > self.n - 1:
            raise ValueError(f"sr-sgc needs s = ceil(B lambda/(W-1+B)) <= n - 1, got s = {self.s}")
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
        if self._gc is None:
            from gctheory.codes.tandon import CyclicMDSCode

            self._gc = CyclicMDSCode(self.n, self.s, rng=0)
        return self._gc

    def _transmit(self, i: int, lab: tuple, partials: np.ndarray) -> np.ndarray:
        return self._code().encode(partials)[i]

    def _decode(self, job: int, items: list) -> np.ndarray:
        # a repeat carries the same transmission as the original task: keep one per worker
        workers: dict[int, np.ndarray] = {}
        for lab, v in items:
            workers.setdefault(lab[2], v)
        surv = sorted(workers)
        return self._code().decode(surv, np.array([workers[i] for i in surv]))


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
    """Multiplexed SGC: D1 by repetition across rounds, D2 by an (n, lambda) code, multiplexed."""

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
        total = Fraction(0)
        for m in range(self.slots):
            if m < self.W - 1 or not self.groups:
                total += c1
            else:  # a D2 task: lambda + 1 partitions of its group (cyclic placement)
                total += (self.lam + 1) * c2
        job = self.n * (self.W - 1) * c1 + self.groups * self.n * c2
        assert job == 1
        return total

    def _code(self) -> Any:
        if self._gc is None:
            from gctheory.codes.tandon import CyclicMDSCode

            self._gc = CyclicMDSCode(self.n, self.lam, rng=0)
        return self._gc

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


# SR-SGC labels carry the worker too (a repeat is the same transmission)
def _sr_encode_round(self: SequentialMaster, labels: np.ndarray, partials: dict) -> dict:
    out = {}
    for i in range(self.n):
        lab = labels[i, 0]
        if lab is not None and lab[0] in partials:
            out[(i, 0)] = ((lab[0], lab[1], i), self.code._transmit(i, lab, partials[lab[0]]))
    return out


_SRMaster.encode_round = _sr_encode_round  # type: ignore[method-assign]


# ----------------------------------------------------------------------------- verification
@dataclass
class SequentialVerification:
    """Result of :func:`verify_sequential`."""

    scheme: str
    params: tuple[int, ...]
    jobs: int
    rounds: int
    patterns: int
    failures: int
    first_failure: np.ndarray | None = None
    max_delay: int = 0
    delays: dict[int, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.failures == 0


def _walk(code: SequentialCode, jobs: int, admissible_only: bool, stop_at_failure: bool):
    """Depth-first over straggler patterns; yields (pattern, ok, delays)."""
    n, T = code.n, code.T
    rounds = jobs + T
    rows = [np.array([(m >> i) & 1 for i in range(n)], bool) for m in range(2**n)]
    master = code.master(jobs)
    hist = np.zeros((rounds, n), bool)
    decoded_at = np.full(jobs, -1)

    def rec(r: int):
        if r == rounds:
            yield hist.copy(), True, decoded_at.copy()
            return
        for row in rows:
            if admissible_only and code.model.round_violation(hist[:r], row) is not None:
                continue
            hist[r] = row
            master.push(row)
            newly = [j for j in range(max(0, r - T), min(jobs, r + 1))
                     if decoded_at[j] < 0 and master.decodable(j)]  # fmt: skip
            for j in newly:
                decoded_at[j] = r
            j = r - T
            if 0 <= j < jobs and decoded_at[j] < 0:
                yield hist[: r + 1].copy(), False, decoded_at.copy()
                if stop_at_failure:
                    master.pop()
                    for jj in newly:
                        decoded_at[jj] = -1
                    return
            else:
                yield from rec(r + 1)
            master.pop()
            for jj in newly:
                decoded_at[jj] = -1
        hist[r] = False

    yield from rec(0)


def verify_sequential(code: SequentialCode, jobs: int) -> SequentialVerification:
    """Decode every job by its deadline for *every* admissible pattern over ``jobs + T`` rounds.

    Exhaustive (2^n choices a round, pruned by the model): keep ``n`` and
    ``jobs`` small. Returns the number of patterns, the failures (0 means
    verified) and the largest observed delay (decode round minus job).
    """
    _check_code(code)
    jobs = _int("jobs", jobs, 1)
    if code.n > 8:
        raise ValueError(
            f"n must be <= 8 for an exhaustive check (2^n straggler sets a round), got {code.n}"
        )
    res = SequentialVerification(code.name, code.params, jobs, jobs + code.T, 0, 0)
    for pat, ok, dec in _walk(code, jobs, True, False):
        if not ok:
            res.failures += 1
            if res.first_failure is None:
                res.first_failure = pat
            continue
        res.patterns += 1
        d = dec - np.arange(jobs)
        res.max_delay = max(res.max_delay, int(d.max()))
        for x in d:
            res.delays[int(x)] = res.delays.get(int(x), 0) + 1
    res.patterns += res.failures
    return res


def find_failure(code: SequentialCode, jobs: int) -> tuple[np.ndarray, str] | None:
    """A straggler pattern (outside the model) on which some job misses its deadline.

    Searches every pattern depth-first, stopping at the first failure; returns
    it with the model's reason for rejecting it, or ``None`` if none fails.
    """
    _check_code(code)
    jobs = _int("jobs", jobs, 1)
    for pat, ok, _ in _walk(code, jobs, False, True):
        if not ok:
            why = code.model.violation(pat)
            return pat, why or "inside the model (the scheme is wrong)"
    return None
