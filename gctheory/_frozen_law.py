"""A frozen ``scipy.stats`` continuous law with scalar parameters, unpacked once into
what its generator's private kernels take: the generator, its shape parameters, ``loc``,
``scale`` and the standard support ``[a, b]``.

A frozen law's ``pdf``/``cdf``/``sf`` re-parse and re-check its arguments on every call
(tens of microseconds); a quadrature calling one point at a time spends most of its time
there. Where :func:`unpack_frozen` returns the parts, ``gen._sf((t - loc) / scale,
*shapes)`` at a point inside the open support is the value scipy's frozen call returns
there; what to do elsewhere (scipy's masks, or scipy's own call) is the caller's. Used by
:mod:`gctheory.delays.markov_times` (the stationary mixture's components) and
:mod:`gctheory.order_stats.quadrature` (the order statistics' point calls); numpy and
scipy only, so both may import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["FrozenParts", "unpack_frozen"]


@dataclass(frozen=True)
class FrozenParts:
    """The parts of a frozen law: ``gen`` its generator, ``shapes`` its shape parameters as
    scipy parsed them (not converted: the kernels see what scipy's own call would pass),
    ``loc`` and ``scale`` as floats, ``[a, b]`` the support of the standardised law."""

    gen: Any
    shapes: tuple[Any, ...]
    loc: float
    scale: float
    a: float
    b: float


def unpack_frozen(law: Any) -> FrozenParts | None:
    """The parts of ``law``, or None where scipy's own call must answer: parameters that
    are arrays (not 0-d), shapes outside the family's domain, ``scale <= 0``, or an object
    without a scipy generator's interface (``dist._parse_args``, ``_argcheck``,
    ``_get_support``). A NaN ``scale`` is not refused here: every standardised point is
    then NaN, outside any support, so a caller's masks never reach the kernels.

    Examples
    --------
    >>> from scipy import stats
    >>> from gctheory._frozen_law import unpack_frozen
    >>> p = unpack_frozen(stats.gamma(3, loc=1.0, scale=2.0))
    >>> p.shapes, p.loc, p.scale, p.a, p.b
    ((3,), 1.0, 2.0, 0.0, inf)
    >>> z = (4.0 - p.loc) / p.scale  # inside the open support (a, b)
    >>> bool(p.gen._sf(z, *p.shapes) == stats.gamma(3, loc=1.0, scale=2.0).sf(4.0))
    True
    >>> unpack_frozen(stats.expon(scale=[1.0, 2.0])) is None  # array parameters
    True
    """
    gen: Any = getattr(law, "dist", None)
    try:
        shapes, loc, scale = gen._parse_args(*law.args, **law.kwds)
        vals = [np.asarray(v, dtype=float) for v in (*shapes, loc, scale)]
        if any(v.ndim for v in vals) or not bool(gen._argcheck(*shapes)) or float(scale) <= 0:
            return None
        a, b = (float(v) for v in gen._get_support(*shapes))
    except (AttributeError, TypeError, ValueError):  # another law's interface: scipy's route
        return None
    return FrozenParts(gen, tuple(shapes), float(loc), float(scale), a, b)
