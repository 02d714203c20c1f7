"""Coded gradient descent on real workers: local processes, Dask, MPI.

:func:`run` trains with any scheme of :mod:`gctheory.training` that does not
keep server state (uncoded GD, ignore-stragglers, every exact and approximate
gradient code) on ``n`` real workers, injects the simulator's delays as real
waiting, and records a trace in the :mod:`gctheory.delays` format;
:func:`replay` recomputes a run's parameters bit for bit from its survivor
sets; :func:`compare` holds the measured iteration time against
:mod:`gctheory.runtime`'s prediction. A real run and a simulated run of a
scheme share the scheme's definition (:func:`gctheory.training.make_scheme`);
only the clock differs.

Modules (one concept each): :mod:`~gctheory.cluster.workloads` (the
gradient-oracle protocol, the digits workloads), :mod:`~gctheory.cluster.worker`
(what a worker holds and sends), :mod:`~gctheory.cluster.engines` (local,
Dask), :mod:`~gctheory.cluster.mpi` (MPI), :mod:`~gctheory.cluster.rules` (whom
the master waits for, how it decodes), :mod:`~gctheory.cluster.master` (the
run loop), :mod:`~gctheory.cluster.trace`, :mod:`~gctheory.cluster.replay`,
:mod:`~gctheory.cluster.compare` (measured versus predicted).

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017.
"""

from __future__ import annotations

from gctheory.cluster.compare import Comparison, compare
from gctheory.cluster.engines import ENGINES, DaskEngine, Engine, Event, LocalEngine, make_engine
from gctheory.cluster.master import (
    STATUSES,
    ClusterError,
    ClusterRun,
    WorkerLostWarning,
    run,
)
from gctheory.cluster.replay import Replay, replay
from gctheory.cluster.rules import SUPPORTED_SCHEMES, Rule, build_scheme
from gctheory.cluster.trace import load_run, run_trace, save_run
from gctheory.cluster.worker import OracleError, WorkerState
from gctheory.cluster.workloads import (
    WORKLOADS,
    DigitsWorkload,
    GradientOracle,
    make_workload,
    roc_auc,
)

__all__ = [
    "ENGINES",
    "STATUSES",
    "SUPPORTED_SCHEMES",
    "WORKLOADS",
    "ClusterError",
    "Comparison",
    "ClusterRun",
    "DaskEngine",
    "DigitsWorkload",
    "Engine",
    "Event",
    "GradientOracle",
    "LocalEngine",
    "OracleError",
    "Replay",
    "Rule",
    "WorkerLostWarning",
    "WorkerState",
    "build_scheme",
    "compare",
    "load_run",
    "make_engine",
    "make_workload",
    "replay",
    "roc_auc",
    "run",
    "run_trace",
    "save_run",
]
