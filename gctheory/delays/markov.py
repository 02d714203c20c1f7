"""Stragglers with memory: two-state Markov (Gilbert-Elliott), Fritchman, (B, W, lambda).

Every runtime answer of :mod:`gctheory.runtime` draws the workers afresh each round.
Measured stragglers persist (Xu et al. 2021, Section V-B; the AWS Lambda traces'
``h`` of 1.09-1.24). This module models a worker's straggler *state* across rounds:

``straggler_matrix``
    the 0/1 (rounds, workers) matrix of a trace at one load: a worker straggles in a
    round when its time is above ``threshold`` seconds or, by default, above the
    ``quantile`` (0.9) of all the times at that load (pooled over rounds and
    workers: the top 10 % of invocations are the stragglers). The rule is stated in
    every fit.
:class:`GilbertElliott`
    each worker a two-state Markov chain, good -> bad with probability ``p`` and bad
    -> good with ``r``, straggling with probability ``h_good`` / ``h_bad`` in each
    state (Gilbert 1960, Elliott 1963; ``h = (0, 1)``, the default, is Gilbert's
    observed chain: the straggler indicator itself is Markov). Stationary straggler
    rate ``p / (p + r)``; lag-one persistence ``P(bad next | bad) = 1 - r``; the
    ``h`` of Xu et al. ``(1 - b) / r`` with ``b`` the straggler rate.
:class:`Fritchman`
    ``K`` good states and one bad (Fritchman 1967, the partitioned chain with a single
    error state): the straggler-free runs are a mixture of ``K`` geometrics, the
    straggling runs geometric. ``K = 1`` is Gilbert's chain.
:class:`BurstyModel`
    the (B, W, lambda)-bursty straggler model of Krishnan, Ebrahimi & Khisti (ICLR
    2023) as their public code checks it (``mamaj/Sequential-Gradient-Coding-2``,
    ``MultiplexedSGC.follows_straggler_model``): in every window of ``W`` consecutive
    rounds at most ``lambda`` distinct workers straggle, and a worker straggling in a
    round did not straggle ``B`` to ``W - 1`` rounds before (its straggling inside a
    window is one burst of at most ``B`` rounds). It is a constraint, not a law:
    :meth:`BurstyModel.conformity` measures how often a trace obeys it, and its
    sampler draws random bursts that obey it.

Fits (:func:`fit_gilbert_elliott`, :func:`fit_fritchman`) are maximum likelihood
(chains pooled over workers, each worker's first round from the stationary law),
with intervals, and a likelihood-ratio test against the i.i.d. model (a straggler
with the same rate every round, independently): ``2 (l_1 - l_0)`` against
``chi^2`` with the difference in free parameters. Workers are taken independent of
each other (what the i.i.d. runtime model also assumes).

:class:`MemoryDelay` turns a chain into a delay model: a worker's time is drawn
from ``fast`` in the good state and from ``slow`` when straggling;
:func:`memory_scheme_times` gives the expected iteration time of a scheme under it
by Monte Carlo (independent stationary runs of ``rounds`` rounds, CLT interval).
Its per-round marginal equals the i.i.d. mixture, so a scheme whose iteration
depends on one round only has the same *mean* time as under the i.i.d. model; the
memory changes the variance of the total over many rounds and every scheme that
carries work across rounds (sequential codes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from gctheory._validate import as_generator, check_array, check_int, check_real

__all__ = [
    "straggler_matrix",
    "GilbertElliott",
    "Fritchman",
    "BurstyModel",
    "MarkovFit",
    "fit_gilbert_elliott",
    "fit_fritchman",
    "fit_bursty",
    "iid_likelihood_ratio",
    "MemoryDelay",
    "MarkovSampler",
    "memory_scheme_times",
    "min_rounds",
]


def _prob(v: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}") from None
    if not (0.0 <= x <= 1.0) or math.isnan(x):
        raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}")
    if (open_low and x == 0.0) or (open_high and x == 1.0):
        raise ValueError(
            f"{name} = {x:g} makes the chain not ergodic (a state is never left or never "
            "reached); a straggler model needs 0 < p and 0 < r"
        )
    return x


# ---------------------------------------------------------------------------
# from a trace to straggler indicators


def straggler_matrix(
    data: Any, load: float | None = None, *, quantile: float = 0.9, threshold: float | None = None
) -> tuple[np.ndarray, str]:
    """``(S, rule)``: the (rounds, workers) 0/1 straggler matrix and the rule that made it.

    ``data`` is a :class:`~gctheory.delays.Trace` (with ``load``; select one campaign
    first, its rounds follow each other) or a (rounds, workers) time matrix. A worker
    straggles in a round when its time exceeds ``threshold`` seconds, else the
    ``quantile`` of all the times of the matrix (pooled).
    """
    from gctheory.delays.trace import Trace

    if isinstance(data, Trace):
        if load is None:
            raise ValueError(f"load: a trace needs the load to read, one of {list(data.loads)}")
        data.require_single_campaign("a straggler matrix (rounds must follow each other)")
        M = data.rounds(load)
    else:
        M = check_array(data, "data", ndim=2)
    if threshold is not None:
        thr = check_real(threshold, "threshold", low=0.0)
        rule = f"time > {thr:.6g} s"
    else:
        q = check_real(quantile, "quantile", low=0.0, high=1.0, low_open=True, high_open=True)
        thr = float(np.quantile(M, q))
        rule = f"time > the {q:g}-quantile of the pooled times ({thr:.6g} s)"
    return (M > thr).astype(np.int8), rule


def _check_states(S: Any, name: str = "S") -> np.ndarray:
    S = check_array(S, name, ndim=2)
    if not np.all((S == 0) | (S == 1)):
        raise ValueError(f"{name} must hold 0 (on time) or 1 (straggler) only")
    return S.astype(np.int8)


#: rounds needed per chain parameter before a fit is attempted (transitions per parameter)
_MIN_TRANSITIONS = 10


def min_rounds(params: int, workers: int) -> int:
    """Rounds a memoryful fit of ``params`` free parameters needs with ``workers``
    workers: at least ``10 params`` observed transitions and three rounds."""
    return max(3, 1 + math.ceil(_MIN_TRANSITIONS * params / max(workers, 1)))


def _check_enough(S: np.ndarray, params: int, what: str) -> None:
    R, W = S.shape
    need = min_rounds(params, W)
    if R < need:
        raise ValueError(
            f"S: {R} rounds of {W} workers are too short to fit {what} ({params} parameters): "
            f"it needs at least {need} rounds (>= {_MIN_TRANSITIONS * params} round-to-round "
            "transitions and >= 3 rounds)"
        )
    n_bad = int(S.sum())
    if n_bad == 0 or n_bad == S.size:
        raise ValueError(
            f"S: {'no' if n_bad == 0 else 'every'} worker-round is a straggler, so {what} has "
            "nothing to fit (choose another threshold or quantile)"
        )


# ---------------------------------------------------------------------------
# models


@dataclass(frozen=True)
class GilbertElliott:
    """Two-state Markov straggler chain (module docstring).

    ``p = P(good -> bad)``, ``r = P(bad -> good)``, ``h_good``/``h_bad`` the
    probabilities of straggling in each state. ``0 < p, r`` (otherwise a state is
    absorbing or never reached: not ergodic) and ``p + r < 2`` (``p = r = 1`` is
    periodic).
    """

    p: float
    r: float
    h_good: float = 0.0
    h_bad: float = 1.0

    def __post_init__(self) -> None:
        p = _prob(self.p, "p", open_low=True)
        r = _prob(self.r, "r", open_low=True)
        if p == 1.0 and r == 1.0:
            raise ValueError("p = r = 1 makes the chain periodic (it alternates), not ergodic")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "r", r)
        object.__setattr__(self, "h_good", _prob(self.h_good, "h_good"))
        object.__setattr__(self, "h_bad", _prob(self.h_bad, "h_bad"))

    @property
    def transition(self) -> np.ndarray:
        return np.array([[1 - self.p, self.p], [self.r, 1 - self.r]])

    @property
    def emission(self) -> np.ndarray:
        return np.array([self.h_good, self.h_bad])

    @property
    def stationary(self) -> np.ndarray:
        s = self.p + self.r
        return np.array([self.r / s, self.p / s])

    @property
    def straggler_rate(self) -> float:
        return float(self.stationary @ self.emission)

    @property
    def persistence(self) -> float:
        """``P(straggler next round | straggler now)`` in stationarity."""
        return _lag1(self.transition, self.emission, self.stationary)

    @property
    def h(self) -> float:
        """Xu et al.'s ``h = (1 - b) / (1 - x)``, ``x`` the persistence: 1 without memory."""
        x = self.persistence
        return (1 - self.straggler_rate) / (1 - x) if x < 1 else math.inf

    def sample(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        """(rounds, workers) 0/1 straggler indicators, chains started stationary."""
        return _sample_chain(self.transition, self.emission, self.stationary, rounds, workers, rng)


@dataclass(frozen=True)
class Fritchman:
    """Fritchman's partitioned chain: ``K`` good states and one bad (straggling) state.

    ``stay_good[i]`` = P(good_i -> good_i) (else -> bad); ``stay_bad`` = P(bad -> bad);
    ``entry[i]`` = P(bad -> good_i | leaving bad), summing to 1. Straggler-free runs
    are the mixture ``sum_i w_i Geom(1 - stay_good[i])`` (module docstring).
    """

    stay_good: tuple[float, ...]
    entry: tuple[float, ...]
    stay_bad: float

    def __post_init__(self) -> None:
        sg = tuple(
            _prob(v, f"stay_good[{i}]", open_high=True) for i, v in enumerate(self.stay_good)
        )
        en = tuple(_prob(v, f"entry[{i}]") for i, v in enumerate(self.entry))
        if not sg or len(sg) != len(en):
            raise ValueError(
                f"stay_good and entry must have the same length K >= 1, got {len(sg)} and {len(en)}"
            )
        if abs(sum(en) - 1) > 1e-9:
            raise ValueError(
                f"entry must sum to 1 (where the chain goes on leaving bad), got {sum(en)}"
            )
        sb = _prob(self.stay_bad, "stay_bad", open_high=True)
        object.__setattr__(self, "stay_good", sg)
        object.__setattr__(self, "entry", en)
        object.__setattr__(self, "stay_bad", sb)

    @property
    def K(self) -> int:
        return len(self.stay_good)

    @property
    def transition(self) -> np.ndarray:
        K = self.K
        P = np.zeros((K + 1, K + 1))
        for i, a in enumerate(self.stay_good):
            P[i, i] = a
            P[i, K] = 1 - a
        P[K, :K] = (1 - self.stay_bad) * np.array(self.entry)
        P[K, K] = self.stay_bad
        return P

    @property
    def emission(self) -> np.ndarray:
        return np.r_[np.zeros(self.K), 1.0]

    @property
    def stationary(self) -> np.ndarray:
        return _stationary(self.transition)

    @property
    def straggler_rate(self) -> float:
        return float(self.stationary[-1])

    @property
    def persistence(self) -> float:
        return self.stay_bad

    @property
    def h(self) -> float:
        return (1 - self.straggler_rate) / (1 - self.stay_bad)

    def sample(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        return _sample_chain(self.transition, self.emission, self.stationary, rounds, workers, rng)


def _stationary(P: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eig(P.T)
    i = int(np.argmin(np.abs(w - 1)))
    pi = np.real(v[:, i])
    pi = pi / pi.sum()
    if np.any(pi < -1e-12) or abs(w[i] - 1) > 1e-9:
        raise ValueError("the chain has no unique stationary law (not ergodic)")
    return np.clip(pi, 0, 1)


def _lag1(P: np.ndarray, e: np.ndarray, pi: np.ndarray) -> float:
    b = float(pi @ e)
    both = float((pi * e) @ P @ e)
    return both / b if b > 0 else math.nan


def _sample_chain(P, e, pi, rounds, workers, rng) -> np.ndarray:
    rounds = check_int(rounds, "rounds", low=1)
    workers = check_int(workers, "workers", low=1)
    g = as_generator(rng)
    cum = np.cumsum(P, axis=1)
    state = np.minimum(np.searchsorted(np.cumsum(pi), g.random(workers)), len(pi) - 1)
    out = np.empty((rounds, workers), dtype=np.int8)
    for t in range(rounds):
        if t:
            u = g.random(workers)
            state = np.minimum((u[:, None] > cum[state]).sum(axis=1), len(pi) - 1)
        out[t] = g.random(workers) < e[state]
    return out


# ---------------------------------------------------------------------------
# fits


@dataclass(frozen=True)
class MarkovFit:
    """A memoryful straggler model fitted to a 0/1 matrix, with the test against i.i.d.

    ``params`` / ``intervals``: estimates and ``level`` intervals; ``loglik``: the
    maximised log-likelihood; ``lr``, ``df``, ``p_value``: the likelihood-ratio test
    of the i.i.d. model inside this one; ``rule``: what made a straggler.
    """

    model: Any
    params: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    loglik: float
    iid_loglik: float
    df: int
    level: float
    rounds: int
    workers: int
    rule: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def lr(self) -> float:
        return max(0.0, 2.0 * (self.loglik - self.iid_loglik))

    @property
    def p_value(self) -> float:
        return float(stats.chi2.sf(self.lr, self.df))

    def rejects_iid(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha

    def contains(self, name: str, value: float) -> bool:
        lo, hi = self.intervals[name]
        return lo <= value <= hi

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "parameter": k,
                "estimate": v,
                "low": self.intervals[k][0],
                "high": self.intervals[k][1],
            }
            for k, v in self.params.items()
        ]


def _iid_loglik(S: np.ndarray) -> float:
    b = float(S.mean())
    k = float(S.sum())
    return k * math.log(b) + (S.size - k) * math.log1p(-b)


def iid_likelihood_ratio(S: Any) -> float:
    """The i.i.d. model's maximised log-likelihood of a 0/1 matrix (Bernoulli, one rate)."""
    return _iid_loglik(_check_states(S))


def _wilson(k: float, n: float, z: float) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    ph = k / n
    d = 1 + z * z / n
    c = (ph + z * z / (2 * n)) / d
    w = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - w), min(1.0, c + w)


def fit_gilbert_elliott(
    S: Any, *, level: float = 0.95, rule: str = "", hidden: bool = False
) -> MarkovFit:
    """Maximum-likelihood two-state Markov straggler chain from a (rounds, workers) 0/1 matrix.

    ``hidden=False`` (default): Gilbert's observed chain (``h = (0, 1)``): ``p`` and
    ``r`` are transition frequencies, ``p = n_01 / n_0.``, ``r = n_10 / n_1.``
    (closed form; the first round enters through the stationary law, which moves the
    estimate by ``O(1/rounds)`` and is left out here), with Wilson score intervals.
    ``hidden=True``: the full Gilbert-Elliott chain with ``h_good``, ``h_bad`` free,
    by the forward algorithm and numerical maximisation; Wald intervals on the logit
    scale from the observed information. Likelihood-ratio test against i.i.d.:
    ``df = 1`` (observed) or ``3`` (hidden).
    """
    S = _check_states(S)
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    z = float(stats.norm.ppf(0.5 + level / 2))
    R, W = S.shape
    if hidden:
        _check_enough(S, 4, "a hidden Gilbert-Elliott chain")
        return _fit_hmm(S, "gilbert-elliott", 1, level, rule)
    _check_enough(S, 2, "a two-state Markov chain")
    a, b = S[:-1], S[1:]
    n00 = float(np.sum((a == 0) & (b == 0)))
    n01 = float(np.sum((a == 0) & (b == 1)))
    n10 = float(np.sum((a == 1) & (b == 0)))
    n11 = float(np.sum((a == 1) & (b == 1)))
    if n01 == 0 or n10 == 0:
        raise ValueError(
            "S: no good->bad or no bad->good transition observed: the fitted chain would not "
            "be ergodic; more rounds are needed"
        )
    p = n01 / (n00 + n01)
    r = n10 / (n10 + n11)

    def ll(p_: float, r_: float) -> float:
        return (
            n00 * math.log1p(-p_)
            + n01 * math.log(p_)
            + n10 * math.log(r_)
            + (n11 * math.log1p(-r_) if n11 else 0.0)
        )

    # the i.i.d. model on the same transitions (conditional on each worker's first round)
    q = (n01 + n11) / (n00 + n01 + n10 + n11)
    ll0 = (n01 + n11) * math.log(q) + (n00 + n10) * math.log1p(-q)
    model = GilbertElliott(p, r)
    ip, ir = _wilson(n01, n00 + n01, z), _wilson(n10, n10 + n11, z)
    params = {
        "p": p,
        "r": r,
        "straggler_rate": model.straggler_rate,
        "persistence": 1 - r,
        "h": model.h,
    }
    ints = {
        "p": ip,
        "r": ir,
        "persistence": (1 - ir[1], 1 - ir[0]),
        "straggler_rate": (ip[0] / (ip[0] + ir[1]), ip[1] / (ip[1] + ir[0])),
        "h": (
            (1 - params["straggler_rate"]) / max(ir[1], 1e-300),
            (1 - params["straggler_rate"]) / max(ir[0], 1e-300),
        ),
    }
    return MarkovFit(model, params, ints, ll(p, r), ll0, 1, level, R, W, rule)


def _forward_loglik(P: np.ndarray, e: np.ndarray, pi: np.ndarray, S: np.ndarray) -> float:
    """Sum over workers of the log-likelihood of their 0/1 sequences (scaled forward pass)."""
    like = np.where(S[:, :, None] == 1, e[None, None, :], 1 - e[None, None, :])  # R, W, states
    alpha = pi[None, :] * like[0]
    c = alpha.sum(axis=1)
    total = float(np.log(np.maximum(c, 1e-300)).sum())
    alpha /= np.maximum(c, 1e-300)[:, None]
    for t in range(1, S.shape[0]):
        alpha = (alpha @ P) * like[t]
        c = alpha.sum(axis=1)
        total += float(np.log(np.maximum(c, 1e-300)).sum())
        alpha /= np.maximum(c, 1e-300)[:, None]
    return total


def _expit(x):
    return 1 / (1 + np.exp(-x))


def _hmm_model(kind: str, K: int, theta: np.ndarray):
    if kind == "gilbert-elliott":
        p, r, hg, hb = _expit(theta)
        return GilbertElliott(float(p), float(r), float(hg), float(hb))
    sg = _expit(theta[:K])
    sb = float(_expit(theta[K]))
    w = np.exp(np.r_[0.0, theta[K + 1 :]])
    return Fritchman(tuple(float(x) for x in sg), tuple(float(x) for x in w / w.sum()), sb)


def _fit_hmm(S: np.ndarray, kind: str, K: int, level: float, rule: str) -> MarkovFit:
    R, W = S.shape
    b = float(S.mean())
    lb = math.log(b / (1 - b))

    def nll(theta: np.ndarray) -> float:
        try:
            m = _hmm_model(kind, K, theta)
            return -_forward_loglik(m.transition, m.emission, m.stationary, S)
        except ValueError:
            return 1e300

    starts = []
    if kind == "gilbert-elliott":
        starts = [np.array([lb, 0.0, -4.0, 3.0]), np.array([lb - 1, -1.0, -3.0, 1.0])]
        names = ["p", "r", "h_good", "h_bad"]
    else:
        for spread in (1.0, 3.0):
            th = np.r_[np.linspace(1.0, 1.0 + spread, K), 0.0, np.zeros(K - 1)]
            starts.append(th)
        names = (
            [f"stay_good[{i}]" for i in range(K)]
            + ["stay_bad"]
            + [f"entry_logit[{i}]" for i in range(1, K)]
        )
    best = None
    for th0 in starts:
        res = optimize.minimize(nll, th0, method="BFGS")
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None, "starts holds two points for every kind"
    theta = best.x
    if kind == "fritchman" and K > 1:
        # label switching: order the good states by how long they last (stay_good ascending)
        order = np.argsort(theta[:K])
        ent = np.r_[0.0, theta[K + 1 :]][order]
        theta = np.r_[theta[:K][order], theta[K], ent[1:] - ent[0]]
    model = _hmm_model(kind, K, theta)
    H = _num_hessian(nll, theta)
    z = float(stats.norm.ppf(0.5 + level / 2))
    notes = []
    try:
        cov = np.linalg.inv(H)
        se = np.sqrt(np.maximum(np.diag(cov), 0))
    except np.linalg.LinAlgError:
        se = np.full(theta.size, np.inf)
        notes.append("observed information singular: intervals unbounded")
    params: dict[str, float] = {}
    ints: dict[str, tuple[float, float]] = {}
    for i, nm in enumerate(names):
        if nm.startswith("entry_logit"):
            params[nm] = float(theta[i])
            ints[nm] = (float(theta[i] - z * se[i]), float(theta[i] + z * se[i]))
        else:
            params[nm] = float(_expit(theta[i]))
            ints[nm] = (float(_expit(theta[i] - z * se[i])), float(_expit(theta[i] + z * se[i])))
    params["straggler_rate"] = model.straggler_rate
    params["persistence"] = model.persistence
    params["h"] = model.h
    df = theta.size - 1
    return MarkovFit(
        model, params, ints, -float(best.fun), _iid_loglik(S), df, level, R, W, rule, notes
    )


def _num_hessian(f, x: np.ndarray, eps: float = 1e-4) -> np.ndarray:
    n = x.size
    H = np.empty((n, n))
    f0 = f(x)
    for i in range(n):
        for j in range(i, n):
            ei = np.zeros(n)
            ej = np.zeros(n)
            ei[i] = eps
            ej[j] = eps
            v = (f(x + ei + ej) - f(x + ei) - f(x + ej) + f0) / (eps * eps)
            H[i, j] = H[j, i] = v
    return H


def fit_fritchman(S: Any, K: int = 2, *, level: float = 0.95, rule: str = "") -> MarkovFit:
    """Maximum-likelihood Fritchman chain with ``K`` good states (forward algorithm,
    numerical maximisation, logit-scale Wald intervals); test against i.i.d. with
    ``df = 2K - 1``."""
    S = _check_states(S)
    K = check_int(K, "K", low=1, high=6)
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    _check_enough(S, 2 * K, f"a Fritchman chain with K={K} good states")
    return _fit_hmm(S, "fritchman", K, level, rule)


# ---------------------------------------------------------------------------
# (B, W, lambda)


@dataclass(frozen=True)
class BurstyModel:
    """The (B, W, lambda)-bursty straggler model (module docstring): ``1 <= B < W``,
    ``1 <= lam <= workers``."""

    B: int
    W: int
    lam: int

    def __post_init__(self) -> None:
        W = check_int(self.W, "W", low=2)
        B = check_int(self.B, "B", low=1, high=W - 1)
        lam = check_int(self.lam, "lam", low=1)
        object.__setattr__(self, "W", W)
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "lam", lam)

    def follows(self, S: np.ndarray) -> np.ndarray:
        """Per round: does round ``t``'s pattern follow the model given the rounds
        before it (as the authors' simulator checks it, on the recorded pattern)?"""
        S = _check_states(S).astype(bool)
        R = S.shape[0]
        ok = np.ones(R, dtype=bool)
        for t in range(R):
            past = S[max(0, t + 1 - self.W) : t]
            distinct = (past.any(axis=0) | S[t]).sum()
            old = S[max(0, t + 1 - self.W) : max(0, t + 1 - self.B)]
            ok[t] = distinct <= self.lam and not (old.any(axis=0) & S[t]).any()
        return ok

    def conformity(self, S: Any) -> float:
        """Fraction of rounds whose straggler pattern follows the model."""
        return float(self.follows(S).mean())

    def sample(self, rounds: int, workers: int, rate: float, rng: Any = None) -> np.ndarray:
        """Random straggler patterns that follow the model: each round every eligible
        worker starts a burst with probability ``rate`` (burst length uniform on
        ``1..B``); a start that would break the window or the ``lambda`` rule is dropped."""
        rounds = check_int(rounds, "rounds", low=1)
        workers = check_int(workers, "workers", low=1)
        rate = _prob(rate, "rate")
        if self.lam > workers:
            raise ValueError(f"lam = {self.lam} exceeds the number of workers {workers}")
        g = as_generator(rng)
        S = np.zeros((rounds, workers), dtype=bool)
        left = np.zeros(workers, dtype=int)
        for t in range(rounds):
            cont = left > 0
            S[t] = cont
            left[cont] -= 1
            lo = max(0, t + 1 - self.W)
            recent = S[lo:t].any(axis=0) if t > lo else np.zeros(workers, dtype=bool)
            distinct = int((recent | S[t]).sum())
            cand = np.flatnonzero(~recent & ~S[t] & (g.random(workers) < rate))
            g.shuffle(cand)
            for w in cand:
                if distinct >= self.lam:
                    break
                S[t, w] = True
                distinct += 1
                left[w] = int(g.integers(1, self.B + 1)) - 1
        return S.astype(np.int8)


def fit_bursty(S: Any, W: int, *, target: float = 0.9) -> list[dict[str, Any]]:
    """For each ``B < W``: the smallest ``lambda`` under which at least ``target`` of
    the rounds follow the model, and that fraction (a constraint model is fitted by
    its coverage, not by likelihood)."""
    S = _check_states(S)
    W = check_int(W, "W", low=2)
    target = _prob(target, "target")
    n = S.shape[1]
    out = []
    for B in range(1, W):
        lo, hi = 1, n
        if BurstyModel(B, W, n).conformity(S) < target:
            out.append(
                {"B": B, "W": W, "lam": None, "conformity": BurstyModel(B, W, n).conformity(S)}
            )
            continue
        while lo < hi:
            mid = (lo + hi) // 2
            if BurstyModel(B, W, mid).conformity(S) >= target:
                hi = mid
            else:
                lo = mid + 1
        out.append({"B": B, "W": W, "lam": lo, "conformity": BurstyModel(B, W, lo).conformity(S)})
    return out


# ---------------------------------------------------------------------------
# delays with memory


@dataclass(frozen=True)
class MemoryDelay:
    """Worker times driven by a straggler chain: ``fast`` when on time, ``slow`` when
    straggling. ``fast``/``slow`` are frozen laws (anything with ``rvs``) or 1-D arrays
    of measured times resampled with replacement (the trace's own split)."""

    chain: Any
    fast: Any
    slow: Any
    label: str = ""

    def _draw(self, law: Any, size: int, g: np.random.Generator) -> np.ndarray:
        if isinstance(law, np.ndarray):
            return law[g.integers(0, law.size, size)]
        return np.asarray(law.rvs(size=size, random_state=g), dtype=float)

    def draw_rounds(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        """(rounds, workers) times of ``workers`` independent stationary chains."""
        g = as_generator(rng)
        S = self.chain.sample(rounds, workers, g).astype(bool)
        T = np.empty(S.shape)
        T[S] = self._draw(self.slow, int(S.sum()), g)
        T[~S] = self._draw(self.fast, int((~S).sum()), g)
        return T

    @classmethod
    def from_matrix(cls, M: Any, fit: MarkovFit, threshold: float) -> MemoryDelay:
        M = check_array(M, "M", ndim=2)
        return cls(fit.model, np.sort(M[M <= threshold]), np.sort(M[M > threshold]), fit.rule)


def memory_scheme_times(
    delay: MemoryDelay,
    n: int,
    waits: Any,
    *,
    rounds: int = 50,
    trials: int = 200,
    level: float = 0.95,
    rng: Any = None,
) -> dict[str, np.ndarray]:
    """Expected time of one round for "wait for the fastest ``wait`` of ``n``", for each
    ``wait``, under ``delay``: ``trials`` independent stationary runs of ``rounds``
    rounds, the per-run average time of a round, and a CLT interval over runs (runs
    are independent, the rounds inside one are not). Returns ``mean``, ``low``,
    ``high``, ``std_total`` (standard deviation of the total time of a run) arrays."""
    n = check_int(n, "n", low=1)
    waits = np.atleast_1d(np.asarray(waits, dtype=int))
    if waits.min() < 1 or waits.max() > n:
        raise ValueError(f"waits must lie in [1, n={n}], got {waits.min()}..{waits.max()}")
    rounds = check_int(rounds, "rounds", low=1)
    trials = check_int(trials, "trials", low=2)
    g = as_generator(rng)
    per_run = np.empty((trials, waits.size))
    tot = np.empty((trials, waits.size))
    for i in range(trials):
        T = np.sort(delay.draw_rounds(rounds, n, g), axis=1)[:, waits - 1]
        per_run[i] = T.mean(axis=0)
        tot[i] = T.sum(axis=0)
    m = per_run.mean(axis=0)
    se = per_run.std(axis=0, ddof=1) / math.sqrt(trials)
    z = float(stats.norm.ppf(0.5 + level / 2))
    return {"mean": m, "low": m - z * se, "high": m + z * se, "std_total": tot.std(axis=0, ddof=1)}


class MarkovSampler:
    """A :class:`MemoryDelay` as a per-round sampler for :func:`gctheory.delays.parse_delay`
    and the training simulator: each ``rvs(size=n)`` call is one round and advances each
    worker's straggler chain by one step (chains start stationary at the first call, or
    when ``n`` changes). ``DelayModel(MarkovSampler(...))`` then gives stragglers with
    memory; keep the model's ``persist = 1`` (the chain carries the memory)."""

    def __init__(self, delay: MemoryDelay) -> None:
        if not isinstance(delay, MemoryDelay):
            raise ValueError(f"delay must be a MemoryDelay, got {type(delay).__name__}")
        self.delay = delay
        self._state: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"MarkovSampler({self.delay.chain!r})"

    def support(self) -> tuple[float, float]:
        lo = []
        for law in (self.delay.fast, self.delay.slow):
            lo.append(
                float(np.min(law)) if isinstance(law, np.ndarray) else float(law.support()[0])
            )
        return min(lo), math.inf

    def rvs(self, size: Any = None, random_state: Any = None) -> np.ndarray:
        n = check_int(size, "size", low=1)
        g = as_generator(random_state)
        ch = self.delay.chain
        P, e, pi = ch.transition, ch.emission, ch.stationary
        if self._state is None or self._state.size != n:
            self._state = np.minimum(np.searchsorted(np.cumsum(pi), g.random(n)), len(pi) - 1)
        else:
            cum = np.cumsum(P, axis=1)
            u = g.random(n)
            self._state = np.minimum((u[:, None] > cum[self._state]).sum(axis=1), len(pi) - 1)
        slow = g.random(n) < e[self._state]
        out = np.empty(n)
        out[slow] = self.delay._draw(self.delay.slow, int(slow.sum()), g)
        out[~slow] = self.delay._draw(self.delay.fast, int((~slow).sum()), g)
        return out
