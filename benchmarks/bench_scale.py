"""Cost versus size of every function issue 12 names (a measurement, not a test).

For each function, the seconds one call takes at n = 10**4, 10**5 and 10**6 (or the
size parameter the issue names), each call in a child process with a time limit, so a
call that would run for minutes prints ``> LIMIT`` instead of stalling the run. A call
refused at once with a ``ValueError`` prints ``refused`` and the time it took to say
so: refusing at once is an answer too (the rule: answer in seconds or refuse at once).
The last column is the ratio of the largest to the smallest size's time, measured in
this run (absolute seconds are noisy on a shared machine; ratios in one run are not).

Each child may add at most ``MEMORY_LIMIT`` of address space (a larger allocation is
reported as MemoryError instead of calling the OOM killer on a shared machine).

Run: ``python benchmarks/bench_scale.py [LIMIT_SECONDS]`` (default 60).
The issue's measurements before the fixes (2 cores): ``s_kappa_commfr(1e4, 1e4)`` 31.6 s,
``frc_failure_probability(1e6, 1e5, 3)`` > 60 s (1e5: 4.8 s), ``halbawi_optimal_f(1e7)``
> 60 s (1e6: 21.5 s), ``gctheory load --n 100000 --s 10000`` > 60 s,
``regular_ensemble(1e9, 3, 6)`` killed by the OOM killer, ``estimate_probability(ev,
1e15)`` a bare MemoryError.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _history import record  # noqa: E402

SIZES = (10**4, 10**5, 10**6)


def _event(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.random(size) < 0.5


def _calls() -> dict[str, tuple[Callable[[int], object], int]]:
    """name -> (call at size n, the size the issue measured)."""
    from scipy import stats

    from gctheory import (
        estimate_probability,
        frc_failure_probability,
        halbawi_optimal_f,
        order_statistic_moments,
        regular_ensemble,
        s_kappa_commfr,
    )
    from gctheory.cli import main

    def load_cli(n: int) -> int:
        return main(["load", "--n", str(n), "--s", str(n // 10), "--format", "csv"])

    return {
        "s_kappa_commfr(n, n, kappa=1e3, eps=1e-3)": (
            lambda n: s_kappa_commfr(n, n, kappa=1e3, eps=1e-3),
            10**4,
        ),
        "frc_failure_probability(n, n/10, 3)": (
            lambda n: frc_failure_probability(n, n // 10, 3),
            10**6,
        ),
        "halbawi_optimal_f(n, Fig. 3 params)": (
            lambda n: halbawi_optimal_f(n, t0=0.001, xi=1.1, n_cg=0.035),
            10**7,
        ),
        "E[X_(1:n)], Pareto(0.001, 1.1)": (
            lambda n: order_statistic_moments(stats.pareto(1.1, scale=0.001), 1, n),
            10**8,
        ),
        "gctheory load --n n --s n/10": (load_cli, 10**5),
        "regular_ensemble(n, 3, 6)": (lambda n: regular_ensemble(n, 3, 6, rng=1), 10**9),
        "estimate_probability(ev, n trials)": (
            lambda n: estimate_probability(_event, n, rng=1, progress=False),
            10**15,
        ),
    }


MEMORY_LIMIT = 6 * 2**30  # address space a call may add: past it, MemoryError, not the OOM killer


def _child(name: str, n: int, conn) -> None:
    import contextlib
    import io
    import resource
    from pathlib import Path

    call = _calls()[name][0]
    pages = int(Path("/proc/self/statm").read_text().split()[0])
    limit = pages * resource.getpagesize() + MEMORY_LIMIT
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    t = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            call(n)
        conn.send(("ok", time.perf_counter() - t))
    except ValueError as exc:
        conn.send(("refused", time.perf_counter() - t, str(exc)[:80]))
    except BaseException as exc:  # noqa: BLE001 - reported, not raised
        conn.send((type(exc).__name__, time.perf_counter() - t, str(exc)[:80]))


def measure(name: str, n: int, limit: float) -> tuple[str, float]:
    parent, child = mp.Pipe(duplex=False)
    proc = mp.get_context("fork").Process(target=_child, args=(name, n, child))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return "timeout", limit
    if not parent.poll():
        return f"died (exit {proc.exitcode})", float("nan")
    status, seconds, *_ = parent.recv()
    return status, seconds


def _cell(status: str, sec: float, limit: float) -> str:
    if status == "ok":
        return f"{sec:.3g}"
    if status == "timeout":
        return f"> {limit:g}"
    return f"{status} {sec:.2g}"


def main(limit: float = 60.0) -> None:
    print(f"seconds per call (each in a child process, limit {limit:g} s)")
    head = "".join(f"{f'n={n:.0e}':>14s}" for n in SIZES)
    print(f"{'function':42s}{head}{'issue case':>22s}  ratio 1e6/1e4")
    for name, (_, issue_n) in _calls().items():
        cells, times = [], []
        for n in SIZES:
            status, sec = measure(name, n, limit)
            times.append(sec if status == "ok" else float("nan"))
            cells.append(_cell(status, sec, limit))
        status, sec = measure(name, issue_n, limit)
        issue = f"n={issue_n:.0e}: {_cell(status, sec, limit)}"
        ratio = times[-1] / times[0] if times[0] else float("nan")
        row = "".join(f"{c:>14s}" for c in cells)
        print(f"{name:42s}{row}{issue:>22s}  x{ratio:.3g}", flush=True)
        # informative only: a faster small case raises it (E[X_(1:n)] went 1.5 -> 11)
        record(f"{name}: time at 1e6 / time at 1e4", ratio, better="none")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0)
