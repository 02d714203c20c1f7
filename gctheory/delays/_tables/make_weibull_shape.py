"""Compute the Weibull shape table read by :mod:`gctheory.delays._weibull_shape` (offline).

Run ``python -m gctheory.delays._tables.make_weibull_shape [--out PATH]`` from the
repository (about 5 min of CPU on one core at the default replicates; the shipped file
was made as two processes, ``build(n_grid=...)`` on two parts of :data:`N_GRID`
concatenated along ``n``, which gives the same numbers: each ``n`` has its own seeded
stream). For each sample size of :data:`N_GRID` it draws :data:`REPLICATES` seeded
samples per grid shape ``k_j = 2^(j/4)`` (:data:`~gctheory.delays._weibull_shape.GRID`)
and stores the quantiles at :data:`PROBS` of

- ``shape_q[n, j, p]``: the three-parameter (free shift) maximum-likelihood estimate of
  the shape (:func:`~gctheory.delays._weibull_shape.shape_law`);
- ``pivot_q[n, p]``: the two-parameter pivot ``k_hat / k``
  (:func:`~gctheory.delays._weibull_shape.pivot_law`).

The file records the seed, the replicate count and the script's :data:`VERSION`;
:func:`gctheory.delays._weibull_shape.load_table` checks the version and the grids. The
Monte Carlo is the same code the run time used before, so the table reproduces it at the
grid points (tests/test_delays_fit_tables.py recomputes a few of them with another seed
and checks agreement within their Monte Carlo error).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

#: Sample sizes of the table (the run time interpolates in ``1/sqrt(n)`` between them).
N_GRID = (10, 20, 40, 80, 160, 250, 400)
#: Tail probabilities stored (``(1 - level) / 2`` and ``(1 + level) / 2`` for levels
#: 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998; others are interpolated in the normal scale).
PROBS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9975, 0.999)
#: Bump when the Monte Carlo or the file's layout changes (the loader refuses other versions).
VERSION = 1
DEFAULT_OUT = Path(__file__).with_name("weibull_shape.npz")
#: Monte Carlo samples per cell of the shipped table (the run-time Monte Carlo used 4000).
REPLICATES = 1000


def build(n_grid=N_GRID, replicates=None, log=sys.stderr) -> dict:
    """The table's arrays (see the module docstring)."""
    from gctheory.delays import _weibull_shape as ws

    R = REPLICATES if replicates is None else int(replicates)
    grid = np.array(list(ws.GRID))
    probs = np.array(PROBS)
    shape_q = np.empty((len(n_grid), grid.size, probs.size))
    pivot_q = np.empty((len(n_grid), probs.size))
    for a, n in enumerate(n_grid):
        t0 = time.process_time()
        pivot_q[a] = np.quantile(ws.pivot_law(n, R), probs)
        for b, j in enumerate(grid):
            shape_q[a, b] = np.quantile(ws.shape_law(n, int(j), R), probs)
        print(f"n={n}: {time.process_time() - t0:.1f} s CPU", file=log, flush=True)
    return {
        "n_grid": np.array(n_grid, dtype=np.int64),
        "j_grid": grid.astype(np.int64),
        "probs": probs,
        "shape_q": shape_q,
        "pivot_q": pivot_q,
        "seed": np.int64(ws._SEED),
        "replicates": np.int64(R),
        "version": np.int64(VERSION),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the .npz")
    ap.add_argument("--replicates", type=int, default=None, help="Monte Carlo samples per cell")
    args = ap.parse_args(argv)
    np.savez_compressed(args.out, **build(replicates=args.replicates))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
