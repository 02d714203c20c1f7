"""Benchmark: the real-run master's overhead, and n = 64 workers against the order statistics.

1. Master overhead at n = 16 (local engine, no injected delay): the mean
   iteration time of a coded run (send, wait for n - s, decode, step) over the
   mean round trip of a bare engine map of the same n worker tasks (send,
   wait for all n, nothing else), measured in one process on the same engine.
2. n = 64 workers, sleep-dominated injected delays: iterations per second
   against the rate :func:`gctheory.cluster.compare.compare` predicts
   (gctheory.runtime's exact order statistic plus the measured overheads) and
   against the law alone.
3. Bytes per message against the code's ``ceil(d/m)`` (Ye-Abbe, m = 2).

Usage::

    python benchmarks/bench_cluster.py [--iterations 40] [--n 16] [--n-large 64]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402

from gctheory import cluster as cl
from gctheory.cluster.compare import compare


def bare_map(n: int, iterations: int, scheme: str, s: int) -> float:
    """Mean seconds per round of a plain map of the scheme's n worker tasks (wait for all)."""
    sch = cl.build_scheme(scheme, n, s=s)
    rule = cl.Rule(sch)
    wl = cl.make_workload("softmax", sch.k)
    eng = cl.LocalEngine()
    eng.start(rule.states(wl))
    w = wl.initial_params()
    times = []
    try:
        for t in range(iterations + 2):
            t0 = time.perf_counter()
            for i in range(n):
                eng.submit(i, t, w, 0.0, False)
            got = 0
            while got < n:
                got += sum(ev.kind == "result" and ev.t == t for ev in eng.poll(10.0))
            if t >= 2:  # warm-up rounds dropped
                times.append(time.perf_counter() - t0)
    finally:
        eng.close()
    return float(np.mean(times))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--n-large", type=int, default=64)
    args = ap.parse_args()
    n, T = args.n, args.iterations

    print(f"1. master overhead, local engine, n = {n}, no injected delay")
    for scheme, s in (("gd", 0), ("cyclic_mds", 2)):
        bare = bare_map(n, T, scheme, s)
        r = cl.run(scheme, n, s=s or None, delay="constant(0)", iterations=T + 2, rng=0,
                   eval_every=0)  # fmt: skip
        coded = float(np.mean(r.iteration_time[2:]))
        dec = 1e3 * np.mean(r.decode_time)
        print(f"   {scheme:11s} bare map {1e3 * bare:7.2f} ms  run {1e3 * coded:7.2f} ms  "
              f"ratio {coded / bare:5.2f}  (decode {dec:.3f} ms)")  # fmt: skip
        record(f"{scheme} run / bare map, iteration time, n = {n}", coded / bare, better="lower")

    nl = args.n_large
    s = nl // 16
    delay = "shifted_exp(0.01, 0.01)"
    print(f"2. n = {nl}, cyclic_mds s = {s}, injected {delay} per unit load")
    r = cl.run("cyclic_mds", nl, s=s, delay=delay, iterations=T, rng=1, eval_every=0)
    c = compare(r, level=0.99)
    meas = r.iterations_per_second
    print(f"   measured {meas:6.2f} it/s ({1e3 * c.measured:.1f} ms, interval "
          f"{1e3 * c.measured_low:.1f}-{1e3 * c.measured_high:.1f})")  # fmt: skip
    print(f"   predicted {1 / c.predicted:6.2f} it/s ({1e3 * c.predicted:.1f} ms = law "
          f"{1e3 * c.law_mean:.1f} + measured overhead {1e3 * c.overhead:.1f}); "
          f"measured/predicted rate {meas * c.predicted:.3f}; p = {c.p_value:.3f}")  # fmt: skip
    print(f"   rate against the law alone: {meas * c.law_mean:.3f}")

    print("3. message length (numbers) against the code's ceil(d/m)")
    for scheme, kw in (("cyclic_mds", {"s": 2}), ("ye_abbe", {"s": 2, "m": 2})):
        r = cl.run(scheme, 6, delay="constant(0)", iterations=2, rng=0, eval_every=0, **kw)
        print(f"   {scheme:11s} m = {kw.get('m', 1)}: code {r.message_numbers}, measured "
              f"{r.message_numbers_measured}, bytes up per survivor "
              f"{np.mean(r.bytes_up) / r.need:.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
