"""The README's Python snippets run as written (the Dask one needs a cluster and is skipped)."""

from __future__ import annotations

import re
import warnings
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
    """The command lines of the README's "Command line" block, one command per line."""
    text = README.read_text()
    block = text.split("## Command line", 1)[1].split("```", 2)[1]
    out = []
    for line in block.splitlines():
        line = line.split("  #")[0].strip()  # a comment after two spaces
        if line:
            assert line.startswith("gctheory ") and line.count("gctheory ") == 1, line
            assert "|" not in line and "..." not in line and "[" not in line, line
            out.append(line)
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


def test_readme_command_lines_run(tmp_path, monkeypatch, capsys):
    """Each line of the block runs as printed, in order, with exit status 0: its /tmp/
    paths moved into the test's own folder, run from there (nothing lands in the
    checkout), warnings shown as a user sees them."""
    import shlex

    from gctheory.cli import main
    from tests._shared_runs import use_claims_once, use_tradeoff_once

    monkeypatch.chdir(tmp_path)
    # `reproduce --paper P --quick` and `check P --quick` run the same seeded claims: each
    # claim is computed once in the process (the first such line here or in another
    # test), the second line reports the same results; the `tradeoff` line's table is
    # docs/tradeoff.md's (tests/test_docs.py), computed once
    use_claims_once(monkeypatch)
    use_tradeoff_once(monkeypatch)
    for line in _cli_lines():
        argv = [a.replace("/tmp/", f"{tmp_path}/") for a in shlex.split(line)[1:]]
        if argv[0] == "run":
            pytest.importorskip("sklearn", reason="gctheory run trains on the digits data")
        with warnings.catch_warnings():  # shown to a user as they are (not test errors)
            warnings.simplefilter("default")
            try:
                rc = main(argv)
            except SystemExit as exc:  # --version
                rc = exc.code
        out = capsys.readouterr()
        if argv[0] == "reproduce" and rc == 1 and "claim(s) raised" not in out.err:
            # it ran; a claim added since the ledger was last written (or a changed verdict)
            # is the ledger's business, which `gctheory reproduce` in CI checks in full
            assert "from the ledger" in out.err, out.err[-2000:]
            continue
        assert rc == 0, f"{line}\n{out.err[-2000:]}"
    assert not any(p.name == "atlas" for p in Path.cwd().iterdir())  # --out was honoured
