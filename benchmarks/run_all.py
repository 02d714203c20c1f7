"""Run every benchmark, collect its ratios, keep a history, compare with the last release.

Each ``bench_*.py`` records the ratios it prints (against a baseline measured in the
same run) through ``benchmarks/_history.py``; this script runs them one at a time in a
child process (one BLAS thread), gathers the records and:

- ``--write`` stores them as ``benchmarks/history/<version>.json`` (version from
  ``gctheory.__version__``), with the machine, its load average before and after, and
  ``--note`` (say there whether the machine was shared);
- ``--compare`` prints each ratio beside the same ratio in the last release's file (the
  highest version below this one, else this version's stored file) and flags a change
  for the worse of more than 30% (a speed-up that fell below 0.7x of the stored one, or
  an overhead or time ratio that grew past 1/0.7 of it). Flags are warnings, not
  failures: the exit code is 0 unless a benchmark crashed, or ``--strict`` is given.

CI does not run this (the numbers are noisy on shared machines).

Run: ``python benchmarks/run_all.py [--quick] [--only NAME ...] [--write] [--compare]``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HISTORY = HERE / "history"
DROP = 0.30  # flag a change for the worse of more than 30%

#: benchmark -> (arguments of the full run, arguments of --quick)
BENCHMARKS: dict[str, tuple[list[str], list[str]]] = {
    "bench_import": ([], ["--rounds", "3"]),
    "bench_order_stats": ([], ["--quick"]),
    "bench_tradeoff": ([], ["--quick-only"]),
    "bench_scale": ([], ["20"]),
    "bench_montecarlo": ([], ["--quick", "--trials", "100000", "--repeat", "2"]),
    "bench_decoding": ([], ["--quick"]),
    "bench_delays": ([], []),
    "bench_finite_length": ([], ["--float-n", "50", "100", "--exact-n", "50"]),
    "bench_peeling": ([], ["--frames", "2048", "--numpy-frames", "256", "--bp-frames", "20"]),
    "bench_conditioning": ([], ["--n", "20000", "--repeat", "1", "--budget", "5"]),
    "bench_training": ([], ["--iterations", "50"]),
    "bench_cluster": ([], ["--iterations", "10", "--rounds", "2", "--engines", "local"]),
    "bench_big": ([], ["--quick"]),
}


def _version() -> str:
    text = (ROOT / "gctheory" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.M)
    return found.group(1) if found else "unknown"


def _vkey(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.+-]", v))


def _machine() -> dict:
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
    }
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:  # pragma: no cover
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:  # pragma: no cover
        pass
    return info


def run(
    names: list[str], quick: bool, timeout: float, root: Path = ROOT, after=None
) -> tuple[dict, dict]:
    """``({benchmark: {name: record}}, {benchmark: why it failed})``; the benchmarks import
    the ``gctheory`` found in ``root`` (another checkout gives a before/after table)."""
    results: dict[str, dict] = {}
    failed: dict[str, str] = {}
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root), str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    for name in names:
        full, short = BENCHMARKS[name]
        args = short if quick else full
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as fh:
            out = Path(fh.name)
        env["GCTHEORY_BENCH_OUT"] = str(out)
        cmd = [sys.executable, str(HERE / f"{name}.py"), *args]
        print(f"== {name} {' '.join(args)}", flush=True)
        t0, c0 = time.perf_counter(), os.times()
        try:
            # cwd = root: a child "python -c" puts the working directory first on its path
            proc = subprocess.run(cmd, env=env, timeout=timeout, cwd=root)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = None
        c1 = os.times()
        cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
        wall = time.perf_counter() - t0
        rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines() if x]
        out.unlink(missing_ok=True)
        results[name] = {r["name"]: {k: r[k] for k in ("value", "unit", "better")} for r in rows}
        if code != 0:
            failed[name] = "timed out" if code is None else f"exit code {code}"
        print(
            f"== {name}: {len(rows)} ratios, wall {wall:.1f} s, cpu {cpu:.1f} s"
            + (f", FAILED ({failed[name]})" if name in failed else ""),
            flush=True,
        )
        if after is not None:
            after(results, failed)  # e.g. save what is measured so far
    return results, failed


def last_release(version: str, exclude: Path | None = None) -> Path | None:
    files = [p for p in HISTORY.glob("*.json") if p != exclude]
    older = [p for p in files if _vkey(p.stem) < _vkey(version)]
    if older:
        return max(older, key=lambda p: _vkey(p.stem))
    same = [p for p in files if p.stem == version]
    return same[0] if same else None


def compare(results: dict, reference: Path) -> int:
    """Print each ratio against the stored one; return the number of flagged drops."""
    ref = json.loads(reference.read_text(encoding="utf-8"))["benchmarks"]
    flagged = 0
    print(f"\ncompared with {reference} (flag: worse by more than 30%)")
    print(f"{'benchmark':20s} {'ratio':58s} {'stored':>10s} {'now':>10s} {'now/stored':>10s}")
    for bench, rows in results.items():
        for name, r in rows.items():
            old = ref.get(bench, {}).get(name)
            now = r["value"]
            if old is None or old.get("value") is None or now is None:
                stored = "-" if old is None else str(old.get("value"))
                print(f"{bench:20s} {name[:58]:58s} {stored:>10s} {now!s:>10.10s} {'new':>10s}")
                continue
            was = old["value"]
            rel = now / was if was else float("inf")
            worse = (r["better"] == "higher" and rel < 1 - DROP) or (
                r["better"] == "lower" and was > 0 and rel > 1 / (1 - DROP)
            )
            flagged += worse
            mark = "  <-- worse by more than 30%" if worse else ""
            print(f"{bench:20s} {name[:58]:58s} {was:10.4g} {now:10.4g} {rel:10.2f}{mark}")
    print(f"{flagged} ratio(s) flagged")
    return flagged


README_BEGIN = "<!-- benchmarks table: python benchmarks/run_all.py --markdown -->"
README_END = "<!-- end of benchmarks table -->"


def _cell(x: object) -> str:
    return str(x).replace("|", "\\|")


def markdown(path: Path) -> str:
    """The ratios of one stored history file as a Markdown table (the README's section)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    m = doc.get("machine", {})
    load = doc.get("load_average_before", ["?"])[0], doc.get("load_average_after", ["?"])[0]
    lines = [
        README_BEGIN,
        f"Release {doc['version']}, measured {doc['started'][:10]} "
        f"({'--quick' if doc.get('quick') else 'full'} sizes) on {m.get('cores', '?')} "
        f"{m.get('cpu', '?')} cores, Python {m.get('python', '?')}, numpy {m.get('numpy', '?')}; "
        f"load average {load[0]} before and {load[1]} after. Each ratio is ours / the "
        "baseline named in the row, both measured in one process in one run, so a loaded "
        "machine shifts both sides.",
        "",
        "| benchmark | ratio (ours / baseline) | value | better |",
        "|---|---|---:|---|",
    ]
    for bench, rows in doc["benchmarks"].items():
        for name, r in rows.items():
            v = r.get("value")
            val = "-" if v is None else f"{v:.3g}{r.get('unit', '')}"
            lines.append(f"| {bench} | {_cell(name)} | {val} | {r.get('better', '')} |")
    lines.append(README_END)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (minutes, not an hour)")
    ap.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="these benchmarks")
    ap.add_argument("--write", action="store_true", help="store history/<version>.json")
    ap.add_argument("--compare", action="store_true", help="compare with the last release")
    ap.add_argument("--note", default="", help="stored with --write (machine, load, ...)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per benchmark")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a ratio is flagged")
    ap.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="import gctheory from this directory (e.g. an export of an older commit)",
    )
    ap.add_argument("--out", type=Path, help="with --write: this file, not history/<version>")
    ap.add_argument("--against", type=Path, help="with --compare: this file, not the release")
    ap.add_argument(
        "--markdown",
        nargs="?",
        const="latest",
        metavar="FILE",
        help="print a stored history file (default: the newest release) as the README's "
        "table, then exit",
    )
    args = ap.parse_args(argv)
    if args.markdown is not None:
        path = last_release("9999") if args.markdown == "latest" else Path(args.markdown)
        if path is None or not path.is_file():
            ap.error(f"--markdown: no history file {args.markdown!r} (see {HISTORY})")
        sys.stdout.write(markdown(path))
        return 0
    names = args.only or list(BENCHMARKS)
    version = _version() if args.root == ROOT else f"{_version()}-root-{args.root.name}"
    timeout = args.timeout or (600.0 if args.quick else 1800.0)
    load0 = os.getloadavg()
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    target = args.out or HISTORY / f"{version}.json"

    def save(results: dict, failed: dict, done: bool = False) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "version": version,
            "root": str(args.root),
            "started": started,
            "quick": args.quick,
            "machine": _machine(),
            "load_average_before": [round(x, 2) for x in load0],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "note": args.note,
            "not_run": [] if done else [x for x in names if x not in results],
            "failed": failed,
            "benchmarks": results,
        }
        target.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")

    results, failed = run(
        names, args.quick, timeout, args.root.resolve(), after=save if args.write else None
    )
    flagged = 0
    if args.compare:
        ref = args.against or last_release(version, exclude=target if args.write else None)
        if ref is None:
            print("\nno stored history to compare with")
        else:
            flagged = compare(results, ref)
    if args.write:
        save(results, failed, done=True)
        print(f"wrote {target}")
    return 1 if failed or (args.strict and flagged) else 0


if __name__ == "__main__":
    sys.exit(main())
