"""Maximum-likelihood fits of delay laws to measured times, and their goodness of fit.

Laws (:data:`LAWS`), each fitted by maximum likelihood and returned as a
frozen ``scipy.stats`` distribution (so :mod:`gctheory.runtime`,
:mod:`gctheory.order_stats` and the training simulator take it as is):

=============  ===============================================  ==============================
law            model                                            parameters
=============  ===============================================  ==============================
shifted_exp    ``shift + Exp(mean)`` (Xu et al. 2021 eq. (21))  shift, mean (closed form)
pareto         ``P(X > t) = (scale/t)^shape`` (Halbawi eq. 16)  scale, shape (closed form)
weibull        ``loc + Weibull(shape, scale)``                  shape, loc, scale
gamma          ``loc + Gamma(shape, scale)``                    shape, loc, scale
lognormal      ``loc + scale * exp(sigma Z)``                   sigma, loc, scale
mixture        ``(1-w)`` lognormal body ``+ w`` Pareto tail     w, sigma, loc, scale, xi, t0
=============  ===============================================  ==============================

The three-parameter laws are fitted by profiling the likelihood over the
shift ``loc`` in ``[0, min(x))`` (for a given shift the other parameters have
closed forms or a one-dimensional equation); where the profile keeps rising
as ``loc`` approaches the sample minimum the likelihood is unbounded (a known
property of shifted laws with shape below 1) and the fit reports that it did
not converge instead of returning a number. The mixture is fitted by EM for
each tail threshold ``t0`` on a grid of upper sample quantiles, polished by
L-BFGS-B, and the best ``t0`` kept.

Confidence intervals: exact pivots for the closed forms (chi-square for the
exponential mean and Pareto shape, the minimum's own law for the shift and
the Pareto scale); for the Weibull shape Neyman's construction with its
maximum-likelihood estimate as the statistic (:mod:`gctheory.delays._weibull_shape`):
with a free shift the estimate's law depends on the true shape and ``n`` only (the
fit is equivariant under ``x -> a + b x``), not a pivot, so its quantiles are
computed by seeded Monte Carlo on a grid of shapes and sample sizes, once, offline
(``python -m gctheory.delays._tables.make_weibull_shape``, shipped as package data and
interpolated at run time); with the shift
at its bound 0 the two-parameter pivot ``shape_hat / shape`` (Thoman, Bain & Antle
1969). Calibration (n = 100 times of 0.5 + 2 Weibull(1.5), 95%): the Wald interval
covered 273/300, the profile-likelihood interval 929/1000, this one 952/1000; with a
true shift of 0, 967/1000. Above 400 times the Monte Carlo is not run and the profile
interval is given (376/400 at n = 400). Wald intervals from the observed
information (numerical Hessian of the log-likelihood) otherwise, none for a
parameter on the boundary or for ``t0``.

Goodness of fit (:func:`goodness_of_fit`): Kolmogorov-Smirnov and
Anderson-Darling statistics with parametric-bootstrap p-values (Stute,
Gonzalez Manteiga & Presedo Quindimil 1993): samples drawn from the fitted
law are refitted by the same procedure, so the p-value accounts for the
estimated parameters; ``p = (1 + #{T* >= T}) / (1 + B)`` (the mixture's refits keep the
fitted tail threshold, which can only make the p-value conservative). AIC =
``2k - 2 log L``. Right-censored times (the traces of real runs) are fitted by
:mod:`gctheory.delays.censored`.
"""

from __future__ import annotations

import math
import time as _time
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_choice, check_int, check_probability

# the module is split by concept: the goodness of fit in _gof, the law families,
# the fit result and the maximum-likelihood fitters in _mle; every name stays importable here
from gctheory.delays._gof import (
    MAX_BOOTSTRAP,
    _bootstrap,  # noqa: F401  (still importable from here, where it was defined)
    _check_law,  # noqa: F401  (still importable from here, where it was defined)
    ad_statistic,
    goodness_of_fit,
    ks_statistic,
)
from gctheory.delays._mle import (
    _FITTERS,
    LAW_PARAMETERS,
    LAWS,
    FitConvergenceError,
    LawFit,
    _check_sample,
)
from gctheory.delays._threads import blas_single_thread

__all__ = [
    "LAWS",
    "LAW_PARAMETERS",
    "FitConvergenceError",
    "LawFit",
    "fit_law",
    "fit_laws",
    "goodness_of_fit",
    "ks_statistic",
    "ad_statistic",
]


def _fit(x: np.ndarray, law: str, level: float) -> LawFit:
    t0 = _time.perf_counter()
    params, ci, dist, note = _FITTERS[law](x, level)
    ll = float(np.sum(dist.logpdf(x)))
    if not math.isfinite(ll):
        raise FitConvergenceError(f"{law}: the fitted law gives a sample time zero density")
    k = len(LAW_PARAMETERS[law])
    return LawFit(
        law=law,
        n=x.size,
        params={k_: float(v) for k_, v in params.items()},
        ci=ci,
        level=level,
        dist=dist,
        loglik=ll,
        aic=2 * k - 2 * ll,
        message=note,
        ks=ks_statistic(x, dist),
        ad=ad_statistic(x, dist),
        seconds=_time.perf_counter() - t0,
    )


def fit_law(data: Any, law: str, *, level: float = 0.95) -> LawFit:
    """Maximum-likelihood fit of ``law`` (one of :data:`LAWS`) to the times ``data``.

    Raises :class:`FitConvergenceError` (a ValueError) when the fit does not
    converge, saying why; ValueError for bad data (fewer than 10 times,
    negative or non-finite ones).

    Parameters
    ----------
    data : array_like
        At least 10 finite, non-negative times.
    law : str
        One of :data:`LAWS`.
    level : float
        Confidence level of the parameter intervals.

    Returns
    -------
    LawFit
        Parameters, intervals, log-likelihood, AIC and the KS/AD statistics.

    Raises
    ------
    FitConvergenceError
        The fit did not converge.
    ValueError
        Bad data.

    Examples
    --------
    >>> from gctheory.delays import fit_law
    >>> import numpy as np
    >>> x = 0.1 + np.random.default_rng(0).exponential(0.05, 200)
    >>> fit = fit_law(x, "shifted_exp")
    >>> {k: round(v, 4) for k, v in fit.params.items()}
    {'shift': 0.1001, 'mean': 0.0564}
    """
    check_choice(law, "law", LAWS)
    level = check_probability(level, "level", open_low=True, open_high=True)
    x = _check_sample(data)
    with blas_single_thread():
        return _fit(x, law, level)


def fit_laws(
    data: Any,
    laws: Any = LAWS,
    *,
    bootstrap: int = 0,
    rng: Any = None,
    level: float = 0.95,
    progress: Any = None,
) -> list[LawFit]:
    """Fit every law of ``laws`` to ``data``; with ``bootstrap > 0`` add GOF p-values.

    A law whose fit does not converge is kept in the list with
    ``converged=False`` and the reason in ``message`` (so one law failing does
    not hide the others). Ordered as ``laws``. ``progress``, if given, is called
    as ``progress(done, total, law)`` before each law and once at the end.

    Parameters
    ----------
    data : array_like
        The times.
    laws : sequence of str
        Laws of :data:`LAWS` to fit.
    bootstrap : int
        Parametric-bootstrap samples for the GOF p-values (0: none).
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap.
    level : float
        Confidence level.
    progress : callable, optional
        ``progress(done, total, law)``.

    Returns
    -------
    list of LawFit
        One per law, in the order of ``laws``.

    Examples
    --------
    >>> from gctheory.delays import fit_laws
    >>> import numpy as np
    >>> x = 0.1 + np.random.default_rng(0).exponential(0.05, 200)
    >>> fits = fit_laws(x, ["shifted_exp", "gamma"])
    >>> [f.law for f in fits]  # a fit that fails is kept, with converged=False and why
    ['shifted_exp', 'gamma']
    >>> min((f for f in fits if f.converged), key=lambda f: f.aic).law
    'shifted_exp'
    """
    if not isinstance(laws, str) and not isinstance(laws, (list, tuple)):
        raise ValueError(f"laws must be a law name or a sequence of names from {LAWS}, got {laws}")
    laws = [check_choice(law, "laws", LAWS) for law in ([laws] if isinstance(laws, str) else laws)]
    x = _check_sample(data)
    level = check_probability(level, "level", open_low=True, open_high=True)
    B = check_int(bootstrap, "bootstrap", low=0, high=MAX_BOOTSTRAP)
    rng = as_generator(rng)
    children = rng.spawn(len(laws))
    out = []
    for i, (law, child) in enumerate(zip(laws, children)):
        if progress is not None:
            progress(i, len(laws), law)
        try:
            with blas_single_thread():
                f = _fit(x, law, level)
            if B:
                f = goodness_of_fit(f, x, bootstrap=B, rng=child)
        except FitConvergenceError as exc:
            names = LAW_PARAMETERS[law]
            f = LawFit(
                law,
                x.size,
                {k: math.nan for k in names},
                {k: (math.nan, math.nan) for k in names},
                level,
                None,
                math.nan,
                math.nan,
                converged=False,
                message=str(exc),
            )
        out.append(f)
    if progress is not None:
        progress(len(laws), len(laws), "")
    return out
