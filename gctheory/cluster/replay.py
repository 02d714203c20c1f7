"""Exact replay: a recorded run's parameter trajectory recomputed in one process.

Real timing is not reproducible; the numbers are. Given the survivor set of
every iteration (the trace's ``status == "used"`` rows) and the run's
configuration (seed, scheme, step size, workload), :func:`replay` rebuilds the
same code and data partitions, computes each survivor's message with the same
:meth:`~gctheory.cluster.worker.WorkerState.message` the workers ran, decodes
with the same rule, and steps: the trajectory equals the real run's bit for bit.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory.cluster.rules import Rule, build_scheme
from gctheory.cluster.sequential import is_sequential, replay_sequential
from gctheory.cluster.workloads import make_workload

__all__ = ["Replay", "replay"]


def _one_thread() -> Any:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return contextlib.nullcontext()
    return threadpool_limits(1)


@dataclass(frozen=True, eq=False)
class Replay:
    """The replayed trajectory: ``params_history`` (T + 1, dim), final ``params``, ``survivors``.

    Parameters
    ----------
    params : numpy.ndarray
        Final parameters.
    params_history : numpy.ndarray, shape (T + 1, dim)
        Parameters after every iteration.
    survivors : list
        Survivor set of each iteration.
    scheme : str
        The scheme.

    Examples
    --------
    >>> from gctheory.cluster import Replay, replay
    >>> from gctheory.cluster import run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> again = replay(result)  # doctest: +SKIP
    >>> bool((again.params == result.params).all())  # doctest: +SKIP
    """

    params: np.ndarray = field(repr=False)
    params_history: np.ndarray = field(repr=False)
    survivors: list = field(repr=False)
    scheme: str = ""

    @property
    def iterations(self) -> int:
        return len(self.survivors)


def replay(source: Any, *, workload: Any = None) -> Replay:
    """Recompute a run's parameters from its survivor sets, in this process.

    Parameters
    ----------
    source : ClusterRun, or path of a trace written by ``run(..., trace=PATH)``
        The run (its ``config`` and ``survivors``), or the CSV whose ``.json``
        sidecar holds the configuration.
    workload : GradientOracle, optional
        The user's oracle when the run used one (the digits workloads are
        rebuilt from the configuration).

    Returns
    -------
    Replay

    Examples
    --------
    >>> from gctheory.cluster import replay, run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> bool((replay(result).params == result.params).all())  # doctest: +SKIP
    """
    from gctheory.cluster.results import ClusterRun
    from gctheory.cluster.trace import load_run, survivors_from_trace

    if isinstance(source, ClusterRun):
        cfg, survivors = source.config, list(source.survivors)
    else:
        tr, cfg = load_run(source)
        survivors = survivors_from_trace(tr)
    sch = build_scheme(
        cfg["scheme"], int(cfg["n"]), s=cfg.get("s"), K=cfg.get("K"), m=int(cfg.get("m", 1)),
        code_options=cfg.get("code_options"), seed=int(cfg["seed"]),
    )  # fmt: skip
    spec = workload if workload is not None else cfg.get("workload")
    if spec is None:
        raise ValueError(
            "the run used the caller's own gradient oracle: pass it as workload= to replay"
        )
    wl = make_workload(spec, sch.k, int(cfg["seed"]))
    alpha = float(cfg["step_size"])
    if is_sequential(sch):  # SR-SGC / M-SGC: stragglers are the workers with a task not used
        with _one_thread():
            w, hist = replay_sequential(sch, wl, alpha, survivors)
        return Replay(w, np.array(hist), survivors, str(cfg["scheme"]))
    rule = Rule(sch)
    states = rule.states(wl)
    w = np.asarray(wl.initial_params(), float).copy()
    hist = [w.copy()]
    for t, S in enumerate(survivors):
        if not S and not is_sequential(sch):
            raise ValueError(f"iteration {t} of the trace has no survivor ('used') rows")
    with _one_thread():  # the workers' BLAS ran on one thread: the same sums, the same bits
        for t, S in enumerate(survivors):
            Y = np.stack([states[i].message(w, t) for i in S])
            w = w - alpha * rule.decode(S, Y, w.size)
            hist.append(w.copy())
    return Replay(w, np.array(hist), survivors, sch.name)
