"""The package namespace: lazy re-exports stay in step with the modules' __all__."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import gctheory

# names too generic to stand alone at the top level (``gctheory.codes.load`` reads a saved
# code, ``gctheory.sweeps.grid`` builds a problem grid, ``gctheory.codes.clear_plugin_cache``
# forgets the code plug-ins read): use them from their module
NOT_AT_TOP_LEVEL = {"load", "grid", "clear_plugin_cache"}


def test_lazy_map_matches_every_module_all():
    owners: dict[str, list[str]] = {}
    for mod in gctheory._SUBMODULES:
        for name in importlib.import_module(f"gctheory.{mod}").__all__:
            owners.setdefault(name, []).append(mod)
    # a name that is also a submodule (the callable ``gctheory.tradeoff``) resolves to it
    expected = {n: m[0] for n, m in owners.items() if len(m) == 1 and n not in gctheory._SUBMODULES}
    # names re-exported from above the analysis floors (plots), listed in the stub by hand
    expected["plot_tradeoff"] = "plots.tradeoff"
    for name in NOT_AT_TOP_LEVEL:
        expected.pop(name, None)
    assert gctheory._LAZY == expected


def test_stub_names_every_submodule_and_nothing_else():
    from pathlib import Path

    here = Path(gctheory.__file__).parent
    packages = {p.name for p in here.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in here.glob("*.py") if not p.stem.startswith("_")}
    # rooms used through their own name only (``gctheory.data.lambda_delays()``), not
    # re-exported at the top level
    not_re_exported = {
        "cli",
        "commands",
        "plots",
        "cluster",
        "sgc",
        "calibration",
        "data",
        "coverage_study",
        "loop",  # the run loop: used as gctheory.loop by the master and the simulator
    }
    public = (packages | modules) - not_re_exported
    assert set(gctheory._SUBMODULES) == public


def test_names_resolve_to_the_module_objects():
    from gctheory.montecarlo import estimate_probability

    assert gctheory.estimate_probability is estimate_probability
    assert gctheory.ldpc.regular_threshold is gctheory.regular_threshold
    assert "regular_threshold" in dir(gctheory)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        gctheory.no_such_name  # noqa: B018


def test_import_is_light():
    # `import gctheory` must not pull matplotlib or the heavy modules in.
    code = (
        "import sys, gctheory; "
        "print('matplotlib' in sys.modules, 'gctheory.training' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def render_stub() -> str:
    """The stub ``gctheory/__init__.pyi`` as the modules' ``__all__`` make it.

    ``python tests/test_init.py`` rewrites the stub after a module gains or loses a name.
    """
    from pathlib import Path

    text = (Path(gctheory.__file__).with_name("__init__.pyi")).read_text(encoding="utf-8")
    head = text[: text.index("from gctheory import (")]
    tail = text[text.index("# the atlas' plot") :]
    owners: dict[str, list[str]] = {}
    for mod in gctheory._SUBMODULES:
        for name in importlib.import_module(f"gctheory.{mod}").__all__:
            owners.setdefault(name, []).append(mod)
    lines = [head + "from gctheory import ("]
    lines += [f"    {m} as {m}," for m in sorted(gctheory._SUBMODULES)]
    lines.append(")")
    for mod in sorted(gctheory._SUBMODULES):
        names = sorted(
            (
                n
                for n, m in owners.items()
                if m == [mod] and n not in gctheory._SUBMODULES and n not in NOT_AT_TOP_LEVEL
            ),
            key=lambda n: (not n.isupper(), n.lower() if not n.isupper() else n),
        )
        if names and not (mod == "tradeoff" and names == []):
            lines.append(f"from gctheory.{mod} import (")
            lines += [f"    {n} as {n}," for n in names if n != "plot_tradeoff"]
            lines.append(")")
    return "\n".join(lines) + "\n\n" + tail


def test_stub_is_current():
    from pathlib import Path

    stub = (Path(gctheory.__file__).with_name("__init__.pyi")).read_text(encoding="utf-8")
    assert stub == render_stub(), "run `python tests/test_init.py` to rewrite the stub"


if __name__ == "__main__":
    from pathlib import Path

    Path(gctheory.__file__).with_name("__init__.pyi").write_text(render_stub(), encoding="utf-8")
