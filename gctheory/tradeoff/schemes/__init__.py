"""The schemes of the atlas: how each one's row is computed from the modules of gctheory.

Every number comes from a module function: loads and layouts from
:mod:`gctheory.runtime` (``scheme_layout``) and :mod:`gctheory.load_bounds`,
failure probabilities from :mod:`gctheory.load_bounds` (exact, d-FRC) or from
the Monte Carlo estimators of :mod:`gctheory.codes` (batch raptor, Bernoulli),
deterministic error bounds from :mod:`gctheory.codes` (expander spectral bound,
BIBD closed form), stability from :mod:`gctheory.tradeoff.stability`, times
from :mod:`gctheory.runtime` (``scheme_time_moments``, ``scheme_time_mc``).

Time model (that of :func:`gctheory.runtime.scheme_expected_time`): a worker
holding a share ``load / n`` of the data returns after ``(load / n) X``,
``X ~ delay`` i.i.d., then sends ``1/m`` of a gradient in ``tau / m``. An
approximate code decodes from the fastest ``n - s`` workers, so its iteration
time is that of ``ignore-s`` scaled by its load:
``E[(d/n) X_(n-s:n)] = d E[(1/n) X_(n-s:n)]`` (exact, linearity), computed as
``d * scheme_time_moments("ignore-s", ...)``. On a measured trace the time is
not proportional to the load, so an approximate code's time is the ``ignore-s``
layout evaluated at its own load ``d/n`` (``gctheory.delays.scheme_times(...,
load=d/n)``). Reed-Solomon codes have the
cyclic-MDS layout (load ``s + 1``, any ``n - s`` workers). Decoding time is
not modelled.

Modules, by concept: :mod:`~gctheory.tradeoff.schemes.context` (the call's context,
seeds, :class:`CannotExist`), :mod:`~gctheory.tradeoff.schemes.times` (time columns),
:mod:`~gctheory.tradeoff.schemes.exact` (runtime layouts and Reed-Solomon),
:mod:`~gctheory.tradeoff.schemes.generator` (Ye-Abbe, CommFR-GC and their stability),
:mod:`~gctheory.tradeoff.schemes.approximate` (d-FRC, batch raptor, Bernoulli, BIBD),
:mod:`~gctheory.tradeoff.schemes.expander` (expander codes) and
:mod:`~gctheory.tradeoff.schemes.builders` (the builders by name, code plug-ins). This
package was one module (``gctheory.tradeoff.schemes``) and every name it had is still
importable from it.
"""

from __future__ import annotations

from gctheory.tradeoff.schemes.approximate import dfrc_load
from gctheory.tradeoff.schemes.builders import BUILDERS, plugin_builders
from gctheory.tradeoff.schemes.context import (
    TRADEOFF_LEFT_OUT,
    TRADEOFF_SCHEMES,
    CannotExist,
    Context,
    seed_for,
)
from gctheory.tradeoff.schemes.expander import (  # noqa: F401 - the old module's private names
    _DENSE_SPECTRUM_MAX_N,
    _RRG_MAX_D,
    _expander_graph,
    _sparse_regular_lam,
)

__all__ = [
    "TRADEOFF_SCHEMES",
    "TRADEOFF_LEFT_OUT",
    "CannotExist",
    "BUILDERS",
    "Context",
    "dfrc_load",
    "plugin_builders",
    "seed_for",
]
