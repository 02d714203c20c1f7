"""Tradeoff atlas: every gradient-coding scheme side by side for the user's own cluster.

``gctheory.tradeoff_table(n, s=..., m=..., kappa=..., eps=..., delay=...)`` returns a
:class:`TradeoffTable`: one row per scheme and parameter point with its
computation load, communication, straggler tolerance, exact or approximate
recovery (with the failure probability or error bound), guaranteed and
empirical ``s_kappa`` (Kadhe et al. 2019, Theorem 2 and Definition 1) and
expected iteration time with a Monte Carlo interval, plus the lower bounds on
the load (Ye-Abbe's ``l/k >= (s + m)/n``; Wang et al. 2019 Theorems 3 and 5 and
their finite-n versions). Every number comes from a module of gctheory
(:mod:`gctheory.tradeoff.schemes` says which); every value a theorem does not
cover is marked (``covered``, ``note``), never extrapolated. Rows dominated on
the axes the user cares about are flagged (:func:`dominance`).
This package returns tables and never imports a plot: the four-panel atlas is
drawn by :func:`gctheory.plots.tradeoff.plot_tradeoff` (and written by
:func:`gctheory.plots.tradeoff.save_atlas`); the ``gctheory tradeoff`` command
calls both. ``gctheory.tradeoff.plot_tradeoff`` is a deprecated alias kept for
old code: the module ``__getattr__`` below imports it lazily on first use and
emits a DeprecationWarning; it is not in ``__all__``.

``gctheory.tradeoff`` is this package; the function is :func:`tradeoff_table` (also
``gctheory.tradeoff_table``; ``gctheory.tradeoff.tradeoff`` is the same function).
Calling the package itself, ``gctheory.tradeoff(n, ...)``, still works in 0.2 with a
DeprecationWarning and stops working in 0.3: a type checker cannot call a module.

Submodules: ``table`` (the rows and their columns), ``dominance`` (the Pareto
relation), ``schemes`` (one builder per scheme), ``stability`` (Theorem 2 and
certified empirical ``s_kappa`` intervals per generator family), ``compute``
(the sweep), ``communication`` (the best code against bandwidth: cyclic-MDS against
m-fold Ye-Abbe / CommFR-GC codes over a link, and the crossover).
"""

from __future__ import annotations

import inspect
import sys
import types
import warnings
from typing import Any

from gctheory.tradeoff.communication import (
    COMM_FAMILIES,
    CommunicationAtlas,
    Crossover,
    communication_atlas,
    communication_crossover,
)
from gctheory.tradeoff.compute import TRADEOFF_EFFORT, TRADEOFF_MAX_N, resolve_delay, tradeoff
from gctheory.tradeoff.compute import tradeoff as tradeoff_table
from gctheory.tradeoff.dominance import TRADEOFF_AXES, dominance, row_label
from gctheory.tradeoff.schemes import TRADEOFF_LEFT_OUT, TRADEOFF_SCHEMES
from gctheory.tradeoff.stability import (
    SKappaInterval,
    empirical_s_kappa_interval,
    generator_families,
    s_kappa_guarantee,
)
from gctheory.tradeoff.table import TRADEOFF_COLUMNS, TradeoffTable

__all__ = [
    "COMM_FAMILIES",
    "CommunicationAtlas",
    "Crossover",
    "communication_atlas",
    "communication_crossover",
    "SKappaInterval",
    "TRADEOFF_AXES",
    "TRADEOFF_COLUMNS",
    "TRADEOFF_EFFORT",
    "TRADEOFF_LEFT_OUT",
    "TRADEOFF_MAX_N",
    "TRADEOFF_SCHEMES",
    "TradeoffTable",
    "dominance",
    "empirical_s_kappa_interval",
    "generator_families",
    "resolve_delay",
    "row_label",
    "s_kappa_guarantee",
    "tradeoff",
    "tradeoff_table",
]


def __getattr__(name: str) -> Any:
    """Deprecated alias ``plot_tradeoff``: import :mod:`gctheory.plots.tradeoff` only when asked.

    The analysis package never imports its plot at module level; this lazy
    alias warns and will be removed. Use ``gctheory.plots.tradeoff.plot_tradeoff``.
    """
    if name == "plot_tradeoff":
        warnings.warn(
            "gctheory.tradeoff.plot_tradeoff is deprecated; use "
            "gctheory.plots.tradeoff.plot_tradeoff (the tradeoff package returns tables, "
            "gctheory.plots draws them)",
            DeprecationWarning,
            stacklevel=2,
        )
        from gctheory.plots.tradeoff import plot_tradeoff

        return plot_tradeoff
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    """``gctheory.tradeoff(n, ...)``, deprecated: calls :func:`tradeoff_table` with a warning."""

    def __call__(self, *args: Any, **kwargs: Any) -> TradeoffTable:
        warnings.warn(
            "calling the package gctheory.tradeoff(...) is deprecated and stops working in "
            "0.3 (a type checker cannot call a module); use gctheory.tradeoff_table(...)",
            DeprecationWarning,
            stacklevel=2,
        )
        return tradeoff_table(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
# inspect.signature(gctheory.tradeoff) gives the deprecated call's real signature,
# not the (*args, **kwargs) of __call__
__signature__ = inspect.signature(tradeoff_table)
