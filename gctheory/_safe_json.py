"""JSON read from a file, bounded: no RecursionError, no raw decoder exception.

Every loader of gctheory reads data with no code in it (JSON, CSV, ``.npz``
archives with ``allow_pickle=False``; the delay-profile pickles of another
project through the restricted unpickler of :mod:`gctheory.delays.profiles`).
JSON nested thousands of levels deep makes :func:`json.loads` recurse until
Python's limit; :func:`bounded_loads` refuses it first, counting brackets without
recursion, and turns every decoding failure into a ValueError naming the source.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

__all__ = ["MAX_DEPTH", "bounded_loads", "depth"]

#: deepest nesting a JSON file of gctheory may have (its own files nest under 10)
MAX_DEPTH = 64


def depth(text: str | bytes) -> int:
    """Deepest bracket nesting of JSON text (an upper bound: brackets inside strings
    count too). Linear, no recursion."""
    raw = text.encode("utf-8", "replace") if isinstance(text, str) else bytes(text)
    b = np.frombuffer(raw, dtype=np.uint8)
    step = (b == ord("[")).astype(np.int64) + (b == ord("{"))
    step -= (b == ord("]")).astype(np.int64) + (b == ord("}"))
    return int(np.max(np.cumsum(step), initial=0))


def bounded_loads(text: str | bytes, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(text)``, or a ValueError starting with ``source`` when the text is
    not UTF-8, not JSON, or nested deeper than ``max_depth``."""
    d = depth(text)
    if d > max_depth:
        raise ValueError(
            f"{source}: the JSON nests {d} levels deep, more than the {max_depth} this file "
            "can have"
        )
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        return json.loads(text)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:  # not reached below max_depth; kept as a guard
        raise ValueError(f"{source}: the JSON nests too deeply") from None
