"""Exact time per job of GC, SR-SGC, M-SGC, no coding and no-wait under a Markov straggler chain.

:func:`gctheory.sgc.memory_times.sequential_time_mc` estimates these times by Monte Carlo.
Here the run of a scheme (:func:`gctheory.sgc.runtime.run_scheme`, ``rules="paper"``,
Krishnan, Ebrahimi & Khisti, ICLR 2023, Sec. 5) under a
:class:`gctheory.delays.markov.MemoryDelay` is written as a finite Markov chain and solved.

**The chain.** Before round ``t`` its state is ``(x_t, H_{t-1})``: ``x_t`` every worker's
straggler-chain state (Gilbert-Elliott: good/bad; Fritchman: ``K`` good states and bad)
and ``H_{t-1}`` the effective straggler patterns of the last ``W - 1`` rounds, the only
part of the scheme's state that its round durations read (the (B, W, lambda) check of
whether this round's stragglers may be ignored; GC, no coding and no-wait carry nothing).
In round ``t`` each worker's time is drawn from ``fast`` or ``slow`` by its emission
probability, the workers slower than ``(1 + mu)`` times the fastest are the round's
pattern, the round lasts ``min((1 + mu) min, max)`` when the scheme may ignore them and
``max`` otherwise (the effective pattern is then empty), and the chains step. The
workers are exchangeable (one chain, one ``fast``, one ``slow`` for all), so a state is
lumped to the multiset of its per-worker columns ``(x_i, H[:, i])`` (a lumpable
partition: every permutation of the workers maps the chain onto itself).

**Exact.** ``fast`` and ``slow`` must be discrete with finite support: ``constant(c)``,
an array of measured times (resampled with equal weights, as :class:`MemoryDelay` does)
or a ``scipy.stats.rv_discrete`` law. Each round's pattern law is then a finite sum
over the joint time vectors. With ``arithmetic="fraction"`` (the reference) every
probability and time is a :class:`fractions.Fraction` -- a float parameter is read as the
shortest decimal that prints it (``0.05`` is ``1/20``) -- and the stationary law solves
``pi P = pi, sum pi = 1`` by Gaussian elimination over the rationals; ``"float"`` does
the same in float64 (numpy) for larger chains.

Returned: the long-run time per job ``steady = sum_z pi(z) r(z)`` (``r`` a state's
expected round time; one job finishes per round in the long run), and for a run of
``jobs`` jobs from stationary chains and an empty history, as the Monte Carlo twin runs
it, the expected time per job over the first ``jobs`` rounds (``first``) and over the
whole run of ``jobs + T`` rounds (``run``; not for SR-SGC, whose rounds after the last
job may be skipped depending on the pending repetitions, a state this chain does not
carry). Chains larger than ``max_states`` states are refused (``ValueError`` naming the
count and the limit); the (B, W, lambda) sampler (:class:`BurstyChain`) is not a Markov
chain of the worker states and is refused too.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_real
from gctheory.codes.sequential import check_sgc_params
from gctheory.delays.markov import Fritchman, GilbertElliott, MemoryDelay
from gctheory.sgc.runtime import SCHEMES, scheme_delay, scheme_load

__all__ = ["ARITHMETICS", "SequentialExact", "sequential_time_exact"]

ARITHMETICS = ("fraction", "float")

#: default bound on the number of lumped states, per arithmetic
_MAX_STATES = {"fraction": 400, "float": 20000}
#: bound on (chain states)^n x (support size)^n joint outcomes enumerated per round
_MAX_VECTORS = 2_000_000


@dataclass(frozen=True)
class SequentialExact:
    """Exact expected time per job of a scheme under a Markov straggler chain.

    ``steady``: long-run time per job; ``first``: expected time of the first ``jobs``
    rounds / ``jobs``; ``run``: expected runtime of the whole run / ``jobs`` (None for
    SR-SGC or without ``jobs``); ``states``: lumped states of the chain; ``arithmetic``:
    ``"fraction"`` (then ``steady_exact`` is the rational value) or ``"float"``;
    ``residual``: ``max |pi P - pi|`` of the stationary law (0 for fractions).
    """

    scheme: str
    params: tuple[int, ...]
    n: int
    steady: float
    first: float | None
    run: float | None
    jobs: int | None
    states: int
    arithmetic: str
    residual: float
    steady_exact: Fraction | None = None


def _frac(v: Any) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (int, np.integer)):
        return Fraction(int(v))
    return Fraction(repr(float(v)))


def _chain_parts(chain: Any) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Transition matrix and emission probabilities of one worker's chain, as fractions."""
    if isinstance(chain, GilbertElliott):
        p, r = _frac(chain.p), _frac(chain.r)
        return [[1 - p, p], [r, 1 - r]], [_frac(chain.h_good), _frac(chain.h_bad)]
    if isinstance(chain, Fritchman):
        K = chain.K
        sb = _frac(chain.stay_bad)
        ent = [_frac(e) for e in chain.entry]
        tot = sum(ent, Fraction(0))
        ent = [e / tot for e in ent]  # entry sums to 1 up to float rounding
        P = [[Fraction(0)] * (K + 1) for _ in range(K + 1)]
        for i, a in enumerate(chain.stay_good):
            P[i][i] = _frac(a)
            P[i][K] = 1 - _frac(a)
        for i in range(K):
            P[K][i] = (1 - sb) * ent[i]
        P[K][K] = sb
        return P, [Fraction(0)] * K + [Fraction(1)]
    raise ValueError(
        f"delay.chain must be a GilbertElliott or Fritchman chain for the exact time, got "
        f"{type(chain).__name__} (the (B, W, lambda) sampler is not a Markov chain of the "
        "worker states: use sequential_time_mc)"
    )


def _discrete(law: Any, name: str) -> list[tuple[Fraction, Fraction]]:
    """``[(value, probability)]`` of a law with finite support (module docstring)."""
    if isinstance(law, np.ndarray):
        vals, counts = np.unique(np.asarray(law, float), return_counts=True)
        n_all = int(counts.sum())
        return [(_frac(v), Fraction(int(k), n_all)) for v, k in zip(vals, counts)]
    if hasattr(law, "c") and hasattr(law, "rvs") and not hasattr(law, "dist"):
        return [(_frac(law.c), Fraction(1))]  # delays.models' constant(c)
    dist = getattr(law, "dist", law)  # a frozen law or scipy's rv_sample itself
    xk = getattr(dist, "xk", None)
    pk = getattr(dist, "pk", None)
    if xk is not None and pk is not None and not getattr(law, "args", ()):
        qs = [_frac(p) for p in pk]
        q_all = sum(qs, Fraction(0))
        return [(_frac(v), q / q_all) for v, q in zip(xk, qs) if q > 0]
    raise ValueError(
        f"delay.{name} must have a finite support for the exact time (constant(c), an array "
        f"of measured times, or scipy.stats.rv_discrete(values=...)), got "
        f"{type(law).__name__}; a continuous law: use sequential_time_mc"
    )


def _stationary_1(P: list[list[Fraction]]) -> list[Fraction]:
    c = len(P)
    A = [[P[j][i] - (1 if i == j else 0) for j in range(c)] for i in range(c)]
    A[-1] = [Fraction(1)] * c
    b = [Fraction(0)] * (c - 1) + [Fraction(1)]
    return _solve_fraction(A, b)


def _solve_fraction(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Gaussian elimination over the rationals (``A`` square, non-singular), sparse rows."""
    N = len(A)
    rows = [{j: v for j, v in enumerate(r) if v} for r in A]
    rhs = list(b)
    for col in range(N):
        piv = next((i for i in range(col, N) if rows[i].get(col)), None)
        if piv is None:
            raise ValueError("the chain has no unique stationary law (not ergodic)")
        rows[col], rows[piv] = rows[piv], rows[col]
        rhs[col], rhs[piv] = rhs[piv], rhs[col]
        pr = rows[col]
        inv = 1 / pr[col]
        pr = {j: v * inv for j, v in pr.items()}
        rows[col] = pr
        rhs[col] *= inv
        for i in range(N):
            if i == col:
                continue
            f = rows[i].get(col)
            if not f:
                continue
            ri = rows[i]
            for j, v in pr.items():
                nv = ri.get(j, 0) - f * v
                if nv:
                    ri[j] = nv
                else:
                    ri.pop(j, None)
            rhs[i] -= f * rhs[col]
    return rhs


def _round_table(
    x: tuple[int, ...],
    laws: list[list[tuple[Fraction, Fraction]]],
    mu: Fraction,
) -> dict[int, list[Fraction]]:
    """For labelled chain states ``x``: pattern mask -> [P, E[fast 1], E[max 1], E[wait 1]]
    over the joint time vectors (the round of :func:`gctheory.sgc.runtime._round`)."""
    out: dict[int, list[Fraction]] = {}
    for combo in itertools.product(*(laws[s] for s in x)):
        prob = Fraction(1)
        for _, q in combo:
            prob *= q
        if not prob:
            continue
        d = [v for v, _ in combo]
        wait = min(d) * (1 + mu)
        mx = max(d)
        mask = sum(1 << i for i, v in enumerate(d) if v > wait)
        acc = out.setdefault(mask, [Fraction(0)] * 4)
        acc[0] += prob
        acc[1] += prob * min(wait, mx)
        acc[2] += prob * mx
        acc[3] += prob * wait
    return out


def _popcount(v: int) -> int:
    return bin(v).count("1")


def _duration_and_eff(
    scheme: str,
    ps: tuple[int, ...],
    H: tuple[int, ...],
    mask: int,
    acc: list[Fraction],
) -> tuple[Fraction, int]:
    """(E[duration 1{pattern}], effective pattern) of one pattern after history H."""
    if scheme == "no coding":
        return acc[2], 0
    if scheme == "no-wait":
        return acc[3], 0
    if scheme == "GC":
        return (acc[1] if _popcount(mask) <= ps[0] else acc[2]), 0
    B, lam = ps[0], ps[2]
    seen = 0
    for row in H:
        seen |= row
    old = 0
    for row in H[: ps[1] - B]:
        old |= row
    ok = _popcount(seen | mask) <= lam and not (old & mask)
    return (acc[1], mask) if ok else (acc[2], 0)


def _check_exact_args(
    delay: Any,
    scheme: str,
    params: Sequence[int],
    n: int,
    mu: float,
    jobs: int | None,
    base_load: float,
    base_comp: float,
    arithmetic: str,
    max_states: int | None,
) -> tuple[str, tuple[int, ...], int, float, int | None, float, float, str, int]:
    """Validate :func:`sequential_time_exact`'s arguments (in order); return them as read."""
    if not isinstance(delay, MemoryDelay):
        raise ValueError(f"delay must be a MemoryDelay, got {type(delay).__name__}")
    scheme = check_choice(scheme, "scheme", SCHEMES)
    n = check_int(n, "n", low=1)
    arithmetic = check_choice(arithmetic, "arithmetic", ARITHMETICS)
    mu_f = check_real(mu, "mu", low=0.0)
    base_load = check_real(base_load, "base_load")
    base_comp = check_real(base_comp, "base_comp")
    if jobs is not None:
        jobs = check_int(jobs, "jobs", low=1)
    limit = (
        _MAX_STATES[arithmetic]
        if max_states is None
        else check_int(max_states, "max_states", low=1)
    )
    ps = tuple(check_int(p, f"params[{i}]") for i, p in enumerate(params))
    if scheme in ("SR-SGC", "M-SGC"):
        if len(ps) != 3:
            raise ValueError(f"{scheme} takes params (B, W, lambda), got {ps}")
        check_sgc_params(n, *ps, scheme=scheme.lower())
    elif scheme == "GC":
        if len(ps) != 1 or not 0 <= ps[0] <= n:
            raise ValueError(f"GC takes params (s,) with 0 <= s <= n = {n}, got {ps}")
    else:
        ps = tuple[int, ...]()
    return scheme, ps, n, mu_f, jobs, base_load, base_comp, arithmetic, limit


def _worker_laws(
    emit: list[Fraction],
    fast: list[tuple[Fraction, Fraction]],
    slow: list[tuple[Fraction, Fraction]],
    shift: Fraction,
) -> list[list[tuple[Fraction, Fraction]]]:
    """A worker's time law in each chain state (``fast``/``slow`` by emission), shifted."""
    laws: list[list[tuple[Fraction, Fraction]]] = []
    for e in emit:  # a worker's time law in each chain state, shifted by the load
        law: dict[Fraction, Fraction] = {}
        for w, part in ((1 - e, fast), (e, slow)):
            for v, q in part:
                if w * q:
                    law[v + shift] = law.get(v + shift, Fraction(0)) + w * q
        laws.append(sorted(law.items()))
    return laws


def _check_joint_outcomes(n: int, c: int, laws: list[list[tuple[Fraction, Fraction]]]) -> None:
    """Refuse a round with more than ``_MAX_VECTORS`` joint outcomes to enumerate."""
    support = len({v for lw in laws for v, _ in lw})
    work = (c * support) ** n
    if work > _MAX_VECTORS:
        raise ValueError(
            f"n = {n} workers with {c} chain states and {support} distinct times each give "
            f"{work} joint outcomes a round, above the limit {_MAX_VECTORS}: use "
            "sequential_time_mc (or fewer workers / a coarser support)"
        )


class _LumpedChain:
    """The run's chain over lumped states, expanded breadth-first from its start law."""

    def __init__(
        self,
        scheme: str,
        ps: tuple[int, ...],
        n: int,
        P1: list[list[Fraction]],
        laws: list[list[tuple[Fraction, Fraction]]],
        mu_q: Fraction,
        limit: int,
    ) -> None:
        """Hold the scheme, the worker chain and time laws; build nothing yet."""
        self.scheme, self.ps, self.n, self.P1 = scheme, ps, n, P1
        self.laws, self.mu_q, self.limit = laws, mu_q, limit
        self.c = len(P1)
        self.hist = ps[1] - 1 if scheme in ("SR-SGC", "M-SGC") else 0
        self.tables: dict[tuple[int, ...], dict[int, list[Fraction]]] = {}
        self.xs = list(itertools.product(range(self.c), repeat=n))

    # per-worker columns (x_i, bits of H) -> canonical multiset
    def canon(self, x: tuple[int, ...], H: tuple[int, ...]) -> tuple:
        """The lumped state of labelled chain states ``x`` and history ``H``."""
        return tuple(sorted((x[i], *((row >> i) & 1 for row in H)) for i in range(self.n)))

    def rep(self, z: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A labelled representative ``(x, H)`` of the lumped state ``z``."""
        x = tuple(col[0] for col in z)
        H = tuple(sum(col[k + 1] << i for i, col in enumerate(z)) for k in range(self.hist))
        return x, H

    def table(self, x: tuple[int, ...]) -> dict[int, list[Fraction]]:
        """The round table of labelled chain states ``x``, computed once."""
        t = self.tables.get(x)
        if t is None:
            t = self.tables[x] = _round_table(x, self.laws, self.mu_q)
        return t

    def step_prob(self, x: tuple[int, ...], y: tuple[int, ...]) -> Fraction:
        """Probability that the workers' chains step from ``x`` to ``y``."""
        pr = Fraction(1)
        for a, b in zip(x, y):
            pr *= self.P1[a][b]
            if not pr:
                break
        return pr

    def start_law(self) -> dict[tuple, Fraction]:
        """Law of the first lumped state: stationary chains, empty history."""
        # initial law: stationary chains, empty history
        pi1 = _stationary_1(self.P1)
        start: dict[tuple, Fraction] = {}
        H0 = (0,) * self.hist
        for x in self.xs:
            pr = Fraction(1)
            for a in x:
                pr *= pi1[a]
            if pr:
                z = self.canon(x, H0)
                start[z] = start.get(z, Fraction(0)) + pr
        return start

    def expand(
        self, start: dict[tuple, Fraction]
    ) -> tuple[list[tuple], list[dict[int, Fraction]], list[Fraction]]:
        """States reachable from ``start`` (in order), their transition rows and rewards."""
        index: dict[tuple, int] = {}
        order: list[tuple] = []
        for z in start:
            index[z] = len(order)
            order.append(z)
        trans: list[dict[int, Fraction]] = []
        reward: list[Fraction] = []
        i = 0
        while i < len(order):
            x, H = self.rep(order[i])
            row, r = self._expand_state(x, H, index, order, i)
            trans.append(row)
            reward.append(r)
            i += 1
        return order, trans, reward

    def _expand_state(
        self,
        x: tuple[int, ...],
        H: tuple[int, ...],
        index: dict[tuple, int],
        order: list[tuple],
        i: int,
    ) -> tuple[dict[int, Fraction], Fraction]:
        """Transition row and expected round time of state ``i``; new states are appended."""
        scheme, ps, hist = self.scheme, self.ps, self.hist
        row: dict[int, Fraction] = {}
        r = Fraction(0)
        nexts: dict[tuple[int, ...], Fraction] = {}
        for mask, acc in self.table(x).items():
            dur, eff = _duration_and_eff(scheme, ps, H, mask, acc)
            r += dur
            H2 = (*H[1:], eff) if hist else ()
            nexts[H2] = nexts.get(H2, Fraction(0)) + acc[0]
        for H2, q in nexts.items():
            for y in self.xs:
                pr = self.step_prob(x, y)
                if not pr:
                    continue
                z2 = self.canon(y, H2)
                j = index.get(z2)
                if j is None:
                    if len(order) >= self.limit:
                        raise ValueError(
                            f"the Markov chain of {scheme}{ps} on n = {self.n} workers under this "
                            f"model has more than max_states = {self.limit} lumped states "
                            f"({len(order)} found after expanding {i}; at most "
                            f"{math.comb(self.n + self.c * 2**hist - 1, self.n)}): use "
                            "sequential_time_mc or raise max_states"
                        )
                    j = index[z2] = len(order)
                    order.append(z2)
                row[j] = row.get(j, Fraction(0)) + q * pr
        return row, r


def _solve_in_fractions(
    scheme: str,
    ps: tuple[int, ...],
    n: int,
    jobs: int | None,
    start: dict[tuple, Fraction],
    order: list[tuple],
    trans: list[dict[int, Fraction]],
    reward: list[Fraction],
) -> SequentialExact:
    """Stationary law and finite-run values over the rationals."""
    N = len(order)
    T = scheme_delay(scheme, ps)
    A = [[Fraction(0)] * N for _ in range(N)]
    for a, row in enumerate(trans):
        for b, v in row.items():
            A[b][a] += v
    for a in range(N):
        A[a][a] -= 1
    A[-1] = [Fraction(1)] * N
    pi = _solve_fraction(A, [Fraction(0)] * (N - 1) + [Fraction(1)])
    steady_q = sum((p * r for p, r in zip(pi, reward)), Fraction(0))
    first = run = None
    if jobs is not None:
        mu_t = [start.get(z, Fraction(0)) for z in order]
        totals = []
        for _ in range(jobs + T):
            totals.append(sum((m * r for m, r in zip(mu_t, reward)), Fraction(0)))
            nxt = [Fraction(0)] * N
            for a, row in enumerate(trans):
                if mu_t[a]:
                    for b, v in row.items():
                        nxt[b] += mu_t[a] * v
            mu_t = nxt
        first = float(sum(totals[:jobs], Fraction(0)) / jobs)
        run = None if scheme == "SR-SGC" else float(sum(totals, Fraction(0)) / jobs)
    return SequentialExact(
        scheme, ps, n, float(steady_q), first, run, jobs, N, "fraction", 0.0, steady_q
    )


def _solve_in_floats(
    scheme: str,
    ps: tuple[int, ...],
    n: int,
    jobs: int | None,
    start: dict[tuple, Fraction],
    order: list[tuple],
    trans: list[dict[int, Fraction]],
    reward: list[Fraction],
) -> SequentialExact:
    """Stationary law and finite-run values in float64 (numpy)."""
    N = len(order)
    T = scheme_delay(scheme, ps)
    Pm = np.zeros((N, N))
    for a, row in enumerate(trans):
        for b, v in row.items():
            Pm[a, b] = float(v)
    rw = np.array([float(r) for r in reward])
    M = Pm.T - np.eye(N)
    M[-1] = 1.0
    rhs = np.zeros(N)
    rhs[-1] = 1.0
    pi_f = np.linalg.solve(M, rhs)
    residual = float(np.abs(pi_f @ Pm - pi_f).max())
    first_f = run_f = None
    if jobs is not None:
        m = np.array([float(start.get(z, 0)) for z in order])
        tot = []
        for _ in range(jobs + T):
            tot.append(float(m @ rw))
            m = m @ Pm
        first_f = sum(tot[:jobs]) / jobs
        run_f = None if scheme == "SR-SGC" else sum(tot) / jobs
    return SequentialExact(
        scheme, ps, n, float(pi_f @ rw), first_f, run_f, jobs, N, "float", residual
    )


def sequential_time_exact(
    delay: MemoryDelay,
    scheme: str,
    params: Sequence[int],
    n: int,
    *,
    mu: float = 1.0,
    jobs: int | None = None,
    base_load: float = 0.0,
    base_comp: float = 0.0,
    arithmetic: str = "fraction",
    max_states: int | None = None,
) -> SequentialExact:
    """Exact expected time per job of ``scheme`` under ``delay`` (module docstring).

    Parameters as :func:`gctheory.sgc.memory_times.sequential_time_mc` (the waiting
    rule and load scaling of :func:`gctheory.sgc.runtime.run_scheme`, paper rules);
    ``jobs`` also gives the finite-run values; ``max_states`` bounds the lumped chain
    (default 400 for fractions, 20000 for floats).
    """
    scheme, ps, n, mu_f, jobs, base_load, base_comp, arithmetic, limit = _check_exact_args(
        delay, scheme, params, n, mu, jobs, base_load, base_comp, arithmetic, max_states
    )
    P1, emit = _chain_parts(delay.chain)
    fast, slow = _discrete(delay.fast, "fast"), _discrete(delay.slow, "slow")
    shift = (Fraction(scheme_load(scheme, n, ps)) - _frac(base_load)) * _frac(base_comp)
    laws = _worker_laws(emit, fast, slow, shift)
    _check_joint_outcomes(n, len(P1), laws)
    chain = _LumpedChain(scheme, ps, n, P1, laws, _frac(mu_f), limit)
    start = chain.start_law()
    order, trans, reward = chain.expand(start)
    solve = _solve_in_fractions if arithmetic == "fraction" else _solve_in_floats
    return solve(scheme, ps, n, jobs, start, order, trans, reward)
