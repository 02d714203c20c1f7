"""Gradient-code constructions behind one interface.

Each module of this package holds one family (see ``base`` for the common
interface); this package re-exports every name in each module's ``__all__``,
so adding a family never edits this file.
"""

import importlib as _importlib
import pkgutil as _pkgutil

__all__: list[str] = []
for _mod in _pkgutil.iter_modules(__path__):
    if _mod.name.startswith("_"):
        continue
    _m = _importlib.import_module(f"{__name__}.{_mod.name}")
    for _name in getattr(_m, "__all__", []):
        globals()[_name] = getattr(_m, _name)
        __all__.append(_name)
del _importlib, _pkgutil
