"""A downstream user's file type-checks against gctheory, with real types (issue 25).

``tests/typing_user.py`` imports from ``gctheory`` and ``gctheory.codes`` as a user
would; mypy must report no error in it, and ``reveal_type`` must show the real
classes (not ``Any``): the lazy top-level names and the re-exports are visible to a
type checker through ``gctheory/__init__.pyi`` and the explicit imports. Errors inside
gctheory itself are the package check's business (``mypy`` in CI), not this test's:
imports are followed silently, as for an installed package.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]
USER = ROOT / "tests" / "typing_user.py"

EXPECTED = {
    "code": "gctheory.codes.commfr._code.CommFRCode",
    "code.s": "builtins.int",
    "result": "gctheory.codes.base._results.DecodeResult",
    "est": "gctheory.montecarlo.estimates.Estimate",
    "est.value": "builtins.float",
    "est.low": "builtins.float",
    "table": "gctheory.tradeoff.table.TradeoffTable",
}


#: the project's mypy settings plus one override: dask and distributed (which those settings
#: already count as packages publishing no type information) are not followed. Nothing the
#: user file reveals or reports comes from them (mypy's output is the same either way), and
#: following them was about a third of this check's CPU.
_SKIPPED = """
[[tool.mypy.overrides]]
module = ["dask", "dask.*", "distributed", "distributed.*"]
follow_imports = "skip"
"""


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int]:
    cache = tmp_path_factory.mktemp("mypy-cache")
    config = cache / "pyproject.toml"
    config.write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8") + _SKIPPED)
    stdout, stderr, status = api.run(
        [
            "--config-file",
            str(config),
            "--follow-imports=silent",
            "--cache-dir",
            str(cache),
            "--show-error-codes",
            "--no-error-summary",
            "--show-traceback",
            # every expression whose type is Any is reported: a bare Any must come from an
            # untyped third party (scipy, numpy's reductions), said on its line (``# Any:``)
            "--disallow-any-expr",
            str(USER),
        ]
    )
    assert not stderr, stderr
    return stdout, status


def _revealed(stdout: str) -> dict[str, str]:
    """Expression -> revealed type, read back through the source line of each note."""
    lines = USER.read_text(encoding="utf-8").splitlines()
    out = {}
    for m in re.finditer(r":(\d+): note: Revealed type is \"(.*)\"", stdout):
        src = lines[int(m.group(1)) - 1]
        expr = re.search(r"reveal_type\((.*)\)", src)
        if expr:
            out[expr.group(1)] = m.group(2)
    return out


_ANY = re.compile(r'Expression (has type "Any"|type contains "Any")')


def test_user_file_has_no_type_errors(mypy_output):
    stdout, _ = mypy_output
    errors = [ln for ln in stdout.splitlines() if ": error:" in ln and not _ANY.search(ln)]
    assert not errors, "\n".join(errors)


def test_readme_calls_have_no_bare_any(mypy_output):
    """No README call returns a bare ``Any`` (``load_code`` a ``GradientCode``, the tradeoff
    function a ``TradeoffTable``...): each ``Any`` left comes from an untyped third party,
    and its line says so. An ``Any`` inside a numpy array type (``ndarray[Any, ...]``) is
    numpy's own and is not counted."""
    lines = USER.read_text(encoding="utf-8").splitlines()
    bare = []
    for m in re.finditer(r':(\d+): error: Expression has type "Any"', mypy_output[0]):
        src = lines[int(m.group(1)) - 1]
        if "# Any:" not in src:
            bare.append(f"{m.group(1)}: {src.strip()}")
    assert not bare, "\n".join(bare)
    revealed = _revealed(mypy_output[0])
    assert revealed["loaded"] == "gctheory.codes.base._interface.GradientCode"
    assert revealed["profile"] == revealed["scaling"] == "float"
    assert revealed["gctheory.tradeoff_table"].endswith("TradeoffTable")


def test_public_names_have_their_real_types_not_any(mypy_output):
    revealed = _revealed(mypy_output[0])
    for expr, want in EXPECTED.items():
        got = revealed.get(expr)
        assert got is not None, f"no reveal_type({expr}) in {USER.name}: {sorted(revealed)}"
        # mypy prints builtins without their module ("int"), classes with theirs
        assert got in (want, want.removeprefix("builtins.")), f"{expr}: {got}, expected {want}"
    # the top-level lazy function keeps its signature and its return type
    sig = revealed["gctheory.estimate_probability"]
    assert "Any" not in sig.split("->")[-1] and sig.endswith("Estimate"), sig


#: the gallery's results (``gallery_calls`` in the user file), each a real class, no ``Any``
GALLERY = {
    "points": "list[gctheory.ldpc.simulation._waterfall.WaterfallPoint]",
    "law": "gctheory.ldpc.scaling._law.ScalingParameters",
    "drawing": "gctheory.plots._base.Drawing",
    "atlas": "gctheory.tradeoff.table.TradeoffTable",
    "atlas_fig": "matplotlib.figure.Figure",
    "trace": "gctheory.delays._trace_core.Trace",
    "fitted": "gctheory.plots._base.Drawing",
    "sgc_run": "gctheory.sgc.runtime.SchemeRun",
    "cluster_result": "gctheory.cluster.results.ClusterRun",
    "same": "gctheory.cluster.compare.Comparison",
    "weighted": "gctheory.montecarlo.estimates.Estimate",
    "tail": "gctheory.montecarlo.estimates.Estimate",
}


def test_gallery_calls_have_their_real_types(mypy_output):
    """The gallery's calls (``examples/plot_*.py``) return real classes: the figure
    ``plot_tradeoff`` draws is a matplotlib ``Figure``, not ``Any``."""
    revealed = _revealed(mypy_output[0])
    for expr, want in GALLERY.items():
        assert revealed.get(expr) == want, f"{expr}: {revealed.get(expr)}, expected {want}"


def test_gallery_imports_are_covered():
    """Every ``gctheory`` name the gallery imports is used in the user file (outside its
    imports), so a new example's calls cannot skip the type check unnoticed."""
    imports = r"^\s*(from \S+ )?import (\([^)]*\)|.*)$"
    used = re.sub(imports, "", USER.read_text(encoding="utf-8"), flags=re.M)
    names = set()
    for example in sorted((ROOT / "examples").glob("plot_*.py")):
        text = example.read_text(encoding="utf-8")
        for group, line in re.findall(
            r"^from gctheory[\w.]* import (?:\(([^)]*)\)|([^(\n]+))$", text, re.M
        ):
            names.update(n.strip() for n in (group or line).split(",") if n.strip())
    assert len(names) > 20, sorted(names)
    missing = sorted(n for n in names if not re.search(rf"\b{n}\b", used))
    assert not missing, f"gallery names not used in {USER.name}: {missing}"


def test_user_file_runs():
    """The file is an honest user script: it runs (reveal_type is under TYPE_CHECKING)."""
    import runpy

    runpy.run_path(str(USER), run_name="__main__")


@pytest.mark.slow
def test_editable_install_is_visible_to_mypy_and_not_shadowed(tmp_path):
    """The README's contributor install (``pip install -e . --config-settings
    editable_mode=compat``: a static ``.pth`` holding the checkout) is seen by mypy from a
    script outside the checkout, and a folder named ``gctheory`` beside the script (the
    clone folder itself) does not shadow it. The default editable finder failed both: mypy
    could not find ``gctheory``, and Python imported the folder as a namespace package."""
    import subprocess
    import sys

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    install = [str(py), "-m", "pip", "install", "--no-deps", "-q", "-e", str(ROOT)]
    subprocess.run([*install, "--config-settings", "editable_mode=compat"], check=True)
    work = tmp_path / "work"
    (work / "gctheory").mkdir(parents=True)  # e.g. the clone folder next to the script
    user = work / "user.py"
    user.write_text(
        "from gctheory import Stop, load_code\n"
        "print(Stop(rel_half_width=0.1), load_code)\n"
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    reveal_type(load_code)\n",
        encoding="utf-8",
    )
    run = subprocess.run([str(py), str(user)], cwd=work, capture_output=True, text=True)
    assert run.returncode == 0 and "Stop(" in run.stdout, run.stderr
    stdout, stderr, status = api.run(
        ["--python-executable", str(py), "--no-incremental", "--cache-dir", os.devnull,
         "--follow-imports=silent", str(user)]
    )  # fmt: skip
    assert status == 0 and "Success" in stdout, stdout + stderr
    assert '-> gctheory.codes.base._interface.GradientCode"' in stdout, stdout
