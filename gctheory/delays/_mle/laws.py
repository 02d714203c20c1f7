"""The delay laws' table and the result of a fit: :data:`LAWS`, :data:`LAW_PARAMETERS`,
:class:`LawFit`, :class:`FitConvergenceError`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gctheory._names import DELAY_LAWS

__all__ = ["LAWS", "LAW_PARAMETERS", "FitConvergenceError", "LawFit"]

LAWS = DELAY_LAWS  # shifted_exp, pareto, weibull, gamma, lognormal, mixture
#: The parameters of each fitted law, in the order :class:`LawFit` reports them.
LAW_PARAMETERS = {
    "shifted_exp": ("shift", "mean"),
    "pareto": ("scale", "shape"),
    "weibull": ("shape", "loc", "scale"),
    "gamma": ("shape", "loc", "scale"),
    "lognormal": ("sigma", "loc", "scale"),
    "mixture": ("w", "sigma", "loc", "scale", "xi", "t0"),
}


class FitConvergenceError(ValueError):
    """A maximum-likelihood fit did not converge (the message says why).

    Examples
    --------
    >>> from gctheory.delays import FitConvergenceError
    >>> issubclass(FitConvergenceError, ValueError)
    True
    """


@dataclass(frozen=True, eq=False)
class LawFit:
    """One law fitted to one sample.

    Attributes
    ----------
    law : str
    n : int
        Sample size.
    params : dict
        Maximum-likelihood estimates, by the names of :data:`LAW_PARAMETERS`.
    ci : dict
        ``(low, high)`` at ``level`` per parameter (NaN where not available).
    dist : frozen scipy.stats distribution or None
        The fitted law (None if the fit did not converge).
    loglik, aic : float
    converged : bool
    message : str
        Why it did not converge, or notes (boundary estimates).
    ks, ad : float
        Kolmogorov-Smirnov and Anderson-Darling statistics of the sample.
    ks_p, ad_p : float or None
        Parametric-bootstrap p-values (None until :func:`goodness_of_fit`).
    bootstrap, failed_refits : int
        Bootstrap replicates used, and how many of their refits failed.
    seconds : float
        Time spent fitting (and bootstrapping).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import LawFit, fit_law
    >>> x = 0.1 + np.random.default_rng(0).exponential(0.05, 200)
    >>> fit = fit_law(x, "shifted_exp")
    >>> fit
    LawFit('shifted_exp', shift=0.1001, mean=0.0564, AIC=-746.15)
    >>> fit.contains("mean", 0.05), fit.n
    (True, 200)
    """

    law: str
    n: int
    params: dict[str, float]
    ci: dict[str, tuple[float, float]]
    level: float
    dist: Any
    loglik: float
    aic: float
    converged: bool = True
    message: str = ""
    ks: float = math.nan
    ad: float = math.nan
    ks_p: float | None = None
    ad_p: float | None = None
    bootstrap: int = 0
    failed_refits: int = 0
    seconds: float = field(default=0.0, repr=False)

    def __repr__(self) -> str:
        if not self.converged:
            return f"LawFit({self.law!r}, did not converge: {self.message})"
        ps = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        p = "" if self.ks_p is None else f", KS p={self.ks_p:.3g}, AD p={self.ad_p:.3g}"
        return f"LawFit({self.law!r}, {ps}, AIC={self.aic:.6g}{p})"

    def contains(self, name: str, value: float) -> bool:
        """Whether the confidence interval of parameter ``name`` contains ``value``."""
        lo, hi = self.ci[name]
        return bool(lo <= value <= hi)

    def row(self) -> dict[str, Any]:
        """A flat dict for tables."""
        out: dict[str, Any] = {"law": self.law, "n": self.n, "converged": self.converged}
        out.update({"loglik": self.loglik, "aic": self.aic, "ks": self.ks, "ks_p": self.ks_p})
        out.update({"ad": self.ad, "ad_p": self.ad_p, "bootstrap": self.bootstrap})
        out["params"] = (
            ", ".join(
                f"{k}={v:.5g} [{self.ci[k][0]:.4g}, {self.ci[k][1]:.4g}]"
                for k, v in self.params.items()
            )
            if self.converged
            else f"did not converge: {self.message}"
        )
        out["message"] = self.message
        return out
