"""The README's Python snippets run as written (the Dask one needs a cluster and is skipped)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_snippets():
    assert len(BLOCKS) >= 7


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_snippet_runs(index):
    code = BLOCKS[index]
    if "tcp://" in code:
        pytest.skip("needs a running Dask scheduler")
    exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "readme"})
