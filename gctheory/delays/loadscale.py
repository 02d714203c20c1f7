"""How measured time grows with a worker's load: the affine model, fitted, with residuals.

:mod:`gctheory.runtime` assumes a worker holding a share ``l`` of the data
returns after ``l * X`` (a shifted exponential scales its shift and mean with
the load, a Pareto its scale): time *proportional* to load, zero at ``l = 0``.
Measured invocations have a fixed cost, so :func:`fit_load_scaling` fits the
affine model

    Q_l(p) = a(p) + b * l        for quantile levels p in ``probs``,

one intercept per level and one common slope ``b`` (a shift of the whole
distribution by ``b`` per unit of load), by least squares over the measured
quantiles, and reports its residuals beside those of two comparisons: a free
slope per level (``Q_l(p) = a(p) + b(p) l``, showing whether one slope
suffices) and the runtime's proportional model (``Q_l(p) = c(p) l``). The
fitted model moves a time measured at load ``l0`` to load ``l`` by adding
``b (l - l0)``, which keeps every round's order of workers (the replay of
:mod:`gctheory.delays.replay` and the decisions of
:mod:`gctheory.delays.decisions` use it). :class:`ProportionalLoad` is the
runtime's model in the same interface, for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_real
from gctheory.delays.trace import Trace

__all__ = ["LoadScaling", "ProportionalLoad", "fit_load_scaling", "nearest_load", "as_load_model"]

DEFAULT_PROBS = tuple(np.round(np.arange(0.05, 0.951, 0.05), 2))


@dataclass(frozen=True, eq=False)
class LoadScaling:
    """The fitted affine load model ``Q_l(p) = a(p) + b l`` (see the module docstring).

    Attributes
    ----------
    loads : ndarray (L,)
        The measured loads.
    probs : ndarray (P,)
        Quantile levels fitted.
    quantiles : ndarray (P, L)
        Measured quantiles.
    slope, slope_se : float
        Common slope ``b`` (seconds per unit load) and its standard error.
    intercepts : ndarray (P,)
        ``a(p)``.
    residuals : ndarray (P, L)
        Measured minus fitted quantiles.
    free_slopes, free_residuals :
        Per-level slopes ``b(p)`` and residuals of the free-slope fit.
    prop_slopes, prop_residuals :
        ``c(p)`` and residuals of the proportional model ``Q_l(p) = c(p) l``.
    mean, mean_intercept, mean_slope, mean_residuals :
        Measured mean per load and its own affine fit (stragglers included).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import LoadScaling, concat_traces, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> from gctheory.delays import fit_load_scaling
    >>> scaling = fit_load_scaling(trace)
    >>> round(scaling.slope, 3), scaling.loads.tolist()
    (0.142, [1.0, 2.0])
    >>> scaling.move([0.3], 1.0, 2.0).round(3).tolist()
    [0.442]
    """

    loads: np.ndarray
    probs: np.ndarray
    quantiles: np.ndarray
    slope: float
    slope_se: float
    intercepts: np.ndarray
    residuals: np.ndarray
    free_slopes: np.ndarray
    free_residuals: np.ndarray
    prop_slopes: np.ndarray
    prop_residuals: np.ndarray
    mean: np.ndarray
    mean_intercept: float
    mean_slope: float
    mean_residuals: np.ndarray
    name = "affine"

    def __repr__(self) -> str:
        return (
            f"LoadScaling(slope={self.slope:.4g} +- {self.slope_se:.2g} s per unit load, "
            f"median at load 0 = {np.interp(0.5, self.probs, self.intercepts):.4g} s, "
            f"rms residual {self.rms():.3g} s (proportional: {self.rms('proportional'):.3g} s))"
        )

    def rms(self, model: str = "affine") -> float:
        """Root mean square residual of ``model`` ("affine", "free" or "proportional")."""
        r = {
            "affine": self.residuals,
            "free": self.free_residuals,
            "proportional": self.prop_residuals,
        }[model]
        return float(np.sqrt(np.mean(r**2)))

    def move(self, times: Any, from_load: float, to_load: float) -> np.ndarray:
        """Times measured at ``from_load`` moved to ``to_load``: ``t + b (to - from)``."""
        return np.asarray(times, float) + self.slope * (float(to_load) - float(from_load))

    def move_dist(self, dist: Any, from_load: float, to_load: float) -> Any:
        """A frozen scipy distribution at ``from_load`` moved to ``to_load`` (its loc shifted)."""
        shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
        return dist.dist(*shapes, loc=loc + self.slope * (to_load - from_load), scale=scale)

    def source_load(self, loads: np.ndarray, to_load: float) -> float:
        """The measured load a time at ``to_load`` is moved from: the nearest one."""
        return nearest_load(loads, to_load)

    def rows(self) -> list[dict[str, Any]]:
        """One row per quantile level and load: measured, fitted and residuals of each model."""
        out = []
        for i, p in enumerate(self.probs):
            for j, ld in enumerate(self.loads):
                q = float(self.quantiles[i, j])
                out.append(
                    {
                        "p": float(p),
                        "load": float(ld),
                        "measured": q,
                        "affine": q - float(self.residuals[i, j]),
                        "resid_affine": float(self.residuals[i, j]),
                        "resid_free": float(self.free_residuals[i, j]),
                        "resid_proportional": float(self.prop_residuals[i, j]),
                    }
                )
        return out


@dataclass(frozen=True)
class ProportionalLoad:
    """The load model of :mod:`gctheory.runtime`: time proportional to load.

    A time at ``l0 > 0`` moves to ``l`` as ``t l / l0`` (and a distribution's
    loc and scale both scale by ``l / l0``, as ``runtime._scaled`` does).

    Examples
    --------
    >>> from gctheory.delays import ProportionalLoad
    >>> ProportionalLoad().move([0.3, 0.5], 1.0, 2.0).tolist()
    [0.6, 1.0]
    """

    name = "proportional"

    def move(self, times: Any, from_load: float, to_load: float) -> np.ndarray:
        return np.asarray(times, float) * (float(to_load) / float(from_load))

    def move_dist(self, dist: Any, from_load: float, to_load: float) -> Any:
        f = float(to_load) / float(from_load)
        shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
        return dist.dist(*shapes, loc=loc * f, scale=scale * f)

    def source_load(self, loads: np.ndarray, to_load: float) -> float:
        pos = np.asarray(loads)[np.asarray(loads) > 0]
        if pos.size == 0:
            raise ValueError("the proportional load model needs a measured load > 0")
        return nearest_load(pos, to_load)


def nearest_load(loads: Any, load: float) -> float:
    """The measured load nearest to ``load`` (the lower one on a tie).

    Parameters
    ----------
    loads : array_like
        The measured loads.
    load : float
        The load sought.

    Returns
    -------
    float
        The nearest measured load.

    Examples
    --------
    >>> from gctheory.delays import nearest_load
    >>> nearest_load([0.5, 1.0, 2.0], 1.4), nearest_load([1.0, 2.0], 1.5)
    (1.0, 1.0)
    """
    loads = np.sort(check_array(loads, "loads", ndim=1).ravel())
    load = check_real(load, "load")
    return float(loads[int(np.argmin(np.abs(loads - load)))])


def as_load_model(load_model: Any, trace: Trace | None = None) -> Any:
    """``None``, ``"affine"`` (fitted on ``trace``), ``"proportional"``, or a model object.

    Parameters
    ----------
    load_model : None, str or a model object
        ``"affine"``, ``"proportional"``, a model, or None.
    trace : Trace, optional
        Needed for ``"affine"``.

    Returns
    -------
    LoadScaling, ProportionalLoad or None
        The model.

    Examples
    --------
    >>> from gctheory.delays import as_load_model
    >>> type(as_load_model("proportional")).__name__, as_load_model(None)
    ('ProportionalLoad', None)
    """
    if load_model is None or isinstance(load_model, (LoadScaling, ProportionalLoad)):
        return load_model
    if load_model == "proportional":
        return ProportionalLoad()
    if load_model == "affine":
        if trace is None:
            raise ValueError("load_model='affine' needs a trace to fit it on")
        return fit_load_scaling(trace)
    raise ValueError(
        "load_model must be None, 'affine', 'proportional', a LoadScaling or a "
        f"ProportionalLoad, got {load_model!r}"
    )


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    xm, ym = x.mean(), y.mean()
    b = float(np.sum((x - xm) * (y - ym)) / np.sum((x - xm) ** 2))
    return float(ym - b * xm), b


def fit_load_scaling(trace: Trace, probs: Any = DEFAULT_PROBS) -> LoadScaling:
    """Fit the affine load model to the quantiles of every measured load of ``trace``.

    Parameters
    ----------
    trace : Trace
        Needs at least two measured loads (three for standard errors).
    probs : sequence of float in (0, 1)
        Quantile levels fitted (default 0.05, 0.10, ..., 0.95: the body; the
        rare stragglers above do not move with the load the same way, and the
        replay keeps them as measured).

    Returns
    -------
    LoadScaling
        The fitted model.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import concat_traces, fit_load_scaling, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> scaling = fit_load_scaling(trace)
    >>> round(scaling.slope, 3), round(scaling.rms(), 4), round(scaling.rms("proportional"), 4)
    (0.142, 0.015, 0.0064)
    """
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace (see read_trace), got {type(trace).__name__}")
    loads = trace.loads
    if len(loads) < 2:
        raise ValueError(
            f"fitting how time scales with load needs >= 2 measured loads, the trace has "
            f"{len(loads)} ({', '.join(f'{x:g}' for x in loads)})"
        )
    p = check_array(probs, "probs", ndim=1)
    if not np.all((p > 0) & (p < 1)):
        raise ValueError(f"probs must be levels in (0, 1), got {probs!r}")
    Q = np.array([np.quantile(trace.times(ld), p) for ld in loads]).T  # (P, L)
    P, L = Q.shape
    x = np.asarray(loads, float)
    # common slope, one intercept per level: the within-level pooled regression
    xc = x - x.mean()
    slope = float(np.sum(xc * (Q - Q.mean(axis=1, keepdims=True))) / (P * np.sum(xc**2)))
    intercepts = Q.mean(axis=1) - slope * x.mean()
    fitted = intercepts[:, None] + slope * x[None, :]
    resid = Q - fitted
    dof = P * L - P - 1
    slope_se = (
        float(np.sqrt(np.sum(resid**2) / dof / (P * np.sum(xc**2)))) if dof > 0 else float("nan")
    )
    free = np.array([_ols(x, Q[i]) for i in range(P)])
    free_res = Q - (free[:, :1] + free[:, 1:] * x[None, :])
    prop = (Q @ x) / float(x @ x)
    prop_res = Q - prop[:, None] * x[None, :]
    mean = np.array([trace.times(ld).mean() for ld in loads])
    ma, mb = _ols(x, mean)
    return LoadScaling(
        loads=x,
        probs=p,
        quantiles=Q,
        slope=slope,
        slope_se=slope_se,
        intercepts=intercepts,
        residuals=resid,
        free_slopes=free[:, 1],
        free_residuals=free_res,
        prop_slopes=prop,
        prop_residuals=prop_res,
        mean=mean,
        mean_intercept=ma,
        mean_slope=mb,
        mean_residuals=mean - (ma + mb * x),
    )
