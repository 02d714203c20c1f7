"""Benchmark of ``gctheory tradeoff --n 120`` (a measurement, not a test).

The speed goal of issue 18: the command (table, PNG, SVG and CSV) finishes in under 30 s
on 2 cores with the default Monte Carlo effort, under 5 s with ``--quick``. This script
runs the command in-process (the import of the CLI included, measured once), splits the
time into the table and the figure, and prints each as a ratio to a fixed reference
workload run in the same process (the exact d-FRC failure probabilities and finite-n
load bounds of ``gctheory load-grid --n 120``), so runs on a loaded machine can be
compared with runs on a quiet one. CPU time is printed beside wall time: when the two
differ a lot, other processes were running. ``tradeoff`` limits BLAS to one thread
(its matrices are small); before it did, the BLAS threads of the Bernoulli code's
least squares spun against the other processes on a loaded machine and made the
default run three to four times slower.

Cost versus n (issue 27): ``--scaling`` runs the table alone (``tradeoff(n, kappa=1e4,
eps=1e-3, delay="pareto(scale=0.001, shape=1.1)", quick=True, rng=0)``; add ``--default``
for the default effort too) at n = 100, 300, 1000, 3000, 10000 (``--sizes``) in one
process, after a warm-up at n = 60 that pays the imports, each size between two runs of
the reference workload, and prints CPU and wall seconds, the cost in units of the
reference (the median of the runs around it: this is what stays comparable on a loaded
machine) and the slopes of log cost against log n fitted over 100-1000, 1000-10^4 and
all sizes. The goals of issue 27 at n = 10^4: the table with ``--quick`` under 10 s and
with the default effort under 60 s on 2 cores.

Run: ``python benchmarks/bench_tradeoff.py [--quick-only] [--n 120]`` or
``python benchmarks/bench_tradeoff.py --scaling [--default] [--sizes 100 300 1000 3000 10000]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402


def _clock(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _reference() -> None:
    from gctheory.load_bounds import frc_failure_probability, load_curves

    c = load_curves(120, list(range(0, 120, 2)), eps=0.05, target=1e-3)
    for s, d in zip(c["s"], c["frc_exact_min_load"]):
        frc_failure_probability(120, s, d)


def _slope(ns: list[int], costs: list[float]) -> float:
    """Least-squares slope of log cost against log n (nan below two points)."""
    import numpy as np

    if len(ns) < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns), np.log(costs), 1)[0])


def scaling(sizes: list[int], default: bool) -> None:
    """Cost of the table versus n, in seconds and in units of the reference workload."""
    from gctheory.tradeoff import tradeoff

    kw = dict(kappa=1e4, eps=1e-3, delay="pareto(scale=0.001, shape=1.1)", rng=0)
    _clock(lambda: tradeoff(60, quick=True, **kw))  # imports, numba kernels, scipy caches
    _reference()
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (above 2: the "
        "machine is shared and seconds mean little; the reference units compare better)"
    )
    for quick in [True] + ([False] if default else []):
        name = "--quick" if quick else "default"
        ns, cpus, units = [], [], []
        print(f"\ntradeoff(n, ...) {name}: the table only")
        print(f"{'n':>6} {'cpu s':>8} {'wall s':>8} {'reference units':>16} {'rows':>5}")
        for n in sizes:
            _, _, r0 = _clock(_reference)
            table, w, c = _clock(lambda n=n, q=quick: tradeoff(n, quick=q, **kw))
            _, _, r1 = _clock(_reference)
            ref = (r0 + r1) / 2
            ns.append(n)
            cpus.append(c)
            units.append(c / ref)
            print(f"{n:>6} {c:8.2f} {w:8.2f} {c / ref:16.1f} {len(table):>5}", flush=True)
        lo = [i for i, n in enumerate(ns) if n <= 1000]
        hi = [i for i, n in enumerate(ns) if n >= 1000]
        for label, idx in (("100-1000", lo), ("1000-10^4", hi), ("all", list(range(len(ns))))):
            sc = _slope([ns[i] for i in idx], [cpus[i] for i in idx])
            su = _slope([ns[i] for i in idx], [units[i] for i in idx])
            print(f"slope {label:>9}: cpu n^{sc:.2f}, reference units n^{su:.2f}")
            record(f"tradeoff {name} cost slope {label} (reference units)", su, "n^", "none")
        if ns and ns[-1] == 10**4:
            goal = 10.0 if quick else 60.0
            print(f"n = 10^4 {name}: {cpus[-1]:.1f} s cpu (goal {goal:g} s on 2 cores)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--quick-only", action="store_true")
    ap.add_argument("--scaling", action="store_true", help="cost versus n (issue 27)")
    ap.add_argument("--default", action="store_true", help="with --scaling: default effort too")
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
    args = ap.parse_args()
    if args.scaling:
        scaling(args.sizes, args.default)
        return

    def _imports():
        __import__("gctheory.cli").cli.build_parser()  # every command's module, as the CLI
        __import__("gctheory.plots.tradeoff")  # matplotlib

    _, w_imp, c_imp = _clock(_imports)
    from gctheory.plots.tradeoff import save_atlas
    from gctheory.tradeoff import tradeoff

    _reference()  # warm caches (scipy, mpmath) before timing the reference
    _, w_ref, c_ref = _clock(_reference)
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
    )
    print(f"import of the CLI and matplotlib: wall {w_imp:6.2f} s, cpu {c_imp:6.2f} s")
    print(f"reference (load-grid --n {args.n}): wall {w_ref:6.2f} s, cpu {c_ref:6.2f} s")
    modes = [True] if args.quick_only else [True, False]
    with tempfile.TemporaryDirectory() as tmp:
        for quick in modes:
            kw = dict(
                kappa=1e4, eps=1e-3, delay="pareto(scale=0.001, shape=1.1)", quick=quick, rng=0
            )
            table, w_t, c_t = _clock(lambda kw=kw: tradeoff(args.n, **kw))
            dpi = 100 if quick else 130  # as the command does
            _, w_f, c_f = _clock(
                lambda table=table, dpi=dpi: save_atlas(table, Path(tmp) / "atlas", dpi=dpi)
            )
            w, c = w_imp + w_t + w_f, c_imp + c_t + c_f
            name = "--quick" if quick else "default"
            goal = 5.0 if quick else 30.0
            print(
                f"tradeoff --n {args.n} {name:8s}: table wall {w_t:6.2f} s cpu {c_t:6.2f} s | "
                f"figure wall {w_f:5.2f} s cpu {c_f:5.2f} s | total wall {w:6.2f} s "
                f"cpu {c:6.2f} s (goal {goal:g} s) | total / reference: wall x{w / w_ref:.1f}, "
                f"cpu x{c / c_ref:.1f} | {len(table)} rows"
            )
            # informative only: the load-grid reference shares code with the table (it got
            # 1.75x faster with issue 27's load-bound work, which raised this ratio)
            record(f"tradeoff --n {args.n} {name} cpu / load-grid cpu", c / c_ref, better="none")


if __name__ == "__main__":
    main()
