"""The delay laws fitted by :mod:`gctheory.delays.fitting`, and their maximum-likelihood fitters.

The law table (:data:`LAWS`, :data:`LAW_PARAMETERS`), the fit result
(:class:`LawFit`), the sample check, and one fitter per law: closed forms for
``shifted_exp`` and ``pareto``, the likelihood profiled over the shift for
``weibull``, ``gamma`` and ``lognormal`` (Wald intervals from the observed
information; the Weibull shape's is Neyman's construction by Monte Carlo, in
:mod:`gctheory.delays._weibull_shape`), EM over a
grid of tail thresholds for the ``mixture``
(:data:`_FITTERS`, law -> ``fitter(x, level) -> (params, ci, dist, note)``; ``level=None``
gives the point fit with NaN intervals, for the goodness-of-fit bootstrap's refits).
The method and its references are described in :mod:`gctheory.delays.fitting`,
which re-exports every public name; import them from there.

The package's modules: :mod:`.laws` (the table and the result), :mod:`.profile` (the
laws of at most three parameters), :mod:`.mixture` (the body-tail mixture); the names
used elsewhere are re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory._validate import check_array
from gctheory.delays._mle.laws import LAW_PARAMETERS, LAWS, FitConvergenceError, LawFit
from gctheory.delays._mle.mixture import (
    _fit_mixture,
    _mix_ll,
    _mix_nll_grad,
    _mix_terms,
    _mix_terms_z,
    _mixture_at,
    _polish,
)
from gctheory.delays._mle.profile import (
    _fit_pareto,
    _fit_shape_loc_scale,
    _fit_shifted_exp,
    _frozen3,
    _inner_gamma,
    _inner_lognormal,
    _inner_weibull,
    _nll,
    _no_intervals,
    _profile_loc,
    _wald,
    _z,
)
from gctheory.delays._weibull_shape import weibull_loglik as _weibull_loglik
from gctheory.delays._weibull_shape import weibull_profile as _weibull_profile

__all__ = ["LAWS", "LAW_PARAMETERS", "FitConvergenceError", "LawFit"]

#: private names other modules of gctheory.delays (and the tests) read from here
_REEXPORTED = (
    _fit_pareto, _fit_shifted_exp, _frozen3, _inner_gamma, _inner_lognormal, _inner_weibull,
    _mix_ll, _mix_nll_grad, _mix_terms, _mix_terms_z, _mixture_at, _nll, _no_intervals,
    _polish, _profile_loc, _wald, _weibull_loglik, _weibull_profile, _z,
)  # fmt: skip

_FITTERS = {
    "shifted_exp": _fit_shifted_exp,
    "pareto": _fit_pareto,
    "weibull": lambda x, lv: _fit_shape_loc_scale("weibull", x, lv),
    "gamma": lambda x, lv: _fit_shape_loc_scale("gamma", x, lv),
    "lognormal": lambda x, lv: _fit_shape_loc_scale("lognormal", x, lv),
    "mixture": _fit_mixture,
}


def _check_sample(data: Any, name: str = "data") -> np.ndarray:
    x = check_array(data, name, finite=False, min_size=0).ravel()
    if x.size < 10:
        raise ValueError(f"{name}: fitting needs at least 10 times, got {x.size}")
    bad = ~np.isfinite(x) | (x < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}: times must be finite and >= 0: element {i} is {float(x[i])!r}")
    return x
