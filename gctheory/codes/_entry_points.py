"""The installed entry points of group ``gctheory.codes``, read once (no plug-in imported).

Below both :mod:`gctheory.codes.plugins` (which loads them into code families)
and :mod:`gctheory.codes.io` (which trusts a plug-in's modules when it saves
and loads a plug-in code), so neither imports the other.
"""

from __future__ import annotations

from importlib import metadata

__all__: list[str] = []

#: The entry point group a third-party code family registers under.
GROUP = "gctheory.codes"

_CACHE: dict[str, tuple[metadata.EntryPoint, ...]] = {}


def entry_points() -> tuple[metadata.EntryPoint, ...]:
    """The entry points of :data:`GROUP`, in name order (cached; see :func:`clear_cache`)."""
    if GROUP not in _CACHE:
        found = metadata.entry_points(group=GROUP)
        _CACHE[GROUP] = tuple(sorted(found, key=lambda ep: (ep.name, ep.value)))
    return _CACHE[GROUP]


def plugin_modules() -> frozenset[str]:
    """Top-level packages of the installed plug-ins (their codes may be saved and loaded)."""
    return frozenset(ep.module.split(".")[0] for ep in entry_points())


def clear_cache() -> None:
    """Forget the entry points read (after installing or removing a plug-in in a session)."""
    _CACHE.clear()
