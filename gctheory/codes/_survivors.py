"""Survivor sets: validation of one set and of many (shared by the decoders).

Private to :mod:`gctheory.codes`; ``check_positive_int`` and
``validate_survivors`` are public through :mod:`gctheory.codes.base`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from gctheory._validate import check_memory

#: a survivor set as the decoders take it: worker indices, a list or an int array
#: (``validate_survivors`` checks either)
Survivors: TypeAlias = "Sequence[int] | np.ndarray"

_EPS = float(np.finfo(float).eps)
#: above this relative residual the null-space decoder's coefficients are recomputed by
#: least squares (which is then kept if better); below it both are accurate to
#: about cond * eps, the null-space ones within a small factor of least squares.
_FALLBACK_RESIDUAL = 1e-8


def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """Return ``value`` as int, or raise ValueError naming ``name`` and the rule.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.
    minimum : int
        Smallest allowed value.

    Returns
    -------
    int
        ``value`` as an int.

    Raises
    ------
    ValueError
        Not an integer (booleans refused) or below ``minimum``.

    Examples
    --------
    >>> from gctheory.codes import check_positive_int
    >>> check_positive_int("n", 5)
    5
    >>> check_positive_int("n", 0)
    Traceback (most recent call last):
        ...
    ValueError: n must be an integer >= 1, got 0
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the parameter's name (a str), got {name!r}")
    if isinstance(minimum, bool) or not isinstance(minimum, (int, np.integer)):
        raise ValueError(f"minimum must be an integer, got {minimum!r}")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {_short(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _few(values: np.ndarray, most: int = 12) -> str:
    """Indices for a message, at most ``most`` of them (a refusal printed 990 survivors)."""
    items = values.tolist()
    if len(items) <= most:
        return str(items)
    return "[" + ", ".join(str(v) for v in items[:most]) + f", ... ({len(items)} in all)]"


def validate_survivors(survivors: Any, n: int, minimum: int = 1) -> np.ndarray:
    """Check a set of surviving worker indices; return them as an int array (order kept).

    Rules: a 1-D sequence of integers, each in ``[0, n)``, no duplicates, at
    least ``minimum`` of them. Each broken rule raises ``ValueError`` naming it.
    O(n) (a boolean mask, no sort), since it runs on every decode.

    Parameters
    ----------
    survivors : sequence of int
        Surviving worker indices.
    n : int
        Number of workers.
    minimum : int
        Fewest survivors allowed.

    Returns
    -------
    numpy.ndarray of int
        The survivors, order kept.

    Raises
    ------
    ValueError
        A broken rule, named.

    Examples
    --------
    >>> from gctheory.codes import validate_survivors
    >>> validate_survivors([3, 0, 2], 4).tolist()
    [3, 0, 2]
    >>> validate_survivors([0, 0], 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: survivors must be distinct, duplicated: [0]
    """
    if type(n) is not int or type(minimum) is not int:  # the decoders pass their own ints
        n = check_positive_int("n", n)
        minimum = check_positive_int("minimum", minimum, minimum=0)
    return _survivors_mask(survivors, n, minimum)[0]


def _survivors_mask(survivors: Any, n: int, minimum: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`validate_survivors` and the boolean mask of the survivors (length n)."""
    if n > 2**27:
        check_memory(n, "n", f"the survivor mask of n = {n} workers")
    if isinstance(survivors, (str, bytes, dict)) or survivors is None:
        raise ValueError(f"survivors must be a 1-D sequence of worker indices, got {survivors!r}")
    try:
        arr = np.asarray(survivors)
    except (ValueError, TypeError):
        raise ValueError(
            f"survivors must be a 1-D sequence of worker indices, got {_short(survivors)}"
        ) from None
    if arr.ndim != 1:
        raise ValueError(
            f"survivors must be a 1-D sequence of worker indices, got shape {arr.shape}"
        )
    if arr.dtype != np.int64:
        if arr.dtype.kind not in "iu" and arr.size:
            if not (
                arr.dtype.kind == "f"
                and bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))
            ):
                raise ValueError(
                    f"survivors must be integer worker indices, got {_short(arr.tolist())}"
                )
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) >= n:
            raise ValueError(
                f"survivors must be worker indices in [0, n) with n={n}, got {int(arr.max())}"
            )
        if arr.dtype.kind == "f" and arr.size and float(np.abs(arr).max()) >= 2.0**62:
            raise ValueError(f"survivors must be worker indices in [0, n) with n={n}")
        arr = arr.astype(np.int64)
    if arr.size < minimum:
        raise ValueError(
            f"too few survivors: this code needs at least {minimum} of the n={n} workers, "
            f"got {arr.size}"
        )
    if arr.size and int(arr.view(np.uint64).max()) >= n:  # negatives wrap to huge values
        bad = arr[(arr < 0) | (arr >= n)]
        raise ValueError(f"survivors must be worker indices in [0, n) with n={n}, got {_few(bad)}")
    seen = np.zeros(n, dtype=bool)
    seen[arr] = True
    if np.count_nonzero(seen) != arr.size:
        vals, counts = np.unique(arr, return_counts=True)
        raise ValueError(f"survivors must be distinct, duplicated: {_few(vals[counts > 1])}")
    return arr, seen


def _survivor_array(sets: Any, n: int, minimum: int) -> np.ndarray | list[np.ndarray]:
    """Survivor sets as an (N, t) int array when all have one size, else a list of arrays."""
    return _survivor_array_mask(sets, n, minimum)[0]


def _rows_mask(arr: np.ndarray, n: int) -> np.ndarray:
    """(N, n) boolean mask with ``mask[i, arr[i, j]] = True`` (one flat scatter)."""
    N = arr.shape[0]
    mask = np.zeros(N * n, dtype=bool)
    mask[(arr + (np.arange(N) * n)[:, None]).ravel()] = True
    return mask.reshape(N, n)


def _survivor_array_mask(
    sets: Any, n: int, minimum: int
) -> tuple[np.ndarray | list[np.ndarray], np.ndarray | None]:
    """:func:`_survivor_array` and, for an (N, t) array, the (N, n) mask of survivors."""
    if isinstance(sets, np.ndarray) and sets.ndim == 2:
        arr = sets
        if arr.dtype.kind not in "iu":
            if not (arr.dtype.kind == "f" and np.all(arr == np.round(arr))):
                raise ValueError("survivor_sets must hold integer worker indices")
        arr = arr.astype(np.int64, copy=False)
        if arr.shape[1] < minimum:
            raise ValueError(
                f"too few survivors: this code needs at least {minimum} of the n={n} workers, "
                f"got sets of {arr.shape[1]}"
            )
        if arr.size and int(arr.view(np.uint64).max()) >= n:  # negatives wrap to huge values
            raise ValueError(f"survivor_sets must hold worker indices in [0, n) with n={n}")
        seen = _rows_mask(arr, n)
        dup = np.flatnonzero(np.count_nonzero(seen, axis=1) != arr.shape[1])
        if dup.size:
            raise ValueError(f"survivors must be distinct: set {int(dup[0])} repeats a worker")
        return arr, seen
    out = [validate_survivors(T, n, minimum) for T in sets]
    if out and len({T.size for T in out}) == 1:
        stacked = np.stack(out)
        return stacked, _rows_mask(stacked, n)
    return out, None
