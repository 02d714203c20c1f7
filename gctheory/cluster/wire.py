"""The task messages of the worker processes' pipes and sockets, encoded without pickle.

The local engine's pipes (:mod:`gctheory.cluster.groups`) and the grouped Dask
engine's sockets (:mod:`gctheory.cluster.dask_groups`) carry, besides the shared
block's bells, a message ``b"P"`` of tasks whose parameters are not one float64
vector: the sequential codes' ``((key, params), ...)`` payloads, parameters of
another dtype. The MPI engine (:mod:`gctheory.cluster.mpi`) sends every task so,
and its worker ranks' replies as values. Its bytes are read by a decoder that
knows a handful of types and nothing else, so what a process reads from a pipe
or a socket never runs code (a pickle can). A task message is::

    b"P" | t (int64) | preempt (uint8) | m (uint32) | m workers (int64) | m delays (float64)
        | the parameters as a value

and a *value* is a tag byte and its bytes: ``N`` None, ``T``/``F`` a bool, ``i``
an int64, ``f`` a float64, ``s`` a uint32 length and UTF-8 text, ``(``/``[`` a
uint32 count and that many values (a tuple, a list), ``a`` a uint64 length and an
array as ``.npy`` bytes (read with ``allow_pickle=False``: numeric dtypes only).
Anything else is refused by name when encoding, and any malformed message with a
ValueError when decoding, before it is used.

Examples
--------
>>> import numpy as np
>>> from gctheory.cluster.wire import encode_value, decode_value
>>> payload = ((("A", 1), np.arange(3.0)), ("Y", None))
>>> back = decode_value(encode_value(payload))
>>> back[0][0], back[0][1].tolist(), back[1]
(('A', 1), [0.0, 1.0, 2.0], ('Y', None))
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from gctheory.cluster.shm import from_npy, npy_bytes

__all__ = ["encode_value", "decode_value", "task_message", "read_task_message", "MAX_NESTING"]

#: deepest nesting of tuples and lists a value may have (a sequential payload nests 3)
MAX_NESTING = 32

_I64, _F64 = struct.Struct("<q"), struct.Struct("<d")
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")
#: the values a tag alone stands for
_CONSTANTS = {b"N": None, b"T": True, b"F": False}
#: a task message's head after ``b"P"``: t, preempt, the number of tasks
_HEAD = struct.Struct("<qBI")


def encode_value(value: Any) -> bytes:
    """``value`` (None, bool, int, float, str, tuple, list or a numeric ndarray, nested)
    as bytes :func:`decode_value` reads back; ValueError naming any other type."""
    out: list[bytes] = []
    _encode(value, out, 0)
    return b"".join(out)


def _encode(v: Any, out: list[bytes], depth: int) -> None:
    if depth > MAX_NESTING:
        raise ValueError(f"a task's parameters nest deeper than {MAX_NESTING} levels")
    if v is None:
        out.append(b"N")
    elif isinstance(v, bool | np.bool_):
        out.append(b"T" if v else b"F")
    elif isinstance(v, int | np.integer):
        if not -(2**63) <= int(v) < 2**63:
            raise ValueError(f"a task's parameters hold an int beyond int64: {int(v)}")
        out.append(b"i" + _I64.pack(int(v)))
    elif isinstance(v, float | np.floating):
        out.append(b"f" + _F64.pack(float(v)))
    elif isinstance(v, str):
        raw = v.encode("utf-8")
        out.append(b"s" + _U32.pack(len(raw)) + raw)
    elif isinstance(v, tuple | list):
        out.append((b"(" if isinstance(v, tuple) else b"[") + _U32.pack(len(v)))
        for item in v:
            _encode(item, out, depth + 1)
    elif isinstance(v, np.ndarray) and v.dtype.kind in "biufc":
        blob = npy_bytes(v)
        out.append(b"a" + _U64.pack(len(blob)) + blob)
    else:
        raise ValueError(
            f"a task's parameters must be None, bool, int, float, str, tuple, list or a "
            f"numeric numpy array (nested), got {type(v).__name__}"
        )


def decode_value(data: bytes, pos: int = 0, end: int | None = None) -> Any:
    """The value :func:`encode_value` wrote at ``data[pos:end]`` (the whole of it); a
    ValueError for bytes that are not exactly one value."""
    end = len(data) if end is None else end
    try:
        v, pos = _decode(data, pos, end, 0)
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ValueError(f"a malformed task message ({type(exc).__name__}: {exc})") from None
    if pos != end:
        raise ValueError(f"a malformed task message ({end - pos} bytes after its value)")
    return v


def _decode(data: bytes, pos: int, end: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_NESTING:
        raise ValueError(f"a task message nests deeper than {MAX_NESTING} levels")
    if pos >= end:
        raise ValueError("a malformed task message (it ends inside a value)")
    tag, pos = data[pos : pos + 1], pos + 1
    if tag in _CONSTANTS:
        return _CONSTANTS[tag], pos
    if tag == b"i":
        return _I64.unpack_from(data, pos)[0], pos + 8
    if tag == b"f":
        return _F64.unpack_from(data, pos)[0], pos + 8
    if tag in (b"s", b"a"):
        size_of = _U32 if tag == b"s" else _U64
        (size,) = size_of.unpack_from(data, pos)
        pos += size_of.size
        if pos + size > end:
            raise ValueError("a malformed task message (a length beyond its end)")
        raw = bytes(data[pos : pos + size])
        return (raw.decode("utf-8") if tag == b"s" else from_npy(raw)), pos + size
    if tag in (b"(", b"["):
        (count,) = _U32.unpack_from(data, pos)
        pos += 4
        if count > end - pos:  # each value takes at least a byte
            raise ValueError("a malformed task message (more items than bytes)")
        items = []
        for _ in range(count):
            item, pos = _decode(data, pos, end, depth + 1)
            items.append(item)
        return (tuple(items) if tag == b"(" else items), pos
    raise ValueError(f"a malformed task message (unknown tag {tag!r})")


def task_message(t: int, params: bytes, items: list[tuple[int, float]], preempt: bool) -> bytes:
    """The message ``b"P"`` of tasks ``items = [(worker, delay), ...]`` of iteration ``t``
    sharing ``params`` (already :func:`encode_value`'d, once for every group)."""
    workers = np.array([i for i, _ in items], dtype="<i8")
    delays = np.array([d for _, d in items], dtype="<f8")
    head = _HEAD.pack(int(t), bool(preempt), len(items))
    return b"P" + head + workers.tobytes() + delays.tobytes() + params


def read_task_message(data: bytes) -> tuple[int, Any, list[tuple[int, float]], bool]:
    """``(t, params, [(worker, delay), ...], preempt)`` of a :func:`task_message`; a
    ValueError for anything else."""
    if data[:1] != b"P" or len(data) < 1 + _HEAD.size:
        raise ValueError("a malformed task message (no b'P' head)")
    t, preempt, m = _HEAD.unpack_from(data, 1)
    pos = 1 + _HEAD.size
    if pos + 16 * m > len(data):
        raise ValueError("a malformed task message (fewer tasks than its head says)")
    workers = np.frombuffer(data, dtype="<i8", count=m, offset=pos).tolist()
    delays = np.frombuffer(data, dtype="<f8", count=m, offset=pos + 8 * m).tolist()
    params = decode_value(data, pos + 16 * m)
    return t, params, list(zip(workers, delays)), bool(preempt)
