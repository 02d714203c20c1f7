"""Delay laws by name: the spec strings ``shifted_exp``, ``exp``, ``pareto``, ``uniform``,
``constant`` and their parser (moved from :mod:`gctheory.delays.models` so that the
memoryful specs of :mod:`gctheory.delays.markov_times` can read a law without importing
the delay models that read them; every name stays importable from ``models``).
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["DELAY_NAMES", "parse_law"]


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
#: The law names a delay spec string may start with (``exp``, ``pareto``, ``trace``, ...).
DELAY_NAMES = tuple(_DELAYS)

#: the parameters of each spec, in their positional order (also the keyword names)
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "shifted_exp": ("shift", "mean"),
    "exp": ("mean",),
    "pareto": ("scale", "shape"),
    "uniform": ("low", "high"),
    "constant": ("c",),
}


_NUM = r"\s*([-+0-9.eE]+)\s*"


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


def parse_law(spec: str) -> Any:
    """The law of a spec string such as ``"shifted_exp(shift=1, mean=0.5)"`` (positional
    arguments in the documented order, or named): a frozen scipy.stats law or a constant."""
    return _parse_spec(spec)
