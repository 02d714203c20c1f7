"""Exact finite-length recursion (Di et al. 2002): time versus n, float64 and exact integers.

Times :func:`gctheory.ldpc.erasure_profile` for the (3, 6) ensemble at several
lengths in one process and prints each time as a ratio to the smallest length
(the baseline), the fitted exponent of time vs n (the analysis says O(n^3):
``n`` layers of ``(m+1)^2`` states), the cost model's prediction
(:func:`gctheory.ldpc.finite_length_cost`, which decides what is refused) and,
for the float path, the largest relative difference from the exact run where
both ran.

Run: ``python benchmarks/bench_finite_length.py [--float-n 50 100 200 400] [--exact-n 50 100]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from gctheory import ldpc  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402


def _time(n: int, exact: bool) -> tuple[float, ldpc.ErasureProfile]:
    t0 = time.perf_counter()
    prof = ldpc.erasure_profile(n, 3, 6, exact=exact, max_seconds=1e6)
    return time.perf_counter() - t0, prof


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--float-n", type=int, nargs="+", default=[50, 100, 200, 400])
    ap.add_argument("--exact-n", type=int, nargs="+", default=[50, 100])
    args = ap.parse_args()
    ldpc.erasure_profile(12, 3, 6)  # warm-up (imports)
    exact_profiles = {}
    for label, ns, exact in (("float64", args.float_n, False), ("exact", args.exact_n, True)):
        print(f"\n{label} arithmetic, (3,6) ensemble")
        print(f"{'n':>6} {'seconds':>9} {'ratio':>8} {'predicted s':>12} {'max rel. diff':>14}")
        times = []
        for n in ns:
            sec, prof = _time(n, exact)
            times.append(sec)
            if exact:
                exact_profiles[n] = prof
            diff = ""
            if not exact and n in args.exact_n:
                ref = exact_profiles.get(n) or _time(n, True)[1]
                exact_profiles[n] = ref
                rel = max(
                    abs(float(a) - b) / float(a) for a, b in zip(ref.failure, prof.failure) if a
                )
                diff = f"{rel:.1e}"
            pred = ldpc.finite_length_cost(n, 3, 6, exact=exact)
            print(f"{n:>6} {sec:>9.3f} {sec / times[0]:>8.1f} {pred:>12.3f} {diff:>14}")
        if len(ns) > 1:
            slope = np.polyfit(np.log(ns), np.log(times), 1)[0]
            print(f"fitted exponent of time vs n: {slope:.2f} (O(n^3) expected; exact grows faster")
            record(f"{label} finite-length: exponent of time vs n", slope, better="none")
            print("as the integers grow with n)")


if __name__ == "__main__":
    main()
