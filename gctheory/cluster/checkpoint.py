"""Checkpoints of a real run: resume after the master is killed, losing no finished iteration.

:func:`gctheory.cluster.run` with ``checkpoint=PATH`` writes, after every
``checkpoint_every`` finished iterations (and after the last), everything the
loop needs to go on: the parameters and their history, the iteration reached,
every per-iteration record (injected delays, responses, statuses, survivor
sets, timings, bytes, metrics), the delay generator's state (so the injected
delays of the resumed iterations are those an uninterrupted run would have
drawn) and the run's configuration. The file is written to a temporary name,
flushed to disk and renamed over the old one (``os.replace``), so a master
killed while writing leaves the previous checkpoint intact.

``run(..., checkpoint=PATH, resume=True)`` starts from it: fresh workers, the
loop at the checkpoint's iteration, the clock of the trace continuing where it
stopped (the time the master was down is not counted). The configuration must
be the checkpointed one (scheme, n, seed, step size, workload, delay...);
``iterations`` may grow.

The file holds no code: it is a numpy ``.npz`` archive (read with
``allow_pickle=False``, so no object array is ever unpickled) whose entry
``state.json`` is the state as JSON (UTF-8 bytes) and whose other entries are
the state's numeric arrays, referenced from the JSON by name. Tuples, sets,
dicts with integer keys and non-finite floats are tagged in the JSON. Reading
refuses, with a ValueError naming the file, anything else: a pickle (the
format of gctheory before checkpoints held no code, refused by name and never
unpickled), a foreign or truncated archive, JSON nested deeper than
:data:`MAX_DEPTH`, an unknown tag, an array of objects.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from gctheory._safe_json import bounded_loads
from gctheory._validate import check_path

__all__ = ["save_checkpoint", "load_checkpoint", "check_checkpoint_path", "FORMAT"]

#: format tag of the checkpoint files
FORMAT = "gctheory.cluster.checkpoint/2"
#: the pickled format written before checkpoints held no code (refused, never unpickled)
_OLD_FORMAT = "gctheory.cluster.checkpoint/1"

#: configuration keys that must match between a checkpoint and the run resuming it
_MUST_MATCH = ("scheme", "n", "s", "K", "m", "seed", "code_options", "workload", "step_size",
               "delay", "delay_options", "preempt")  # fmt: skip

#: deepest nesting of the JSON a checkpoint holds (its own state nests about 6 deep)
MAX_DEPTH = 32
#: most arrays one checkpoint may hold (one per straggler pattern of a sequential run...)
MAX_ARRAYS = 10**6
_TAG = "__gct__"
_JSON = "state.json"


class _Encoder:
    """The state as a JSON tree plus a dict of arrays (the JSON names them)."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, a: np.ndarray, where: str) -> dict[str, Any]:
        if a.dtype.kind not in "biufc":
            raise ValueError(
                f"checkpoint: {where} is an array of dtype {a.dtype}; a checkpoint holds "
                "numeric and boolean arrays only"
            )
        name = f"a{len(self.arrays)}"
        self.arrays[name] = a
        return {_TAG: "array", "name": name}

    def __call__(self, v: Any, where: str = "state") -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, np.integer)) and not isinstance(v, np.bool_):
            return int(v)
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, (float, np.floating)):
            f = float(v)
            return f if np.isfinite(f) else {_TAG: "float", "value": repr(f)}
        if isinstance(v, np.ndarray):
            return self.array(v, where)
        if isinstance(v, list):
            return [self(x, f"{where}[{k}]") for k, x in enumerate(v)]
        if isinstance(v, tuple):
            return {_TAG: "tuple", "items": [self(x, f"{where}[{k}]") for k, x in enumerate(v)]}
        if isinstance(v, (set, frozenset)):
            return {_TAG: "set", "items": [self(x, where) for x in sorted(v)]}
        if isinstance(v, dict):
            if all(isinstance(k, str) and k != _TAG for k in v):
                return {k: self(x, f"{where}[{k!r}]") for k, x in v.items()}
            return {
                _TAG: "dict",
                "items": [[self(k, where), self(x, f"{where}[{k!r}]")] for k, x in v.items()],
            }
        raise ValueError(
            f"checkpoint: {where} is a {type(v).__name__}; a checkpoint holds numbers, "
            "strings, lists, tuples, sets, dicts and numeric arrays only"
        )


def check_checkpoint_path(path: Any) -> str:
    """Refuse by name, before any work, a checkpoint path that cannot be written: not a
    path, a folder, or in a folder that does not exist."""
    return check_path(path, "checkpoint", exists=False, what="checkpoint file", folder=True)


def save_checkpoint(path: Any, state: dict[str, Any]) -> Path:
    """Write ``state`` (a dict of the run loop's records) atomically at ``path``."""
    p = Path(check_checkpoint_path(path))
    enc = _Encoder()
    tree = enc({"format": FORMAT, **state})
    text = json.dumps(tree, allow_nan=False, separators=(",", ":"))
    entries = {_JSON: np.frombuffer(text.encode(), dtype=np.uint8), **enc.arrays}
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "wb") as fh:  # a file object: np.savez adds no ".npz" to the name
        np.savez(fh, allow_pickle=False, **entries)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, p)
    return p


class _Decoder:
    def __init__(self, source: str, arrays: Any) -> None:
        self.source = source
        self.arrays = arrays  # the open NpzFile
        self.used: set[str] = set()

    def fail(self, message: str) -> ValueError:
        return ValueError(f"checkpoint {self.source!r}: {message}")

    def __call__(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self(x) for x in v]
        if not isinstance(v, dict):
            return v
        if _TAG not in v:
            return {k: self(x) for k, x in v.items()}
        tag = v[_TAG]
        if tag == "array" and isinstance(v.get("name"), str):
            name = v["name"]
            if name == _JSON or name not in self.arrays.files:
                raise self.fail(f"the JSON names an array {name[:40]!r} the archive lacks")
            try:
                return self.arrays[name]
            except ValueError as exc:  # an object array (allow_pickle=False refuses it)
                raise self.fail(f"array {name!r} cannot be read without code ({exc})") from None
        if tag == "float" and v.get("value") in ("nan", "inf", "-inf"):
            return float(v["value"])
        if tag in ("tuple", "set") and isinstance(v.get("items"), list):
            items = [self(x) for x in v["items"]]
            if tag == "tuple":
                return tuple(items)
            try:
                return set(items)
            except TypeError:
                raise self.fail("a tagged set holds an unhashable item") from None
        if tag == "dict" and isinstance(v.get("items"), list):
            out = {}
            for pair in v["items"]:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise self.fail("a tagged dict's items must be [key, value] pairs")
                key = self(pair[0])
                if not isinstance(key, (int, str, float, bool, tuple)) and key is not None:
                    raise self.fail(f"a tagged dict has a key of type {type(key).__name__}")
                out[key] = self(pair[1])
            return out
        raise self.fail(f"unknown or malformed tag {str(tag)[:40]!r} in the JSON")


def _read(p: Path) -> dict[str, Any]:
    """The decoded state of the file at ``p`` (no code runs: JSON and numeric arrays)."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise ValueError(f"checkpoint {str(p)!r} cannot be read ({exc})") from None
    if head[:1] == b"\x80":
        raise ValueError(
            f"checkpoint {str(p)!r} is a pickle (format {_OLD_FORMAT}, written by an earlier "
            "gctheory, or not a checkpoint): pickles can run code when read, so they are "
            f"not read; rerun from the start to write a checkpoint of format {FORMAT}"
        )
    if head != b"PK\x03\x04":
        raise ValueError(
            f"checkpoint {str(p)!r} is not a checkpoint of gctheory.cluster.run ({FORMAT}: "
            "a numpy .npz archive)"
        )
    try:
        with open(p, "rb") as fh, np.load(fh, allow_pickle=False) as z:  # fh: no leak
            if _JSON not in z.files:
                raise ValueError(f"checkpoint {str(p)!r}: the archive has no {_JSON!r}")
            if len(z.files) > MAX_ARRAYS + 1:
                raise ValueError(f"checkpoint {str(p)!r}: more than {MAX_ARRAYS} arrays")
            raw = z[_JSON]
            if raw.dtype != np.uint8 or raw.ndim != 1:
                raise ValueError(f"checkpoint {str(p)!r}: {_JSON!r} is not UTF-8 bytes")
            tree = bounded_loads(raw.tobytes(), f"checkpoint {str(p)!r}", MAX_DEPTH)
            if not isinstance(tree, dict) or tree.get("format") != FORMAT:
                got = str(tree.get("format") if isinstance(tree, dict) else None)[:60]
                raise ValueError(
                    f"{str(p)!r} is not a checkpoint of gctheory.cluster.run ({FORMAT}); its "
                    f"format is {got!r}"
                )
            return _Decoder(str(p), z)(tree)
    except ValueError:
        raise
    except (OSError, EOFError, KeyError, zipfile.BadZipFile, RecursionError,
            io.UnsupportedOperation) as exc:  # fmt: skip
        raise ValueError(
            f"checkpoint {str(p)!r} cannot be read: truncated or not a checkpoint "
            f"({type(exc).__name__}: {str(exc)[:200]})"
        ) from None


def load_checkpoint(
    path: Any, config: dict[str, Any] | None = None, *, spec: Any = None
) -> dict[str, Any] | None:
    """The state saved at ``path``, or None when there is no file there.

    No code from the file runs: see the module's docstring for the format. With ``spec``
    (the resuming run's :class:`~gctheory.cluster.spec.RunSpec`), a checkpoint holding a
    spec is refused when the two differ in a field a resumed run may not change (naming
    the fields); a checkpoint written before checkpoints held a spec is compared by its
    ``config``.

    Raises
    ------
    ValueError
        When the file is not a checkpoint of :func:`gctheory.cluster.run` (a
        pickle of an earlier version, a truncated or foreign file), or its
        configuration differs from ``config`` in a key that must match (naming
        the key and both values).
    """
    p = Path(path)
    if not p.is_file():
        return None
    state = _read(p)
    if not isinstance(state.get("config"), dict):
        raise ValueError(f"checkpoint {str(p)!r} has no 'config' object")
    if spec is not None and "spec" in state:
        _check_spec(p, spec, state["spec"])
    elif config is not None:
        old = state["config"]
        for key in _MUST_MATCH:
            if old.get(key) != config.get(key):
                raise ValueError(
                    f"checkpoint {str(p)!r} was written by a run with {key}={old.get(key)!r}, "
                    f"but this run has {key}={config.get(key)!r}; resume with the same "
                    f"configuration (keys that must match: {', '.join(_MUST_MATCH)})"
                )
    return state


def _check_spec(p: Path, spec: Any, saved: Any) -> None:
    """Refuse a checkpoint whose run spec differs from ``spec``, naming the fields."""
    diff = spec.differences(saved)
    if diff:
        mine = spec.to_json()

        def at(tree: Any, name: str) -> Any:
            for part in name.split("."):
                tree = tree.get(part) if isinstance(tree, dict) else None
            return tree

        there = ", ".join(f"{k}={at(saved, k)!r}" for k in diff)
        here = ", ".join(f"{k}={at(mine, k)!r}" for k in diff)
        raise ValueError(
            f"checkpoint {str(p)!r} was written by a run with {there}, but this run has "
            f"{here}; resume with the same run spec (differing: {', '.join(diff)}; only "
            "iterations, engine, eval_every, checkpoint_every and the fault policy may change)"
        )
