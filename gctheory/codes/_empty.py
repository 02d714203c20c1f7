"""Decoding with no survivor: a flagged empty estimate for the families whose contract allows it.

The code contract (:mod:`gctheory.codes.base`) makes exact codes refuse fewer
than ``n - s`` survivors, and approximate codes never refuse for
decodability. Two approximate families define an estimate for *every*
survivor set, the empty one included: ignore-stragglers decoding (IS-GC sums
the messages of a largest set of survivors with disjoint partitions: none
survive, nothing is summed) and stochastic gradient coding (``g_hat =
sum_{i alive} y_i / (d (1 - p))`` over an empty set is 0). For them,
``decode`` returns the zero vector (``decode_many`` a zero row) and ``decode_detail`` a
:class:`PartialDecodeResult` with ``empty=True``, ``err = k`` (nothing
recovered) and ``exact=False``, instead of the "too few survivors"
``ValueError`` other approximate codes give for ``[]``. Index and shape rules
still raise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import ApproxDecodeResult
from gctheory.codes.base import validate_survivors

__all__ = ["PartialDecodeResult"]


@dataclass(frozen=True)
class PartialDecodeResult(ApproxDecodeResult):
    """An :class:`~gctheory.codes.approximate.ApproxDecodeResult` with an ``empty`` flag.

    ``empty`` is True when nothing was recovered (no survivor): ``gradient``
    is then zero, ``coefficients`` has no rows, ``residual`` is 1 (the
    relative residual of the zero combination), ``err`` is ``k``, every
    partition is in ``unrecovered`` and ``condition_number`` is NaN (no
    system was solved).

    Parameters
    ----------
    empty : bool
        True when nothing was recovered; the other fields are those of
        :class:`~gctheory.codes.approximate.ApproxDecodeResult`.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import ISGCCode, PartialDecodeResult
    >>> code = ISGCCode(4, 1)
    >>> r = code.decode_detail([], np.zeros((0, 2)))
    >>> type(r).__name__, r.empty, r.err
    ('PartialDecodeResult', True, 4.0)
    """

    empty: bool = False


class EmptyDecodeMixin:
    """``decode`` / ``decode_detail`` that accept an empty survivor set (see the module doc).

    Mixed in before :class:`~gctheory.codes.approximate._ApproximateCode`.
    """

    n: int
    k: int
    m: int

    def _empty_gradient(self, survivors: Any, received: Any, d: int | None) -> np.ndarray | None:
        T = validate_survivors(survivors, self.n, 0)
        if T.size:
            return None
        Y = self._check_received(T, received, d)  # type: ignore[attr-defined]
        return np.zeros(self.m * Y.shape[1] if d is None else d)

    def decode(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> np.ndarray:
        """The estimate; the zero vector when no worker survives (never refuses)."""
        g = self._empty_gradient(survivors, received, d)
        if g is not None:
            return g
        kw = {"rtol": rtol, "check": check, "noise": noise, "on_noise": on_noise}
        return super().decode(survivors, received, d, **kw)  # type: ignore[misc]

    def decode_many(
        self,
        survivor_sets: Any,
        received: Any,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        backend: str = "auto",
        noise: float | None = None,
        on_noise: str = "warn",
        return_bounds: bool = False,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Batched :meth:`decode`; an empty survivor set gives a zero row (never refuses).

        With ``return_bounds`` also the (N,) noise bounds, 0 for an empty set (as
        :meth:`decode_detail`'s ``noise_bound``).
        """
        if not isinstance(return_bounds, (bool, np.bool_)):
            raise ValueError(f"return_bounds must be True or False, got {return_bounds!r}")
        sets = list(survivor_sets) if not isinstance(survivor_sets, np.ndarray) else survivor_sets
        empty = [np.asarray(S).size == 0 for S in sets]
        kw = {"rtol": rtol, "check": check, "backend": backend}
        kw.update(noise=noise, on_noise=on_noise, return_bounds=return_bounds)
        if not any(empty):
            return super().decode_many(survivor_sets, received, d, **kw)  # type: ignore[misc]
        full = isinstance(received, np.ndarray) and received.ndim == 2
        if not full and len(received) != len(sets):
            raise ValueError(
                f"received must be (n, r) or one array per survivor set ({len(sets)}), got "
                f"{len(received)}"
            )
        rows = [received] * len(sets) if full else list(received)
        for S, Y, e in zip(sets, rows, empty):
            if e:  # validates the empty set's received rows and d
                self._empty_gradient(S, np.zeros((0, np.shape(Y)[-1])) if full else Y, d)
        width = self.m * np.shape(rows[0])[-1] if d is None else d
        out = np.zeros((len(sets), width))
        bounds = np.zeros(len(sets))
        idx = [i for i, e in enumerate(empty) if not e]
        if idx:
            sub = received if full else [rows[i] for i in idx]
            got = super().decode_many(  # type: ignore[misc]
                [sets[i] for i in idx], sub, d, **kw
            )
            if return_bounds:
                out[idx], bounds[idx] = got
            else:
                out[idx] = got
        return (out, bounds) if return_bounds else out

    def decode_detail(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        condition: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> PartialDecodeResult:
        """:class:`PartialDecodeResult`: ``empty=True`` (not an exception) with no survivor."""
        g = self._empty_gradient(survivors, received, d)
        if g is not None:
            return PartialDecodeResult(
                gradient=g,
                coefficients=np.zeros((0, self.m)),
                condition_number=math.nan,
                residual=1.0,
                survivors=(),
                exact=False,
                err=float(self.k),
                unrecovered=tuple(range(self.k)),
                noise_bound=0.0,
                empty=True,
            )
        res = super().decode_detail(  # type: ignore[misc]
            survivors,
            received,
            d,
            rtol=rtol,
            check=check,
            condition=condition,
            noise=noise,
            on_noise=on_noise,
        )
        return PartialDecodeResult(**{f.name: getattr(res, f.name) for f in fields(res)})
