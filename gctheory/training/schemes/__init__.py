"""The parameter-server schemes simulated by :mod:`gctheory.training`, and their registry.

Each scheme turns one iteration's partial gradients (evaluated at the current
model) and the workers' finishing times into a gradient estimate, the time the
server waited, and the communication and computation loads of Zhang & Simeone
2020, eqs. (7)-(8). Coded schemes use the encoders and decoders of
:mod:`gctheory.codes` unchanged, built by :mod:`gctheory.training.codes`.
:data:`SCHEMES` names every scheme and :func:`make_scheme` builds one.

One module per concept: :mod:`~.base` (:class:`Step`, :class:`Iteration`,
:class:`Scheme`), :mod:`~.uncoded` (wait-all, K-SGD, asynchronous SGD, LGC),
:mod:`~.coded` (gradient codes, and the peeling codes' decodable-set wait),
:mod:`~.sequential` (SR-SGC, M-SGC), :mod:`~.grouped` (Zhang & Simeone's
grouped and lazy schemes), :mod:`~.registry` (:data:`SCHEMES`,
:func:`make_scheme`). Every name importable from ``gctheory.training.schemes``
before the split still is.
"""

from __future__ import annotations

from gctheory.training.schemes.base import Iteration, Scheme, Step, _kth  # noqa: F401
from gctheory.training.schemes.coded import Coded  # noqa: F401
from gctheory.training.schemes.grouped import Grouped, _lag_select, lag_select  # noqa: F401
from gctheory.training.schemes.registry import _ALIASES, SCHEMES, _canon, make_scheme  # noqa: F401
from gctheory.training.schemes.sequential import Sequential  # noqa: F401
from gctheory.training.schemes.uncoded import (  # noqa: F401
    LGC,
    AsynchronousSGD,
    IgnoreStragglers,
    WaitAll,
    _lgc_compensation,
    lgc_compensation,
)

__all__ = [
    "SCHEMES",
    "make_scheme",
    "Step",
    "Iteration",
    "Scheme",
    "AsynchronousSGD",
    "lgc_compensation",
    "lag_select",
]
