"""Maximum-likelihood fits of the straggler chains, with the test against i.i.d. stragglers.

:func:`fit_gilbert_elliott` (the observed chain in closed form, Wilson intervals; or the
hidden chain by the forward algorithm) and :func:`fit_fritchman` (forward algorithm,
numerical maximisation, logit-scale Wald intervals). Chains are pooled over workers,
each worker's first round from the stationary law; the likelihood-ratio test of the
i.i.d. model inside the fitted one is ``2 (l_1 - l_0)`` against ``chi^2`` with the
difference in free parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from gctheory._validate import check_int, check_real
from gctheory.delays.markov.chains import Fritchman, GilbertElliott
from gctheory.delays.markov.indicators import _check_enough, _check_states

__all__ = ["MarkovFit", "fit_fritchman", "fit_gilbert_elliott", "iid_likelihood_ratio"]


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
