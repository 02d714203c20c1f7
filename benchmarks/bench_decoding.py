"""Benchmark of decoding costs (a measurement, not a test).

Prints, against baselines measured in the same run:

1. Halbawi et al. 2017, Algorithm 3: time to compute the Reed-Solomon decoding
   vector for f survivors, against a generic LAPACK solve of ``G_F^T a = e_1``
   (the O(f^3) baseline), with the fitted log-log exponents (goal: about 2
   for Algorithm 3, about 3 for the solve at large f) and the largest
   relative deviation of each from eq. (14) evaluated in mpmath at 40 digits
   (the solve loses accuracy with cond(G_F); the closed form does not);
2. Kadhe et al. 2019, Proposition 1: time to find the decoding coefficients
   of CommFR-GC on a systematic [s + m, m] MDS code (per-group solves of size
   <= min(m, s)) against the Ye-Abbe scheme (one (n - s) x (n - s) solve), at
   n = 60 and n = 1000, with the operation counts of both cost models.

Run: ``python benchmarks/bench_decoding.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# One BLAS/LAPACK thread, so that the solve baseline is not flattered by threads
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from mpmath import mp  # noqa: E402

from gctheory.codes.commfr import commfr_code  # noqa: E402
from gctheory.codes.reed_solomon import (  # noqa: E402
    rs_decoding_vector,
    rs_decoding_vector_solve,
    rs_inverse_table,
)
from gctheory.codes.ye_abbe import YeAbbeCode, ye_abbe_decoding_cost  # noqa: E402
from gctheory.generators import gaussian_generator  # noqa: E402


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def slope(xs, ys) -> float:
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def _mp_vector(F, n: int, dps: int = 40) -> np.ndarray:
    """eq. (14) of Halbawi et al. evaluated in mpmath at ``dps`` digits (reference)."""
    with mp.workdps(dps):
        inv = [mp.mpf(1)] + [1 / (1 - mp.expjpi(mp.mpf(2 * i) / n)) for i in range(1, n)]
        out = []
        for l in F:
            p = mp.mpf(1)
            for j in F:
                if j != l:
                    p *= inv[(int(l) - int(j)) % n]
            out.append(complex(p))
    return np.array(out)


def bench_alg3(fs: list[int], repeat: int, mp_max: int) -> None:
    print("1. Reed-Solomon decoding vector: Algorithm 3 (O(f^2)) vs generic solve (O(f^3))")
    print(
        f"{'f':>6} {'n':>6} {'Alg.3 [ms]':>11} {'solve [ms]':>11} {'solve/Alg.3':>12} "
        f"{'Alg.3 vs mp':>12} {'solve vs mp':>12}"
    )
    rng = np.random.default_rng(2017)
    t3, ts = [], []
    for f in fs:
        n = 2 * f
        F = rng.permutation(n)[:f]
        table = rs_inverse_table(n)  # precomputed once per n, as in Section 4.1
        a = rs_decoding_vector(F, n, table=table)
        b = rs_decoding_vector_solve(F, n)
        if f <= mp_max:
            ref = _mp_vector(F, n)
            scale = np.max(np.abs(ref))
            da = f"{np.max(np.abs(a - ref)) / scale:.1e}"
            db = f"{np.max(np.abs(b - ref)) / scale:.1e}"
        else:
            da = db = "-"
        ta = best_of(lambda F=F, n=n, table=table: rs_decoding_vector(F, n, table=table), repeat)
        tb = best_of(lambda F=F, n=n: rs_decoding_vector_solve(F, n), repeat)
        t3.append(ta)
        ts.append(tb)
        print(
            f"{f:>6} {n:>6} {1e3 * ta:>11.3f} {1e3 * tb:>11.3f} {tb / ta:>12.2f} {da:>12} {db:>12}"
        )
    half = len(fs) // 2
    print(
        f"   fitted exponent (all f):        Alg. 3 {slope(fs, t3):.2f}, solve {slope(fs, ts):.2f}"
    )
    print(
        f"   fitted exponent (f >= {fs[half]}): Alg. 3 {slope(fs[half:], t3[half:]):.2f}, "
        f"solve {slope(fs[half:], ts[half:]):.2f}"
    )
    print()


def _ye_abbe_decoder(n: int, s: int, m: int, rng) -> YeAbbeCode:
    """A Ye-Abbe code whose decoder is usable without building B.

    Decoding (``YeAbbeCode._solve``) only uses V; building B needs n solves of
    size n - s - m, which takes minutes at n = 1000. For n <= 200 the full
    constructor is used.
    """
    if n <= 200:
        return YeAbbeCode(n, s, m, V="gaussian", rng=rng)
    code = object.__new__(YeAbbeCode)
    code.n, code.k, code.s, code.m = n, n, s, m
    code.V = gaussian_generator(n - s, n, rng=rng)
    return code


def bench_prop1(cases: list[tuple[int, int, int]], repeat: int) -> None:
    print("2. Decoding coefficients: CommFR-GC (systematic [s+m, m] MDS) vs Ye-Abbe (Gaussian V)")
    print(
        f"{'n':>6} {'s':>4} {'m':>4} {'CommFR [ms]':>12} {'Ye-Abbe [ms]':>13} {'ratio':>8} "
        f"{'ops CommFR':>11} {'ops Ye-Abbe':>12}"
    )
    rng = np.random.default_rng(2019)
    for n, s, m in cases:
        comm = commfr_code(n, n, s + m, m, family="systematic", rng=rng)
        ye = _ye_abbe_decoder(n, s, m, rng)
        times = {}
        for name, code in (("commfr", comm), ("ye", ye)):
            samples = []
            for _ in range(3):  # three random survivor sets, best-of-repeat each
                T = np.sort(rng.permutation(n)[: n - s])
                samples.append(best_of(lambda code=code, T=T: code._solve(T), repeat))
            times[name] = statistics.median(samples)
        ops_c = comm.decoding_cost().setup
        ops_y = ye_abbe_decoding_cost(n, s, m).setup
        ratio = times["ye"] / times["commfr"]
        print(
            f"{n:>6} {s:>4} {m:>4} {1e3 * times['commfr']:>12.3f} {1e3 * times['ye']:>13.3f} "
            f"{ratio:>8.1f} {ops_c:>11} {ops_y:>12}"
        )
    print(
        "   (ratio = Ye-Abbe time / CommFR time; Proposition 1: O(min(m,s)^3 n / max(m,s)) "
        "vs O(n^3))"
    )
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    args = ap.parse_args()
    if args.quick:
        bench_alg3([64, 128, 256, 512, 1024], repeat=3, mp_max=256)
        bench_prop1([(60, 3, 2), (1000, 20, 5)], repeat=2)
    else:
        bench_alg3([64, 128, 256, 512, 1024, 2048, 4096], repeat=5, mp_max=1024)
        bench_prop1([(60, 3, 2), (60, 10, 5), (1000, 20, 5), (1000, 50, 50)], repeat=3)


if __name__ == "__main__":
    main()
