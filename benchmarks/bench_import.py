"""Import cost of gctheory and of the CLI's light paths (a measurement, not a test).

Each statement runs in a fresh interpreter; the CPU time of that child (user +
system, from ``resource.getrusage``) is compared with a child that only imports
numpy, measured in alternation in the same run (the median of ``--rounds``).
Goal (issue 27): ``import gctheory`` under 0.5 s CPU, matplotlib, sympy and numba
loaded only when used; ``gctheory --version`` and ``--help`` light.

Run: ``python benchmarks/bench_import.py [--rounds N]``; ``python -X importtime -c
"import gctheory"`` shows where the time goes.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402

BASE = "import numpy"
CASES = {
    "import gctheory": "import gctheory",
    "import gctheory.codes": "import gctheory.codes",
    "import gctheory.ldpc": "import gctheory.ldpc",
    "import gctheory.order_stats": "import gctheory.order_stats",
    "gctheory --version": "from gctheory.cli import main; main(['--version'])",
    "gctheory --help": "from gctheory.cli import main; main(['--help'])",
}


def _cpu(stmt: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-c", f"import sys\ntry:\n    {stmt}\nexcept SystemExit:\n    pass"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    base: list[float] = []
    times: dict[str, list[float]] = {k: [] for k in CASES}
    for _ in range(args.rounds):
        for name, stmt in CASES.items():
            base.append(_cpu(BASE))
            times[name].append(_cpu(stmt))
    b = statistics.median(base)
    print(f"fresh interpreter + import numpy: {b:.3f} s CPU (median of {len(base)})")
    for name, ts in times.items():
        t = statistics.median(ts)
        print(f"{name:30s} {t:7.3f} s CPU   x{t / b:5.2f} of import numpy")
        record(f"{name} CPU / import numpy CPU", t / b, better="lower")


if __name__ == "__main__":
    main()
