"""Keep the public module as the home of definitions split into private modules.

A module split by concept into a package of private modules (``codes.partial``,
``codes.expander``, ``ldpc.simulation``, ...) re-exports every public name from the
package; :func:`keep_home` also gives each definition the package as its
``__module__`` (numpy's ``set_module``), so what records a definition by module path is
unchanged by the split: pickles of instances (``pickle`` stores the class as
``module.qualname``), the class paths of ``save_code`` files, reprs of types, and the
checkpoint fingerprints of Monte Carlo chunk functions (which hash ``module.qualname``
of functions, classes and their methods).
"""

from __future__ import annotations

import sys
import types
from typing import Any

__all__: list[str] = []


def keep_home(module: str, *objs: Any) -> None:
    """Set ``__module__`` of every function and class in ``objs``, and of the functions a
    class defines (methods, static and class methods, property accessors, dataclass
    methods), to ``module``; only definitions of ``module``'s own submodules are moved."""
    inside = module + "."
    for obj in objs:
        if obj.__module__.startswith(inside):
            obj.__module__ = module
        if not isinstance(obj, type):
            continue
        for value in vars(obj).values():
            parts = [getattr(value, "__func__", value)]
            if isinstance(value, property):
                parts = [value.fget, value.fset, value.fdel]
            for f in parts:
                if isinstance(f, types.FunctionType) and f.__module__.startswith(inside):
                    f.__module__ = module


def keep_home_of(module: str, *submodules: types.ModuleType) -> None:
    """:func:`keep_home` for every function and class defined in ``submodules`` (private
    modules of the package ``module``), each also made an attribute of the package, so
    that ``module.qualname`` finds it again (a pickle of a chunk function, a fingerprint)."""
    package = sys.modules[module]
    for sub in submodules:
        for name, obj in list(vars(sub).items()):
            if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == sub.__name__:
                keep_home(module, obj)
                if not hasattr(package, name):
                    setattr(package, name, obj)
