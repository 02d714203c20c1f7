"""Trace-driven runtime of GC, SR-SGC, M-SGC, no coding and no-wait (Krishnan et al. 2023, Sec. 5).

The measured trace gives, for every round ``t`` and worker ``i``, a time
``d[t, i]`` at the *base load*. A scheme of normalised load ``L`` sees
``d[t, i] + (L - base_load) * base_comp`` (the authors' load scaling: the
computation grows linearly with the data a worker handles).

**Waiting rule.** In every round the master waits until ``(1 + mu)`` times the
fastest worker's time; workers slower than that are the round's stragglers
and the round lasts ``min((1 + mu) min_i d, max_i d)``. If treating them as
stragglers would take the pattern out of what the scheme tolerates (GC: more
than ``s`` stragglers; SR-SGC, M-SGC: outside the (B, W, lambda) model), the
master waits for every worker instead (the round lasts ``max_i d`` and has no
straggler). No coding always waits for everyone; no-wait always stops at
``(1 + mu) min`` (it ignores the stragglers' work; a lower reference).
A run covers ``jobs + T`` rounds; SR-SGC skips a round after the last job
when no repetition is pending (it lasts 0).

**Rules** (``rules=``): ``"paper"`` (default) follows the paper's model;
``"scripts"`` reproduces the authors' public scripts
(``mamaj/Sequential-Gradient-Coding-2``, ``2_find_runtimes/``) exactly. They
differ in four places (see :data:`RULE_DIFFERENCES`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory.codes.sequential import check_sgc_params, m_sgc_load, sr_sgc_s

__all__ = [
    "SCHEMES",
    "RULES",
    "RULE_DIFFERENCES",
    "SchemeRun",
    "scheme_load",
    "scheme_delay",
    "run_scheme",
    "param_grid",
    "search_runtimes",
    "trace_delays",
]

#: The schemes :func:`search_runtimes` compares; ``RULES``: whose parameter grid (the
#: paper's or the authors' scripts'); ``RULE_DIFFERENCES``: how the two grids differ.
SCHEMES = ("GC", "SR-SGC", "M-SGC", "no coding", "no-wait")
RULES = ("paper", "scripts")
RULE_DIFFERENCES = {
    "gc-tolerance": (
        "GC with parameter s: the paper tolerates s stragglers a round (waits when more than s); "
        "the scripts' GradientCoding waits unless fewer than s straggle (tolerates s - 1), and "
        "searches s = 1..n (s = n has load (n+1)/n > 1) instead of 0..n-1"
    ),
    "sr-sgc-exemption": (
        "SR-SGC model check: the scripts leave out of the window's straggler count every past "
        "round with at most s stragglers and no repetition (it was decoded by GC on its own); "
        "the paper's "
        "(B, W, lambda) model counts every straggler, so paper rules wait more often"
    ),
    "sr-sgc-repeat": (
        "SR-SGC: which missing workers repeat job t in round t + B: the scripts take the first by "
        "index; paper rules take job t's own stragglers first (both decode every admissible "
        "pattern; runtimes agree)"
    ),
    "m-sgc-range": (
        "M-SGC search: the scripts require W - 1 + B <= rounds - jobs; the delay is W - 2 + B, so "
        "paper rules also try W - 2 + B = rounds - jobs"
    ),
}


def _check_rules(rules: str) -> str:
    if rules not in RULES:
        raise ValueError(f"rules must be one of {RULES}, got {rules!r}")
    return rules


def scheme_load(scheme: str, n: int, params: tuple[int, ...]) -> Fraction:
    """Normalised load of a scheme (share of a job's data per worker per round).

    Parameters
    ----------
    scheme : {"GC", "SR-SGC", "M-SGC", "no coding", "no-wait"}
        The scheme.
    n : int
        Workers.
    params : tuple of int
        The scheme's parameters (``(s,)`` for GC, ``(B, W, lambda)`` for SGC).

    Returns
    -------
    fractions.Fraction
        Share of a job's data per worker per round.

    Examples
    --------
    >>> from gctheory.sgc import scheme_load
    >>> scheme_load("GC", 4, (1,)), scheme_load("SR-SGC", 4, (1, 3, 2))
    (Fraction(1, 2), Fraction(1, 2))
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (the number of workers) must be an integer >= 1, got {n!r}")
    if scheme == "GC":
        return Fraction(params[0] + 1, n)
    if scheme == "SR-SGC":
        return Fraction(sr_sgc_s(*params) + 1, n)
    if scheme == "M-SGC":
        return m_sgc_load(n, *params)
    if scheme in ("no coding", "no-wait"):
        return Fraction(1, n)
    raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")


def scheme_delay(scheme: str, params: tuple[int, ...]) -> int:
    """Decoding delay T (rounds) of a scheme.

    Parameters
    ----------
    scheme : {"GC", "SR-SGC", "M-SGC", "no coding", "no-wait"}
        The scheme.
    params : tuple of int
        The scheme's parameters.

    Returns
    -------
    int
        Decoding delay ``T`` in rounds.

    Examples
    --------
    >>> from gctheory.sgc import scheme_delay
    >>> scheme_delay("GC", (1,)), scheme_delay("SR-SGC", (1, 3, 2))
    (0, 1)
    """
    if scheme == "SR-SGC":
        return params[0]
    if scheme == "M-SGC":
        return params[1] - 2 + params[0]
    return 0


@dataclass
class SchemeRun:
    """One run over the trace: per-round durations and how many rounds waited for all.

    Parameters
    ----------
    scheme : str
        The scheme.
    params : tuple of int
        Its parameters.
    load : float
        Normalised load.
    durations : numpy.ndarray
        Duration of each round.
    waits : int
        Rounds that waited for every worker.

    Examples
    --------
    >>> from gctheory.sgc import SchemeRun, run_scheme
    >>> import numpy as np
    >>> delays = 1.0 + np.random.default_rng(0).exponential(0.2, (4, 12))  # 4 workers, 12 rounds
    >>> run = run_scheme(delays, "GC", (1,), jobs=8)
    >>> run.load, run.waits, round(run.runtime, 4)
    (0.5, 0, 10.8423)
    """

    scheme: str
    params: tuple[int, ...]
    load: float
    durations: np.ndarray
    waits: int

    @property
    def runtime(self) -> float:
        return float(self.durations.sum())


def trace_delays(trace: Any, load: float) -> np.ndarray:
    """The (workers, rounds) matrix of a single-campaign trace at ``load``.

    Parameters
    ----------
    trace : Trace
        A single-campaign trace.
    load : float
        The load to read.

    Returns
    -------
    numpy.ndarray, shape (workers, rounds)
        The measured times.

    Examples
    --------
    >>> from gctheory.sgc import trace_delays
    >>> from gctheory.delays import make_trace
    >>> t = make_trace([0, 0, 1, 1], [0, 1, 0, 1], [1.0] * 4, [0.2, 0.3, 0.25, 0.9])
    >>> trace_delays(t, 1.0).tolist()
    [[0.2, 0.25], [0.3, 0.9]]
    """
    tr = trace.require_single_campaign("the sequential-coding runtime")
    return np.ascontiguousarray(tr.rounds(load).T)


def _round(d: np.ndarray, mu: float) -> tuple[np.ndarray, float, float]:
    wait = d.min() * (1 + mu)
    return d > wait, float(min(wait, d.max())), float(d.max())


class _Model:
    """Incremental (B, W, lambda) check on the effective straggler history."""

    def __init__(self, n: int, R: int, B: int, W: int, lam: int) -> None:
        self.hist = np.zeros((R, n), bool)
        self.B, self.W, self.lam = B, W, lam
        self.exempt = np.zeros(R, bool)

    def ok(self, r: int, row: np.ndarray) -> bool:
        lo = max(0, r - self.W + 1)
        win = self.hist[lo:r][~self.exempt[lo:r]]
        if int((win.any(axis=0) | row).sum()) > self.lam:
            return False
        old = self.hist[lo : max(lo, r - self.B + 1)][~self.exempt[lo : max(lo, r - self.B + 1)]]
        return not (old.any(axis=0) & row).any()


def _run_gc(D: np.ndarray, s: int, jobs: int, mu: float, rules: str) -> tuple[np.ndarray, int]:
    dur = np.empty(jobs)
    waits = 0
    for t in range(jobs):
        st, fast, slow = _round(D[:, t], mu)
        k = int(st.sum())
        ok = k <= s if rules == "paper" else k < s
        dur[t] = fast if ok else slow
        waits += not ok
    return dur, waits


def _run_sr(
    D: np.ndarray, B: int, W: int, lam: int, jobs: int, mu: float, rules: str
) -> tuple[np.ndarray, int]:
    n = D.shape[0]
    s = sr_sgc_s(B, W, lam)
    R = jobs + B
    got = np.zeros((R, n), bool)
    strag = np.zeros((R, n), bool)
    model = _Model(n, R, B, W, lam)
    dur = np.zeros(R)
    waits = 0
    for t in range(R):
        j = t - B
        rep = np.zeros(n, bool)
        if j >= 0:
            missing = np.flatnonzero(~got[j])
            need = missing.size - s
            if t >= jobs and need <= 0:
                continue  # nothing left to do: the round is skipped
            if need > 0:
                if rules == "paper":  # job j's own stragglers first
                    own = strag[j, missing]
                    missing = np.concatenate([missing[own], missing[~own]])
                rep[missing[:need]] = True
        st, fast, slow = _round(D[:, t], mu)
        if model.ok(t, st):
            dur[t] = fast
        else:
            st = np.zeros(n, bool)
            dur[t] = slow
            waits += 1
        model.hist[t] = st
        strag[t] = st
        if rules == "scripts":
            # a past round is left out when every worker did its own job or straggled
            model.exempt[t] = not (rep & ~st).any() and int(st.sum()) <= s
        alive = ~st
        if j >= 0:
            got[j, alive & rep] = True
        if t < jobs:
            got[t, alive & ~rep] = True
        if j >= 0 and int(got[j].sum()) < n - s:
            raise RuntimeError(f"SR-SGC{(B, W, lam)}: job {j} not decodable in round {t}")
    return dur, waits


def _run_m(
    D: np.ndarray, B: int, W: int, lam: int, jobs: int, mu: float, rules: str
) -> tuple[np.ndarray, int]:
    n = D.shape[0]
    D1, M = W - 1, W - 1 + B
    T = W - 2 + B
    R = jobs + T
    d1 = np.zeros((R, n), int)
    d2 = np.zeros((R, B), int)
    model = _Model(n, R, B, W, lam)
    dur = np.zeros(R)
    waits = 0
    need = n - lam
    for t in range(R):
        st, fast, slow = _round(D[:, t], mu)
        if model.ok(t, st):
            dur[t] = fast
        else:
            st = np.zeros(n, bool)
            dur[t] = slow
            waits += 1
        model.hist[t] = st
        alive = ~st
        for m in range(M):
            j = t - m
            if j < 0:
                break
            if m < D1:
                d1[j] += alive
            else:
                catch = d1[j] < D1
                d1[j] += alive & catch
                d2[j, m - D1] += int((alive & ~catch).sum())
        j = t - T
        if j >= 0 and j < jobs and not ((d1[j] >= D1).all() and (d2[j] >= need).all()):
            raise RuntimeError(f"M-SGC{(B, W, lam)}: job {j} not decodable in round {t}")
    return dur, waits


# typed as every scheme's params (a bare () would make mypy track the tuple's length per branch)
_NO_PARAMS: tuple[int, ...] = ()


def _check_run_inputs(
    delays: Any, jobs: Any, mu: Any, base_load: Any, base_comp: Any
) -> tuple[np.ndarray, float, float]:
    """Refuse, by name and before any work, what :func:`run_scheme` cannot run on."""
    try:
        D = np.asarray(delays, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("delays must be a (workers, rounds) matrix of numbers") from None
    if D.ndim != 2:
        raise ValueError(f"delays must be a (workers, rounds) matrix, got shape {D.shape}")
    if D.shape[0] < 1 or D.shape[1] < 1:
        raise ValueError(f"delays must have at least one worker and one round, got {D.shape}")
    bad = ~np.isfinite(D) | (D < 0)
    if bad.any():
        i, t = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"delays must be finite and >= 0 (times); worker {i}, round {t} is {D[i, t]!r} "
            f"({int(bad.sum())} such entries)"
        )
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if isinstance(mu, bool) or not (
        isinstance(mu, (int, float, np.integer, np.floating)) and math.isfinite(mu) and mu >= 0
    ):
        raise ValueError(
            f"mu must be a finite number >= 0 (the wait is (1 + mu) x fastest), got {mu!r}"
        )
    out = []
    for name, v, what in (
        ("base_load", base_load, "the load the delays were measured at"),
        ("base_comp", base_comp, "the computation time per unit of load"),
    ):
        if isinstance(v, bool) or not (
            isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(v) and v >= 0
        ):
            raise ValueError(f"{name} ({what}) must be a finite number >= 0, got {v!r}")
        out.append(float(v))
    return D, out[0], out[1]


def run_scheme(
    delays: np.ndarray,
    scheme: str,
    params: tuple[int, ...] = (),
    *,
    jobs: int,
    mu: float = 1.0,
    base_load: float = 0.0,
    base_comp: float = 0.0,
    rules: str = "paper",
) -> SchemeRun:
    """Run one scheme over ``delays`` (workers, rounds) measured at ``base_load``.

    Parameters
    ----------
    delays : numpy.ndarray, shape (workers, rounds)
        Measured times at ``base_load``.
    scheme : {"GC", "SR-SGC", "M-SGC", "no coding", "no-wait"}
        The scheme.
    params : tuple of int
        The scheme's parameters.
    jobs : int
        Jobs to run.
    mu : float
        Slope of time in load.
    base_load : float
        Load at which ``delays`` were measured.
    base_comp : float
        Computation time at ``base_load``.
    rules : {"paper", ...}
        Which parameter rules apply.

    Returns
    -------
    SchemeRun
        Per-round durations and waits.

    Examples
    --------
    >>> from gctheory.sgc import run_scheme
    >>> import numpy as np
    >>> delays = 1.0 + np.random.default_rng(0).exponential(0.2, (4, 12))  # 4 workers, 12 rounds
    >>> run_scheme(delays, "SR-SGC", (1, 2, 1), jobs=8).waits
    0
    >>> round(run_scheme(delays, "no coding", jobs=8).runtime, 4)
    10.8423
    """
    _check_rules(rules)
    D0, base_load, base_comp = _check_run_inputs(delays, jobs, mu, base_load, base_comp)
    n, R = D0.shape
    params = tuple(int(p) for p in params)
    if scheme in ("SR-SGC", "M-SGC"):
        if len(params) != 3:
            raise ValueError(f"{scheme} takes params (B, W, lambda), got {params}")
        check_sgc_params(n, *params, scheme=scheme.lower())
    elif scheme == "GC":
        if len(params) != 1 or not 0 <= params[0] <= n:
            raise ValueError(f"GC takes params (s,) with 0 <= s <= n = {n}, got {params}")
    elif scheme in ("no coding", "no-wait"):
        params = _NO_PARAMS
    else:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    T = scheme_delay(scheme, params)
    if R < jobs + T:
        raise ValueError(
            f"the trace has {R} rounds; {scheme}{params} needs jobs + T = {jobs} + {T} = "
            f"{jobs + T} rounds (rule: rounds >= jobs + T)"
        )
    load = scheme_load(scheme, n, params)
    D = D0 + (float(load) - base_load) * base_comp
    if base_comp and float(D.min()) < 0:
        raise ValueError(
            f"base_comp: the delays at load {float(load):.6g} are D + (load - base_load) x "
            f"base_comp = D + ({float(load):.6g} - {base_load:.6g}) x {base_comp:.6g}, negative "
            f"for some worker (down to {float(D.min()):.6g}); a delay is >= 0"
        )
    if scheme == "GC":
        dur, waits = _run_gc(D, params[0], jobs, mu, rules)
    elif scheme == "SR-SGC":
        B, W, lam = params
        dur, waits = _run_sr(D, B, W, lam, jobs, mu, rules)
    elif scheme == "M-SGC":
        B, W, lam = params
        dur, waits = _run_m(D, B, W, lam, jobs, mu, rules)
    elif scheme == "no coding":
        dur, waits = D[:, :jobs].max(axis=0), jobs
    else:
        dur, waits = D[:, :jobs].min(axis=0) * (1 + mu), 0
    return SchemeRun(scheme, params, float(load), np.asarray(dur, float), int(waits))


def param_grid(
    scheme: str, n: int, rounds: int, jobs: int, rules: str = "paper"
) -> list[tuple[int, ...]]:
    """Every parameter tuple the search tries (the scripts' grid, with the paper's delay bound).

    Parameters
    ----------
    scheme : {"GC", "SR-SGC", "M-SGC", "no coding", "no-wait"}
        The scheme.
    n : int
        Workers.
    rounds : int
        Rounds available.
    jobs : int
        Jobs to run.
    rules : str
        Which parameter rules apply.

    Returns
    -------
    list of tuple of int
        Every parameter tuple tried.

    Examples
    --------
    >>> from gctheory.sgc import param_grid
    >>> param_grid("GC", 4, 10, 5)
    [(0,), (1,), (2,), (3,)]
    >>> len(param_grid("SR-SGC", 4, 10, 5)) > 0
    True
    """
    _check_rules(rules)
    max_delay = rounds - jobs
    if scheme == "GC":
        return [(s,) for s in (range(0, n) if rules == "paper" else range(1, n + 1))]
    if scheme == "SR-SGC":  # W = x B + 1 <= jobs, T = B <= rounds - jobs
        return [
            (B, W, lam)
            for lam in range(1, n + 1)
            for B in range(1, max_delay + 1)
            for W in range(B + 1, jobs + 1, B)
        ]
    if scheme == "M-SGC":  # 2 <= W < jobs, 1 <= B < W
        bound = max_delay + 1 if rules == "paper" else max_delay  # on W - 1 + B
        return [
            (B, W, lam)
            for lam in range(1, n + 1)
            for W in range(2, jobs)
            for B in range(1, W)
            if W - 1 + B <= bound
        ]
    if scheme in ("no coding", "no-wait"):
        return [()]
    raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")


def search_runtimes(
    delays: np.ndarray,
    *,
    jobs: int,
    mu: float = 1.0,
    base_load: float = 0.0,
    base_comp: float = 0.0,
    rules: str = "paper",
    schemes: Iterable[str] = SCHEMES,
    keep_all: bool = False,
) -> tuple[list[dict], list[dict]]:
    """Best total runtime per scheme over its parameter grid (ties: the first in grid order).

    Returns ``(best, all_rows)``: one row per scheme whose grid is not empty with ``scheme``,
    ``runtime``, ``params``, ``load``, ``waits``; ``all_rows`` (when
    ``keep_all``) every parameter tried.

    Parameters
    ----------
    delays : numpy.ndarray, shape (workers, rounds)
        Measured times.
    jobs : int
        Jobs to run.
    mu : float
        Slope of time in load.
    base_load : float
        Load of the measurement.
    base_comp : float
        Computation time at ``base_load``.
    rules : str
        Which parameter rules apply.
    schemes : iterable of str
        The schemes to search.
    keep_all : bool
        Also return every parameter tried.

    Returns
    -------
    tuple of (list of dict, list of dict)
        ``(best, all_rows)``.

    Examples
    --------
    >>> from gctheory.sgc import search_runtimes
    >>> import numpy as np
    >>> delays = 1.0 + np.random.default_rng(0).exponential(0.2, (4, 12))  # 4 workers, 12 rounds
    >>> best, _ = search_runtimes(delays, jobs=8)
    >>> for row in best:
    ...     print(row["scheme"], row["params"], round(row["runtime"], 3))
    GC [0] 10.842
    SR-SGC [1, 2, 1] 10.842
    M-SGC [1, 2, 1] 12.406
    no coding [] 10.842
    no-wait [] 17.046
    """
    _check_rules(rules)
    D, base_load, base_comp = _check_run_inputs(delays, jobs, mu, base_load, base_comp)
    n, R = D.shape
    if R < jobs:
        raise ValueError(f"the trace has {R} rounds < jobs = {jobs} (rule: rounds >= jobs + T)")
    best: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for scheme in schemes:
        top: dict[str, Any] | None = None
        for p in param_grid(scheme, n, R, jobs, rules):
            r = run_scheme(D, scheme, p, jobs=jobs, mu=mu, base_load=base_load,
                           base_comp=base_comp, rules=rules)  # fmt: skip
            row: dict[str, Any] = {"scheme": scheme, "runtime": r.runtime, "params": list(p),
                                   "load": r.load, "waits": r.waits}  # fmt: skip
            if keep_all:
                rows.append(row)
            if top is None or row["runtime"] < top["runtime"]:
                top = row
        if top is not None:  # an empty grid (trace too short for any parameter) is left out
            best.append(top)
    return best, rows
