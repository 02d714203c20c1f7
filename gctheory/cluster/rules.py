"""The master's decision rule for a scheme: whom to wait for, and how to decode.

The scheme itself is the simulator's (:func:`gctheory.training.make_scheme`):
the same placement, the same code, the same waiting count, the same
``finish_times`` for injected delays. A simulated and a real run of a scheme
share this definition; only the clock differs. The rule is:

* uncoded GD (``gd``): wait for all ``n``; the gradient is the sum.
* ignore stragglers (``ignore``, K-SGD): the fastest ``K``; ``(n/K)`` times their sum.
* exact gradient codes (cyclic MDS, FRC, Ye-Abbe, CommFR, Reed-Solomon): the
  fastest ``n - s`` (Tandon et al. 2017, Section 2: the master waits for any
  ``n - s`` workers and decodes), or earlier where the code's groups already
  decode (FRC: one worker per group, Tandon et al. 2017, Section 3.1; CommFR:
  ``N - delta + 1`` per group, Kadhe et al. 2019, Theorem 1); decoded by the
  code's own decoder.
* peeling codes (BRC with its peeling decoder, Wang et al. 2019, Algorithm 1):
  any decodable set: the earliest prefix of the arrivals from which peeling
  recovers every batch that all ``n`` messages would (every batch, for a code
  that covers and peels fully: the exact gradient). Not a count: sets of one
  size may or may not peel. If every live worker answered (or a deadline
  passed) without one, what arrived, decoded as far as peeling goes. The test
  is the simulator's own (:class:`gctheory.training.schemes.coded.PeelingWait`,
  the scheme's ``peeling``): both pick the same set from the same arrivals.
* other approximate codes (d-FRC, BGC, expander, graph assignment, BIBD, SGC,
  IS-GC): the fastest ``wait_for`` (or whoever arrived by a deadline), decoded
  by the code's optimal decoder.
* sequential codes (SR-SGC, M-SGC; Krishnan et al. 2023): jobs in flight across
  rounds, the paper's (1 + mu) x fastest rule with the (B, W, lambda) model;
  see :mod:`gctheory.cluster.sequential` (its own rule and round loop).
* the paper's waiting rule for any exact code (``wait_mu``, :class:`MuRule`;
  Krishnan, Ebrahimi and Khisti, ICLR 2023, Section 5, the rule of ``gctheory
  sgc runtime``'s GC): the master waits until ``(1 + mu)`` times the first
  arrival's response time; the workers not arrived by then are the round's
  stragglers. With at most ``s`` of them it decodes then (from the first
  ``n - s`` arrivals: the gradient is the same from any of them); with more it
  waits for every live worker. A round in which every worker answered before
  the cut ends at once, so it lasts ``min((1 + mu) min_i T_i, max_i T_i)``, or
  ``max_i T_i`` when more than ``s`` straggle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory.cluster.worker import WorkerState

__all__ = ["SUPPORTED_SCHEMES", "MuRule", "Rule", "build_scheme", "make_rule", "mu_round_time"]

#: stateful server rules the real-run master does not implement (yet)
_UNSUPPORTED = ("lgc", "asysg", "lag", "ggd", "glag", "lagc")


def _schemes() -> dict[str, str]:
    from gctheory.training import SCHEMES

    return {k: v for k, v in SCHEMES.items() if k not in _UNSUPPORTED}


SUPPORTED_SCHEMES = tuple(_schemes())
"""Schemes :func:`gctheory.cluster.run` runs: uncoded, ignore-stragglers, every gradient code and
the sequential codes ``sr_sgc``, ``m_sgc``."""


def build_scheme(
    scheme: str,
    n: int,
    *,
    s: int | None = None,
    K: int | None = None,
    m: int = 1,
    code_options: dict[str, Any] | None = None,
    seed: int = 0,
) -> Any:
    """The simulator's scheme (:func:`gctheory.training.make_scheme`), checked for a real run.

    Raises ValueError naming the valid schemes for an unknown one or one the
    real-run master does not implement.

    Parameters
    ----------
    scheme : str
        A name of :data:`SUPPORTED_SCHEMES`.
    n : int
        Workers.
    s : int, optional
        Stragglers tolerated.
    K : int, optional
        Workers waited for (wait-for-K schemes).
    m : int
        Communication saving.
    code_options : dict, optional
        Options of the code family.
    seed : int
        Seed of random constructions.

    Returns
    -------
    object
        The simulator's scheme object.

    Raises
    ------
    ValueError
        Unknown scheme or one the real-run master does not implement.

    Examples
    --------
    >>> from gctheory.cluster import Rule, build_scheme
    >>> Rule(build_scheme("frc", 4, s=1)).need
    3
    """
    from gctheory.training import _canon, make_scheme

    name = _canon(str(scheme).replace("-", "_"))
    if name in _UNSUPPORTED:
        raise ValueError(
            f"scheme {scheme!r} keeps server state across iterations (stale or lazily selected "
            f"gradients) and is simulated only (gctheory simulate); schemes that run for real: "
            f"{', '.join(SUPPORTED_SCHEMES)}"
        )
    opts: dict[str, Any] = {"code_options": dict(code_options or {})}
    if m != 1:
        opts["m"] = m
    code_rng = np.random.default_rng(np.random.SeedSequence(int(seed)).spawn(2)[1])
    return make_scheme(name, n, K=K, s=s, rng=code_rng, **opts)


class Rule:
    """Whom the master waits for and how it decodes, for one scheme object.

    Attributes
    ----------
    kind : {"all", "count", "exact", "peeling", "approximate"}
    need : int
        Survivors the rule waits for (``n``, ``K``, ``n - s`` or ``wait_for``;
        for ``peeling`` the simulator's count, for reference only: the rule
        waits for a decodable set).
    exact : bool
        The decoded gradient equals the full gradient (up to rounding).

    Examples
    --------
    >>> from gctheory.cluster import Rule, build_scheme
    >>> rule = Rule(build_scheme("frc", 4, s=1))
    >>> rule.kind, rule.need, rule.survivors([0, 2, 3])
    ('exact', 3, (0, 2))
    """

    #: the rule decides by the arrivals' times (:class:`MuRule`), not by their order alone
    timed = False

    def __init__(self, sch: Any) -> None:
        self.sch, self.n, self.k = sch, sch.n, sch.k
        self.code = getattr(sch, "code", None)
        if self.code is not None and hasattr(self.code, "decode_direct_sets"):
            # a run replays bit for bit: every decode by the same (factorised) decoder,
            # whatever the code decoded before (a resumed master's code is a fresh one)
            self.code.decode_direct_sets = 0
        self.scale = float(getattr(sch, "scale", 1.0))
        self.groups = None
        self._scan: list | None = None  # _group_prefix's progress through one arrival list
        self.m = 1 if self.code is None else int(self.code.m)
        #: forward-error bound of the last decode (``noise_bound`` of ``decode_detail``:
        #: relative error rounding of the messages can cause; nan when nothing is decoded)
        self.noise_bound = float("nan")
        if type(sch).__name__ == "WaitAll":
            self.kind, self.need, self.exact = "all", sch.n, True
        elif type(sch).__name__ == "IgnoreStragglers":
            self.kind, self.need, self.exact = "count", sch.K, False
            self.scale = sch.n / sch.K
        elif self.code is not None and self.code.s is not None:
            self.kind, self.need, self.exact = "exact", sch.n - self.code.s, True
            self.groups = getattr(sch, "groups_need", None)
        elif self.code is not None and getattr(self.code, "decoder", None) == "peeling":
            self.kind, self.need, self.exact = "peeling", int(sch.f), False
            self.peeling = sch.peeling  # the simulator's decodable-set test, shared
        elif self.code is not None:
            self.kind, self.need, self.exact = "approximate", int(sch.f), False
        else:  # pragma: no cover - guarded by build_scheme
            raise ValueError(f"scheme {sch.name!r} has no real-run rule")

    # ------------------------------------------------------------------ workers
    def states(self, workload: Any) -> list[WorkerState]:
        """Each worker's :class:`WorkerState`: its partitions and encoding coefficients."""
        support = np.asarray(self.sch.support, bool)
        E = None if self.code is None else np.asarray(self.code.encoding_matrix)
        out = []
        for i in range(self.n):
            parts = tuple(int(j) for j in np.flatnonzero(support[i]))
            if E is None:
                coef = np.ones((len(parts), 1))
            else:
                coef = np.array([[E[j * self.m + u, i] for u in range(self.m)] for j in parts])
                if not np.iscomplexobj(coef) or not np.any(coef.imag):
                    coef = coef.real.astype(float)
                coef = coef.reshape(len(parts), self.m)
            held = workload.restrict(parts) if hasattr(workload, "restrict") else workload
            out.append(WorkerState(i, parts, coef, self.m, held))
        self.prepare(workload.dim if hasattr(workload, "dim") else 1)
        return out

    def prepare(self, d: int = 1) -> None:
        """Make the decoder's one-off factorisation now (a decode of ``n`` zero messages),
        before the timed iterations: for a generic code at ``n = 1024`` it takes tens of
        seconds, which the first iteration would otherwise be charged for. Called by
        :meth:`states`."""
        if self.code is None or self.kind == "peeling":
            return
        zeros = np.zeros((self.n, -(-int(d) // self.m)))
        self.code.decode_detail(
            tuple(range(self.n)), zeros, int(d), check=False, condition=False, on_noise="ignore"
        )

    # ------------------------------------------------------------------ waiting
    def survivors(self, arrived: Sequence[int], closed: bool = False) -> tuple[int, ...] | None:
        """The survivor set to decode from, given arrivals in order; None: keep waiting.

        ``closed``: no more arrivals will count (a deadline passed, or every
        live worker has answered); approximate rules then decode from what
        arrived, exact ones still need their set.
        """
        # O(1) per call while too few have arrived (the master asks after every event)
        a = arrived
        if self.kind == "peeling":
            L = self._first_decodable(list(a))
            if L is not None:
                return tuple(a[:L])
            return tuple(a) if closed and a else None
        if self.groups is not None and a:  # the earliest prefix every group decodes from
            L = self._group_prefix(a)
            if L is not None:
                return tuple(a[:L])
        if len(a) >= self.need:
            return tuple(a[: self.need])
        if closed and a and not self.exact:
            return tuple(a)
        return None

    def _group_prefix(self, a: Sequence[int]) -> int | None:
        """Length of the shortest prefix of ``a`` with ``need`` arrivals in every group.

        Incremental for a list that only grows between calls (the master's arrivals of
        one iteration): each arrival is counted once, O(1) each, so an iteration costs
        O(n) however often the master asks. Any other sequence is scanned afresh.
        """
        size, need = self.groups  # type: ignore[misc]
        st = self._scan
        if st is None or st[0] is not a or st[1] > len(a) or (st[1] and a[st[1] - 1] != st[5]):
            st = self._scan = [a, 0, np.zeros(self.n // size, dtype=np.int64), 0, None, None]
        _, pos, cnt, met, found, _ = st
        if found is None:
            groups, stop = len(cnt), min(len(a), self.need)
            while pos < stop and found is None:
                g = a[pos] // size
                cnt[g] += 1
                met += int(cnt[g] == need)
                pos += 1
                if met == groups:
                    found = pos
            st[1], st[3], st[4], st[5] = pos, met, found, a[pos - 1] if pos else None
        return found

    def decodable(self, survivors: Sequence[int]) -> bool:
        """Peeling recovers from ``survivors`` every batch all ``n`` workers would (cached)."""
        return self.peeling.decodable(survivors)

    def _first_decodable(self, order: Sequence[int]) -> int | None:
        """Shortest prefix of ``order`` that peels (recovery only grows with the set)."""
        return self.peeling.first_decodable(order)

    def feasible(self, arrived: Sequence[int], live: int) -> bool:
        """Can the rule still be met with ``live`` workers yet to answer?"""
        if self.kind == "peeling":
            return live > 0 or bool(arrived)
        return len(arrived) + live >= self.need or (self.groups is not None and live > 0)

    def wait_time(self, T: np.ndarray) -> float:
        """When the rule is met for finishing times ``T`` (the simulator's clock)."""
        T = np.asarray(T, float)
        if self.kind == "peeling":
            order = np.argsort(T, kind="stable").tolist()
            L = self._first_decodable(order)
            return float(T[order[(L or len(order)) - 1]])
        kth = float(np.sort(T)[self.need - 1])
        if self.groups is not None:
            size, need = self.groups
            kth = min(kth, float(np.sort(T.reshape(-1, size), axis=1)[:, need - 1].max()))
        return kth

    # ----------------------------------------------------------------- decoding
    def decode(self, S: Sequence[int], Y: np.ndarray, d: int) -> np.ndarray:
        """The gradient estimate from survivors ``S`` (sorted) and their messages ``Y``."""
        if self.code is None:
            self.noise_bound = float("nan")
            return np.sum(Y, axis=0) * self.scale if self.scale != 1.0 else np.sum(Y, axis=0)
        full = self.exact and len(S) >= self.need
        # the forward-error bound is recorded (.noise_bound, the run's decode_noise_bound and
        # its summary), not warned about at every step: a code that amplifies rounding does
        # so at every step of a run
        res = self.code.decode_detail(S, Y, d, check=full, condition=False, on_noise="ignore")
        self.noise_bound = float(res.noise_bound)
        if self.exact and not res.exact:
            raise ValueError(
                f"survivors {list(S)} do not decode {self.sch.name} exactly "
                f"(residual {res.residual:.3g})"
            )
        g = res.gradient.real
        return g * self.scale if self.scale != 1.0 else g

    def message_length(self, d: int) -> int:
        """Numbers per message the code promises: ``ceil(d/m)``."""
        return -(-d // self.m)


def check_wait_mu(wait_mu: Any) -> float | None:
    """``wait_mu`` as a float (None stays None: the code's own rule); ValueError otherwise."""
    if wait_mu is None:
        return None
    ok = isinstance(wait_mu, (int, float, np.integer, np.floating)) and not isinstance(
        wait_mu, (bool, np.bool_)
    )
    if not ok or not math.isfinite(float(wait_mu)) or float(wait_mu) < 0:
        raise ValueError(
            f"wait_mu must be a finite number >= 0 (the master waits (1 + wait_mu) x the "
            f"first arrival's time) or None (the code's own rule), got {wait_mu!r}"
        )
    return float(wait_mu)


def mu_round_time(T: Any, mu: float, s: int) -> np.ndarray | float:
    """The round's length under the paper's rule for finishing times ``T`` (last axis: workers).

    Krishnan, Ebrahimi and Khisti, ICLR 2023, Section 5 (as :mod:`gctheory.sgc.runtime`):
    the workers later than ``(1 + mu) min_i T_i`` straggle; with at most ``s`` of them the
    round lasts ``min((1 + mu) min_i T_i, max_i T_i)``, else ``max_i T_i``.

    Examples
    --------
    >>> from gctheory.cluster.rules import mu_round_time
    >>> mu_round_time([1.0, 1.5, 2.5, 3.0], 1.0, 2), mu_round_time([1.0, 1.5, 2.5, 3.0], 1.0, 1)
    (2.0, 3.0)
    """
    A = np.asarray(T, float)
    first, last = A.min(axis=-1), A.max(axis=-1)
    cut = (1.0 + mu) * first
    late = (A > cut[..., None]).sum(axis=-1)
    out = np.where(late <= s, np.minimum(cut, last), last)
    return float(out) if out.ndim == 0 else out


class MuRule(Rule):
    """The paper's ``(1 + mu)`` waiting rule on an exact code with ``s >= 1`` (module docstring).

    Parameters
    ----------
    sch : object
        The simulator's scheme of an exact code (cyclic MDS, FRC, Ye-Abbe, ...).
    mu : float
        The master waits ``(1 + mu)`` x the first arrival's time (finite, ``>= 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.cluster import build_scheme
    >>> from gctheory.cluster.rules import MuRule
    >>> rule = MuRule(build_scheme("cyclic_mds", 4, s=1), 1.0)
    >>> t = np.array([0.1, 0.15, 0.3, 0.18])  # seconds since the round began
    >>> rule.decide([0, 1, 3], t, 0.19, live=1)  # before the cut at 0.2: wait
    (None, 0.2)
    >>> rule.decide([0, 1, 3], t, 0.21, live=1)  # one late (<= s): decode
    ((0, 1, 3), None)
    """

    timed = True

    def __init__(self, sch: Any, mu: Any) -> None:
        super().__init__(sch)
        mu = check_wait_mu(mu)
        if mu is None:
            raise ValueError("wait_mu must be a finite number >= 0 for MuRule, got None")
        if self.kind != "exact":
            raise ValueError(
                f"wait_mu (the paper's (1 + mu) rule) needs an exact code with a straggler "
                f"tolerance s (cyclic_mds, frc, ye_abbe, commfr, reed_solomon, ...); "
                f"{sch.name!r} waits by its own rule (give wait_mu=None)"
            )
        self.s = self.n - self.need
        if self.s < 1:
            raise ValueError(
                f"wait_mu needs a code tolerating s >= 1 stragglers; {sch.name!r} with s = 0 "
                "waits for every worker whatever the rule (give wait_mu=None)"
            )
        self.mu = mu
        self.groups = None  # the rule waits to its cut whatever a code's groups could decode

    def decide(
        self, arrived: Sequence[int], elapsed: np.ndarray, now: float, live: int
    ) -> tuple[tuple[int, ...] | None, float | None]:
        """``(survivors, cut)`` for arrivals ``arrived`` (in order) whose response times since
        the round began are ``elapsed[i]``, at ``now`` seconds into the round with ``live``
        workers yet to answer: survivors None means keep waiting, until ``cut`` (seconds into
        the round) when it is not None, else for every live worker."""
        if not arrived:
            return None, None
        e = np.asarray(elapsed, float)[list(arrived)]
        if live <= 0:  # every live worker answered: decode if the code can
            return (tuple(arrived[: self.need]) if len(arrived) >= self.need else None), None
        cut = (1.0 + self.mu) * float(e.min())
        if now < cut:
            return None, cut
        if self.n - int((e <= cut).sum()) <= self.s:
            return tuple(arrived[: self.need]), None
        return None, None  # more than s late at the cut: wait for every worker

    def wait_time(self, T: np.ndarray) -> float:
        """When the round ends for finishing times ``T`` (:func:`mu_round_time`)."""
        return float(mu_round_time(T, self.mu, self.s))

    def expected_time(self, dm: Any, trials: int, rng: Any, extra: np.ndarray) -> Any:
        """Expected round length under delay model ``dm``: a Monte Carlo through
        :func:`gctheory.montecarlo.estimate_mean` (an :class:`~gctheory.montecarlo.Estimate`
        with its interval) of :func:`mu_round_time` on each worker's finishing time plus a
        draw from ``extra`` (the measured overheads of a run: the first answer's response,
        overhead included, sets the cut, so an overhead is inside the rule, not added
        after). :func:`gctheory.cluster.compare` predicts a run under this rule with it."""
        from gctheory.montecarlo import estimate_mean

        sch, n = self.sch, self.n
        state: dict[str, Any] = {"j": 0, "X": None}
        iid = dm.replay is None and dm.persist == 1 and dm.n_slow == 0 and hasattr(dm.dist, "dist")

        def sampler(gen: np.random.Generator, size: int) -> np.ndarray:
            if iid:  # a frozen scipy law: every trial's draws at once
                X = np.asarray(dm.dist.rvs(size=(size, n), random_state=gen), float)
                rows = sch.finish_times(X) + extra[gen.integers(extra.size, size=(size, n))]
                return np.asarray(mu_round_time(rows, self.mu, self.s), float)
            rows = np.empty((size, n))
            for r in range(size):  # a trace replay, persistent or slowed-down draws
                j = state["j"]
                if dm.replay is not None:
                    state["X"] = dm.replay.per_unit_times(j, sch.loads, gen)
                elif j % dm.persist == 0 or state["X"] is None:
                    state["X"] = dm.draw(gen, n)
                rows[r] = sch.finish_times(state["X"]) + extra[gen.integers(extra.size, size=n)]
                state["j"] = j + 1
            return np.asarray(mu_round_time(rows, self.mu, self.s), float)

        return estimate_mean(sampler, trials, rng=rng, progress=False)


def make_rule(sch: Any, wait_mu: Any = None) -> Rule:
    """The real master's rule of ``sch``: its own (:class:`Rule`), or the paper's ``(1 + mu)``
    rule (:class:`MuRule`) when ``wait_mu`` is a number."""
    return Rule(sch) if check_wait_mu(wait_mu) is None else MuRule(sch, wait_mu)
