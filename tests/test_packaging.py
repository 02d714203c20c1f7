"""Packaging: one version everywhere, ``python -m gctheory``, the citation file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import gctheory

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]


def test_one_version_everywhere():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert project["version"] == gctheory.__version__
    assert re.search(rf"^version: {re.escape(gctheory.__version__)}$", citation, re.M)
    assert re.search(rf"^## {re.escape(gctheory.__version__)} ", changelog, re.M)


def test_python_dash_m_gctheory():
    out = subprocess.run(
        [sys.executable, "-m", "gctheory", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"gctheory {gctheory.__version__}"


def test_the_installed_package_is_tested_when_ci_says_so():
    # CI installs the built wheel and sets GCTHEORY_EXPECT_INSTALLED=1: the tests must then
    # import that wheel, not the checkout beside them (pytest's --import-mode=append)
    import os

    if os.environ.get("GCTHEORY_EXPECT_INSTALLED") != "1":
        pytest.skip("GCTHEORY_EXPECT_INSTALLED is not set (a development install)")
    import paper_checks

    for module in (gctheory, paper_checks):
        # the checkout's own package sits right under it; an installed one under
        # site-packages (which may itself lie in the checkout's .venv)
        here = Path(module.__file__).resolve().parent
        assert here.parent != ROOT and "site-packages" in here.parts, module.__file__


def test_readme_installs_the_wheel_of_this_version():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"dist/gctheory-{gctheory.__version__}-py3-none-any.whl" in readme
