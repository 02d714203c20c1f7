"""A bare mpi4py master and workers, after the description in Tandon et al. (ICML 2017), Sec. 6.

Written for this benchmark from the paper's description (not from its code): rank 0, the
master, sends the current parameters to every worker with non-blocking sends, posts a
non-blocking receive per worker, waits (``Waitany``) until ``n - s`` messages have come,
combines them with the decoding vector, and steps; the workers (ranks 1..n) compute their
coded partial gradient of a least-squares model on their own data and send it back. Nothing
else: no trace, no delay model, no fault handling. This is the baseline the real-run master's
own CPU per iteration is held against in ``bench_cluster.py`` (no injected delay).

Run::

    mpiexec -n 9 python benchmarks/bare_mpi_master.py --iterations 200 --d 650

Rank 0 prints one line: ``BARE n=8 d=650 cpu_ms=... wall_ms=...`` (the master's mean CPU
and wall time per iteration, after the warm-up iterations). OpenMPI's ``Waitany`` polls, so
the master's CPU includes its wait; with no injected delay the wait is short.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from mpi4py import MPI

WARMUP = 10


def master(comm, n: int, s: int, d: int, iterations: int, step: float) -> None:
    w = np.zeros(d)
    bufs = [np.empty(d) for _ in range(n)]
    dec = np.ones(n)  # uncoded sum (s = 0): the decoding vector is all ones
    cpus, walls = [], []
    for t in range(iterations + WARMUP):
        c0, w0 = time.process_time(), time.perf_counter()
        sends = [comm.Isend(w, dest=i + 1, tag=t) for i in range(n)]
        recvs = [comm.Irecv(bufs[i], source=i + 1, tag=t) for i in range(n)]
        got: list[int] = []
        while len(got) < n - s:
            got.append(MPI.Request.Waitany(recvs))
        grad = sum(dec[i] * bufs[i] for i in got)
        w = w - step * grad
        MPI.Request.Waitall(sends)
        if s:  # the stragglers' receives: completed later (a bare master drops them)
            MPI.Request.Waitall(recvs)
        if t >= WARMUP:
            cpus.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
    for i in range(n):
        comm.Send(np.full(d, np.nan), dest=i + 1, tag=iterations + WARMUP)  # stop
    print(f"BARE n={n} d={d} cpu_ms={1e3 * np.mean(cpus):.4f} "
          f"wall_ms={1e3 * np.median(walls):.4f}", flush=True)  # fmt: skip


def worker(comm, rank: int, d: int, iterations: int) -> None:
    rng = np.random.default_rng(rank)
    X, y = rng.standard_normal((8, d)), rng.standard_normal(8)  # this worker's data
    w = np.empty(d)
    for t in range(iterations + WARMUP + 1):
        comm.Recv(w, source=0, tag=t)
        if np.isnan(w[0]):
            return
        comm.Send(X.T @ (X @ w - y) / len(y), dest=0, tag=t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--d", type=int, default=650)
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    n = comm.Get_size() - 1
    if comm.Get_rank() == 0:
        master(comm, n, 0, args.d, args.iterations, 1e-3)
    else:
        worker(comm, comm.Get_rank(), args.d, args.iterations)


if __name__ == "__main__":
    main()
