"""Compare two coverage JSON reports (``coverage json`` / ``pytest --cov-report=json``)
module by module: which modules lost or gained covered lines.

Usage: python benchmarks/coverage_diff.py BEFORE.json AFTER.json [--prefix gctheory/]

The comparison is by line sets, not percentages: a module "loses" when a line covered
before is not covered after, even if other lines were gained. Exit status 1 when any
module under the prefix lost a covered line, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def covered_lines(path: Path, prefix: str) -> dict[str, set[int]]:
    """File -> its executed lines, for the files whose path contains ``prefix``."""
    files = json.loads(path.read_text(encoding="utf-8"))["files"]
    out = {}
    for name, data in files.items():
        i = name.find(prefix)
        if i >= 0:
            out[name[i:]] = set(data["executed_lines"])
    return out


def compare(before: dict[str, set[int]], after: dict[str, set[int]]) -> list[tuple[int, str]]:
    """(lines lost, text row) per module whose covered lines changed, those losing first."""
    rows = []
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name, set()), after.get(name, set())
        lost, gained = sorted(b - a), sorted(a - b)
        if lost or gained:
            shown = ",".join(map(str, lost[:12])) + (" ..." if len(lost) > 12 else "")
            rows.append(
                (
                    len(lost),
                    f"{name:<52} {len(b):>5} -> {len(a):>5}  lost {len(lost):>3}  "
                    f"gained {len(gained):>3}" + (f"  lost lines: {shown}" if lost else ""),
                )
            )
    return sorted(rows, key=lambda r: r[0] == 0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--prefix", default="gctheory/", help="compare files under this path")
    args = p.parse_args(argv)
    before = covered_lines(args.before, args.prefix)
    after = covered_lines(args.after, args.prefix)
    rows = compare(before, after)
    lost = sum(1 for n, _ in rows if n)
    print(
        f"{len(before)} modules before, {len(after)} after; {len(rows)} changed, "
        f"{lost} losing covered lines"
    )
    for _, row in rows:
        print(row)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
