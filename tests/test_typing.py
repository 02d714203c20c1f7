"""A downstream user's file type-checks against gctheory, with real types (issue 25).

``tests/typing_user.py`` imports from ``gctheory`` and ``gctheory.codes`` as a user
would; mypy must report no error in it, and ``reveal_type`` must show the real
classes (not ``Any``): the lazy top-level names and the re-exports are visible to a
type checker through ``gctheory/__init__.pyi`` and the explicit imports. Errors inside
gctheory itself are the package check's business (``mypy`` in CI), not this test's:
imports are followed silently, as for an installed package.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]
USER = ROOT / "tests" / "typing_user.py"

EXPECTED = {
    "code": "gctheory.codes.commfr.CommFRCode",
    "code.s": "builtins.int",
    "result": "gctheory.codes.base.DecodeResult",
    "est": "gctheory.montecarlo.estimates.Estimate",
    "est.value": "builtins.float",
    "est.low": "builtins.float",
    "table": "gctheory.tradeoff.table.TradeoffTable",
}


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int]:
    cache = tmp_path_factory.mktemp("mypy-cache")
    stdout, stderr, status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--follow-imports=silent",
            "--cache-dir",
            str(cache),
            "--show-error-codes",
            "--no-error-summary",
            "--show-traceback",
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


def test_user_file_has_no_type_errors(mypy_output):
    stdout, status = mypy_output
    errors = [ln for ln in stdout.splitlines() if ": error:" in ln]
    assert not errors, "\n".join(errors)
    assert status == 0, stdout


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


def test_user_file_runs():
    """The file is an honest user script: it runs (reveal_type is under TYPE_CHECKING)."""
    import runpy

    runpy.run_path(str(USER), run_name="__main__")
