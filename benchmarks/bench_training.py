"""Benchmark: simulated training iterations per second, per scheme (n = 60, digits data).

Runs 200 iterations of softmax regression on scikit-learn's digits with
n = 60 simulated workers for each scheme and prints iterations per second and
the ratio to wait-for-all GD measured in the same process (the cost of each
scheme's own work: encoding, decoding, selection). Usage:

    python benchmarks/bench_training.py [--iterations 200] [--n 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gctheory.training import simulate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402

SCHEMES = {
    "gd": {},
    "ignore": {"K": 54},
    "lgc": {"K": 54},
    "lgc partial work": {"scheme": "lgc", "K": 54, "partial_work": True},
    "cyclic_mds": {"s": 6},
    "frc": {"s": 5},
    "ye_abbe": {"s": 6, "m": 2, "code_options": {"V": "gaussian"}},
    "commfr": {"s": 3, "m": 2},
    "rs": {"s": 5},
    "dfrc": {"s": 6},
    "brc": {"s": 6},
    "bgc": {"s": 6},
    "lag": {},
    "ggd": {"r": 3},
    "glag": {"r": 3},
    "lagc": {"r": 3, "groups": 6},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--n", type=int, default=60)
    args = ap.parse_args()
    simulate("gd", n=args.n, iterations=2, rng=0)  # load data, warm caches
    base = None
    print(f"{'scheme':<18} {'seconds':>8} {'it/s':>8} {'vs gd':>7}")
    for label, opts in SCHEMES.items():
        opts = dict(opts)
        name = opts.pop("scheme", label)
        t0 = time.perf_counter()
        simulate(name, n=args.n, iterations=args.iterations, rng=1, delay="exp(1)", **opts)
        dt = time.perf_counter() - t0
        rate = args.iterations / dt
        base = rate if base is None else base
        print(f"{label:<18} {dt:8.2f} {rate:8.1f} {rate / base:7.2f}")
        record(f"{label} it/s vs gd", rate / base)


if __name__ == "__main__":
    main()
