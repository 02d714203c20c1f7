"""Every table-printing command, rendered at 80 and 100 columns: no line too long, no
number or identifier split across lines (issue 29).

Each command runs once, in-process, at ``COLUMNS=80`` (its whole stdout is checked);
every table it rendered is rendered again at 100 columns from the recorded cells. A
cell without spaces (a number, an identifier, a path) must appear whole in the text,
unless the renderer says it left its column out.
"""

from __future__ import annotations

import re
import shlex

import numpy as np
import pytest

from gctheory import _output
from gctheory.cli import main

WIDTHS = (80, 100)

# small, fast arguments; TRACE is replaced by a measured-delays file made below
COMMANDS = [
    "table1",
    "skappa --n 20 --s 2 --m 2",
    "maxcond --K 4 --N 8",
    "orderstat --n 10 --k 5 10 --mc 200",
    "optimum halbawi --n 20 --target-f 4",
    "optimum scheme --n 10",
    "optimum zhang",
    "optimum xu --n 10 --c 2",
    "threshold --map --n 1000",
    "waterfall --n 200 400 --eps 0.4 0.45 --trials 20 --predict",
    "finite-length --n 40",
    "load --n 40 --s 4",
    "load-grid --n 40",
    "codes verify cyclic-mds --n 6 --s 2",
    "codes stability --families cyclic-mds --n 4 8 --trials 3 --worst-samples 2",
    "codes approx bibd --v 7 --k 3 --stragglers 2",
    "stability compare --n 8 --s 1 --m 2 --families gaussian,chebyshev-vandermonde --time-limit 1",
    "stability table --n 12 --s 1 --kappa 1000 --families gaussian --time-limit 1",
    "delays summary TRACE",
    "delays fit TRACE --load 0.25 --bootstrap 3 --laws shifted_exp,pareto",
    "delays scaling TRACE",
    "delays optimum TRACE --scheme cyclic-mds --n 8 --bootstrap 5",
    "tradeoff --n 12 --quick --trials 30 --time-trials 30 --out OUT/atlas",
    "simulate --list",
    "simulate --scheme gd --n 4 --iterations 5 --out OUT/sim",
    "figures --list",
    "check johri2021 --quick",  # few claims, the same claim records as any paper's
]


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    from gctheory import delays as dl

    rng = np.random.default_rng(0)
    parts = []
    for ld in (0.25, 0.5):
        R, W = 20, 8
        M = 4 * ld + rng.exponential(0.3, size=(R, W))
        r, w = np.divmod(np.arange(R * W), W)
        region = np.full(R * W, "Canada/2048-long-region-name")
        parts.append(dl.make_trace(r, w, np.full(R * W, ld), M.ravel(), region=region))
    path = tmp_path_factory.mktemp("trace") / "delays.csv"
    return dl.write_trace(dl.concat_traces(parts), path)


_SPLIT = re.compile(r"\d[eE][-+]?$")  # a number cut after its exponent (1.9873e- over 14)


def _check_text(text: str, width: int, cells: list[list[str]], cols: list[str], where: str):
    lines = text.splitlines()
    long = [ln for ln in lines if len(ln) > width]
    assert not long, f"{where}: {len(long)} line(s) over {width} columns, e.g. {long[0]!r}"
    for ln in lines:
        for tok in ln.split():
            assert not _SPLIT.search(tok), f"{where}: split number {tok!r} in {ln!r}"
    hidden = ""
    m = re.search(r"not shown here \(--format csv or json has them\): (.*)", text, re.S)
    if m:
        hidden = " ".join(m.group(1).split())
    words = set(text.split())
    for row in cells:
        for col, cell in zip(cols, row):
            if cell and " " not in cell and col not in hidden:
                assert cell in words or cell in text, (
                    f"{where}: cell {cell!r} of column {col!r} is not whole in the text"
                )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c.split()[:2]))
def test_command_tables_fit_and_never_split(command, trace, tmp_path, monkeypatch, capsys):
    argv = shlex.split(command.replace("TRACE", str(trace)).replace("OUT", str(tmp_path)))
    recorded = []
    original = _output._text_table

    def record(cols, cells, title, width, optional=(), notes=()):
        recorded.append((list(cols), [list(r) for r in cells], title, optional, notes))
        return original(cols, cells, title, width, optional=optional, notes=notes)

    monkeypatch.setattr(_output, "_text_table", record)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert recorded, f"{command}: printed no table through gctheory._output"
    # a line naming a written file is as long as its path (pytest's tmp_path, longer under
    # pytest-xdist): the width rule is for tables and messages, not for paths
    lines = [ln for ln in out.splitlines() if str(tmp_path) not in ln]
    assert max(map(len, lines)) <= 80, command
    for cols, cells, title, optional, notes in recorded:
        for width in WIDTHS:
            text = original(cols, cells, title, width, optional=optional, notes=notes)
            _check_text(text, width, cells, cols, f"{command} at {width}")
