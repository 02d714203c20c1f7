"""Checkpoints of Monte Carlo runs: append-only, validated field by field, checksummed.

The file is JSON lines. Line 1 is the header: the run's identity (kind, trial
budget, chunk size, seed, and a fingerprint of every function the chunks call)
with a SHA-256 over it. Each further line is a batch of finished chunks,
``{"chunks": [[index, summary], ...], "sha256": ...}``, whose checksum covers
the header's checksum and the batch, so a line edited, or copied in from
another run, is refused. Batches are appended about every quarter second
(and when the run ends or is interrupted), never rewritten, so the cost of a
checkpoint neither grows with its length nor depends on the number of chunks
much (one checksum per batch).

A process killed at any moment leaves a readable file: at worst its last line
is torn (no final newline); that line is dropped on resume and its chunks are
redone. A full disk (``ENOSPC``, or a quota) is said in one line,
:class:`CheckpointDiskFullError`, after the part of a line that did get
written is cut off again: the file stays consistent and a rerun resumes from
the chunks it holds. One run at a time: the file is locked
(:mod:`gctheory.montecarlo.lockfile`), and a second run on the same path is
refused at once, naming the holder. Anything else that does not validate is
refused with a ``ValueError`` that names the checkpoint, the line, the chunk
and the field.

The fingerprint of a function (:func:`fingerprint`) covers its code: the
bytecode and constants (recursively), default arguments, closure cells, the
arguments bound by ``functools.partial``, a bound method's instance, and the
functions and simple constants of its own package it refers to by name. A
function with the same name but an edited body does not match.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import pickle
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

from gctheory.montecarlo import summaries
from gctheory.montecarlo.lockfile import CheckpointLock, CheckpointLockedError

__all__ = ["Checkpoint", "CheckpointDiskFullError", "CheckpointLockedError", "fingerprint"]

FORMAT = "gctheory-montecarlo-checkpoint"
VERSION = 3  # 3: a mean chunk holds its third and fourth central moments
FLUSH_SECONDS = 0.25

# ---------------------------------------------------------------------------
# fingerprints


_SIMPLE = (int, float, complex, str, bytes, bool, type(None))


def _top(module: str | None) -> str:
    return (module or "").split(".")[0]


class _Hasher:
    def __init__(self, package: str):
        self.h = hashlib.sha256()
        self.package = package
        self.seen: set[int] = set()

    def put(self, tag: str, data: bytes | str = b"") -> None:
        if isinstance(data, str):
            data = data.encode()
        self.h.update(tag.encode() + b":" + str(len(data)).encode() + b":" + data)

    def code(self, co: types.CodeType, globs: dict | None) -> None:
        self.put("code", co.co_code)
        self.put("names", repr(co.co_names))
        self.put("vars", repr((co.co_varnames, co.co_freevars, co.co_cellvars)))
        self.put("argc", repr((co.co_argcount, co.co_kwonlyargcount, co.co_flags)))
        for c in co.co_consts:
            if isinstance(c, types.CodeType):
                self.code(c, globs)
            else:
                self.value(c)
        if globs is not None:
            for name in co.co_names:
                if name in globs:
                    self.global_ref(name, globs[name])

    def global_ref(self, name: str, obj: Any) -> None:
        """A name the code looks up: functions and classes of the same package, constants."""
        if isinstance(obj, (types.FunctionType, type, functools.partial)):
            module = getattr(obj, "__module__", None) or getattr(
                getattr(obj, "func", None), "__module__", None
            )
            if _top(module) == self.package:
                self.put("global", name)
                self.obj(obj)
        elif isinstance(obj, _SIMPLE) or (
            isinstance(obj, tuple) and all(isinstance(v, _SIMPLE) for v in obj)
        ):
            self.put("global", name)
            self.value(obj)

    def value(self, v: Any) -> None:
        if isinstance(v, _SIMPLE):
            self.put("v", repr(v))
        elif isinstance(v, np.ndarray):
            self.put("array", f"{v.dtype.str}{v.shape}")
            self.put("data", np.ascontiguousarray(v).tobytes())
        elif callable(v) or hasattr(v, "sample") or hasattr(v, "move"):
            self.obj(v)
        else:
            try:
                self.put("pickle", pickle.dumps(v, protocol=4))
            except Exception:
                self.put("repr", f"{type(v).__module__}.{type(v).__qualname__}")

    def obj(self, f: Any) -> None:
        if id(f) in self.seen:
            self.put("seen", getattr(f, "__qualname__", type(f).__qualname__))
            return
        self.seen.add(id(f))
        if isinstance(f, functools.partial):
            self.put("partial")
            self.obj(f.func)
            for a in f.args:
                self.value(a)
            for k in sorted(f.keywords):
                self.put("kw", k)
                self.value(f.keywords[k])
        elif isinstance(f, types.MethodType):
            self.put("method")
            self.obj(f.__func__)
            self.value(f.__self__)
        elif isinstance(f, types.FunctionType):
            self.put("function", f"{f.__module__}.{f.__qualname__}")
            self.code(f.__code__, f.__globals__)
            for d in f.__defaults__ or ():
                self.value(d)
            for k, d in sorted((f.__kwdefaults__ or {}).items()):
                self.put("kwdefault", k)
                self.value(d)
            for cell in f.__closure__ or ():
                try:
                    content = cell.cell_contents
                except ValueError:  # an empty cell
                    self.put("cell", "empty")
                else:
                    self.value(content)
        elif isinstance(f, type):
            self.put("class", f"{f.__module__}.{f.__qualname__}")
            for k, v in sorted(vars(f).items()):
                if isinstance(v, (types.FunctionType, staticmethod, classmethod)):
                    self.put("attr", k)
                    self.obj(getattr(v, "__func__", v))
        elif isinstance(f, (types.BuiltinFunctionType, np.ufunc)):
            self.put("builtin", f"{getattr(f, '__module__', '')}.{f.__name__}")
        else:  # an instance (with __call__, or a proposal, a space): its class and its state
            self.obj(type(f))
            state = getattr(f, "__dict__", None)
            if state is not None:
                for k in sorted(state):
                    self.put("state", k)
                    self.value(state[k])
            else:
                self.value(f)


def fingerprint(func: Any) -> str:
    """SHA-256 over what a function computes with: code, constants, defaults, closure,
    partial arguments, and the same-package functions it calls by name."""
    root = func
    while isinstance(root, functools.partial):
        root = root.func
    root = getattr(root, "__func__", root)
    module = getattr(root, "__module__", None) or type(root).__module__
    h = _Hasher(_top(module))
    h.obj(func)
    return h.h.hexdigest()


# ---------------------------------------------------------------------------
# the checkpoint file

#: Write errors that mean "no room": the disk (or the user's quota) is full.
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


class CheckpointDiskFullError(OSError):
    """The disk filled up under a checkpoint; the file was left consistent (resumable)."""

    def __init__(self, message: str, code: int = errno.ENOSPC):
        super().__init__(message)
        self.errno = code


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` at the end of ``fd`` (all of it, or raise)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


#: Deepest nesting of brackets a checkpoint line may have (its own lines nest 4 deep);
#: deeper lines are refused before json.loads, which would raise RecursionError.
MAX_DEPTH = 16


def _max_depth(line: str) -> int:
    """Deepest bracket nesting of a JSON line (brackets inside strings count too: an upper
    bound, and checkpoint strings hold none)."""
    opens = np.frombuffer(line.encode("utf-8", "replace"), dtype=np.uint8)
    step = (opens == ord("[")).astype(np.int64) + (opens == ord("{"))
    step -= (opens == ord("]")).astype(np.int64) + (opens == ord("}"))
    return int(np.max(np.cumsum(step), initial=0))


def check_path(path: Any) -> Path:
    """Refuse, before any work, a checkpoint path that cannot be written."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"checkpoint must be a file path, got {type(path).__name__}")
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"checkpoint {str(p)!r} is a directory, not a file path")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(
            f"checkpoint {str(p)!r}: its folder {str(parent)!r} does not exist; create it first"
        )
    if not os.access(parent, os.W_OK):
        raise ValueError(f"checkpoint {str(p)!r}: its folder {str(parent)!r} is not writable")
    if p.exists() and not p.resolve().is_file():
        raise ValueError(
            f"checkpoint {str(p)!r} is not a regular file (a device, a pipe or a link to one): "
            "a checkpoint must be a regular file"
        )
    if p.exists() and not os.access(p, os.R_OK | os.W_OK):
        raise ValueError(f"checkpoint {str(p)!r} exists but is not readable and writable")
    return p


class Checkpoint:
    """Finished chunk summaries of one run, loaded (validated) and appended to a file.

    ``sizes(i)`` gives the size of chunk ``i``; ``n_chunks`` bounds the index.
    """

    def __init__(self, path: Path, header: dict[str, Any], kind: str, n_chunks: int, sizes):
        self.path = path
        self.header = header
        self.kind = kind
        self.n_chunks = n_chunks
        self.sizes = sizes
        self.head_sha = _sha(_canon(header))
        self.done: dict[int, Any] = {}
        self._buffer: list[tuple[int, Any]] = []
        self._last_flush = time.monotonic()
        self._fd: int | None = None
        self._size = 0  # bytes of complete lines in the file
        head = {"format": FORMAT, "version": VERSION, "header": header}
        self._head_line = _canon({"head": head, "sha256": self.head_sha}) + "\n"
        self._lock = CheckpointLock(path)  # refuses at once a path another run holds
        try:
            if path.exists() and not self._fresh(path):
                self._load()
                self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
                self._size = os.fstat(self._fd).st_size
            else:
                self._fd = os.open(
                    path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644
                )
                self._write(self._fd, self._head_line.encode())
        except BaseException:
            self._close_fd()
            self._lock.release()
            raise

    def _fresh(self, path: Path) -> bool:
        """Empty, or a header line of this very run cut off by a kill: start afresh."""
        raw = path.read_bytes()
        return b"\n" not in raw and self._head_line.encode().startswith(raw)

    def _fail(self, line_no: int | None, message: str) -> ValueError:
        where = f", line {line_no}" if line_no is not None else ""
        return ValueError(f"checkpoint {str(self.path)!r}{where}: {message}")

    def _load(self) -> None:
        raw = self.path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self._fail(
                None, f"not a checkpoint (binary content: byte {exc.start} is not UTF-8 text)"
            ) from None
        lines = text.split("\n")
        complete = lines[:-1]  # the part after the last newline is a torn write (or empty)
        torn = lines[-1]
        if not complete:
            raise self._fail(1, "not a checkpoint (no complete header line)")
        self._check_header(complete[0])
        for k, line in enumerate(complete[1:], start=2):
            self._check_chunk(k, line)
        if torn:
            # a write cut off by a kill: drop it (its chunk is redone) and rewrite the tail
            with open(self.path, "r+b") as fh:
                fh.truncate(len(raw) - len(torn.encode("utf-8")))

    def _json(self, line_no: int, line: str) -> Any:
        depth = _max_depth(line)
        if depth > MAX_DEPTH:
            raise self._fail(
                line_no, f"nested {depth} levels deep; a checkpoint line nests at most {MAX_DEPTH}"
            )
        try:
            return json.loads(line)
        except json.JSONDecodeError as exc:
            raise self._fail(line_no, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise self._fail(line_no, "nested too deeply to be a checkpoint line") from None

    def _check_header(self, line: str) -> None:
        obj = self._json(1, line)
        if not isinstance(obj, dict) or set(obj) != {"head", "sha256"}:
            raise self._fail(
                1,
                "not a checkpoint header (a JSON object with the fields 'head' and 'sha256'; "
                "checkpoints of format 1 were one JSON object: delete it and rerun)",
            )
        head = obj["head"]
        if not isinstance(head, dict) or set(head) != {"format", "version", "header"}:
            raise self._fail(1, "field 'head' must hold exactly 'format', 'version', 'header'")
        if head["format"] != FORMAT:
            raise self._fail(1, f"field 'format' must be {FORMAT!r}, got {head['format']!r}")
        if head["version"] != VERSION:
            raise self._fail(
                1, f"field 'version' is {head['version']!r}; this engine reads version {VERSION}"
            )
        stored = head["header"]
        if not isinstance(stored, dict):
            raise self._fail(1, "field 'header' must be a JSON object")
        if obj["sha256"] != _sha(_canon(stored)):
            raise self._fail(
                1, "field 'sha256' does not match the header: the header was edited or corrupted"
            )
        if stored != self.header:
            diff = sorted(
                k for k in set(self.header) | set(stored) if stored.get(k) != self.header.get(k)
            )
            raise ValueError(
                f"checkpoint {str(self.path)!r} was written by a run with different "
                f"parameters ({', '.join(diff)} differ); refusing to mix results. "
                "Delete it or use another path."
            )

    def _check_chunk(self, line_no: int, line: str) -> None:
        obj = self._json(line_no, line)
        if not isinstance(obj, dict) or set(obj) != {"chunks", "sha256"}:
            raise self._fail(
                line_no, "not a batch of chunks (a JSON object with the fields 'chunks', 'sha256')"
            )
        batch = obj["chunks"]
        if not isinstance(batch, list) or not batch:
            raise self._fail(line_no, "field 'chunks' must be a non-empty list of [index, summary]")
        for entry in batch:
            if not (isinstance(entry, list) and len(entry) == 2):
                raise self._fail(
                    line_no, f"field 'chunks': {entry!r} is not a pair [index, summary]"
                )
            i, r = entry
            if isinstance(i, bool) or not isinstance(i, int):
                raise self._fail(
                    line_no, f"field 'i' (a chunk index) must be an integer, got {i!r}"
                )
            if not 0 <= i < self.n_chunks:
                raise self._fail(
                    line_no,
                    f"field 'i' (a chunk index) must lie in [0, {self.n_chunks - 1}], got {i}",
                )
            if i in self.done:
                raise self._fail(line_no, f"field 'i': chunk {i} appears twice")
            try:
                self.done[i] = summaries.decode(self.kind, r, self.sizes(i))
            except summaries.FieldError as exc:
                raise self._fail(line_no, f"chunk {i}: {exc}") from None
        if obj["sha256"] != self._batch_sha(_canon(batch)):
            raise self._fail(
                line_no,
                "field 'sha256' does not match the content: the line was edited, corrupted or "
                "copied from another run",
            )

    def _batch_sha(self, text: str) -> str:
        """Checksum of a batch line: over the header's checksum and the batch."""
        return _sha(self.head_sha + text)[:32]

    def add(self, i: int, value: Any) -> None:
        self.done[i] = value
        self._buffer.append((i, value))
        now = time.monotonic()
        if now - self._last_flush >= FLUSH_SECONDS:
            self.flush()

    def _write(self, fd: int, data: bytes) -> None:
        """Append complete lines to ``fd``; on a full disk cut off what got written and say so."""
        try:
            _write_all(fd, data)
        except OSError as exc:
            if exc.errno not in _FULL:
                raise
            try:
                os.ftruncate(fd, self._size)  # no room needed to shrink a file
            except OSError:
                pass  # a torn last line: dropped on resume all the same
            self._close_fd()
            saved = set(self.done) - {i for i, _ in self._buffer}
            upto = next(k for k in range(len(saved) + 1) if k not in saved)
            held = (
                "holds no chunk yet"
                if not saved
                else f"holds {len(saved)} finished chunk(s), complete up to chunk {upto - 1}"
                if upto
                else f"holds {len(saved)} finished chunk(s)"
            )
            raise CheckpointDiskFullError(
                f"checkpoint {str(self.path)!r}: the disk is full ({os.strerror(exc.errno)}); "
                f"the checkpoint is consistent and {held}: free some space and rerun the same "
                "call to resume",
                exc.errno,
            ) from None
        self._size += len(data)

    def flush(self) -> None:
        if self._buffer and self._fd is not None:
            text = _canon([[i, summaries.encode(self.kind, v)] for i, v in self._buffer])
            line = f'{{"chunks":{text},"sha256":"{self._batch_sha(text)}"}}\n'
            self._write(self._fd, line.encode())
            self._buffer.clear()
        self._last_flush = time.monotonic()

    def _close_fd(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def close(self) -> None:
        try:
            if self._fd is not None:
                self.flush()
        finally:
            self._close_fd()
            self._lock.release()
