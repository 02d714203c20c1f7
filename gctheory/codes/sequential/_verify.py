"""Exhaustive checks of a sequential code: every admissible straggler pattern decodes
(:func:`verify_sequential`), and a pattern outside the model that breaks decoding
(:func:`find_failure`, the negative control).

Private to :mod:`gctheory.codes.sequential` (import the names from there).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gctheory.codes.sequential._base import SequentialCode, _check_code
from gctheory.codes.sequential._params import _int

__all__ = ["SequentialVerification", "verify_sequential", "find_failure"]


#: most rounds (jobs + T) an exhaustive walk covers: the admissible patterns grow about
#: 13-fold a job (M-SGC(3, 1, 2, 2): 271 at 3 jobs, 48,727 at 7), and the walk recurses
#: once a round
MAX_ROUNDS = 24
#: most straggler rows the walk may try in all (a few minutes of work); beyond, it stops
#: with a ValueError saying how far it got
MAX_NODES = 2 * 10**7


def _check_rounds(code: SequentialCode, jobs: int) -> None:
    if jobs + code.T > MAX_ROUNDS:
        raise ValueError(
            f"jobs: an exhaustive walk covers jobs + T <= {MAX_ROUNDS} rounds (the patterns "
            f"grow exponentially with the rounds); {code.name} with n = {code.n}, "
            f"(B, W, lambda) = {code.params} has T = {code.T}, "
            f"so jobs must be <= {MAX_ROUNDS - code.T}"
            + ("" if MAX_ROUNDS - code.T >= 1 else " (none: T alone is too large)")
            + f", got {jobs}"
        )


# ----------------------------------------------------------------------------- verification
@dataclass
class SequentialVerification:
    """Result of :func:`verify_sequential`.

    Parameters
    ----------
    scheme : str
        ``"SR-SGC"`` or ``"M-SGC"``.
    params : tuple of int
        ``(B, W, lambda)``.
    jobs : int
        Jobs decoded.
    rounds : int
        Rounds simulated.
    patterns : int
        Admissible straggler patterns walked.
    failures : int
        Patterns on which a job missed its deadline.
    first_failure : numpy.ndarray or None
        One failing pattern.
    max_delay : int
        Largest decode round minus job.
    delays : dict
        Count of each observed delay.

    Examples
    --------
    >>> from gctheory.codes.sequential import SRSGC, verify_sequential
    >>> v = verify_sequential(SRSGC(3, 1, 3, 2), jobs=2)
    >>> v.ok, v.patterns, v.max_delay
    (True, 37, 1)
    """

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
    tried = [0]

    def rec(r: int):
        if r == rounds:
            yield hist.copy(), True, decoded_at.copy()
            return
        for row in rows:
            tried[0] += 1
            if tried[0] > MAX_NODES:
                raise ValueError(
                    f"jobs: the exhaustive walk of {code.name} (n = {code.n}) over {jobs} jobs "
                    f"tried {MAX_NODES} straggler rows without finishing; ask for fewer jobs"
                )
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

    Parameters
    ----------
    code : SequentialCode
        An SR-SGC or M-SGC code.
    jobs : int
        Jobs to decode (keep small: the walk is exhaustive).

    Returns
    -------
    SequentialVerification
        Patterns walked, failures and delays.

    Examples
    --------
    >>> from gctheory.codes.sequential import MSGC, verify_sequential
    >>> v = verify_sequential(MSGC(3, 1, 3, 2), jobs=2)
    >>> v.ok, v.failures
    (True, 0)
    """
    _check_code(code)
    jobs = _int("jobs", jobs, 1)
    if code.n > 8:
        raise ValueError(
            f"n must be <= 8 for an exhaustive check (2^n straggler sets a round), got {code.n}"
        )
    _check_rounds(code, jobs)
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

    Parameters
    ----------
    code : SequentialCode
        An SR-SGC or M-SGC code.
    jobs : int
        Jobs to decode.

    Returns
    -------
    tuple of (numpy.ndarray, str) or None
        A failing pattern outside the model, with the model's reason; None if none.

    Examples
    --------
    >>> from gctheory.codes.sequential import SRSGC, find_failure
    >>> pattern, reason = find_failure(SRSGC(3, 1, 3, 2), jobs=1)
    >>> pattern.astype(int).tolist()  # rounds x workers, True = straggler
    [[1, 1, 0], [1, 0, 0]]
    >>> reason.split(":")[0]
    'worker 0 straggles in rounds 0 and 1'
    """
    _check_code(code)
    jobs = _int("jobs", jobs, 1)
    _check_rounds(code, jobs)
    for pat, ok, _ in _walk(code, jobs, False, True):
        if not ok:
            why = code.model.violation(pat)
            return pat, why or "inside the model (the scheme is wrong)"
    return None
