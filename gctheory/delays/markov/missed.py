"""How often a replicated data group is missed when stragglers persist, and what shuffling does.

In fractional repetition (Tandon et al. 2017) a data group is held by ``T`` workers and
is missed in an iteration when all ``T`` straggle. Over ``N`` iterations the number of
misses ``M`` is binomial when stragglers are i.i.d.; when they persist it is
over-dispersed. Two persistent models (Johri, Yardi & Bodas 2021, arXiv:2105.06124,
abstract: slow and active nodes; the authors' public code ``AmoghJohri/GradientCoding``
also simulates a two-state Markov node):

* **two classes** (:func:`class_missed_law`): each holder is slow with probability
  ``slow_share``, once; in every iteration a slow holder straggles with ``p_slow``, an
  active one with ``p_active``, independently. Given ``i`` slow holders ``M`` is
  ``Bin(N, q_i)``, ``q_i = p_slow^i p_active^(T - i)``, so its law is the mixture over
  ``i ~ Bin(T, slow_share)``.
* **Markov** (:func:`chain_missed_moments`): each holder's straggling is a stationary
  :class:`GilbertElliott` chain (``h = (0, 1)``); ``M = sum_t prod_k S_kt`` with
  ``Cov(X_t, X_{t+d}) = (b P^d_{11})^T - b^{2T}``, ``P^d_{11} = b + (1 - b)(1 - p - r)^d``.

**Shuffling** (the data moved to other workers every iteration) is modelled as fresh,
independent holders each iteration: ``M ~ Bin(N, qbar)`` with ``qbar`` the marginal
probability that all ``T`` straggle. Derivation (gctheory's own): the mean is the same
with and without shuffling (``E[q_i] = qbar`` because the holders are independent), and
the variance without shuffling exceeds it by ``N (N - 1) Var(q_i)`` (two classes) or by
``2 sum_d (N - d) Cov_d`` (Markov). Everything is exact (fractions);
:func:`missed_mc` is the Monte Carlo twin.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_int
from gctheory.delays.markov.chains import GilbertElliott, _prob

__all__ = ["MissedLaw", "chain_missed_moments", "class_missed_law", "missed_mc"]


def _q(v: Any, name: str) -> Fraction:
    _prob(v, name)
    return v if isinstance(v, Fraction) else Fraction(repr(float(v)))


class MissedLaw:
    """Exact law (``pmf``, a list of fractions over ``0..N``) or moments of ``M``."""

    def __init__(self, mean: Fraction, variance: Fraction, pmf: list[Fraction] | None) -> None:
        self.mean, self.variance, self.pmf = mean, variance, pmf

    def __repr__(self) -> str:
        return f"MissedLaw(mean={float(self.mean):.6g}, variance={float(self.variance):.6g})"


def _check(N: Any, T: Any) -> tuple[int, int]:
    return check_int(N, "N", low=1), check_int(T, "T", low=1)


def class_missed_law(
    N: int, T: int, slow_share: Any, p_slow: Any, p_active: Any, *, shuffle: bool
) -> MissedLaw:
    """Exact law of the misses of a ``T``-fold group over ``N`` iterations, two-class model
    (module docstring); probabilities are read as the decimals that print them."""
    N, T = _check(N, T)
    w = _q(slow_share, "slow_share")
    ps, pa = _q(p_slow, "p_slow"), _q(p_active, "p_active")
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be True or False, got {shuffle!r}")
    wi = [comb(T, i) * w**i * (1 - w) ** (T - i) for i in range(T + 1)]
    qi = [ps**i * pa ** (T - i) for i in range(T + 1)]
    qbar = sum((a * b for a, b in zip(wi, qi)), Fraction(0))
    mix = [(Fraction(1), qbar)] if shuffle else list(zip(wi, qi))
    pmf = [
        sum((a * comb(N, m) * q**m * (1 - q) ** (N - m) for a, q in mix), Fraction(0))
        for m in range(N + 1)
    ]
    mean = sum((m * p for m, p in enumerate(pmf)), Fraction(0))
    var = sum((m * m * p for m, p in enumerate(pmf)), Fraction(0)) - mean**2
    return MissedLaw(mean, var, pmf)


def chain_missed_moments(N: int, T: int, chain: GilbertElliott, *, shuffle: bool) -> MissedLaw:
    """Exact mean and variance of the misses with each holder a stationary Gilbert chain."""
    N, T = _check(N, T)
    if not isinstance(chain, GilbertElliott) or (chain.h_good, chain.h_bad) != (0.0, 1.0):
        raise ValueError("chain must be a GilbertElliott chain with h_good = 0, h_bad = 1")
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be True or False, got {shuffle!r}")
    p, r = _q(chain.p, "p"), _q(chain.r, "r")
    b = p / (p + r)
    q = b**T
    mean = N * q
    var = N * q * (1 - q)
    if not shuffle:
        lam = 1 - p - r
        for d in range(1, N):
            p11 = b + (1 - b) * lam**d
            var += 2 * (N - d) * ((b * p11) ** T - b ** (2 * T))
    return MissedLaw(mean, var, None)


def missed_mc(
    N: int,
    T: int,
    model: Any,
    *,
    shuffle: bool,
    trials: int = 4000,
    rng: Any = None,
    level: float = 0.99,
) -> tuple[Any, Any]:
    """Monte Carlo twin: ``(Estimate of E[M], Estimate of Var M)``; ``model`` a
    :class:`GilbertElliott` or ``(slow_share, p_slow, p_active)``. The variance is the mean
    over ``trials // 5`` batches of 25 draws of each batch's unbiased sample variance (its
    interval is :func:`estimate_mean`'s over batches; batches keep the terms light-tailed)."""
    from gctheory.montecarlo import estimate_mean

    N, T = _check(N, T)
    trials = check_int(trials, "trials", low=2)
    if not isinstance(model, GilbertElliott):
        w, ps, pa = (float(_q(v, k)) for v, k in zip(model, ("slow_share", "p_slow", "p_active")))

    def draw(g: np.random.Generator, size: int) -> np.ndarray:
        if isinstance(model, GilbertElliott):
            if shuffle:
                S = model.sample(1, size * N * T, g).reshape(size, N, T)
            else:
                S = model.sample(N, size * T, g).reshape(N, size, T).transpose(1, 0, 2)
            return S.all(axis=2).sum(axis=1).astype(float)
        shape = (size, N, T) if shuffle else (size, 1, T)
        slow = g.random(shape) < w
        S = g.random((size, N, T)) < np.where(slow, ps, pa)
        return S.all(axis=2).sum(axis=1).astype(float)

    seed = as_generator(rng)
    s1, s2 = seed.spawn(2)
    mean = estimate_mean(draw, trials, rng=s1, level=level)

    def batch_variance(g: np.random.Generator, size: int) -> np.ndarray:
        return draw(g, size * 25).reshape(size, 25).var(axis=1, ddof=1)

    var = estimate_mean(batch_variance, max(2, trials // 5), rng=s2, level=level)
    return mean, var
