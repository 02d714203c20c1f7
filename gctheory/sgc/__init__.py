"""Sequential gradient coding on measured traces (Krishnan, Ebrahimi, Khisti, ICLR 2023).

The constructions (SR-SGC, M-SGC, the (B, W, lambda) model) live in
:mod:`gctheory.codes.sequential`; this package runs them, with GC, no coding
and no-wait, over a measured delay trace (:mod:`gctheory.sgc.runtime`), and under a
memoryful straggler model by Monte Carlo (:mod:`gctheory.sgc.memory_times`) and exactly
through the run's Markov chain (:mod:`gctheory.sgc.memory_exact`).
"""

from gctheory.sgc.runtime import (
    RULE_DIFFERENCES,
    RULES,
    SCHEMES,
    SchemeRun,
    param_grid,
    run_scheme,
    scheme_delay,
    scheme_load,
    search_runtimes,
    trace_delays,
)

__all__ = [
    "RULE_DIFFERENCES",
    "RULES",
    "SCHEMES",
    "SchemeRun",
    "param_grid",
    "run_scheme",
    "scheme_delay",
    "scheme_load",
    "search_runtimes",
    "trace_delays",
]
