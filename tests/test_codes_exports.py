"""gctheory.codes re-exports every public module's ``__all__`` explicitly, and nothing else.

The package's ``__init__`` lists its imports by hand (so readers and mypy can
follow a name to its definition); this test keeps the list complete, so adding
a family stays a two-line change there.
"""

import importlib
import inspect
import pkgutil
from pathlib import Path

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


# --- the modules split into packages keep their definitions' home -------------------------


def _split_packages():
    return [m for m in _public_modules() if hasattr(m, "__path__")]


def test_split_packages_keep_the_public_module_as_every_definitions_module():
    # partial.py, sequential.py (later base.py, designs.py, ...) grew past 600 lines and
    # became packages of private modules; a pickle, a save_code file and a checkpoint
    # fingerprint record a definition by module.qualname, so the definitions keep the old
    # module as theirs
    names = {m.__name__ for m in _split_packages()}
    assert {"gctheory.codes.partial", "gctheory.codes.sequential", "gctheory.codes.base"} <= names
    for mod in _split_packages():
        for name, obj in vars(mod).items():
            home = getattr(obj, "__module__", None)
            if isinstance(home, str) and home.startswith(mod.__name__ + "."):
                raise AssertionError(f"{mod.__name__}.{name} lives in {home}")
        here = Path(mod.__file__).parent
        for name in mod.__all__:
            obj = getattr(mod, name)
            # a name the package re-exports from outside it (codes.base re-exports
            # DecodingPrecisionWarning from codes._precision) keeps its own home
            if callable(obj) and Path(inspect.getfile(obj)).parent == here:
                assert obj.__module__ == mod.__name__, name


def test_pickles_of_split_codes_name_the_public_module():
    import pickle

    from gctheory.codes.partial import PartialCyclicScheme, PartialPlacement
    from gctheory.codes.sequential import MSGC, SRSGC

    for obj in [PartialPlacement.cyclic(6, 2), PartialCyclicScheme(6, 2, 4), SRSGC(4, 2, 3, 1),
                MSGC(4, 2, 3, 1), SRSGC(4, 2, 3, 1).master(3)]:  # fmt: skip
        data = pickle.dumps(obj, protocol=4)
        home = type(obj).__module__.encode()
        assert home in data and b"._" not in data.split(home)[1][:3]
        back = pickle.loads(data)
        assert type(back) is type(obj) and sorted(vars(back)) == sorted(vars(obj))


def test_keep_home_moves_only_the_packages_own_definitions():
    import numpy as np

    from gctheory._home import keep_home

    keep_home("gctheory.codes.partial", np.sum)  # foreign: left alone (negative control)
    assert np.sum.__module__ == "numpy"
