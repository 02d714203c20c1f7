"""Measured delays: traces, fitted laws, goodness of fit, load scaling, decisions, replay.

Every runtime optimum of :mod:`gctheory.runtime` assumes i.i.d. workers from a
textbook law. This package takes a cluster's measurements instead:

trace        :class:`Trace` (round, worker, load, time + optional columns), the CSV
             reader/writer (:func:`read_trace`), campaigns and per-round matrices
profiles     the public delay-profile pickles of Sequential-Gradient-Coding-2 through a
             restricted unpickler (lists, dicts, numpy scalars only)
summary      per-load quantiles, straggler rate, persistence (the h of Xu et al. 2021),
             correlation within a round
fitting      maximum-likelihood fits of six laws with confidence intervals; KS and
             Anderson-Darling tests with parametric-bootstrap p-values; AIC
mixture      the body + Pareto-tail mixture as a scipy.stats law
loadscale    how time grows with load: the affine model, fitted, with residuals
orderstats   exact order statistics of an empirical CDF; fast ones of a fitted law
decisions    each runtime scheme's expected time versus s on measured data, the optima,
             and the time lost by trusting a fitted law
replay       ``simulate(..., delay="trace:PATH")``: measured rounds replayed
models       the delay models of the training simulator (:class:`DelayModel`,
             :func:`parse_delay`), moved here from the training code
laws         the delay laws by spec string (``shifted_exp(...)``, ``constant(c)``, ...)
markov       stragglers with memory (Gilbert-Elliott, Fritchman, (B, W, lambda)): a package
markov_times the atlas's scheme times under them

References: Krishnan, Ebrahimi & Khisti, "Sequential gradient coding for
straggler mitigation", ICLR 2023 (the AWS Lambda measurements); Xu et al.
2021, Section V-B (persistent stragglers, h); Stute et al. 1993 (parametric
bootstrap for goodness of fit with estimated parameters).
"""

from __future__ import annotations

from gctheory.delays.decisions import (
    LOAD_MODELS,
    SchemeTimes,
    decision_table,
    scheme_s_values,
    scheme_times,
)
from gctheory.delays.fitting import (
    LAW_PARAMETERS,
    LAWS,
    FitConvergenceError,
    LawFit,
    ad_statistic,
    fit_law,
    fit_laws,
    goodness_of_fit,
    ks_statistic,
)
from gctheory.delays.loadscale import (
    LoadScaling,
    ProportionalLoad,
    as_load_model,
    fit_load_scaling,
    nearest_load,
)
from gctheory.delays.mixture import body_tail
from gctheory.delays.models import DELAY_NAMES, DelayModel, parse_delay
from gctheory.delays.orderstats import (
    empirical_grouped_mean,
    empirical_order_statistic,
    empirical_weights,
    law_grouped_means,
    law_order_statistic,
    tail_index,
)
from gctheory.delays.profiles import profile_rows, read_profile_pickle, safe_load, safe_loads
from gctheory.delays.replay import ORDERS, TraceReplay, parse_trace_spec
from gctheory.delays.summary import LoadSummary, persistence, summarize
from gctheory.delays.trace import (
    CAMPAIGN_COLUMNS,
    TIME_COLUMNS,
    Trace,
    concat_traces,
    make_trace,
    read_trace,
    write_trace,
)

__all__ = [
    # trace
    "CAMPAIGN_COLUMNS",
    "TIME_COLUMNS",
    "Trace",
    "concat_traces",
    "make_trace",
    "read_trace",
    "write_trace",
    # profiles
    "profile_rows",
    "read_profile_pickle",
    "safe_load",
    "safe_loads",
    # summary
    "LoadSummary",
    "persistence",
    "summarize",
    # fitting
    "LAWS",
    "LAW_PARAMETERS",
    "FitConvergenceError",
    "LawFit",
    "ad_statistic",
    "fit_law",
    "fit_laws",
    "goodness_of_fit",
    "ks_statistic",
    "body_tail",
    # load scaling
    "LoadScaling",
    "ProportionalLoad",
    "as_load_model",
    "fit_load_scaling",
    "nearest_load",
    # order statistics
    "empirical_grouped_mean",
    "empirical_order_statistic",
    "empirical_weights",
    "law_grouped_means",
    "law_order_statistic",
    "tail_index",
    # decisions
    "LOAD_MODELS",
    "SchemeTimes",
    "decision_table",
    "scheme_s_values",
    "scheme_times",
    # replay and the simulator's delay models
    "ORDERS",
    "TraceReplay",
    "parse_trace_spec",
    "DELAY_NAMES",
    "DelayModel",
    "parse_delay",
]
