"""gctheory.codes re-exports every public module's ``__all__`` explicitly, and nothing else.

The package's ``__init__`` lists its imports by hand (so readers and mypy can
follow a name to its definition); this test keeps the list complete, so adding
a family stays a two-line change there.
"""

import importlib
import pkgutil

import gctheory.codes as codes


def _public_modules():
    for info in pkgutil.iter_modules(codes.__path__):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{codes.__name__}.{info.name}")


def test_every_public_name_of_every_family_is_re_exported():
    missing = []
    for mod in _public_modules():
        assert hasattr(mod, "__all__"), f"{mod.__name__} has no __all__"
        for name in mod.__all__:
            if name not in codes.__all__ or getattr(codes, name, None) is not getattr(mod, name):
                missing.append(f"{mod.__name__}.{name}")
    assert not missing, f"add to gctheory/codes/__init__.py (import and __all__): {missing}"


def test_the_package_exports_only_names_its_modules_define():
    defined = {name for mod in _public_modules() for name in mod.__all__}
    assert len(codes.__all__) == len(set(codes.__all__)), "duplicate names in __all__"
    extra = sorted(set(codes.__all__) - defined)
    assert not extra, f"gctheory.codes.__all__ names no module's __all__ holds: {extra}"
    for name in codes.__all__:
        assert hasattr(codes, name), name
