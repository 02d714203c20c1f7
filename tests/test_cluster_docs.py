"""Every Python snippet of docs/cluster.md runs, each as a script in a fresh directory."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "cluster.md").read_text(), re.S)


def test_the_page_has_snippets():
    assert len(SNIPPETS) >= 5


#: Snippets the default run runs (each is a fresh interpreter, ~1.5-2.5 s of CPU); the rest are
#: ``extended`` (CI, ``pytest -m 'not slow'``, runs every one). The first one builds a run spec
#: and simulates it, with no worker process.
DEFAULT = {0}


@pytest.mark.parametrize(
    "i",
    [
        i if i in DEFAULT else pytest.param(i, marks=pytest.mark.extended)
        for i in range(len(SNIPPETS))
    ],
)
def test_snippet_runs(i, tmp_path):
    code = SNIPPETS[i]
    needs = ["torch"] if "digits_mlp" in code or "torch" in code else []
    needs += ["distributed"] if 'engine="dask"' in code else []
    for module in needs:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"snippet {i} needs {module}, which is not installed")
    script = tmp_path / f"snippet{i}.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path, env=env)  # fmt: skip
    assert out.returncode == 0, f"snippet {i} failed:\n{code}\n{out.stderr[-3000:]}"
