"""Save and load gradient codes: one ``.npz`` of arrays with JSON metadata, checked on load.

``save_code(code, path)`` (also ``code.save(path)``) writes one NumPy ``.npz``
archive holding

- every array of the code's state (its encoding data, placement, the private
  arrays its decoder reads), under ``state/<attribute>``;
- ``metadata``: a JSON text with ``format`` (``"gctheory-code"``),
  ``version`` (:data:`VERSION`), the code's ``class`` (module and name),
  the constructor ``parameters`` the code still holds as attributes (for a
  reader; loading does not rerun the constructor, which may be random), the
  rest of its ``state`` (numbers, strings, lists, the block design of a BIBD
  code) and the ``fingerprint``: the SHA-256 of the metadata without it and of
  every array's name, dtype, shape and bytes.

``load_code(path)`` (also ``gctheory.codes.load``) checks the format, refuses
a newer version and a fingerprint that does not match (an edited or corrupted
file), imports the class only from ``gctheory`` itself or an installed code
plug-in (:mod:`gctheory.codes.plugins`), and restores the state
without running the constructor, so the loaded code is bit-for-bit the saved
one (decoding results identical). No pickle is read or written.

``export_B(code, path)`` writes the ``n x k`` encoding matrix ``B`` of Tandon
et al.'s scripts (``rashisht1/gradient_coding``: worker ``i`` sends
``sum_j B[i, j] g_j``, the master solves ``B[T, :]^T a = 1``) as a plain
``.npy`` that ``numpy.load`` reads.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import io
import json
import math
import os
import types
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from gctheory._safe_json import bounded_loads
from gctheory._validate import check_flag, check_path
from gctheory.codes._entry_points import plugin_modules

if TYPE_CHECKING:  # base imports this module: the class only for the annotation
    from gctheory.codes.base import GradientCode

__all__ = ["CodeIO", "export_B", "load", "load_code", "save_code"]

CODE_FORMAT = "gctheory-code"
#: Version of the file layout this module writes; files of a newer version are refused.
VERSION = 1

# decoding caches and derived copies (rebuilt on demand), never saved; a new cache that
# this list misses is saved if it can be (or refused, naming it), never silently wrong
_CACHES = frozenset(
    {
        "_decode_cache",
        "_nullspace_cache",
        "_nullspace_extra_cache",
        "_nullspace_norm",
        "_direct_solves",
        "_target",
        "_gesv",
        "_Af",
        "_noise_exceedances",  # the precision warning's tally (codes._precision.TALLY)
    }
)
_TRUSTED = ("gctheory.",)


def _encode(value: Any, name: str, arrays: dict[str, np.ndarray]) -> Any:
    """A JSON tree for ``value``; arrays go to ``arrays`` under a unique name."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        return {"scalar": value.dtype.str, "bytes": value.tobytes().hex()}
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, complex):
        return {"complex": [value.real.hex(), value.imag.hex()]}
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise ValueError(f"cannot save attribute {name!r}: an array of Python objects")
        key = f"state/{name}"
        arrays[key] = value
        return {"array": key}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{name}.{i}", arrays) for i, v in enumerate(value)]
        return {"list" if isinstance(value, list) else "tuple": items}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError(f"cannot save attribute {name!r}: a dict with non-string keys")
        return {"dict": {k: _encode(v, f"{name}.{k}", arrays) for k, v in value.items()}}
    if isinstance(value, types.ModuleType):
        return {"module": _trusted(value.__name__, name)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        fields = {
            f.name: _encode(getattr(value, f.name), f"{name}.{f.name}", arrays)
            for f in dataclasses.fields(value)
        }
        return {"dataclass": _class_name(cls, name), "fields": fields}
    raise ValueError(f"cannot save attribute {name!r} of type {type(value).__name__}")


def _class_name(cls: type, name: str) -> str:
    return f"{_trusted(cls.__module__, name)}:{cls.__qualname__}"


def _trusted(module: str, name: str) -> str:
    # gctheory's modules, and those of an installed plug-in (gctheory.codes.plugins)
    if not module.startswith(_TRUSTED) and module.split(".")[0] not in plugin_modules():
        raise ValueError(
            f"cannot save or load {name!r}: {module} is not a module of gctheory or of an "
            "installed code plug-in (entry point group gctheory.codes)"
        )
    return module


def _resolve(spec: str, where: str) -> Any:
    module, _, qualname = spec.partition(":")
    _trusted(module, where)
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise ValueError(
            f"{where}: class {spec} does not exist in this gctheory or its plug-ins"
        ) from None
    return obj


def _decode(tree: Any, arrays: dict[str, np.ndarray], where: str) -> Any:
    if tree is None or isinstance(tree, (bool, str, int)):
        return tree
    if not isinstance(tree, dict) or len(tree) not in (1, 2):
        raise ValueError(f"{where}: malformed state entry {str(tree)[:60]!r}")
    if "scalar" in tree:
        return np.frombuffer(bytes.fromhex(tree["bytes"]), dtype=np.dtype(tree["scalar"]))[0]
    if "float" in tree:
        return float.fromhex(tree["float"])
    if "complex" in tree:
        re_, im = tree["complex"]
        return complex(float.fromhex(re_), float.fromhex(im))
    if "array" in tree:
        if tree["array"] not in arrays:
            raise ValueError(f"{where}: array {tree['array']!r} is missing")
        return arrays[tree["array"]]
    if "list" in tree:
        return [_decode(v, arrays, where) for v in tree["list"]]
    if "tuple" in tree:
        return tuple(_decode(v, arrays, where) for v in tree["tuple"])
    if "dict" in tree:
        return {k: _decode(v, arrays, where) for k, v in tree["dict"].items()}
    if "module" in tree:
        return importlib.import_module(_trusted(tree["module"], where))
    if "dataclass" in tree:
        cls = _resolve(tree["dataclass"], where)
        obj = object.__new__(cls)
        for k, v in tree["fields"].items():
            object.__setattr__(obj, k, _decode(v, arrays, where))
        return obj
    raise ValueError(f"{where}: malformed state entry {str(tree)[:60]!r}")


def _fingerprint(meta: dict, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    body = {k: v for k, v in meta.items() if k != "fingerprint"}
    h.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(f"\x00{key}\x00{a.dtype.str}\x00{a.shape}\x00".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _parameters(code: Any) -> dict[str, Any]:
    """Constructor parameters the code holds under their own names (JSON-ready ones)."""
    import inspect

    out: dict[str, Any] = {}
    try:
        sig = inspect.signature(type(code).__init__)
    except (TypeError, ValueError):
        return out
    for name in sig.parameters:
        v = code.__dict__.get(name)
        if isinstance(v, (bool, str)) or (isinstance(v, (int, float)) and math.isfinite(v)):
            out[name] = v
        elif isinstance(v, np.ndarray):
            out[name] = f"<array {v.shape} {v.dtype}>"
    return out


def save_code(code: Any, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write ``code`` to ``path`` (an ``.npz`` archive, exactly that name); return the path.

    Refused (``ValueError``) when ``path`` exists unless ``overwrite=True``, when
    its folder does not exist, and when the code holds state this format cannot
    store (naming the attribute).

    Parameters
    ----------
    code : GradientCode
        The code to save.
    path : str or os.PathLike
        The ``.npz`` file to write.
    overwrite : bool
        Replace an existing file.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        The file exists (without ``overwrite``), its folder does not, or the code holds
        state the format cannot store.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.codes import CyclicMDSCode, load_code, save_code
    >>> code = CyclicMDSCode(5, 2, rng=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = save_code(code, pathlib.Path(tmp) / "code.npz")
    ...     again = load_code(path)
    >>> again, bool((again.encoding_matrix == code.encoding_matrix).all())
    (CyclicMDSCode(n=5, k=5, load=3, m=1, s=2), True)
    """
    if not isinstance(code, CodeIO):  # every GradientCode
        raise ValueError(f"code: expected a GradientCode, got {type(code).__name__}")
    p = Path(check_path(path, "path", exists=False, folder=True))
    overwrite = check_flag(overwrite, "overwrite")
    if p.exists() and not overwrite:
        raise ValueError(f"path: {p} exists; pass overwrite=True to replace it")
    arrays: dict[str, np.ndarray] = {}
    state = {k: _encode(v, k, arrays) for k, v in sorted(code.__dict__.items()) if k not in _CACHES}
    meta: dict[str, Any] = {
        "format": CODE_FORMAT,
        "version": VERSION,
        "class": _class_name(type(code), type(code).__name__),
        "parameters": _parameters(code),
        "state": state,
    }
    meta["fingerprint"] = _fingerprint(meta, arrays)
    buf = io.BytesIO()
    text = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(buf, allow_pickle=False, metadata=text, **arrays)  # no pickle written
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(buf.getvalue())
    os.replace(tmp, p)
    return p


def load_code(path: str | os.PathLike) -> GradientCode:
    """The code saved at ``path`` by :func:`save_code`, bit-for-bit.

    Refused with a ``ValueError`` naming the file: not an archive of this
    format, a newer version, a fingerprint that does not match the contents,
    a class outside gctheory or absent from this version.

    Parameters
    ----------
    path : str or os.PathLike
        An archive written by :func:`save_code`.

    Returns
    -------
    GradientCode
        The code, bit-for-bit as saved.

    Raises
    ------
    ValueError
        Not an archive of this format, a newer version, a fingerprint mismatch, or a
        class outside gctheory.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.codes import ReedSolomonCode, load_code, save_code
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     code = load_code(save_code(ReedSolomonCode(6, 6, 3), pathlib.Path(tmp) / "rs.npz"))
    >>> code
    ReedSolomonCode(n=6, k=6, load=3, m=1, s=2)
    """
    # every refusal names the parameter (a file's faults are faults of the argument ``path``)
    p = Path(check_path(path, "path", exists=False))
    where = f"path: {p}"
    if not p.is_file():
        raise ValueError(f"{where}: no such file")
    try:
        with open(p, "rb") as fh, np.load(fh, allow_pickle=False) as z:  # fh: no leak
            files = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{where}: not a saved gctheory code ({exc})") from None
    if "metadata" not in files:
        raise ValueError(f"{where}: not a saved gctheory code (no metadata)")
    meta = bounded_loads(str(files.pop("metadata")), f"{where}: metadata")
    if not isinstance(meta, dict) or meta.get("format") != CODE_FORMAT:
        raise ValueError(f"{where}: not a saved gctheory code (format {meta.get('format')!r})")
    version = meta.get("version")
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"{where}: bad format version {version!r}")
    if version > VERSION:
        raise ValueError(
            f"{where}: format version {version} is newer than this gctheory reads ({VERSION}); "
            "upgrade gctheory"
        )
    if meta.get("fingerprint") != _fingerprint(meta, files):
        raise ValueError(
            f"{where}: fingerprint mismatch: the file was edited or corrupted after saving"
        )
    cls = _resolve(str(meta.get("class")), where)
    if not (isinstance(cls, type) and issubclass(cls, CodeIO)):  # every GradientCode
        raise ValueError(f"{where}: {meta.get('class')} is not a gradient code class")
    code = object.__new__(cls)
    for k, v in meta["state"].items():
        code.__dict__[k] = _decode(v, files, where)
    return cast("GradientCode", code)  # CodeIO is GradientCode's base, GradientCode its one user


#: ``gctheory.codes.load(path)``
load = load_code


def export_B(code: Any, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write the ``n x k`` matrix ``B`` of Tandon et al.'s scripts as a plain ``.npy``.

    Row ``i`` is worker ``i``'s combination of the partial gradients
    (``B = encoding_matrix.T``): the orientation of ``getB`` in
    ``rashisht1/gradient_coding``, whose master decodes from the finished
    workers ``T`` with ``lstsq(B[T, :].T, ones(n))``. Their scripts assume
    ``k = n`` partitions and the cyclic placement (worker ``i`` holds
    ``i, ..., i + s mod n``, as :class:`CyclicMDSCode` here). Only codes
    without communication saving (``m = 1``) have such a B; others are refused.

    Parameters
    ----------
    code : GradientCode
        A code with ``k = n`` and ``m = 1``.
    path : str or os.PathLike
        The ``.npy`` file to write.
    overwrite : bool
        Replace an existing file.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> from gctheory.codes import export_B, load
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> from gctheory.codes import CyclicMDSCode
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     B = np.load(export_B(CyclicMDSCode(5, 2, rng=0), pathlib.Path(tmp) / "B.npy"))
    >>> B.shape
    (5, 5)
    """
    if not isinstance(code, CodeIO):  # every GradientCode (base imports this module)
        raise ValueError(f"code: expected a GradientCode, got {type(code).__name__}")
    p = Path(check_path(path, "path", exists=False, folder=True))
    overwrite = check_flag(overwrite, "overwrite")
    if code.m != 1:
        raise ValueError(
            f"code: {type(code).__name__} has m = {code.m}: Tandon et al.'s B sends one "
            "combination per worker (m = 1)"
        )
    if p.suffix != ".npy":
        raise ValueError(f"path: {p} must end in .npy (numpy.save would add it)")
    if p.exists() and not overwrite:
        raise ValueError(f"path: {p} exists; pass overwrite=True to replace it")
    B = np.ascontiguousarray(np.asarray(code.encoding_matrix).T)
    np.save(p, B, allow_pickle=False)
    return p


class CodeIO:
    """Mixin giving every :class:`GradientCode` ``save`` and ``save_tandon_B``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.codes import CodeIO, FractionalRepetitionCode, load_code
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = FractionalRepetitionCode(6, 2).save(pathlib.Path(tmp) / "frc.npz")
    ...     print(load_code(path))
    FractionalRepetitionCode(n=6, k=6, load=3, m=1, s=2)
    """

    if TYPE_CHECKING:  # what the exporters read of a code (every GradientCode has them)
        m: int

        @property
        def encoding_matrix(self) -> np.ndarray: ...

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Save this code (see :func:`gctheory.codes.io.save_code`); load with ``codes.load``."""
        return save_code(self, path, overwrite=overwrite)

    def save_tandon_B(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Tandon et al.'s ``n x k`` B as a ``.npy`` (see :func:`gctheory.codes.io.export_B`)."""
        return export_B(self, path, overwrite=overwrite)
