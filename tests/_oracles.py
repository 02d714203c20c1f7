"""User oracles the cluster tests share (importable by the worker processes that run them)."""

from __future__ import annotations

import numpy as np


class FlakyOracle:
    """A user's oracle whose partition 3 raises (on whichever worker holds it)."""

    k, dim = 4, 3

    def initial_params(self):
        return np.zeros(3)

    def partial_gradient(self, params, partition):
        if partition == 3:
            raise RuntimeError("bad batch")
        return params - partition


#: the master's order of events of a run of :class:`NotedMetrics` (the workers have their
#: own copies of this list)
EVENTS: list = []


class NotedMetrics:
    """The quadratic workload, noting in :data:`EVENTS` when the master evaluates its metrics."""

    def __init__(self, k):
        from gctheory.cluster.workloads import QuadraticWorkload

        self.inner = QuadraticWorkload(k)
        self.k, self.dim = k, self.inner.dim

    def initial_params(self):
        return self.inner.initial_params()

    def partial_gradient(self, params, partition):
        return self.inner.partial_gradient(params, partition)

    def metrics(self, params):
        EVENTS.append("metrics")
        return self.inner.metrics(params)
