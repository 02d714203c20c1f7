"""Every ```python block of the guides (docs/*.md) runs as written.

A page's blocks run in order in one namespace (a later block may use what an
earlier one defined), as a reader pasting them into one session would, in a
fresh temporary directory (the examples write files: a checkpoint, a CSV) with
matplotlib's Agg backend. The namespace is a real module registered in
``sys.modules``, so functions a page defines can be pickled to the process pool
of ``executor=2`` as they would from a script.

The README's blocks are run by tests/test_readme.py; the blocks guarded by
``if __name__ == "__main__":`` there (whose body a plain exec skips) are run
here, as a script would run them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```", flags=re.S | re.M)


def python_blocks(path: Path) -> list[str]:
    return _BLOCK.findall(path.read_text(encoding="utf-8"))


PAGES_WITH_CODE = [p for p in PAGES if python_blocks(p)]


def test_docs_pages_have_examples():
    # 13 blocks on 11 pages when this test was written; a page losing its
    # examples, or the extraction silently finding none, fails here
    assert len(PAGES_WITH_CODE) >= 11
    assert sum(len(python_blocks(p)) for p in PAGES) >= 13


def test_block_extraction():
    text = "x\n```python\na = 1\n```\n\n```bash\nls\n```\n```python\nb = a\n```\n"
    assert _BLOCK.findall(text) == ["a = 1\n", "b = a\n"]


def _run_blocks(label: str, blocks: list[str], module_name: str) -> None:
    mod = types.ModuleType(module_name)
    mod.__file__ = f"<{label}>"
    previous = sys.modules.get(module_name)
    sys.modules[module_name] = mod
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"{label} python block {i}", "exec"), mod.__dict__)
    finally:
        if previous is None:
            sys.modules.pop(module_name, None)
        else:
            sys.modules[module_name] = previous
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close("all")


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_docs_page_examples_run(page, tmp_path, monkeypatch):
    from tests._shared_runs import use_tradeoff_once

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # the tradeoff page's table is the README's `gctheory tradeoff` line's: computed once
    use_tradeoff_once(monkeypatch)
    _run_blocks(f"docs/{page.name}", python_blocks(page), f"gctheory_docs_{page.stem}")


def _readme_main_blocks() -> list[str]:
    blocks = python_blocks(ROOT / "README.md")
    return [b for b in blocks if '__name__ == "__main__"' in b and "tcp://" not in b]


def test_readme_has_main_guarded_block():
    assert _readme_main_blocks(), "the README's Dask LocalCluster example moved or changed"


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_readme_main_blocks())))
def test_readme_main_guarded_block_runs(index, tmp_path):
    # the LocalCluster example starts Dask worker processes (spawned: they import
    # the script), so it runs as a user runs it, as a script file (about 10-30 s)
    pytest.importorskip("distributed", reason="the example needs dask[distributed]")
    script = tmp_path / f"readme_main_block_{index}.py"
    script.write_text(_readme_main_blocks()[index], encoding="utf-8")
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "same as serial: True" in proc.stdout
