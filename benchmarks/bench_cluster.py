"""Benchmark: the real-run master's overhead, and n = 64 workers against the order statistics.

1. Master overhead at n = 16, local engine and Dask, no injected delay. The
   two sides alternate in one process over ``--rounds`` rounds: a *bare map*
   (send the same n worker tasks on a started engine, wait for all n,
   nothing else) and a *coded run* (:func:`gctheory.cluster.run`: send, wait
   for the rule's n - s, decode, step), ``--iterations`` iterations each.
   Per round: the ratio of the medians of the per-iteration wall times, and
   the ratio of the master's own CPU time per iteration (``time.process_time``
   in the master: encoding, the waiting loop's bookkeeping, decoding; a
   blocked wait costs no CPU). Reported: the median ratio over the rounds and
   its spread (min-max). Engine start-up is outside both.
2. n = 64 workers, sleep-dominated injected delays: iterations per second
   against the rate :func:`gctheory.cluster.compare.compare` predicts.
3. Bytes per message against the code's ``ceil(d/m)`` (Ye-Abbe, m = 2).
4. Scale: uncoded GD with no injected delay at n = 8, 64, 256, 1024 on the local engine
   (many coded workers per process): the master's CPU per iteration and the peak memory of
   the whole process tree (summed RSS, sampled every 0.2 s; shared pages count once per
   process, so it overstates). Then at n = 8, alternating, on the bare master's workload
   (least squares, d = 650, 8 rows per worker): ours, a bare mpi4py master after Tandon et
   al. (``bare_mpi_master.py``, under ``mpiexec``) and the least a master on our transport
   costs (``floor_master.py``). Ratios: ours at n = 8 over the bare master (goal <= 1), the
   floor over it, ours at n = 1024 over ours at n = 8 (goal <= 100, linear in n), and the
   memory per coded worker (the slope of the peak between the sizes). The master's CPU is
   measured in a run without the memory sampler (a thread of the master process reading
   /proc: ``time.process_time`` would count it), the memory in another; then the same
   sizes on the Dask engine (grouped at every size).

Usage::

    python benchmarks/bench_cluster.py [--iterations 30] [--rounds 5] [--n 16] [--n-large 64]
        [--engines local,dask,dask-procs] [--sections 1,2,3,4] [--scale-sizes 8,64,256,1024]
        [--bare-rounds 3]

Only the scale and the bare master (section 4): ``--sections 4``; only ours at n = 8 against
the bare master: ``--sections 4 --scale-sizes 8``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402
from floor_master import WORKLOAD as FLOOR_WORKLOAD  # noqa: E402
from floor_master import floor  # noqa: E402

from gctheory import cluster as cl
from gctheory._proc import tree_rss
from gctheory.cluster.compare import compare


def _engine(name: str) -> cl.Engine:
    """``local``, ``dask`` (a LocalCluster of threads in this process: its scheduler's and
    workers' CPU counts as the master's) or ``dask-procs`` (a LocalCluster of worker
    processes: the master process holds only the master and the Dask client)."""
    if name == "dask":
        return cl.DaskEngine()
    if name == "dask-procs":
        return cl.DaskEngine(processes=True, n_workers=2)
    return cl.LocalEngine()


def bare_map(engine: str, n: int, iterations: int, scheme: str, s: int) -> tuple[float, float]:
    """(median wall s, mean master CPU s) per round of a plain map of the n worker tasks."""
    sch = cl.build_scheme(scheme, n, s=s or None)
    rule = cl.Rule(sch)
    wl = cl.make_workload("softmax", sch.k)
    eng = _engine(engine)
    eng.start(rule.states(wl))
    w = wl.initial_params()
    walls, cpus = [], []
    try:
        for t in range(iterations + 2):
            t0, c0 = time.perf_counter(), time.process_time()
            for i in range(n):
                eng.submit(i, t, w, 0.0, False)
            got = 0
            while got < n:
                got += sum(ev.kind == "result" and ev.t == t for ev in eng.poll(10.0))
            if t >= 2:  # warm-up rounds dropped
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
    finally:
        eng.close()
    return float(np.median(walls)), float(np.mean(cpus))


def coded(engine: str, n: int, iterations: int, scheme: str, s: int) -> tuple[float, float, float]:
    """(median wall s, mean master CPU s, mean decode s) per iteration of a real run."""
    r = cl.run(scheme, n, s=s or None, engine=_engine(engine), delay="constant(0)",
               iterations=iterations + 2, rng=0, eval_every=0)  # fmt: skip
    return (float(np.median(r.iteration_time[2:])), float(np.mean(r.master_cpu[2:])),
            float(np.mean(r.decode_time[2:])))  # fmt: skip


def overhead(engine: str, n: int, iterations: int, rounds: int) -> None:
    for scheme, s in (("gd", 0), ("cyclic_mds", 2)):
        wall_r, cpu_r, rows = [], [], []
        for _ in range(rounds):
            bw, bc = bare_map(engine, n, iterations, scheme, s)
            cw, cc, dec = coded(engine, n, iterations, scheme, s)
            wall_r.append(cw / bw)
            cpu_r.append(cc / bc)
            rows.append((bw, cw, bc, cc, dec))
        m = np.median(np.array(rows), axis=0) * 1e3
        print(f"   {engine:5s} {scheme:10s} wall: bare {m[0]:6.2f} ms, coded {m[1]:6.2f} ms -> "
              f"ratio median {np.median(wall_r):.2f} (min {min(wall_r):.2f}, max "
              f"{max(wall_r):.2f});  master CPU: bare {m[2]:.3f} ms, coded {m[3]:.3f} ms -> "
              f"ratio median {np.median(cpu_r):.2f} (min {min(cpu_r):.2f}, max "
              f"{max(cpu_r):.2f}); decode {m[4]:.3f} ms")  # fmt: skip
        record(f"{engine} {scheme}: coded / bare master CPU, n = {n}", float(np.median(cpu_r)),
               better="lower")  # fmt: skip


def _tree_peak(stop: threading.Event, out: list[float]) -> None:
    """Peak summed RSS (bytes) of this process and its descendants, every 0.2 s."""
    peak = 0
    while not stop.wait(0.2):
        peak = max(peak, tree_rss(os.getpid()))
    out.append(float(peak))


def _gd(n: int, iterations: int) -> cl.ClusterRun:
    return cl.run("gd", n, delay="constant(0)", iterations=iterations + 2, rng=0,
                  eval_every=0, progress=False)  # fmt: skip


def scale_point(n: int, iterations: int, memory: bool = True) -> tuple[float, float]:
    """(mean master CPU s per iteration, peak tree RSS bytes or nan) of uncoded GD on n
    workers. The CPU comes from a run without the memory sampler (a thread of this process:
    its reading of /proc would count as the master's CPU), the memory from a second run."""
    cpu = float(np.mean(_gd(n, iterations).master_cpu[2:]))
    if not memory:
        return cpu, float("nan")
    stop, peak = threading.Event(), []
    th = threading.Thread(target=_tree_peak, args=(stop, peak))
    th.start()
    try:
        _gd(n, iterations)
    finally:
        stop.set()
        th.join()
    return cpu, peak[0]


def scale_dask(sizes: list[int], iterations: int) -> None:
    """The scale line on the Dask engine, grouped at every size (one long-lived task per Dask
    worker process; the default above 16 coded workers): master CPU per iteration (the
    master's process holds the LocalCluster's scheduler and nannies too) and the peak memory
    of the process tree."""
    print(f"   dask engine, grouped (a LocalCluster of worker processes), {iterations} iterations:")
    cpu, mem = {}, {}
    for n in sizes:
        stop, peak = threading.Event(), list[float]()
        th = threading.Thread(target=_tree_peak, args=(stop, peak))
        th.start()
        try:
            r = cl.run("gd", n, engine=cl.DaskEngine(grouped=True), delay="constant(0)",
                       iterations=iterations + 2, rng=0, eval_every=0, progress=False)  # fmt: skip
        finally:
            stop.set()
            th.join()
        cpu[n], mem[n] = float(np.mean(r.master_cpu[2:])), peak[0]
        print(f"   n = {n:5d}: master CPU {1e3 * cpu[n]:7.3f} ms per iteration, peak memory "
              f"{mem[n] / 2**30:.3f} GiB ({r.engine})")  # fmt: skip
    lo, hi = min(sizes), max(sizes)
    if hi > lo:
        ratio = cpu[hi] / cpu[lo]
        print(f"   dask master CPU n = {hi} / n = {lo}: {ratio:.1f}; memory per coded worker "
              f"{(mem[hi] - mem[lo]) / (hi - lo) / 2**10:.0f} KiB")  # fmt: skip
        record(f"dask gd: master CPU per iteration, n = {hi} / n = {lo}", ratio, better="lower")


def bare_mpi(n: int, iterations: int) -> float | None:
    """The bare mpi4py master's CPU per iteration (s) at n workers, or None without MPI."""
    exe = shutil.which("mpiexec")
    if exe is None:
        return None
    script = Path(__file__).resolve().parent / "bare_mpi_master.py"
    cmd = [exe, "--allow-run-as-root", "--oversubscribe", "-n", str(n + 1), sys.executable,
           str(script), "--iterations", str(iterations), "--d", "650"]  # fmt: skip
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"cpu_ms=([0-9.]+)", out)
    return float(m.group(1)) / 1e3 if m else None


def scale(sizes: list[int], iterations: int, rounds: int = 3) -> None:
    print(f"4. scale: uncoded GD, no injected delay, {iterations} iterations, local engine")
    cpu, mem = {}, {}
    for n in sizes:
        cpu[n], mem[n] = scale_point(n, iterations)
        print(f"   n = {n:5d}: master CPU {1e3 * cpu[n]:7.3f} ms per iteration, peak memory "
              f"{mem[n] / 2**30:.3f} GiB (summed RSS of the process tree)")  # fmt: skip
    lo, hi = min(sizes), max(sizes)
    if hi > lo:
        ratio = cpu[hi] / cpu[lo]
        per = (mem[hi] - mem[lo]) / (hi - lo)
        print(f"   master CPU n = {hi} / n = {lo}: {ratio:.1f} (goal <= 100); memory per coded "
              f"worker {per / 2**10:.0f} KiB; peak at n = {hi}: {mem[hi] / 2**30:.2f} GiB "
              "(goal < 4)")  # fmt: skip
        record(f"local gd: master CPU per iteration, n = {hi} / n = {lo}", ratio, better="lower")
    if rounds > 0:
        bare_rounds(rounds)


def bare_rounds(rounds: int) -> None:
    """At n = 8, alternating: ours (200 iterations), the bare mpi4py master (300) and the
    reduced master on our transport (``floor_master.py``, 2000), all on the bare master's
    workload (least squares, d = 650, 8 rows per worker)."""
    ours, bare, low, cold = [], [], [], []
    for _ in range(rounds):
        b = bare_mpi(8, 300)
        if b is None:
            print("   bare mpi4py master: not run (no mpiexec or mpi4py)")
            return
        r = cl.run("gd", 8, workload={**FLOOR_WORKLOAD, "k": 8}, delay="constant(0)",
                   iterations=202, rng=0, eval_every=0, progress=False)  # fmt: skip
        ours.append(float(np.mean(r.master_cpu[2:])))
        bare.append(b)
        f = floor(8, 2000)
        low.append(f["cpu"])
        cold.append(f["op_cold"] / f["op_warm"])
    ratios = np.array(ours) / np.array(bare)
    ms = lambda v: f"{1e3 * np.median(v):.3f} ms"  # noqa: E731
    print(f"   n = 8, master CPU per iteration, median of {rounds} alternating rounds:\n"
          f"     ours {ms(ours)}; bare mpi4py master (Tandon et al.'s design) {ms(bare)};\n"
          f"     reduced master on our transport (floor_master.py) {ms(low)}\n"
          f"     ours / bare {np.median(ratios):.2f} (min {min(ratios):.2f}, max "
          f"{max(ratios):.2f}; goal <= 1); floor / bare {np.median(np.array(low) / bare):.2f}\n"
          f"     a small numpy operation right after the wait: {np.median(cold):.1f}x its warm "
          "time")  # fmt: skip
    record("local gd: master CPU per iteration / bare mpi4py master, n = 8",
           float(np.median(ratios)), better="lower")  # fmt: skip
    record("local transport floor: master CPU per iteration / bare mpi4py master, n = 8",
           float(np.median(np.array(low) / bare)), better="lower")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--n-large", type=int, default=64)
    ap.add_argument("--engines", default="local,dask,dask-procs")
    ap.add_argument("--sections", default="1,2,3,4")
    ap.add_argument("--scale-sizes", default="8,64,256,1024")
    ap.add_argument(
        "--bare-rounds",
        type=int,
        default=3,
        help="section 4: alternating rounds against the bare mpi4py master (0: none)",
    )
    args = ap.parse_args()
    n, T = args.n, args.iterations
    sections = {int(x) for x in args.sections.split(",")}
    if 1 in sections:
        section_overhead(args.engines.split(","), n, T, args.rounds)
    if 2 in sections:
        section_large(args.n_large, T)
    if 3 in sections:
        section_bytes()
    if 4 in sections:
        scale([int(x) for x in args.scale_sizes.split(",")], T, args.bare_rounds)
        scale_dask([int(x) for x in args.scale_sizes.split(",")], T)


def section_overhead(engines: list[str], n: int, T: int, rounds: int) -> None:
    print(f"1. master overhead, n = {n}, no injected delay, {rounds} alternating rounds of "
          f"{T} iterations (bare map of n tasks vs coded run)")  # fmt: skip
    for engine in engines:
        overhead(engine, n, T, rounds)


def section_large(nl: int, T: int) -> None:
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
    print(f"   rate against the law alone: {meas * c.law_mean:.3f}; master CPU "
          f"{1e3 * np.mean(r.master_cpu):.2f} ms per iteration")  # fmt: skip


def section_bytes() -> None:
    print("3. message length (numbers) against the code's ceil(d/m)")
    for scheme, kw in (("cyclic_mds", {"s": 2}), ("ye_abbe", {"s": 2, "m": 2})):
        r = cl.run(scheme, 6, delay="constant(0)", iterations=2, rng=0, eval_every=0, **kw)
        print(f"   {scheme:11s} m = {kw.get('m', 1)}: code {r.message_numbers}, measured "
              f"{r.message_numbers_measured}, bytes up per survivor "
              f"{np.mean(r.bytes_up) / r.need:.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
