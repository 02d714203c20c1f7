"""The least a master on the local engine's transport costs: the floor under ours.

``bench_cluster.py`` (section 4) holds the real-run master's CPU per iteration at n = 8
against a bare mpi4py master after Tandon et al. (``bare_mpi_master.py``). This script
measures a third master between the two: one that does only what the bare master does,
on gctheory's own transport (the shared block, the bells and the worker processes of
:class:`gctheory.cluster.LocalEngine`). Each iteration it writes the parameters and the
tasks, rings, waits (yielding its core up to ``LocalEngine.YIELDS`` times, then blocking),
reads the n messages, sums them and steps. No delay model, no record, no rule, no fault
handling. Its CPU per iteration against the bare master's is what the transport costs;
ours against it, what the real master's bookkeeping costs.

It also measures what one small numpy operation costs the master right after its wait
(the workers have just run on its cores) against the same operation in a loop that keeps
the caches warm: the factor by which every operation of the master's bookkeeping counts.

The workload is the bare master's: least squares, ``d = 650``, 8 rows per worker. This
script reaches into the engine's private parts (its block, bells and poller): a measuring
tool, not an API.

Run::

    python benchmarks/floor_master.py [--n 8] [--iterations 2000] [--processes P]

It prints one line: ``FLOOR n=8 P=8 cpu_ms=... op_cold_us=... op_warm_us=...``.
"""

from __future__ import annotations

import argparse
import os
import time
import timeit

import numpy as np

from gctheory.cluster.engines import LocalEngine
from gctheory.cluster.rules import Rule, build_scheme
from gctheory.cluster.shm import RESULT_SLOTS
from gctheory.cluster.workloads import make_workload

WARMUP = 20
#: the bare master's workload (``bare_mpi_master.py``): d = 650, 8 rows per worker
WORKLOAD = {"workload": "quadratic", "dim": 650, "rows": 8, "seed": 0}


def _probe(idx: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """Four small numpy operations, as the master's bookkeeping makes them."""
    a[idx] = 1.0
    b[idx] = a[idx] - 0.5
    a.sum()


def floor(n: int = 8, iterations: int = 2000, processes: int | None = None) -> dict[str, float]:
    """The reduced master's mean CPU per iteration (s), and the probe's cost in place and
    warm (s per call). See the module docstring."""
    if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
        raise ValueError(f"iterations must be a positive int, got {iterations!r}")
    sch = build_scheme("gd", n)
    rule = Rule(sch)
    wl = make_workload({**WORKLOAD, "k": sch.k}, sch.k)
    eng = LocalEngine(processes=processes)
    eng.start(rule.states(wl))
    try:
        return _iterate(eng, n, wl.initial_params(), iterations)
    finally:
        eng.close()


def _iterate(eng: LocalEngine, n: int, w: np.ndarray, iterations: int) -> dict[str, float]:
    for i in range(n):  # the first tasks make the shared block
        eng.submit(i, 0, w, 0.0, True)
    got = 0
    while got < n:
        got += sum(e.kind == "result" for e in eng.poll(5.0))
    board, poller = eng._board, eng._poller
    assert board is not None and eng._bells is not None and poller is not None
    bell = eng._bells[0].fileno()
    everyone, zeros = np.arange(n), np.zeros(n)
    Y = np.empty((n, w.size))
    idx, a, b = np.arange(n), np.zeros(n), np.zeros(n)
    cpus, cold = [], []
    for t in range(1, iterations + WARMUP):
        c0 = time.process_time()
        board.tasks(everyone, t, w, zeros, True)
        os.eventfd_write(bell, 1)
        have, yields = 0, 0
        while have < n:
            new = board.new_results()
            if new.size:
                done = board.produced[new]
                k = (done - 1) % RESULT_SLOTS
                Y[have : have + new.size] = board.results[new, k, : w.size]
                board.consumed[new] = done
                have += new.size
            elif yields < LocalEngine.YIELDS:
                os.sched_yield()
                yields += 1
            else:
                poller.poll(1.0)
        p0 = time.perf_counter_ns()
        _probe(idx, a, b)
        p1 = time.perf_counter_ns()
        w = w - 1e-3 * Y.sum(axis=0)
        if t >= WARMUP:
            cpus.append(time.process_time() - c0)
            cold.append((p1 - p0) * 1e-9)
    warm = min(timeit.repeat(lambda: _probe(idx, a, b), number=1000, repeat=5)) / 1000
    return {"cpu": float(np.mean(cpus)), "op_cold": float(np.median(cold)), "op_warm": warm}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--processes", type=int, default=None)
    args = ap.parse_args()
    out = floor(args.n, args.iterations, args.processes)
    P = args.processes or "default"
    cold, warm = 1e6 * out["op_cold"], 1e6 * out["op_warm"]
    print(f"FLOOR n={args.n} P={P} cpu_ms={1e3 * out['cpu']:.4f} op_cold_us={cold:.2f} "
          f"op_warm_us={warm:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
