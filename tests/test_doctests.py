"""The ``>>>`` examples of every public docstring run, one test per public module.

The public names are those of the ``__all__`` of ``gctheory`` and of each of its public
submodules (``gctheory.codes``, ``gctheory.cluster``, ...; a name re-exported by several
is run once, under the first). For each, :class:`doctest.DocTestFinder` collects the
examples of its docstring and, for a class, of its methods and properties defined with
it; the public module's own docstring is collected too. An example sees the namespace of
the module that defines the name, the public module's names, and ``np`` (numpy), as in
numpy's and scipy's docstrings.

Option flags: ``ELLIPSIS``, ``NORMALIZE_WHITESPACE`` and ``NUMBER`` (as pytest's: a
float in the expected output matches the actual one to the precision written, so
``0.1477`` matches ``0.14775...``). Matplotlib draws with Agg and every figure is closed.

The second part counts the share of public names whose docstring has an ``Examples``
section and the share of public functions and classes with a ``Parameters`` section,
and prints both; the thresholds below are what it asserts.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import pkgutil
import re
import sys
from types import ModuleType
from typing import Any

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

import gctheory  # noqa: E402

#: the share of public functions and classes whose docstring has an ``Examples`` section
#: with at least one example that runs (not every line skipped)
EXAMPLES_MIN_SHARE = 0.95
#: the share of public functions (classes document their fields) taking arguments whose
#: docstring must have a ``Parameters`` section
PARAMETERS_MIN_SHARE = 1.0

NUMBER = doctest.register_optionflag("NUMBER")  # the same flag as pytest's, if it is loaded
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | NUMBER

_FLOAT = re.compile(r"(?<![\w.])[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?![\w.])")


class NumberChecker(doctest.OutputChecker):
    """``OutputChecker`` with ``NUMBER``, as pytest's: each number of the expected output
    written with a decimal point or an exponent matches any number less than one unit of
    its last written digit away (``0.1477`` matches ``0.14775310``, not ``0.1480``)."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        if not optionflags & NUMBER:
            return False
        wanted, found = list(_FLOAT.finditer(want)), list(_FLOAT.finditer(got))
        if len(wanted) != len(found):
            return False
        pieces, last = [], 0
        for w, g in zip(wanted, found):
            text = w.group()
            if "." in text or "e" in text.lower():
                mantissa, _, exponent = text.lower().partition("e")
                decimals = len(mantissa.partition(".")[2])
                tol = 10.0 ** (int(exponent or 0) - decimals)
                if abs(float(g.group()) - float(text)) >= tol:
                    return False
            elif text != g.group():
                return False
            pieces += [got[last : g.start()], text]
            last = g.end()
        pieces.append(got[last:])
        return super().check_output(want, "".join(pieces), optionflags)


def public_modules() -> list[str]:
    """``gctheory`` and its public submodules with an ``__all__``, sorted."""
    names = ["gctheory"]
    for info in pkgutil.iter_modules(gctheory.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"gctheory.{info.name}")
        if getattr(mod, "__all__", None):
            names.append(mod.__name__)
    return names


MODULES = public_modules()


def _owners() -> dict[int, tuple[str, str, Any]]:
    """Each public object once: id -> (public module, name, object). The submodules
    come first, so a name re-exported at the top level runs under its own module."""
    owners: dict[int, tuple[str, str, Any]] = {}
    for modname in [*MODULES[1:], MODULES[0]]:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj):
                continue
            owners.setdefault(id(obj), (modname, name, obj))
    return owners


OWNERS = _owners()


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        return "class"
    if inspect.isroutine(obj):
        return "function"
    return "data"


def _globs(public: ModuleType, obj: Any) -> dict[str, Any]:
    import numpy as np

    home = sys.modules.get(getattr(obj, "__module__", "") or "", public)
    return {**vars(home), **vars(public), "np": np}


def doctests_of(modname: str) -> list[doctest.DocTest]:
    public = importlib.import_module(modname)
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    tests = finder.find(public, modname, globs={**vars(public)}) if public.__doc__ else []
    tests = [t for t in tests if t.name == modname]  # its own docstring: names come next
    for owner, name, obj in OWNERS.values():
        if owner != modname or _kind(obj) == "data":
            continue
        home = sys.modules.get(getattr(obj, "__module__", "") or "")
        found = finder.find(obj, f"{modname}.{name}", module=home, globs=_globs(public, obj))
        tests += found
    return sorted((t for t in tests if t.examples), key=lambda t: t.name)


@pytest.mark.parametrize("modname", MODULES)
def test_docstring_examples_run(modname, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    tests = doctests_of(modname)
    runner = doctest.DocTestRunner(checker=NumberChecker(), optionflags=FLAGS)
    report: list[str] = []
    try:
        for test in tests:
            runner.run(test, out=report.append)
    finally:
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close("all")
    result = runner.summarize(verbose=False)
    print(f"{modname}: {result.attempted} examples in {len(tests)} docstrings")
    assert result.failed == 0, "".join(report)


def test_number_flag():
    checker = NumberChecker()
    assert checker.check_output("0.1477\n", "0.14775310\n", FLAGS)
    assert checker.check_output("1.5e-08\n", "1.4987e-08\n", FLAGS)
    assert checker.check_output("(3, 0.25)\n", "(3, 0.2500001)\n", FLAGS)
    # negative controls: a number off at the written precision, an integer that differs,
    # and the flag left out
    assert not checker.check_output("0.1477\n", "0.1480\n", FLAGS)
    assert not checker.check_output("0.3\n", "0.4\n", FLAGS)  # one unit off
    assert not checker.check_output("(3, 0.25)\n", "(4, 0.25)\n", FLAGS)
    assert not checker.check_output("0.1477\n", "0.14775310\n", doctest.ELLIPSIS)


def test_finder_sees_examples():
    # the collection finds the examples that exist (a finder that silently finds
    # nothing would make every module pass)
    names = {t.name for t in doctests_of("gctheory.order_stats")}
    assert "gctheory.order_stats.expected_order_statistic" in names


def test_runner_reports_a_wrong_example():
    # negative control: an example whose printed output is wrong fails the run
    parser = doctest.DocTestParser()
    good = parser.get_doctest(">>> round(0.1 + 0.2, 2)\n0.3\n", {}, "good", None, 0)
    bad = parser.get_doctest(">>> round(0.1 + 0.2, 2)\n0.5\n", {}, "bad", None, 0)
    runner = doctest.DocTestRunner(checker=NumberChecker(), optionflags=FLAGS)
    report: list[str] = []
    assert runner.run(good, out=report.append).failed == 0
    assert runner.run(bad, out=report.append).failed == 1
    assert "Expected:" in "".join(report)


def _sections(obj: Any) -> set[str]:
    doc = inspect.getdoc(obj) or ""
    return set(re.findall(r"^(\w[\w ]*)\n-{3,}\s*$", doc, flags=re.M))


def _takes_arguments(obj: Any) -> bool:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return True
    return any(p.name not in ("self", "cls") for p in sig.parameters.values())


def _has_running_example(obj: Any) -> bool:
    """Whether the docstring holds an example that runs: a ``>>>`` line, not skipped, that
    does more than import."""
    doc = inspect.getdoc(obj) or ""
    tests = doctest.DocTestParser().get_examples(doc)
    return any(
        not ex.options.get(doctest.SKIP, False)
        and not ex.source.lstrip().startswith(("import ", "from "))
        for ex in tests
    )


def test_docstring_coverage():
    """How many public names teach by example and document their parameters."""
    callables = [(m, n, o) for m, n, o in OWNERS.values() if _kind(o) != "data"]
    with_args = [(m, n, o) for m, n, o in callables if _takes_arguments(o)]
    examples = [(m, n) for m, n, o in callables if "Examples" in _sections(o)]
    running = [(m, n) for m, n, o in callables if _has_running_example(o)]
    parameters = [(m, n) for m, n, o in with_args if "Parameters" in _sections(o)]
    functions = [(m, n, o) for m, n, o in with_args if not inspect.isclass(o)]
    no_params = [f"{m}.{n}" for m, n, o in functions if "Parameters" not in _sections(o)]
    share_ex = len(running) / len(callables)
    share_par = 1 - len(no_params) / len(functions)
    data = len(OWNERS) - len(callables)
    print(
        f"\npublic names: {len(OWNERS)} ({len(callables)} functions and classes, {data} "
        f"constants)\nwith an Examples section: {len(examples)} of {len(callables)} functions "
        f"and classes ({len(examples) / len(callables):.1%}; {len(examples) / len(OWNERS):.1%} of "
        f"all names)\n"
        f"with a Parameters section: {len(parameters)} of {len(with_args)} functions and "
        f"classes taking arguments ({len(parameters) / len(with_args):.1%}); functions "
        f"without one: {no_params or 'none'}\nwith an example that runs (not all skipped): "
        f"{len(running)} of {len(callables)} ({share_ex:.1%})"
    )
    by_module: dict[str, list[int]] = {}
    for m, _n, o in callables:
        counts = by_module.setdefault(m, [0, 0])
        counts[0] += 1
        counts[1] += "Examples" in _sections(o)
    for m, (total, done) in sorted(by_module.items()):
        print(f"  {m:28s} Examples {done:3d} / {total:3d}")
    assert share_ex >= EXAMPLES_MIN_SHARE
    assert share_par >= PARAMETERS_MIN_SHARE
