"""How a scheme's load reaches the measured loads of a trace.

A layout's load ``(s+1)/n`` is rarely a measured one. Each layout gets a *plan*: a list
of ``(measured load, weight, shift, factor)`` whose weighted sum
``sum weight * (factor * estimate(measured load) + shift)`` is its estimate (one term at
a measured load, two when interpolating between the loads around it). The load model
(:data:`LOAD_MODELS`, :mod:`gctheory.delays.loadscale`) decides the plans; both
:func:`gctheory.delays.scheme_times` and :func:`gctheory.delays.hetero_scheme_times`
read them from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_choice
from gctheory.delays.loadscale import LoadScaling, ProportionalLoad, fit_load_scaling

__all__ = ["LOAD_MODELS", "LoadPlans", "load_plans", "resolve_load_model"]

#: Values of ``scheme_times(load_model=...)``: how times measured at one load move to another.
LOAD_MODELS = ("interpolate", "affine", "proportional", None)

#: one term of a plan: (measured load, weight, shift, factor)
Term = tuple[float, float, float, float]


def resolve_load_model(trace: Any, load_model: Any) -> tuple[Any, float | None, str]:
    """``(model, slope, name)`` for ``load_model`` on ``trace``: the model the plans read
    (``"interpolate"``, a fitted :class:`LoadScaling`, a :class:`ProportionalLoad`, or
    None), the fitted affine slope (None without two measured loads) and its name."""
    if isinstance(load_model, str) or load_model is None:
        check_choice(load_model, "load_model", LOAD_MODELS)
    elif not isinstance(load_model, (LoadScaling, ProportionalLoad)):
        # load_model=5 raised AttributeError ('int' has no attribute 'name')
        raise ValueError(
            f"load_model must be one of {list(LOAD_MODELS)}, a LoadScaling or a "
            f"ProportionalLoad, got {load_model!r:.60}"
        )
    name = load_model if isinstance(load_model, (str, type(None))) else load_model.name
    if load_model in ("interpolate", "affine"):
        scaling = fit_load_scaling(trace) if len(trace.loads) >= 2 else None
        if load_model == "affine" and scaling is None:
            raise ValueError("load_model='affine' needs >= 2 measured loads to fit the slope")
        slope = scaling.slope if scaling is not None else None
        return (scaling if load_model == "affine" else "interpolate"), slope, str(name)
    if load_model == "proportional":
        return ProportionalLoad(), None, str(name)
    return load_model, None, str(name)


def _plan(lam: float, loads: np.ndarray, model: Any, slope: float | None, s: int) -> list[Term]:
    """[(measured load, weight, shift, factor), ...] giving the estimate at load ``lam``."""
    hit = np.flatnonzero(np.abs(loads - lam) <= 1e-12 * max(1.0, lam))
    if hit.size:
        return [(float(loads[hit[0]]), 1.0, 0.0, 1.0)]
    if model is None:
        raise ValueError(
            f"s={s}: the scheme's load {lam:.6g} is not a measured load of the trace "
            f"({', '.join(f'{x:g}' for x in loads)}) and no load model was given "
            "(load_model='interpolate', 'affine' or 'proportional')"
        )
    if isinstance(model, ProportionalLoad):
        l0 = model.source_load(loads, lam)
        return [(l0, 1.0, 0.0, lam / l0)]
    if isinstance(model, LoadScaling):
        l0 = model.source_load(loads, lam)
        return [(l0, 1.0, model.slope * (lam - l0), 1.0)]
    # interpolate
    if lam < loads[0] or lam > loads[-1]:
        if slope is None:
            raise ValueError(
                f"s={s}: load {lam:.6g} lies outside the measured loads and a slope needs "
                ">= 2 measured loads"
            )
        l0 = float(loads[0] if lam < loads[0] else loads[-1])
        return [(l0, 1.0, slope * (lam - l0), 1.0)]
    j = int(np.searchsorted(loads, lam))
    a, b = float(loads[j - 1]), float(loads[j])
    th = (lam - a) / (b - a)
    return [(a, 1 - th, 0.0, 1.0), (b, th, 0.0, 1.0)]


@dataclass(frozen=True)
class LoadPlans:
    """Every layout's plan, the measured loads they use and which layouts each serves."""

    plans: list[list[Term]]
    used: list[float]  # the measured loads some plan reads, sorted
    serve: dict[float, list[int]]  # measured load -> the layouts (indices) it serves

    def combine(self, per_load: dict[float, np.ndarray]) -> np.ndarray:
        """Each layout's estimate from ``per_load[load]`` (one value per layout served)."""
        out = np.zeros(len(self.plans))
        pos = {ld: {i: j for j, i in enumerate(idx)} for ld, idx in self.serve.items()}
        for i, plan in enumerate(self.plans):
            for ld, wt, shift, factor in plan:
                v = per_load[ld][pos[ld][i]]
                out[i] += wt * (factor * v + shift)
        return out


def load_plans(
    layout_loads: Sequence[float],
    s_values: Sequence[int],
    loads: np.ndarray,
    model: Any,
    slope: float | None,
) -> LoadPlans:
    """The plans of layouts of loads ``layout_loads`` (at straggler counts ``s_values``,
    for the messages) on the measured ``loads``."""
    plans = [
        _plan(float(lam), loads, model, slope, int(s)) for lam, s in zip(layout_loads, s_values)
    ]
    used = sorted({p[0] for plan in plans for p in plan})
    serve: dict[float, list[int]] = {ld: [] for ld in used}
    for i, plan in enumerate(plans):
        for ld, *_ in plan:
            serve[ld].append(i)
    return LoadPlans(plans, used, serve)
