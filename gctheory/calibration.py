"""The calibration studies of gctheory's interval estimators, with known truths.

Each :class:`Study` runs one estimator that reports an interval, at a given
seed and level, on a case whose answer is known exactly; with
:func:`gctheory.montecarlo.calibration.coverage_study` it measures how often
the interval contains that answer. :func:`studies` lists them:

- the engine (:mod:`gctheory.montecarlo`): Wilson and Clopper-Pearson
  proportions, both stop rules and the two combined, ``estimate_mean``,
  importance sampling with ``ShiftedGaussian``, multilevel splitting;
- the built-in proposals of :mod:`gctheory.tails`: ``GaussianConditionTail``
  (``"conditional"`` and ``"tilt"``) and ``SubsetConditionTail`` (one subset:
  the whole matrix) against the exact 2 x n law ``condition_tail_2xn``, and
  ``TiltedErasures`` against a peeling failure probability by enumeration;
- the fitted-law intervals of :func:`gctheory.delays.fit_law` on samples of
  the law they fit (exact pivots for ``shifted_exp`` and ``pareto``, the
  Monte Carlo Neyman interval for ``weibull``'s shape; a fit that refuses, saying it did not
  converge, counts as a miss);
- the Monte Carlo time column of the tradeoff atlas
  (:func:`gctheory.runtime.scheme_time_mc`, the atlas's ``time_low``/``time_high``)
  against :func:`gctheory.runtime.scheme_time_moments`.

The higher layers are imported when a study runs, not when this module is.
:func:`coverage_curve` gives one study's coverage at several levels (the data
of the ``calibration_coverage`` figure).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from gctheory.montecarlo.calibration import Coverage, coverage_study
from gctheory.montecarlo.estimates import Estimate

__all__ = ["Study", "coverage_curve", "studies"]


@dataclass(frozen=True)
class Study:
    """An interval estimator on a case with a known answer.

    ``run(seed, level)`` returns an :class:`Estimate` stated at ``level``;
    ``truth`` is the exact answer; ``group`` the package the estimator is from.

    Parameters
    ----------
    name : str
        The study's name.
    group : str
        The package of the estimator.
    truth : float
        The exact answer.
    run : callable
        ``run(seed, level)`` returning an Estimate.

    Examples
    --------
    >>> from gctheory.calibration import Study, studies
    >>> study = studies()["wilson"]
    >>> study.group, study.run(0, 0.9).contains(study.truth)
    ('montecarlo', True)
    """

    name: str
    group: str
    truth: float
    run: Callable[[int, float], Estimate]

    def coverage(self, seeds: Iterable[int], level: float, **kw) -> Coverage:
        """:func:`coverage_study` of this estimator at ``level``."""
        return coverage_study(lambda s: self.run(s, level), self.truth, seeds, level, **kw)


def coverage_curve(study: Study, levels: Sequence[float], seeds: Iterable[int]) -> list[Coverage]:
    """The coverage of ``study`` at each of ``levels``, over the same ``seeds``.

    Parameters
    ----------
    study : Study
        The study.
    levels : sequence of float
        Confidence levels.
    seeds : iterable of int
        Seeds of the runs.

    Returns
    -------
    list of Coverage
        Covered runs out of the total at each level, with an interval.

    Examples
    --------
    >>> from gctheory.calibration import coverage_curve, studies
    >>> c = coverage_curve(studies()["wilson"], [0.9], range(20))[0]
    >>> c.covered, c.runs, c.level
    (18, 20, 0.9)
    """
    seeds = list(seeds)
    return [study.coverage(seeds, level) for level in levels]


# --- events and estimators (module level: picklable, fingerprintable) -------------------


def _bernoulli(rng: np.random.Generator, size: int, p: float) -> np.ndarray:
    return rng.random(size) < p


def _exponential(rng: np.random.Generator, size: int, mean: float) -> np.ndarray:
    return rng.exponential(mean, size)


def _first_above(x: np.ndarray, t: float) -> np.ndarray:
    return x[:, 0] > t


def _first(x: np.ndarray) -> np.ndarray:
    return x[:, 0]


def _probability(seed: int, level: float, *, p: float, trials: int, **kw) -> Estimate:
    from gctheory.montecarlo import estimate_probability

    event = functools.partial(_bernoulli, p=p)
    return estimate_probability(event, trials, rng=seed, level=level, **kw)


def _mean(seed: int, level: float, *, mean: float, trials: int) -> Estimate:
    from gctheory.montecarlo import estimate_mean

    return estimate_mean(functools.partial(_exponential, mean=mean), trials, rng=seed, level=level)


def _shifted_gaussian(seed: int, level: float, *, t: float, trials: int) -> Estimate:
    from gctheory.montecarlo import ShiftedGaussian, importance_sampling

    event = functools.partial(_first_above, t=t)
    return importance_sampling(event, ShiftedGaussian((t,)), trials, rng=seed, level=level)


def _splitting(seed: int, level: float, *, t: float, runs: int, particles: int) -> Estimate:
    from gctheory.montecarlo import GaussianSpace, estimate_splitting

    return estimate_splitting(
        _first, t, GaussianSpace(1), runs, particles=particles, rng=seed, level=level
    )


def _condition_tail(seed: int, level: float, *, n: int, x: float, method: str, trials: int):
    from gctheory.tails import condition_tail_is

    return condition_tail_is(2, n, x, trials, method=method, rng=seed, level=level)


def _subset_tail(seed: int, level: float, *, n: int, x: float, trials: int) -> Estimate:
    from gctheory.montecarlo import importance_sampling
    from gctheory.tails import SubsetConditionTail, SubsetMaxExceeds

    prop = SubsetConditionTail(n, 2, n, x)  # one subset, the whole 2 x n matrix
    return importance_sampling(SubsetMaxExceeds(n, 2, n, x), prop, trials, rng=seed, level=level)


def _parity_code():
    """A small LDPC-like parity-check matrix (8 checks on 12 bits, column weight 2)."""
    H = np.zeros((8, 12), dtype=np.uint8)
    for j in range(12):
        H[j % 8, j] = 1
        H[(j * 3 + 1) % 8, j] = 1
    return H


def _erasures(seed: int, level: float, *, eps: float, tilt: float, trials: int) -> Estimate:
    from gctheory.montecarlo import importance_sampling
    from gctheory.tails import PeelingFails, TiltedErasures

    H = _parity_code()
    prop = TiltedErasures(H.shape[1], eps, tilt)
    return importance_sampling(PeelingFails(H), prop, trials, rng=seed, level=level)


def peeling_failure_exact(H: np.ndarray, eps: float) -> float:
    """P(peeling fails) for i.i.d. erasures of probability ``eps``, by enumerating every
    pattern of the ``n <= 20`` bits (a pattern fails when it contains a stopping set)."""
    from gctheory import ldpc

    n = H.shape[1]
    if n > 20:
        raise ValueError(f"enumeration of 2^n patterns needs n <= 20, got n={n}")
    masks = np.arange(1 << n, dtype=np.uint32)
    E = ((masks[:, None] >> np.arange(n, dtype=np.uint32)) & 1).astype(bool)
    fails = np.zeros(len(E), dtype=bool)
    for start in range(0, len(E), 4096):
        fails[start : start + 4096] = ldpc.peel_batch(H, E[start : start + 4096]).any(axis=1)
    k = E.sum(axis=1)
    counts = np.bincount(k[fails], minlength=n + 1)
    ks = np.arange(n + 1)
    return float(np.sum(counts * np.exp(ks * math.log(eps) + (n - ks) * math.log1p(-eps))))


def _fit(seed: int, level: float, *, law: str, param: str, n: int) -> Estimate:
    from gctheory.delays import FitConvergenceError, fit_law

    x = _LAW_SAMPLERS[law](np.random.default_rng(seed), n)
    try:
        fit = fit_law(x, law, level=level)
    except FitConvergenceError:  # no interval given: counted as a miss
        return Estimate(math.nan, math.nan, math.nan, n, level, method=f"fit_law {law} refused")
    lo, hi = fit.ci[param]
    return Estimate(fit.params[param], lo, hi, n, level, method=f"fit_law {law} {param}")


_LAW_TRUTH = {
    ("shifted_exp", "shift"): 1.0,
    ("shifted_exp", "mean"): 2.0,
    ("pareto", "shape"): 2.5,
    ("pareto", "scale"): 1.0,
    ("weibull", "shape"): 1.5,
}
_LAW_SAMPLERS = {
    "shifted_exp": lambda rng, n: 1.0 + rng.exponential(2.0, n),
    "pareto": lambda rng, n: rng.pareto(2.5, n) + 1.0,
    "weibull": lambda rng, n: 0.5 + 2.0 * rng.weibull(1.5, n),
}


def _atlas_time(seed: int, level: float, *, n: int, s: int, trials: int) -> Estimate:
    from scipy import stats

    from gctheory.runtime import scheme_time_mc

    return scheme_time_mc("ignore-s", stats.expon(), n, s, 1, trials, rng=seed, level=level)


def _atlas_time_truth(n: int, s: int) -> float:
    from scipy import stats

    from gctheory.runtime import scheme_time_moments

    return float(scheme_time_moments("ignore-s", stats.expon(), n, s).mean)


# --- the list ------------------------------------------------------------------------


def studies() -> dict[str, Study]:
    """Every calibration study, by name (cheap to build: truths are computed on demand
    only where they are closed forms).

    Returns
    -------
    dict of str to Study
        Every calibration study.

    Examples
    --------
    >>> from gctheory.calibration import studies
    >>> sorted(studies())[:3]
    ['clopper-pearson', 'delays-pareto-scale', 'delays-pareto-shape']
    """
    from gctheory.montecarlo.stopping import Stop

    p, t, x = 0.02, 3.0, 30.0
    q = float(special.ndtr(-t))
    out: list[Study] = []

    def add(name: str, group: str, truth: float, run: Callable, **kw) -> None:
        out.append(Study(name, group, truth, functools.partial(run, **kw)))

    prob = dict(p=p, trials=2000)
    add("wilson", "montecarlo", p, _probability, **prob, interval="wilson")
    add("clopper-pearson", "montecarlo", p, _probability, **prob, interval="clopper-pearson")
    seq = dict(p=p, trials=10**6, chunk_size=20)
    add("stop-events", "montecarlo", p, _probability, **seq, stop=Stop(events=10))
    add("stop-rel-half-width", "montecarlo", p, _probability, **seq, stop=Stop(rel_half_width=0.4))
    add(
        "stop-events-and-rel-half-width",
        "montecarlo",
        p,
        _probability,
        **seq,
        stop=Stop(rel_half_width=0.3, events=12),
    )
    add("mean", "montecarlo", 2.0, _mean, mean=2.0, trials=500)
    add("importance-shifted-gaussian", "montecarlo", q, _shifted_gaussian, t=t, trials=500)
    add("splitting", "montecarlo", q, _splitting, t=t, runs=10, particles=30)
    from gctheory.tails.gaussian import condition_tail_2xn

    truth = condition_tail_2xn(3, x)
    add("tails-condition-conditional", "tails", truth, _condition_tail, n=3, x=x,
        method="conditional", trials=200)  # fmt: skip
    add("tails-condition-tilt", "tails", truth, _condition_tail, n=3, x=x, method="tilt",
        trials=2000)  # fmt: skip
    add("tails-subset", "tails", truth, _subset_tail, n=3, x=x, trials=200)
    eps = 0.05
    add("tails-tilted-erasures", "tails", _erasure_truth(eps), _erasures, eps=eps, tilt=0.25,
        trials=500)  # fmt: skip
    for (law, param), truth in _LAW_TRUTH.items():
        n = 100 if law == "weibull" else 50  # a Weibull fit with a free shift needs more times
        add(f"delays-{law}-{param}", "delays", truth, _fit, law=law, param=param, n=n)
    add("tradeoff-time", "tradeoff", _atlas_time_truth(10, 2), _atlas_time, n=10, s=2,
        trials=300)  # fmt: skip
    return {s.name: s for s in out}


@functools.lru_cache(maxsize=8)
def _erasure_truth(eps: float) -> float:
    return peeling_failure_exact(_parity_code(), eps)
