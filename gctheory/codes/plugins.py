"""Code families by name: gctheory's own and third-party ones registered as plug-ins.

A package adds a gradient-code family to gctheory, without editing it, by
declaring an entry point in the group ``gctheory.codes`` (in its
``pyproject.toml``)::

    [project.entry-points."gctheory.codes"]
    tiny-replication = "tinycode:TinyReplicationCode"

The entry point names either

- a :class:`~gctheory.codes.base.GradientCode` subclass, built as
  ``cls(n, s, **options)`` (``n`` workers, ``s`` stragglers tolerated), its
  description the first line of its docstring; or
- a :class:`CodeFamily` (or any object with its attributes ``cls`` and
  optionally ``build``, ``tradeoff``, ``options``, ``description``), for a
  constructor of another signature, a list of accepted options, or a row of
  the tradeoff atlas computed by the family itself.

The family's name is the entry point's name (lower case, letters, digits,
``-`` and ``_``). It then appears in ``gctheory codes list`` and ``gctheory
codes verify``, in the training simulator (``make_scheme(name, n, s=...)``,
``gctheory simulate --scheme NAME``), in the tradeoff atlas (a row at each
``(n, s)`` the family can build) and its codes can be saved and loaded with
:func:`gctheory.codes.load` while the plug-in is installed.

:func:`code_families` returns gctheory's built-in families (the exact codes
buildable from ``(n, s)`` alone, under the names of the training schemes) and
then the plug-ins, read once per session (:func:`clear_plugin_cache` forgets
them). A plug-in that cannot be loaded (a missing module or attribute, not a
gradient code, a bad or taken name) is left out with a warning naming it;
asking for it by name (:func:`code_family`) raises the ``ValueError``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gctheory.codes import _entry_points

__all__ = ["CodeFamily", "clear_plugin_cache", "code_families", "code_family", "plugin_families"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class CodeFamily:
    """A gradient-code family gctheory can build by name.

    Attributes
    ----------
    name : str
        The family's name (for a plug-in: its entry point's name).
    cls : type
        The :class:`~gctheory.codes.base.GradientCode` subclass of its codes.
    build : callable, optional
        ``build(n, s, **options) -> code``; default ``cls(n, s, **options)``.
    tradeoff : callable, optional
        ``tradeoff(n, s) -> dict`` of columns of the tradeoff atlas
        (:data:`gctheory.tradeoff.TRADEOFF_COLUMNS`, e.g. ``load``, ``exact``,
        ``failure``, ``guarantee``, ``kind``) at ``n`` workers and ``s``
        stragglers, raising ``ValueError`` where the family does not exist;
        default: the row is read off the code ``build(n, s)`` makes.
    options : tuple of str, optional
        The ``options`` ``build`` accepts (checked before building); None:
        whatever ``build`` takes.
    description : str
        One line for listings.
    source : str
        ``"gctheory"`` or the plug-in's entry point (``name = module:attr``).

    Examples
    --------
    >>> from gctheory.codes import CodeFamily, CyclicMDSCode, code_families
    >>> fam = next(f for f in code_families().values() if f.cls is CyclicMDSCode)
    >>> fam.cls.__name__, fam.source
    ('CyclicMDSCode', 'gctheory')
    >>> fam.make(n=5, s=2, rng=0)
    CyclicMDSCode(n=5, k=5, load=3, m=1, s=2)
    """

    name: str
    cls: type
    build: Callable[..., Any] | None = None
    tradeoff: Callable[[int, int], Mapping[str, Any]] | None = None
    options: tuple[str, ...] | None = None
    description: str = ""
    source: str = "gctheory"

    @property
    def plugin(self) -> bool:
        """True for a family registered through an entry point."""
        return self.source != "gctheory"

    def make(self, n: int, s: int, **options: Any) -> Any:
        """A code of this family for ``n`` workers tolerating ``s`` stragglers."""
        if self.options is not None:
            bad = sorted(set(options) - set(self.options))
            if bad:
                valid = ", ".join(self.options) or "none"
                raise ValueError(
                    f"option(s) {bad} are not options of code family {self.name!r}; "
                    f"its options: {valid}"
                )
        try:
            code = (self.build or self.cls)(n, s, **options)
        except Exception as exc:
            if not self.plugin:
                raise
            # a plug-in's own failure: say whose it is (its message kept, its type named)
            raise ValueError(
                f"code family {self.name!r} (plug-in {self.source}) could not build a code "
                f"for n={n!r}, s={s!r}: {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(code, self.cls):
            raise ValueError(
                f"code family {self.name!r} ({self.source}) built a {type(code).__name__}, "
                f"not a {self.cls.__name__}"
            )
        return code


# ------------------------------------------------------------------ built-ins


def _builtins() -> dict[str, CodeFamily]:
    from gctheory.codes.reed_solomon import ReedSolomonCode
    from gctheory.codes.tandon import CyclicMDSCode, FractionalRepetitionCode
    from gctheory.codes.ye_abbe import YeAbbeCode

    def rs(n: int, s: int, k: int | None = None) -> Any:
        # w = s + 1 partitions per worker tolerate floor(w n / k) - 1 >= s stragglers
        return ReedSolomonCode(n, n if k is None else k, s + 1)

    def ye_abbe(n: int, s: int, m: int = 1, **options: Any) -> Any:
        return YeAbbeCode(n, s, m, **options)

    fams = [
        CodeFamily("cyclic_mds", CyclicMDSCode, None, None, ("construction", "rng"),
                   "Tandon et al. cyclic-MDS code, load s + 1"),
        CodeFamily("frc", FractionalRepetitionCode, None, None, ("k",),
                   "Tandon et al. fractional repetition code, (s + 1) | n"),
        CodeFamily("ye_abbe", YeAbbeCode, ye_abbe, None, ("m", "V", "nodes", "rng"),
                   "Ye-Abbe communication-efficient code, load s + m"),
        CodeFamily("rs", ReedSolomonCode, rs, None, ("k",),
                   "Halbawi et al. Reed-Solomon code, w = s + 1"),
    ]  # fmt: skip
    return {f.name: f for f in fams}


# ------------------------------------------------------------------ plug-ins

# name -> the family, or the ValueError saying why the entry point was left out
_PLUGINS: dict[str, CodeFamily | ValueError] = {}
_LOADED: list[bool] = []


def _from_entry_point(ep: Any, taken: Mapping[str, Any]) -> CodeFamily:
    from gctheory.codes.base import GradientCode

    where = f"entry point {ep.name!r} ({ep.name} = {ep.value}) of group {ep.group!r}"
    name = ep.name.lower()
    if not _NAME.match(name):
        raise ValueError(f"{where}: the name must be letters, digits, '-' and '_'")
    if name in taken:
        raise ValueError(f"{where}: the name {name!r} is taken by gctheory's own family")
    try:
        obj = ep.load()
    except Exception as exc:  # an import error of any kind is the plug-in's
        raise ValueError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from None
    if isinstance(obj, type):
        if not issubclass(obj, GradientCode):
            raise ValueError(f"{where} names {obj.__name__}, not a GradientCode subclass")
        doc = (obj.__doc__ or "").strip().splitlines()
        return CodeFamily(name, obj, description=doc[0] if doc else "", source=str(ep.value))
    cls = getattr(obj, "cls", None)
    if not (isinstance(cls, type) and issubclass(cls, GradientCode)):
        raise ValueError(
            f"{where} names a {type(obj).__name__}: expected a GradientCode subclass or a "
            "CodeFamily (an object whose .cls is a GradientCode subclass)"
        )
    if getattr(obj, "name", name) not in (name, ep.name):
        raise ValueError(f"{where}: its spec is named {obj.name!r}, the entry point {name!r}")
    options = getattr(obj, "options", None)
    for attr in ("build", "tradeoff"):
        if getattr(obj, attr, None) is not None and not callable(getattr(obj, attr)):
            raise ValueError(f"{where}: its {attr} is not callable")
    return CodeFamily(
        name,
        cls,
        getattr(obj, "build", None),
        getattr(obj, "tradeoff", None),
        None if options is None else tuple(options),
        str(getattr(obj, "description", "") or ""),
        str(ep.value),
    )


def _plugins() -> dict[str, CodeFamily | ValueError]:
    if not _LOADED:
        taken = _builtins()
        for ep in _entry_points.entry_points():
            key = ep.name.lower()
            try:
                if key in _PLUGINS:
                    raise ValueError(
                        f"two entry points of group {ep.group!r} are named {key!r} (one is "
                        f"{ep.value}): neither is used"
                    )
                _PLUGINS[key] = _from_entry_point(ep, taken)
            except ValueError as exc:
                _PLUGINS[key] = exc
                warnings.warn(f"gctheory code plug-in left out: {exc}", stacklevel=3)
        _LOADED.append(True)
    return _PLUGINS


def plugin_families() -> dict[str, CodeFamily]:
    """The families installed plug-ins register (those that load), by name.

    Returns
    -------
    dict of str to CodeFamily
        Installed plug-ins' families (empty when none is installed).

    Examples
    --------
    >>> from gctheory.codes import plugin_families
    >>> isinstance(plugin_families(), dict)
    True
    """
    return {k: v for k, v in _plugins().items() if isinstance(v, CodeFamily)}


def code_families() -> dict[str, CodeFamily]:
    """gctheory's built-in families, then the plug-ins', by name (plug-ins read once).

    Returns
    -------
    dict of str to CodeFamily
        Every family gctheory can build by name.

    Examples
    --------
    >>> from gctheory.codes import code_families
    >>> fams = code_families()
    >>> sorted(f.cls.__name__ for f in fams.values())
    ['CyclicMDSCode', 'FractionalRepetitionCode', 'ReedSolomonCode', 'YeAbbeCode']
    """
    return {**_builtins(), **plugin_families()}


def code_family(name: str) -> CodeFamily:
    """The family called ``name``; ``ValueError`` naming the valid ones (or why a plug-in
    of that name was left out).

    Parameters
    ----------
    name : str
        A family's name (see :func:`code_families`).

    Returns
    -------
    CodeFamily
        The family.

    Raises
    ------
    ValueError
        Unknown name, with the valid ones.

    Examples
    --------
    >>> from gctheory.codes import ReedSolomonCode, code_families, code_family
    >>> name = next(n for n, f in code_families().items() if f.cls is ReedSolomonCode)
    >>> code_family(name).cls is ReedSolomonCode
    True
    """
    families = code_families()
    if not isinstance(name, str):
        raise ValueError(
            f"name must be a code family's name (a str), got {name!r:.60}; valid families: "
            f"{', '.join(families)}"
        )
    key = name.lower()
    if key in families:
        return families[key]
    why = _plugins().get(key)
    if isinstance(why, ValueError):
        raise ValueError(f"name: {why}")
    raise ValueError(f"name: unknown code family {name!r}; valid families: {', '.join(families)}")


def clear_plugin_cache() -> None:
    """Forget the plug-ins read (call after installing or removing one in a session).

    Returns
    -------
    None

    Examples
    --------
    >>> from gctheory.codes import clear_plugin_cache, plugin_families
    >>> clear_plugin_cache()
    >>> isinstance(plugin_families(), dict)  # read again on next use
    True
    """
    _PLUGINS.clear()
    _LOADED.clear()
    _entry_points.clear_cache()
