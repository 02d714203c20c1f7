"""Shared helper of the benchmarks: each one records its ratios here, as JSON.

A benchmark calls :func:`record` beside the line that prints a ratio. When the
script runs under ``benchmarks/run_all.py``, the environment variable
``GCTHEORY_BENCH_OUT`` names a JSON-lines file and every record is appended to it
(one object a line: benchmark, name, value, unit, better); run alone, the
benchmark prints as before and records nothing.

Only ratios against a baseline measured in the same run belong here (a speed-up
over a bare loop, an overhead in percent, a cost ratio between two sizes):
absolute seconds on a shared machine mostly measure the other processes.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

ENV = "GCTHEORY_BENCH_OUT"


def record(name: str, value: float, unit: str = "x", better: str = "higher") -> None:
    """Append one ratio of this benchmark to the run's JSON-lines file, if there is one.

    ``better`` is ``"higher"`` (a speed-up), ``"lower"`` (an overhead, a time ratio) or
    ``"none"`` (informative only, e.g. a fitted slope): ``run_all.py --compare`` flags a
    change for the worse of more than 30% only for the first two.
    """
    if better not in ("higher", "lower", "none"):
        raise ValueError(f"better must be 'higher', 'lower' or 'none', got {better!r}")
    out = os.environ.get(ENV)
    if not out:
        return
    value = float(value)
    row = {
        "benchmark": Path(sys.argv[0]).stem,
        "name": name,
        "value": value if math.isfinite(value) else None,
        "unit": unit,
        "better": better,
    }
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
