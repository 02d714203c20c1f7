"""Coded gradient descent on real workers: local processes, Dask, MPI.

:func:`run` trains with any scheme of :mod:`gctheory.training` that does not
keep server state (uncoded GD, ignore-stragglers, every exact and approximate
gradient code, and the sequential codes SR-SGC and M-SGC, whose jobs span
rounds: :mod:`~gctheory.cluster.sequential`) on ``n`` real workers, injects
the simulator's delays as real waiting, and records a trace in the :mod:`gctheory.delays` format;
:func:`replay` recomputes a run's parameters bit for bit from its survivor
sets; :func:`compare` holds the measured iteration time against
:mod:`gctheory.runtime`'s prediction. A real run and a simulated run of a
scheme share the scheme's definition (:func:`gctheory.training.make_scheme`);
only the clock differs.

Modules (one concept each): :mod:`~gctheory.cluster.workloads` (the
gradient-oracle protocol, the digits workloads), :mod:`~gctheory.cluster.worker`
(what a worker holds and sends), :mod:`~gctheory.cluster.engines` (local,
Dask), :mod:`~gctheory.cluster.mpi` (MPI), :mod:`~gctheory.cluster.rules` (whom
the master waits for, how it decodes), :mod:`~gctheory.cluster.spec` (the run's
description), :mod:`~gctheory.cluster.master` (builds a run from its spec and drives
:func:`gctheory.loop.run_loop`), :mod:`~gctheory.cluster.rounds` (the engine's rounds),
:mod:`~gctheory.cluster.callbacks`, :mod:`~gctheory.cluster.faults`,
:mod:`~gctheory.cluster.record` (the per-iteration records),
:mod:`~gctheory.cluster.trace`, :mod:`~gctheory.cluster.replay`,
:mod:`~gctheory.cluster.compare` (measured versus predicted),
:mod:`~gctheory.cluster.checkpoint` (resume after the master is killed),
:mod:`~gctheory.cluster.torch_oracle` (the optional PyTorch adapter),
:mod:`~gctheory.cluster.network` (rate-limited links between network namespaces);
:mod:`~gctheory.cluster.base` holds what they share (the engine interface,
the trace statuses), :mod:`~gctheory.cluster.results` the run's record.

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017.
"""

from __future__ import annotations

from gctheory.cluster.base import ENGINES, STATUSES, Engine, Event
from gctheory.cluster.compare import Comparison, compare
from gctheory.cluster.engines import DaskEngine, LocalEngine, make_engine
from gctheory.cluster.master import run
from gctheory.cluster.network import Network, NetworkSpec
from gctheory.cluster.replay import Replay, replay
from gctheory.cluster.results import ClusterError, ClusterRun, WorkerLostWarning
from gctheory.cluster.rules import SUPPORTED_SCHEMES, Rule, build_scheme
from gctheory.cluster.sequential import SEQUENTIAL_SCHEMES, SequentialRule
from gctheory.cluster.spec import RunSpec
from gctheory.cluster.torch_oracle import TorchOracle, digits_mlp
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
    "SEQUENTIAL_SCHEMES",
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
    "Network",
    "NetworkSpec",
    "OracleError",
    "Replay",
    "Rule",
    "RunSpec",
    "SequentialRule",
    "TorchOracle",
    "WorkerLostWarning",
    "WorkerState",
    "build_scheme",
    "compare",
    "digits_mlp",
    "load_run",
    "make_engine",
    "make_workload",
    "replay",
    "roc_auc",
    "run",
    "run_trace",
    "save_run",
]
