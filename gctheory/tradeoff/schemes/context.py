"""What every scheme builder of the atlas shares: the :class:`Context` of one call (its
parameters, seeds and caches), :class:`CannotExist`, per-row seeds (:func:`seed_for`) and
the small field helpers of a row (exact or Monte Carlo failure, notes)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory._names import TRADEOFF_SCHEMES as _TRADEOFF_SCHEMES
from gctheory.montecarlo import Estimate
from gctheory.tradeoff.stability import GeneratorMaker

__all__ = [
    "TRADEOFF_SCHEMES",
    "TRADEOFF_LEFT_OUT",
    "CannotExist",
    "Context",
    "seed_for",
]

#: name -> (kind, one-line description). Colours and the CLI follow this order.
TRADEOFF_SCHEMES = _TRADEOFF_SCHEMES

#: Constructions gctheory has that the atlas leaves out, and why.
TRADEOFF_LEFT_OUT: dict[str, str] = {
    "sgc": "stochastic gradient coding promises an unbiased estimate whose variance depends "
    "on the gradients (gctheory.codes.sgc_variance), not a failure probability or error "
    "bound at s stragglers",
    "graph-assignment": "Glasgow-Wootters codes put machines on the edges of a graph: the "
    "number of machines is the number of edges, not a free n",
    "is-gc": "ignore-stragglers decoders recover a partial sum whose size is random; they "
    "reuse the FRC and cyclic placements drawn here",
}


class CannotExist(ValueError):
    """The scheme cannot be built for these parameters (the message says why)."""


def seed_for(root: np.random.SeedSequence, *key: Any) -> np.random.SeedSequence:
    """A child seed determined by ``key`` alone (so a row does not depend on which
    other schemes were asked for)."""
    h = zlib.crc32(repr(key).encode())
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, h))


@dataclass
class Context:
    """Everything a scheme builder needs, and caches shared between builders."""

    n: int
    m: int  # the communication saving of the sweep (empirical stability only there)
    eps: float
    error: float
    kappa: float | None
    tau: float
    dist: Any  # frozen scipy.stats distribution, per-worker laws, a MemoryDelay, or None
    replay: Any  # gctheory.delays.TraceReplay of a measured trace, or None
    root: np.random.SeedSequence
    trials: int
    time_trials: int
    mc_s: frozenset[int]
    trace_bootstrap: int  # bootstrap resamples of a measured trace's rounds per time
    stability_budget: float  # work units left for the empirical s_kappa intervals
    stability_calls: int  # intervals still to compute (each gets an equal share of what is left)
    families: dict[str, GeneratorMaker]
    stability_families: tuple[str, ...]
    stab_s: dict[str, frozenset[int]] = field(default_factory=dict)
    sweep: tuple[int, ...] = ()  # the straggler counts of the sweep
    cache: dict[Any, Any] = field(default_factory=dict)
    memory: bool = False  # dist is a MemoryDelay (stragglers with memory)

    @property
    def threshold(self) -> float:
        """Error level ``error * n`` (partitions) of the approximate codes' failure event."""
        return self.error * self.n

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


def _mc_failure(est: Estimate) -> dict[str, Any]:
    return {
        "failure": float(est.value),
        "failure_low": float(est.low),
        "failure_high": float(est.high),
        "failure_method": f"monte carlo ({est.trials} straggler sets, "
        f"{100 * est.level:g}% {est.method})",
    }


def _exact_failure(p: float, method: str) -> dict[str, Any]:
    return {"failure": p, "failure_low": p, "failure_high": p, "failure_method": method}


def _finish(row: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    row["note"] = "; ".join(x for x in [row.get("note") or "", *notes] if x)
    return row
