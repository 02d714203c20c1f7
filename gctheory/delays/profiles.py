"""The public delay-profile pickles of ``mamaj/Sequential-Gradient-Coding-2``, read safely.

That repository (Krishnan, Ebrahimi & Khisti, "Sequential gradient coding for
straggler mitigation", ICLR 2023) publishes its AWS Lambda measurements as
Python pickles in ``delay_profiles/<campaign>/``, one file per load, named
``w{workers}-n{rounds}-l{load}-b{batch}-c{comp}-{region}.pkl`` (load written
``0_500``). What they hold (read with ``pickletools``, which runs nothing):
a list of rounds, each ``{"round": int, "started": float, "finished": float,
"results": [...]}``, with one result per worker ``{"worker_id": numpy int,
"started": float, "finished": float, "response": {...boto3 metadata...},
"payload": "removed" or {..., "grads": {"type": list, "len": int}}}``.
The only classes named are ``numpy.core.multiarray.scalar`` and
``numpy.dtype`` (the numpy integer scalars) and ``builtins.list`` (stored as
a value, the type of the gradients).

A pickle can run arbitrary code when loaded, so :func:`safe_load` admits
exactly that: lists, dicts, strings, numbers and numpy *numeric* scalars, and
the ``list`` type as a value. Every other class, function or object is
refused with a ValueError naming it. numpy's own ``dtype.__setstate__`` and
``scalar`` are never called on the file's data: the dtype is rebuilt from a
whitelist of numeric codes and the scalar from its bytes.
"""

from __future__ import annotations

import io
import pickle
import re
from pathlib import Path
from typing import Any, Literal

import numpy as np

from gctheory._validate import check_int, check_path, check_real
from gctheory.delays._trace_core import Trace, _validate

__all__ = ["safe_load", "safe_loads", "read_profile_pickle", "profile_rows"]

_NUMERIC_CODES = frozenset(
    ["?", "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"]
)
_SCALAR = {("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar")}


def _brief(value: Any) -> str:
    """A refused object named by its type and size, never by ``repr`` of the whole: a
    331-byte pickle of shared references repr()s to 2^60 characters."""
    if isinstance(value, (str, bytes)):
        text = repr(value[:40])
        return text + ("..." if len(value) > 40 else "")
    if isinstance(value, (int, float, bool)) or value is None:
        return repr(value)[:40]
    size = f" of {len(value)}" if isinstance(value, (list, tuple, dict)) else ""
    return f"<{type(value).__name__}{size}>"


#: a pickle's tree (shared references counted each time they are reached) may hold at
#: most this many nodes per byte of the file, plus :data:`_TREE_SLACK`
_TREE_PER_BYTE = 8
_TREE_SLACK = 10**5
#: deepest nesting of containers a pickle may have (a delay profile nests 5 deep); deeper
#: trees are refused by name before anything recurses into them
MAX_NESTING = 64


def _check_tree(root: Any, nbytes: int) -> None:
    """Refuse an unpickled tree whose size with shared references expanded is beyond
    what ``nbytes`` of plain data can hold, or that contains itself (a cycle), before
    anything walks it: a 12 KB pickle of references to references expanded to 9e6
    profile rows and 2.4 GB. Linear in the distinct containers, no
    recursion (any depth)."""
    limit = _TREE_PER_BYTE * nbytes + _TREE_SLACK
    box = (list, tuple, dict)
    weight: dict[int, int] = {}
    height: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        obj, done = stack.pop()
        i = id(obj)
        kids = list(obj.keys()) + list(obj.values()) if isinstance(obj, dict) else obj
        if done:
            w = 1 + sum(weight[id(c)] if isinstance(c, box) else 1 for c in kids)
            if w > limit:
                raise pickle.UnpicklingError(
                    f"refused: the pickle's {nbytes} bytes expand to more than {limit} "
                    "objects through shared references (not a plain delay profile)"
                )
            h = 1 + max((height[id(c)] for c in kids if isinstance(c, box)), default=0)
            if h > MAX_NESTING:
                raise pickle.UnpicklingError(
                    f"refused: the pickle nests containers more than {MAX_NESTING} levels deep "
                    "(not a plain delay profile, which nests 5)"
                )
            weight[i] = w
            height[i] = h
            open_.discard(i)
            continue
        if i in weight:
            continue
        if i in open_:
            raise pickle.UnpicklingError("refused: the pickle holds a container inside itself")
        open_.add(i)
        stack.append((obj, True))
        stack.extend((c, False) for c in kids if isinstance(c, box) and id(c) not in weight)


class _DTypeSpec:
    """A numeric dtype as named in a pickle (never a numpy object until validated)."""

    __slots__ = ("code", "order")

    def __init__(self, code: str) -> None:
        self.code = code
        self.order = "="

    def __setstate__(self, state: Any) -> None:
        # numpy's dtype state: (version, byteorder, subarray, names, fields, elsize,
        # alignment, flags[, metadata]); a plain numeric dtype has no subarray/names/fields
        if (
            not isinstance(state, tuple)
            or len(state) not in (8, 9)
            or state[0] not in (3, 4)
            or state[1] not in ("<", ">", "|", "=")
            or any(x is not None for x in state[2:5])
            or not all(isinstance(x, int) for x in state[5:8])
            or (len(state) == 9 and state[8] is not None)
        ):
            raise pickle.UnpicklingError(f"refused a numpy dtype state {_brief(state)}")
        self.order = state[1]


def _dtype(code: Any, align: Any = False, copy: Any = False) -> _DTypeSpec:
    if not isinstance(code, str) or code not in _NUMERIC_CODES:
        raise pickle.UnpicklingError(
            f"refused numpy.dtype({_brief(code)}): only numeric dtypes are admitted"
        )
    return _DTypeSpec(code)


def _scalar(spec: Any, data: Any = None) -> Any:
    if not isinstance(spec, _DTypeSpec) or not isinstance(data, bytes):
        raise pickle.UnpicklingError("refused a numpy scalar that is not numeric data")
    # the state admitted only "<", ">", "|" (no byte order) and "=" (native)
    order: Literal["<", ">", "="] = (
        "<" if spec.order == "<" else (">" if spec.order == ">" else "=")
    )
    dt = np.dtype(spec.code).newbyteorder(order)
    if len(data) != dt.itemsize:
        raise pickle.UnpicklingError(
            f"refused a numpy scalar of dtype {spec.code} with {len(data)} bytes"
        )
    return np.frombuffer(data, dtype=dt)[0]


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SCALAR:
            return _scalar
        if (module, name) == ("numpy", "dtype"):
            return _dtype
        if (module, name) == ("builtins", "list"):
            return list
        raise pickle.UnpicklingError(
            f"refused to load {module}.{name}: a delay profile holds only lists, dicts and "
            "numpy scalars, and loading any other class or function could run code"
        )

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id: not a plain delay profile")


def safe_loads(data: bytes, *, source: str = "pickle") -> Any:
    """Unpickle ``data`` admitting only lists, dicts, plain values and numpy numeric scalars.

    Raises ValueError (naming ``source`` and the refused class) for anything else,
    for a tree that shared references make much larger than the bytes (more than
    8 objects per byte plus 10^5), that contains itself, or that nests containers
    more than :data:`MAX_NESTING` deep. A refused object is named
    by its type and size, never printed whole.

    Parameters
    ----------
    data : bytes
        A pickle.
    source : str
        Its name, for messages.

    Returns
    -------
    object
        The lists, dicts and plain values it holds.

    Raises
    ------
    ValueError
        Any other class, or a tree far larger than the bytes.

    Examples
    --------
    >>> from gctheory.delays import safe_loads
    >>> import pickle
    >>> safe_loads(pickle.dumps([{"worker": 0, "finished": 1.5}]))
    [{'worker': 0, 'finished': 1.5}]
    >>> safe_loads(pickle.dumps(range(3)))  # any class is refused  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: pickle: refused to load builtins.range: ...
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"data must be the bytes of a pickle, got {type(data).__name__}")
    if not isinstance(source, str):
        raise ValueError(f"source must be a str naming where the bytes come from, got {source!r}")
    try:
        out = _RestrictedUnpickler(io.BytesIO(data)).load()
        if isinstance(out, (list, tuple, dict)):
            _check_tree(out, len(data))
        return out
    except pickle.UnpicklingError as exc:
        raise ValueError(f"{source}: {exc}") from None
    except Exception as exc:  # any failure of the parser: the bytes are not a profile
        text = str(exc)[:200]
        raise ValueError(
            f"{source}: not a readable pickle ({type(exc).__name__}: {text})"
        ) from None


def safe_load(path: str | Path) -> Any:
    """:func:`safe_loads` of a file.

    Parameters
    ----------
    path : str or pathlib.Path
        A pickle file.

    Returns
    -------
    object
        As :func:`safe_loads`.

    Examples
    --------
    >>> from gctheory.delays import safe_load
    >>> import pickle, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp) / "x.pkl"
    ...     _ = p.write_bytes(pickle.dumps({"a": [1, 2]}))
    ...     print(safe_load(p))
    {'a': [1, 2]}
    """
    p = Path(check_path(path, "path", what="profile pickle"))
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"path: cannot read the profile pickle {str(p)!r} ({exc})") from None
    return safe_loads(data, source=str(p))


_NAME = re.compile(
    r"^w(?P<workers>\d+)-n(?P<rounds>\d+)-l(?P<load>\d+_\d+)-b(?P<batch>\d+)"
    r"-c(?P<comp>[^-]+)-(?P<region>[A-Za-z]+)"
)


def _name_fields(stem: str) -> dict[str, Any]:
    m = _NAME.match(stem)
    if not m:
        return {}
    return {
        "workers": int(m["workers"]),
        "rounds": int(m["rounds"]),
        "load": float(m["load"].replace("_", ".")),
        "batch": int(m["batch"]),
        "region": m["region"],
    }


def profile_rows(rounds: Any, source: str = "profile") -> dict[str, np.ndarray]:
    """Columns (round, worker, time, start_offset_s, and payload load if any) of a profile.

    ``rounds`` is the unpickled list of round dicts; time is ``finished -
    started`` of each worker, ``start_offset_s`` its start minus the round's.

    Parameters
    ----------
    rounds : list of dict
        The unpickled rounds of a delay profile.
    source : str
        Its name, for messages.

    Returns
    -------
    dict of str to numpy.ndarray
        The columns.

    Examples
    --------
    >>> from gctheory.delays.profiles import profile_rows
    >>> results = [{"worker_id": 0, "started": 0.0, "finished": 1.5},
    ...            {"worker_id": 1, "started": 0.1, "finished": 2.0}]
    >>> cols = profile_rows([{"round": 0, "started": 0.0, "results": results}])
    >>> cols["worker"].tolist(), cols["time"].tolist(), cols["start_offset_s"].tolist()
    ([0, 1], [1.5, 1.9], [0.0, 0.1])
    """
    if not isinstance(source, str):
        raise ValueError(f"source must be a str naming the profile, got {source!r}")
    if not isinstance(rounds, list) or not rounds:
        raise ValueError(f"rounds ({source}): a delay profile is a non-empty list of rounds")
    out: dict[str, list] = {"round": [], "worker": [], "time": [], "start_offset_s": []}
    loads: list[float] = []
    for j, rd in enumerate(rounds):
        if not isinstance(rd, dict) or not isinstance(rd.get("results"), list):
            raise ValueError(f"{source}: round {j} is not a dict with a 'results' list")
        r = rd.get("round", j)
        r0 = rd.get("started")
        for q, res in enumerate(rd["results"]):
            try:
                w, a, b = res["worker_id"], res["started"], res["finished"]
            except (KeyError, TypeError):
                raise ValueError(
                    f"{source}: round {r} result {q} lacks worker_id/started/finished"
                ) from None
            try:
                out["round"].append(int(r))
                out["worker"].append(int(w))
                out["time"].append(float(b) - float(a))
                out["start_offset_s"].append(float(a) - float(r0) if r0 is not None else np.nan)
                payload = res.get("payload")
                if isinstance(payload, dict) and "load" in payload:
                    loads.append(float(payload["load"]))
            except (TypeError, ValueError, OverflowError):
                raise ValueError(
                    f"rounds ({source}): round {r!r} result {q} holds a non-numeric value"
                ) from None
    cols = {k: np.array(v) for k, v in out.items()}
    if loads:
        if len(loads) != len(cols["time"]):
            raise ValueError(f"{source}: some results carry a payload load and others do not")
        cols["load"] = np.array(loads)
    return cols


def read_profile_pickle(
    path: str | Path,
    *,
    load: float | None = None,
    profile: str | None = None,
    model: str | None = None,
    region: str | None = None,
    batch: int | None = None,
) -> Trace:
    """A :class:`Trace` from one delay-profile pickle of Sequential-Gradient-Coding-2.

    The pickle is read by :func:`safe_load` (lists, dicts and numpy scalars
    only). Load, batch and region come from the file name
    (``w256-n30-l0_500-b2048-cno_forloop-Canada.pkl``) unless given; a load
    stored in the workers' payloads must agree with it. ``profile`` defaults
    to the name of the folder holding the file (the campaign).

    Parameters
    ----------
    path : str or pathlib.Path
        A profile pickle.
    load : float, optional
        The load (default: from the file name).
    profile : str, optional
        The campaign name (default: the folder's name).
    model, region : str, optional
        Campaign columns (default: from the file name).
    batch : int, optional
        Batch size (default: from the file name).

    Returns
    -------
    Trace
        The measured rows.

    Raises
    ------
    ValueError
        A malformed file or name.

    Examples
    --------
    >>> from gctheory.delays import read_profile_pickle
    >>> read_profile_pickle("no-such-file.pkl")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: path: profile pickle 'no-such-file.pkl' does not exist...
    """
    p = Path(check_path(path, "path", what="profile pickle"))
    for key, value in (("profile", profile), ("model", model), ("region", region)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key} must be a str or None, got {value!r}")
    if load is not None:
        load = check_real(load, "load", low=0.0)
    if batch is not None:
        batch = check_int(batch, "batch", low=1)
    data = safe_load(p)
    cols = profile_rows(data, str(p))
    meta = _name_fields(p.stem)
    if load is None:
        load = meta.get("load")
        if load is None and "load" not in cols:
            raise ValueError(
                f"{p}: cannot tell the load from the file name (w..-n..-l0_500-b..-c..-Region) "
                "or the payloads; give load="
            )
    n = len(cols["time"])
    if load is not None:
        if "load" in cols and not np.allclose(cols["load"], float(load)):
            raise ValueError(
                f"{p}: the workers' payloads say load {cols['load'][0]:g}, but the file name "
                f"or the argument says {float(load):g}"
            )
        cols["load"] = np.full(n, float(load))
    extra: dict[str, np.ndarray] = {
        "profile": np.full(n, profile if profile is not None else p.parent.name, dtype=object)
    }
    if model is not None:
        extra["model"] = np.full(n, model, dtype=object)
    reg = region if region is not None else meta.get("region")
    if reg is not None:
        extra["region"] = np.full(n, reg, dtype=object)
    bat = batch if batch is not None else meta.get("batch")
    if bat is not None:
        extra["batch"] = np.full(n, float(bat))
    extra["start_offset_s"] = cols["start_offset_s"]
    extra = {k: (v.astype(str) if v.dtype == object else v) for k, v in extra.items()}
    tr = Trace(
        cols["round"].astype(np.int64),
        cols["worker"].astype(np.int64),
        cols["load"].astype(float),
        cols["time"].astype(float),
        extra,
        str(p),
    )
    return _validate(tr)
