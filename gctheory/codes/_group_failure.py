"""Old import path of :mod:`gctheory._group_failure` (the group-failure core moved to the
bottom floor so that ``gctheory.load_bounds`` no longer imports the whole codes package:
``gctheory load --n 1000000`` spent 0.9 s importing it)."""

from gctheory._group_failure import (  # noqa: F401
    _EXACT_BUDGET,
    _EXACT_MAX_S,
    _MAX_CIRCLE,
    _PMF_MAX_S,
    _cexpm1,
    _clog1p,
    _exact_cost,
    _group_failure,
    _group_failure_float,
    _log_binom_pmf_at_mean,
    _poly_prod_one_minus,
    _saddle_circle,
    _saddle_coefficient,
    _saddle_finish,
    _saddle_log_t,
    _saddle_size,
    _stirlerr,
    _stirling_series,
    _tail_binomials,
)
