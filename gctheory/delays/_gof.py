"""Goodness of fit of a fitted delay law: KS and AD statistics, parametric-bootstrap p-values.

:func:`ks_statistic` and :func:`ad_statistic` measure a sample against a
frozen law; :func:`goodness_of_fit` calibrates them by the parametric
bootstrap (Stute, Gonzalez Manteiga & Presedo Quindimil 1993): samples drawn
from the fitted law are refitted by the same fitter of :mod:`gctheory.delays._mle`,
so the p-value accounts for the estimated parameters;
``p = (1 + #{T* >= T}) / (1 + B)``. Re-exported by :mod:`gctheory.delays.fitting`;
import the names from there.
"""

from __future__ import annotations

import dataclasses
import time as _time
from typing import Any

import numpy as np

from gctheory._validate import (
    as_generator,
    check_array,
    check_int,
    check_law_parameters,
    check_probability,
)
from gctheory.delays._mle import _FITTERS, FitConvergenceError, LawFit, _check_sample, _polish
from gctheory.delays._threads import blas_single_thread
from gctheory.delays.mixture import body_tail

__all__ = ["MAX_BOOTSTRAP", "ad_statistic", "goodness_of_fit", "ks_statistic"]

# ---------------------------------------------------------------------------
# GOF statistics


def _check_law(dist: Any, name: str = "dist") -> Any:
    if not (callable(getattr(dist, "cdf", None)) and callable(getattr(dist, "sf", None))):
        raise ValueError(
            f"{name} must be a frozen scipy.stats distribution (with cdf and sf), got {dist!r}"
        )
    return check_law_parameters(dist, name)  # a NaN parameter gave nan


def ks_statistic(x: Any, dist: Any) -> float:
    """Kolmogorov-Smirnov distance between the sample ``x`` and the law ``dist``.

    Parameters
    ----------
    x : array_like
        Sample.
    dist : frozen scipy.stats distribution
        The law.

    Returns
    -------
    float
        ``sup |F_n - F|``.

    Examples
    --------
    >>> from gctheory.delays import ks_statistic
    >>> from scipy import stats
    >>> round(ks_statistic([0.1, 0.5, 0.9], stats.uniform()), 6)
    0.233333
    """
    xs = np.sort(check_array(x, "x", ndim=1, bools=False))  # no NaN, no inf
    _check_law(dist)
    n = xs.size
    F = dist.cdf(xs)
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - F), np.max(F - (i - 1) / n)))


def ad_statistic(x: Any, dist: Any) -> float:
    """Anderson-Darling statistic ``A^2`` of ``x`` against ``dist``.

    ``F`` is clipped to ``[1e-12, 1 - 1e-12]`` so that a fitted shift at the
    sample minimum (``F = 0`` there) gives a finite value; the bootstrap
    calibrates the clipped statistic the same way.

    Parameters
    ----------
    x : array_like
        Sample.
    dist : frozen scipy.stats distribution
        The law.

    Returns
    -------
    float
        ``A^2``.

    Examples
    --------
    >>> from gctheory.delays import ad_statistic
    >>> from scipy import stats
    >>> round(ad_statistic([0.1, 0.5, 0.9], stats.uniform()), 4)
    0.2726
    """
    xs = np.sort(check_array(x, "x", ndim=1, bools=False))  # no NaN, no inf
    _check_law(dist)
    n = xs.size
    eps = 1e-12
    lF = np.log(np.clip(dist.cdf(xs), eps, 1 - eps))
    lS = np.log(np.clip(dist.sf(xs), eps, 1 - eps))
    i = np.arange(1, n + 1)
    return float(-n - np.sum((2 * i - 1) * (lF + lS[::-1])) / n)


#: most bootstrap refits one call makes (a p-value to 1e-4; each refit takes up to seconds)
MAX_BOOTSTRAP = 10**4


def _refit(fit: LawFit, xb: np.ndarray) -> Any:
    """The law refitted to a bootstrap sample ``xb`` (no intervals). The mixture keeps the
    fitted tail threshold ``t0`` and starts L-BFGS-B from the fitted parameters: its full
    threshold search takes 15 s at 7,680 times, and a refit that fits no better than the
    search can only make ``T*`` larger, so the p-value errs on the conservative side."""
    if fit.law != "mixture":
        return _FITTERS[fit.law](xb, None)[2]
    p = fit.params
    theta = np.array([p["w"], p["sigma"], p["loc"], p["scale"], p["xi"]], float)
    if not float(xb.min()) > 0:
        raise FitConvergenceError("the mixture needs times > 0")
    ll, th = _polish(xb, np.log(xb), p["t0"], theta)
    if not np.isfinite(ll):
        raise FitConvergenceError("the mixture likelihood is not finite at the fitted t0")
    return body_tail(th[0], th[1], th[2], th[3], th[4], p["t0"])


def _bootstrap(fit: LawFit, x: np.ndarray, B: int, rng: np.random.Generator):
    ks0, ad0 = ks_statistic(x, fit.dist), ad_statistic(x, fit.dist)
    ks_b, ad_b, failed = [], [], 0
    for _ in range(B):
        xb = np.asarray(fit.dist.rvs(size=x.size, random_state=rng), float)
        try:
            dist = _refit(fit, xb)
        except (FitConvergenceError, ValueError, FloatingPointError):
            failed += 1
            continue
        ks_b.append(ks_statistic(xb, dist))
        ad_b.append(ad_statistic(xb, dist))
    return ks0, ad0, ks_b, ad_b, failed


def goodness_of_fit(
    fit: LawFit, data: Any, *, bootstrap: int = 99, rng: Any = None, max_failures: float = 0.1
) -> LawFit:
    """``fit`` with parametric-bootstrap p-values of its KS and AD statistics.

    ``bootstrap`` samples of the same size are drawn from the fitted law and
    refitted by the same procedure; a refit that fails to converge is
    counted in ``failed_refits`` and left out (more than ``max_failures`` of
    them is an error: the p-value would be biased).

    Parameters
    ----------
    fit : LawFit
        A fit of ``data``.
    data : array_like
        The sample.
    bootstrap : int
        Bootstrap samples.
    rng : None, int or numpy.random.Generator
        Seed.
    max_failures : float
        Largest fraction of refits allowed to fail.

    Returns
    -------
    LawFit
        ``fit`` with ``ks_p`` and ``ad_p``.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import fit_law, goodness_of_fit
    >>> x = 0.1 + np.random.default_rng(0).exponential(0.05, 100)
    >>> g = goodness_of_fit(fit_law(x, "shifted_exp"), x, bootstrap=19, rng=1)
    >>> g.ks_p > 0.05, g.bootstrap
    (True, 19)
    """
    if not isinstance(fit, LawFit):
        raise ValueError(f"fit must be a LawFit (from fit_law), got {type(fit).__name__}")
    x = _check_sample(data)
    B = check_int(bootstrap, "bootstrap", low=1, high=MAX_BOOTSTRAP)
    max_failures = check_probability(max_failures, "max_failures")
    rng = as_generator(rng)
    if not fit.converged:
        raise ValueError(f"{fit.law}: the fit did not converge, there is nothing to test")
    t0 = _time.perf_counter()
    with blas_single_thread():
        ks0, ad0, ks_b, ad_b, failed = _bootstrap(fit, x, B, rng)
    if failed > max_failures * B:
        raise FitConvergenceError(
            f"{fit.law}: {failed} of {B} bootstrap refits did not converge; the p-value "
            "would be biased"
        )
    kb, ab = np.array(ks_b), np.array(ad_b)
    return dataclasses.replace(
        fit,
        ks=ks0,
        ad=ad0,
        ks_p=float((1 + np.sum(kb >= ks0)) / (1 + kb.size)),
        ad_p=float((1 + np.sum(ab >= ad0)) / (1 + ab.size)),
        bootstrap=B,
        failed_refits=failed,
        seconds=fit.seconds + _time.perf_counter() - t0,
    )
