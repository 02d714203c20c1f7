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
