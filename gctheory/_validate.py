"""Validation at the public boundary: one place for the rules every module applies.

Each checker takes the value and the parameter's name and returns the value
normalised (a Python ``int``, ``float``, a ``numpy`` Generator) or raises a
:class:`ValueError` that names the parameter, the value, the rule it broke
and, where there are few, the valid choices. Nothing is clipped or defaulted.
Booleans are refused where a number is expected (``True`` is not seed 1, nor
a count of 1).
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_generator",
    "available_memory",
    "check_array",
    "check_choice",
    "check_flag",
    "check_int",
    "check_law_parameters",
    "check_memory",
    "check_path",
    "check_probability",
    "check_real",
]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (either end may be open-ended).

    Integral floats (``3.0``) are accepted; ``3.5``, strings, booleans and
    non-finite numbers are refused.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got the boolean {value!r}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)):
        if float(value) != int(float(value)):
            raise ValueError(f"{name} must be an integer, got {_show(value)}")
        v = int(float(value))
    else:
        raise ValueError(f"{name} must be an integer, got {_show(value)} ({type(value).__name__})")
    if (low is not None and v < low) or (high is not None and v > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(f"{name} must lie in [{lo}, {hi}], got {v}")
    return v


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """``value`` as a ``float`` in the interval given (open or closed at each end).

    NaN is always refused; infinities unless ``finite=False``; booleans and
    strings always.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {_show(value)}")
    v = float(value)
    if math.isnan(v) or (finite and math.isinf(v)):
        raise ValueError(f"{name} must be a finite real number, got {v}")
    bad_low = low is not None and (v <= low if low_open else v < low)
    bad_high = high is not None and (v >= high if high_open else v > high)
    if bad_low or bad_high:
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name} must lie in {lb}{lo}, {hi}{hb}, got {v:g}")
    return v


def check_probability(value: Any, name: str, *, open_low: bool = False, open_high: bool = False):
    """``value`` as a ``float`` in ``[0, 1]`` (ends open on request)."""
    return check_real(value, name, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """``value`` if it is one of ``choices``; the error lists them."""
    options = list(choices)
    try:
        ok = value in options
    except TypeError:  # unhashable or incomparable
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {options}, got {_show(value)}")
    return value


def as_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """``rng`` as a :class:`numpy.random.Generator`.

    Accepts None (fresh OS entropy), a non-negative int, a sequence of
    non-negative ints, a ``SeedSequence``, a ``BitGenerator`` or a
    ``Generator`` (returned as is). Booleans, negative seeds, floats and
    strings are refused with the parameter's name.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the parameter's name (a non-empty str), got {name!r}")
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if rng is None:
        return np.random.default_rng()
    seeds = rng if isinstance(rng, Sequence) and not isinstance(rng, (str, bytes)) else [rng]
    for v in seeds:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise ValueError(
                f"{name} must be None, a non-negative int, a sequence of non-negative ints, a "
                f"SeedSequence, a BitGenerator or a numpy Generator, got {_show(rng)}"
            )
        if v < 0:
            raise ValueError(f"{name} seed must be a non-negative integer, got {int(v)}")
    return np.random.default_rng(rng)


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    complex_ok: bool = False,
    finite: bool = True,
    min_size: int = 1,
    bools: bool = True,
) -> np.ndarray:
    """``value`` as a numeric (float, or complex if ``complex_ok``) array.

    Refuses what numpy cannot read as numbers (strings, ``None``, ragged lists,
    dictionaries, object arrays), the wrong number of dimensions, fewer than
    ``min_size`` entries and (with ``finite``) NaN or infinite entries. Boolean
    arrays read as 0/1 (a placement, a mask) unless ``bools=False`` (numbers are
    expected); a lone boolean (``True``) is never read as a number.
    """
    if isinstance(value, (str, bytes, dict, set, bool, np.bool_)) or value is None:
        raise ValueError(f"{name} must be a numeric array, got {_show(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a numeric array, got {_show(value)} ({exc})") from None
    if arr.dtype.kind == "c" and not complex_ok:
        raise ValueError(f"{name} must be a real array, got a complex one")
    if arr.dtype.kind not in "biufc":  # strings, objects
        raise ValueError(f"{name} must be a numeric array, got {_show(value)} (dtype {arr.dtype})")
    if arr.dtype.kind == "b" and not bools:
        raise ValueError(f"{name} must hold numbers, got booleans (True is not 1 here)")
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if dims is not None and arr.ndim not in dims:
        want = " or ".join(str(d) for d in dims)
        raise ValueError(f"{name} must be a {want}-D array, got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must hold at least {min_size} entries, got shape {arr.shape}")
    arr = arr.astype(np.result_type(arr.dtype, float), copy=False)
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite numbers, got NaN or infinite entries")
    return arr


def check_law_parameters(dist: Any, name: str = "dist", *, domain: bool = True) -> Any:
    """Refuse a frozen ``scipy.stats`` law whose parameters are NaN, infinite or (with
    ``domain``) outside the family's domain (scipy then answers NaN everywhere,
    silently). Objects that are not frozen scipy laws pass unchanged (their own methods
    are the contract)."""
    inner = getattr(dist, "dist", None)
    parse = getattr(inner, "_parse_args", None)
    if parse is None:
        return dist
    try:
        shapes, loc, scale = parse(*getattr(dist, "args", ()), **getattr(dist, "kwds", {}))
    except TypeError as exc:
        raise ValueError(f"{name} has parameters its family does not take ({exc})") from None
    family = getattr(inner, "name", type(inner).__name__)
    for label, v in [*((f"shape {i}", s) for i, s in enumerate(shapes)), ("loc", loc)] + [
        ("scale", scale)
    ]:
        arr = np.asarray(v)
        if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)):
            raise ValueError(
                f"{name} ({family}) must have finite numeric parameters, got {label} = {_show(v)}"
            )
    if not np.all(np.asarray(scale) > 0):
        raise ValueError(f"{name} ({family}) must have scale > 0, got {_show(scale)}")
    argcheck = getattr(inner, "_argcheck", None)
    if domain and argcheck is not None and shapes and not np.all(argcheck(*shapes)):
        raise ValueError(
            f"{name} ({family}) has shape parameters outside the family's domain: "
            f"{_show(tuple(shapes))}"
        )
    return dist


def check_path(
    value: Any, name: str, *, exists: bool = True, what: str = "file", folder: bool = False
) -> str:
    """``value`` as a path string (``str`` or ``os.PathLike``), existing if ``exists``;
    with ``folder``, the folder that is to hold it must exist (a file about to be written)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"{name} must be a path (str or os.PathLike), got {_show(value)}")
    path = os.fspath(value)
    if isinstance(path, bytes) or not path:
        raise ValueError(f"{name} must be a non-empty path, got {_show(value)}")
    if exists and not os.path.isfile(path):
        raise ValueError(f"{name}: {what} {path!r} does not exist (or is not a file)")
    if os.path.isdir(path):
        raise ValueError(f"{name}: {path!r} is a folder; give the path of a {what} in it")
    if folder:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise ValueError(f"{name}: folder {parent!r} (to hold {path!r}) does not exist")
    return path


def check_flag(value: Any, name: str) -> bool:
    """``value`` as a ``bool``: only ``True``/``False`` (numpy's too); ``1`` or ``"yes"`` is
    refused (a flag given a number is a misplaced argument, not a truth value)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_show(value)}")
    return bool(value)


def available_memory() -> int | None:
    """Bytes this process may still allocate: the smaller of the system's available memory
    (Linux ``MemAvailable``) and the room left under the address-space limit
    (``RLIMIT_AS``), or None when neither can be read."""
    figures = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    figures.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    if not figures:
        try:
            figures.append(int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE")))
        except (ValueError, OSError, AttributeError):
            pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as fh:
                used = int(fh.read().split()[0]) * int(os.sysconf("SC_PAGE_SIZE"))
            figures.append(max(soft - used, 0))
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        pass
    return min(figures) if figures else None


#: below this many bytes an allocation is not worth reading /proc/meminfo for
_MEMORY_FLOOR = 2**27


def check_memory(nbytes: float, name: str, what: str) -> None:
    """Refuse at once (naming ``name``, with both figures) work whose arrays need more
    memory than :func:`available_memory` reports. ``what`` says what needs the memory,
    e.g. ``"the 10000 x 10000 encoding matrix"``. Give ``nbytes`` as an exact int product
    where the sizes may be huge (a float product of huge ints overflows)."""
    if nbytes < _MEMORY_FLOOR:
        return
    have = available_memory()
    if have is None:
        have = 2**40  # unknown: still refuse what no machine has
    if nbytes > have:
        raise ValueError(
            f"{name}: {what} needs about {_bytes(nbytes)} of memory, more than the "
            f"{_bytes(have)} available; use a smaller {name}"
        )


def _bytes(n: float) -> str:
    if n >= 2**100:
        return f"2^{int(n).bit_length() - 1} bytes"
    if n >= 2**30:
        return f"{n / 2**30:.3g} GiB"
    return f"{n / 2**20:.3g} MiB"
