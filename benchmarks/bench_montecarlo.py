"""Benchmark of the Monte Carlo engine (a measurement, not a test).

Prints, against baselines measured in the same run:
1. the speed-up of ``executor=2`` (a local process pool) over serial on a
   CPU-bound event (goal: >= 1.8x on 2 cores);
2. the engine's overhead over a bare numpy loop that draws the same chunks
   with the same SeedSequence children (goal: <= 5%).

Run: ``python benchmarks/bench_montecarlo.py [--trials N]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time

# One BLAS/LAPACK thread per process, so "serial" really uses one core.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from gctheory.montecarlo import chunk_plan, estimate_probability  # noqa: E402


def cpu_bound_event(rng: np.random.Generator, size: int, n: int = 64) -> np.ndarray:
    """Is the smallest singular value of a random n x 4 matrix above 1? (SVD-heavy.)"""
    a = rng.standard_normal((size, n, 4))
    return np.linalg.svd(a, compute_uv=False)[:, -1] > 1.0


def bare_loop(event, trials: int, seed: int, chunk_size: int) -> int:
    """The same sampling without the engine: spawn children, loop, count."""
    sizes = chunk_plan(trials, chunk_size)
    children = np.random.SeedSequence(seed).spawn(len(sizes))
    return sum(
        int(np.count_nonzero(event(np.random.default_rng(c), s))) for c, s in zip(children, sizes)
    )


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=400_000)
    ap.add_argument("--chunk-size", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    event = functools.partial(cpu_bound_event, n=64)
    print(f"cores: {os.cpu_count()}, trials: {args.trials}, chunk_size: {args.chunk_size}")

    serial = lambda: estimate_probability(event, args.trials, rng=1, chunk_size=args.chunk_size)
    pooled = lambda: estimate_probability(
        event, args.trials, rng=1, chunk_size=args.chunk_size, executor=2
    )
    assert serial() == pooled(), "serial and pooled results differ"
    t_serial, _ = best_of(serial, args.repeat)
    t_pool, _ = best_of(pooled, args.repeat)
    print(f"serial engine          {t_serial:8.3f} s")
    print(f"executor=2 engine      {t_pool:8.3f} s   (pool start-up included)")
    print(f"speed-up executor=2 / serial: {t_serial / t_pool:.2f}x (goal >= 1.8x)")

    bare = lambda: bare_loop(event, args.trials, 1, args.chunk_size)
    assert bare() == serial().successes, "bare loop and engine disagree"
    # interleave to share the machine's noise fairly
    tb, te = [], []
    for _ in range(args.repeat + 2):
        tb.append(best_of(bare, 1)[0])
        te.append(best_of(serial, 1)[0])
    overhead = min(te) / min(tb) - 1
    print(f"bare numpy loop        {min(tb):8.3f} s")
    print(f"engine (serial)        {min(te):8.3f} s")
    print(f"engine overhead vs bare loop: {100 * overhead:+.1f}% (goal <= 5%)")


if __name__ == "__main__":
    main()
