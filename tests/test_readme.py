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


def _cli_lines() -> list[str]:
    """The command lines of the README's "Command line" block (two per line at most)."""
    text = README.read_text()
    block = text.split("## Command line", 1)[1].split("```", 2)[1]
    out = []
    for line in block.splitlines():
        line = re.sub(r"\[[^\]]*\]", "", line.split("#")[0]).strip()  # optional [...] parts
        for part in re.split(r"\s{2,}(?=gctheory )", line):
            if part.startswith("gctheory ") and "|" not in part and "..." not in part:
                out.append(part)
    return out


def test_readme_command_lines_parse():
    # every command the README shows is one the parser accepts, with its options
    import shlex

    from gctheory.cli import build_parser

    lines = _cli_lines()
    assert len(lines) >= 12
    parser = build_parser()
    for line in lines:
        argv = shlex.split(line)[1:]
        if argv == ["--version"]:
            continue
        args = parser.parse_args(argv)
        assert getattr(args, "func", None), line
