"""Delay models of the training simulator: how long each worker takes in an iteration.

A :class:`DelayModel` draws i.i.d. per-unit-load times from a distribution
(``"shifted_exp(shift, mean)"``, ``"exp(mean)"``, ``"pareto(scale, shape)"``,
``"uniform(low, high)"``, ``"constant(c)"``, each also with keyword arguments such
as ``"pareto(shape=1.1, scale=0.001)"``; a positional Pareto spec is read as
``pareto(scale, shape)`` with a ``UserWarning`` saying so, since scipy's order is the
reverse and ``"pareto(1.1, 0.001)"`` then has an infinite mean), or any frozen ``scipy.stats`` law,
including the laws fitted by :mod:`gctheory.delays.fitting`), optionally
persistent (Xu et al. 2021, Section V-B) or with background-slowed workers
(Wang et al. 2019, Section 5); or it replays measured rounds
(``"trace:PATH"``, :mod:`gctheory.delays.replay`). :func:`parse_delay` turns
a spec into one. (These lived in the training simulator's models; the names
stay importable from :mod:`gctheory.training` and :mod:`gctheory.training.models`.)
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from gctheory._validate import check_int, check_real

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["DelayModel", "parse_delay", "DELAY_NAMES"]


class _Constant:
    """A degenerate distribution at ``c`` (every worker equally fast)."""

    def __init__(self, c: float) -> None:
        self.c = float(c)

    def rvs(self, size: Any = None, random_state: Any = None) -> np.ndarray:
        return np.full(size, self.c)

    def support(self) -> tuple[float, float]:
        return self.c, self.c

    def mean(self) -> float:
        return self.c

    def __repr__(self) -> str:
        return f"constant({self.c:g})"


def _shifted_exp(shift: float, mean: float) -> Any:
    return stats.expon(loc=shift, scale=mean)


def _exp(mean: float) -> Any:
    return stats.expon(scale=mean)


def _pareto(scale: float, shape: float) -> Any:
    return stats.pareto(b=shape, scale=scale)


def _uniform(low: float, high: float) -> Any:
    if not high > low:
        raise ValueError(f"uniform(low, high) needs high > low, got ({low}, {high})")
    return stats.uniform(loc=low, scale=high - low)


_DELAYS: dict[str, tuple[Any, str]] = {
    "shifted_exp": (_shifted_exp, "shifted_exp(shift, mean): shift + Exp(mean) (Xu et al. 2021)"),
    "exp": (_exp, "exp(mean): exponential with that mean (Zhang & Simeone 2020)"),
    "pareto": (_pareto, "pareto(scale=t0, shape=xi): CDF 1 - (t0/t)^xi (Halbawi et al. 2017)"),
    "uniform": (_uniform, "uniform(low, high)"),
    "constant": (_Constant, "constant(c): no stragglers"),
    "trace": (None, "trace:PATH[?profile=..&region=..&order=sequential|random]: measured rounds"),
}
DELAY_NAMES = tuple(_DELAYS)

#: the parameters of each spec, in their positional order (also the keyword names)
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "shifted_exp": ("shift", "mean"),
    "exp": ("mean",),
    "pareto": ("scale", "shape"),
    "uniform": ("low", "high"),
    "constant": ("c",),
}


@dataclass(frozen=True)
class DelayModel:
    """How long each worker takes in an iteration.

    Worker ``i`` with relative load ``l_i`` (1 = one n-th of the data) and
    message fraction ``f_i`` (1 = a full gradient) finishes at
    ``T_i = l_i X_i + comm_time f_i``, where ``X_i`` are i.i.d. draws of ``dist``
    or, for a replay, the measured time of worker ``i`` in one round divided
    by ``l_i``.

    Attributes
    ----------
    dist : frozen scipy.stats distribution (or any object with ``rvs`` and ``support``)
        Per-unit-load computing time; its support must be nonnegative.
    persist : int
        Draws are kept for ``persist`` iterations before being redrawn
        (persistent stragglers, "h" of Xu et al. 2021, Section V-B).
    n_slow : int
        If > 0, at every (re)draw ``n_slow`` workers chosen at random are slowed
        down by the factor ``slowdown`` (the background-thread stragglers of
        Wang et al. 2019, Section 5).
    slowdown : float
        Factor >= 1 applied to the slowed workers.
    comm_time : float
        Time to upload a full-length gradient (Kadhe et al. 2019 motivate the
        message-length reduction ``m`` by it).
    label : str
        Text of the spec it was parsed from, for reports.
    replay : TraceReplay or None
        Measured rounds replayed instead of draws (then ``dist`` is None and
        ``persist``, ``n_slow`` do not apply: the rounds carry their own
        structure).
    """

    dist: Any
    persist: int = 1
    n_slow: int = 0
    slowdown: float = 1.0
    comm_time: float = 0.0
    label: str = ""
    replay: Any = None

    def __post_init__(self) -> None:
        if self.label is not None and not isinstance(self.label, str):
            raise ValueError(f"label must be a str, got {self.label!r}")
        comm_time = check_real(self.comm_time, "comm_time", low=0.0)
        object.__setattr__(self, "comm_time", comm_time)
        if self.replay is not None:
            if self.dist is not None:
                raise ValueError("a DelayModel replays a trace or draws from dist, not both")
            if self.persist != 1 or self.n_slow != 0 or self.slowdown != 1:
                raise ValueError(
                    "persist, n_slow and slowdown do not apply to a trace replay (its rounds "
                    f"carry their own structure), got persist={self.persist!r}, "
                    f"n_slow={self.n_slow!r}, slowdown={self.slowdown!r}"
                )
            return
        if not hasattr(self.dist, "rvs") or not hasattr(self.dist, "support"):
            raise ValueError(f"dist must be a frozen scipy.stats distribution, got {self.dist!r}")
        try:
            lo = float(self.dist.support()[0])
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ValueError(f"dist must be a frozen scipy.stats distribution ({exc})") from None
        if not lo >= 0:
            raise ValueError(f"delays must be nonnegative, but {self.dist!r} has support from {lo}")
        object.__setattr__(self, "persist", check_int(self.persist, "persist", low=1))
        object.__setattr__(self, "n_slow", check_int(self.n_slow, "n_slow", low=0))
        slowdown = check_real(self.slowdown, "slowdown", low=1.0)
        object.__setattr__(self, "slowdown", slowdown)

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """One fresh i.i.d. draw of the per-unit-load times of ``n`` workers."""
        if self.replay is not None:
            raise ValueError("a trace replay has no i.i.d. draws; use replay.per_unit_times")
        if self.n_slow > n:
            raise ValueError(f"n_slow={self.n_slow} exceeds the number of workers n={n}")
        x = np.asarray(self.dist.rvs(size=n, random_state=rng), dtype=float)
        if self.n_slow:
            x[rng.choice(n, self.n_slow, replace=False)] *= self.slowdown
        return x


_NUM = r"\s*([-+0-9.eE]+)\s*"


def parse_delay(spec: Any, **options: Any) -> DelayModel:
    """A :class:`DelayModel` from a spec string, a distribution, or a model.

    ``spec`` is ``"shifted_exp(shift=0.05, mean=0.02)"``, ``"exp(mean=1)"``,
    ``"pareto(scale=0.001, shape=1.1)"``, ``"uniform(low=a, high=b)"``, ``"constant(c)"``
    (arguments named, or positional in that order: ``"pareto(0.001, 1.1)"``; a
    positional Pareto spec warns (``UserWarning``) naming the reading taken,
    ``pareto(scale, shape)``, and the reverse one of scipy's order, since
    ``"pareto(1.1, 0.001)"`` is then a law with infinite mean (issue 18); name the
    arguments to silence it), ``"trace:PATH"`` (measured rounds
    replayed, see :func:`gctheory.delays.parse_trace_spec`), a frozen
    scipy.stats distribution, a :class:`gctheory.delays.Trace` or
    :class:`gctheory.delays.TraceReplay`, or a :class:`DelayModel` (returned
    with ``options`` applied). ``options`` are the other fields of
    :class:`DelayModel` (``persist``, ``n_slow``, ``slowdown``, ``comm_time``).
    """
    from gctheory.delays.replay import TraceReplay, parse_trace_spec
    from gctheory.delays.trace import Trace

    if isinstance(spec, str) and spec.strip().startswith("trace:"):
        return _replay_model(parse_trace_spec(spec.strip()), spec.strip(), options)
    if isinstance(spec, Trace):
        from gctheory.delays.loadscale import fit_load_scaling

        lm = fit_load_scaling(spec) if len(spec.loads) >= 2 else None
        return _replay_model(TraceReplay(spec, load_model=lm), repr(spec), options)
    if isinstance(spec, TraceReplay):
        return _replay_model(spec, repr(spec), options)
    if isinstance(spec, DelayModel):
        if not options:
            return spec
        fields = {
            f: getattr(spec, f)
            for f in ("dist", "persist", "n_slow", "slowdown", "comm_time", "label", "replay")
        }
        fields.update(options)
        return DelayModel(**fields)
    if isinstance(spec, str):
        dist = _parse_spec(spec)
        return DelayModel(dist, label=spec.strip(), **options)
    if hasattr(spec, "rvs"):
        return DelayModel(spec, label=repr(spec), **options)
    raise ValueError(
        f"delay must be a spec string, a scipy.stats distribution or a DelayModel, got {spec!r}"
    )


def _parse_spec(spec: str) -> Any:
    """The distribution of a spec ``name(args)``: positional arguments in the documented
    order (:data:`_PARAMETERS`), then ``key=value`` ones, as in a Python call."""
    m = re.fullmatch(r"\s*([a-z_]+)\s*\((.*)\)\s*", spec)
    name = m.group(1) if m else spec.strip()
    if name not in _DELAYS or _DELAYS[name][0] is None:
        valid = "; ".join(doc for _, doc in _DELAYS.values())
        raise ValueError(f"unknown delay {spec!r}; valid delays: {valid}")
    names = _PARAMETERS[name]
    usage = f"{name}({', '.join(names)})"
    values: dict[str, float] = {}
    positional = True
    if m and m.group(2).strip():
        for part in m.group(2).split(","):
            key, eq, text = part.partition("=")
            if eq:
                key = key.strip()
                if key not in names:
                    raise ValueError(
                        f"delay {spec!r}: unknown parameter {key!r}; {name} takes {list(names)}"
                    )
                if key in values:
                    raise ValueError(f"delay {spec!r}: {key} given twice")
                positional = False
            else:
                text = part
                if not positional:
                    raise ValueError(
                        f"delay {spec!r}: a positional argument follows a keyword one; "
                        f"write {usage} or name every argument"
                    )
                if len(values) >= len(names):
                    raise ValueError(f"delay {spec!r}: too many arguments; {_DELAYS[name][1]}")
                key = names[len(values)]
            try:
                if not re.fullmatch(_NUM, text):
                    raise ValueError
                values[key] = float(text)
            except ValueError:
                raise ValueError(
                    f"delay {spec!r}: argument {text.strip()!r} is not a number"
                ) from None
    missing = [k for k in names if k not in values]
    if missing:
        raise ValueError(f"delay {spec!r}: missing {missing}; {_DELAYS[name][1]}")
    if any(not np.isfinite(v) for v in values.values()):
        raise ValueError(f"delay {spec!r}: parameters must be finite numbers")
    if any(v < 0 for v in values.values()):
        raise ValueError(f"delay {spec!r}: negative delays/parameters are not allowed")
    if (
        name in ("exp", "shifted_exp")
        and values["mean"] <= 0
        or (name == "pareto" and min(values.values()) <= 0)
    ):
        raise ValueError(f"delay {spec!r}: scale/shape parameters must be > 0")
    if name == "pareto" and positional:
        scale, shape = values["scale"], values["shape"]
        mean = "finite mean" if shape > 1 else "infinite mean (shape <= 1)"
        warnings.warn(
            f"delay {spec!r}: positional Pareto arguments are read in gctheory's order "
            f"pareto(scale, shape), i.e. pareto(scale={scale:g}, shape={shape:g}), a Pareto law "
            f"with {mean}; scipy's stats.pareto takes the shape first, which would read it as "
            f"pareto(shape={scale:g}, scale={shape:g}). Name the arguments to silence this: "
            f'"pareto(scale={scale:g}, shape={shape:g})"',
            UserWarning,
            stacklevel=_caller_level(),
        )
    return _DELAYS[name][0](**values)


def _caller_level() -> int:
    """``stacklevel`` pointing at the first frame outside gctheory (the user's call)."""
    import sys

    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("gctheory"):
        frame, level = frame.f_back, level + 1
    return level


def _replay_model(replay: Any, label: str, options: dict[str, Any]) -> DelayModel:
    opts = dict(options)
    defaults = {"persist": 1, "n_slow": 0, "slowdown": 1.0}
    for k, v in defaults.items():
        if k in opts and opts[k] == v:
            del opts[k]
    return DelayModel(None, label=label, replay=replay, **opts)
