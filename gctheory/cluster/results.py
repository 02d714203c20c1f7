"""What a real run returns (:class:`ClusterRun`) and how it fails (:class:`ClusterError`).

Kept apart from the run loop (:mod:`gctheory.cluster.master`) so that
:mod:`~gctheory.cluster.replay`, :mod:`~gctheory.cluster.trace` and
:mod:`~gctheory.cluster.checkpoint` can use the type without importing the loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ClusterRun", "ClusterError", "WorkerLostWarning"]


class WorkerLostWarning(UserWarning):
    """A worker died or failed; the run goes on without it (a permanent straggler).

    Examples
    --------
    >>> from gctheory.cluster import WorkerLostWarning
    >>> issubclass(WorkerLostWarning, UserWarning)
    True
    """


class ClusterError(RuntimeError):
    """The run cannot go on (too many dead workers, an oracle error with ``on_error='stop'``,
    no answer within the timeout). ``run`` holds the :class:`ClusterRun` so far (its
    ``params`` are the last parameters reached).

    Parameters
    ----------
    message : str
        What went wrong.
    run : ClusterRun, optional
        The run so far.

    Examples
    --------
    >>> from gctheory.cluster import ClusterError, run
    >>> err = ClusterError("3 of 4 workers died")
    >>> str(err), err.run is None, isinstance(err, RuntimeError)
    ('3 of 4 workers died', True, True)
    """

    def __init__(self, message: str, run: ClusterRun | None = None) -> None:
        super().__init__(message)
        self.run = run


@dataclass(frozen=True, eq=False)
class ClusterRun:
    """One real run. Per-iteration arrays have length ``iterations`` (T); ``params_history``
    has T + 1 rows (the start included).

    Attributes
    ----------
    scheme, engine, delay : str
    n, k, need : int
        Workers, data partitions, survivors the rule waits for.
    params, params_history : ndarray
    iteration_time : ndarray (T,)
        Seconds from sending the parameters to the updated parameters.
    wait_time, decode_time : ndarray (T,)
        Of which waiting for the survivors, and decoding plus the update.
    master_cpu : ndarray (T,)
        CPU seconds of the master process per iteration (``time.process_time``:
        encoding and sending, the waiting loop's bookkeeping, decoding; a
        blocked wait costs none). With an in-process Dask cluster it includes
        the scheduler's and the threads' work.
    survivors : list of tuple
        The survivor set used each iteration (sorted).
    injected, response : ndarray (T, n)
        Injected delay of every worker, and the time from sending to its
        result reaching the master (nan: never).
    status : ndarray (T, n) of int
        Index into :data:`STATUSES`.
    bytes_down, bytes_up : ndarray (T,)
        Bytes sent to the workers / received from the survivors.
    message_numbers : int
        Numbers per message the code promises, ``ceil(d/m)``.
    message_numbers_measured : int
        Numbers per message received.
    metrics : dict of ndarray
        Train / test metrics at ``metric_iterations`` (ndarray of int).
    loads : ndarray (n,)
        Each worker's unit load ``l_i`` (partitions held x ``n`` / ``k``): the
        factor of its injected sleep ``l_i X``.
    decode_noise_bound : ndarray (T,)
        The decoder's forward-error bound each iteration (``noise_bound`` of
        :meth:`gctheory.codes.GradientCode.decode_detail`: the relative error
        the rounding of the received messages can cause through the decoding
        coefficients); nan where nothing was decoded (uncoded sums, the
        sequential codes' warm-up rounds and their decoder, which does not
        report one). Summarised by :attr:`noise_bound_max` and
        :attr:`noise_bound_median`.
    comm_time : ndarray (T, n)
        Measured transfer time of each result that reached the master on time: from its
        message leaving the worker (the worker's clock, ``Event.sent_at``) to the master
        holding it; nan where the engine does not stamp the sending (every engine but
        Dask) or no result came.
    dead : dict
        Worker -> iteration its death was seen.
    config : dict
        Everything :func:`gctheory.cluster.replay` needs.

    Examples
    --------
    >>> from gctheory.cluster import ClusterRun, run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> result.mean_iteration_time(), result.iterations  # doctest: +SKIP
    """

    scheme: str
    engine: str
    delay: str
    n: int
    k: int
    need: int
    params: np.ndarray = field(repr=False)
    params_history: np.ndarray = field(repr=False)
    iteration_time: np.ndarray = field(repr=False)
    wait_time: np.ndarray = field(repr=False)
    decode_time: np.ndarray = field(repr=False)
    master_cpu: np.ndarray = field(repr=False)
    survivors: list = field(repr=False)
    injected: np.ndarray = field(repr=False)
    response: np.ndarray = field(repr=False)
    status: np.ndarray = field(repr=False)
    bytes_down: np.ndarray = field(repr=False)
    bytes_up: np.ndarray = field(repr=False)
    metric_iterations: np.ndarray = field(repr=False)
    loads: np.ndarray = field(repr=False)
    message_numbers: int = 0
    message_numbers_measured: int = 0
    metrics: dict = field(default_factory=dict, repr=False)
    dead: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict, repr=False)
    wall_time: float = 0.0
    decode_noise_bound: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    comm_time: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)

    @property
    def iterations(self) -> int:
        return len(self.iteration_time)

    @property
    def iterations_per_second(self) -> float:
        tot = float(np.sum(self.iteration_time))
        return self.iterations / tot if tot > 0 else math.nan

    @property
    def stragglers_ignored(self) -> np.ndarray:
        """Workers not used each iteration (late, never, dead or error)."""
        return self.n - np.array([len(S) for S in self.survivors], dtype=np.int64)

    @property
    def noise_bound_max(self) -> float:
        """Largest forward-error bound of a decode over the iterations (nan: none decoded)."""
        b = np.asarray(self.decode_noise_bound, float)
        return float(np.nanmax(b)) if (~np.isnan(b)).any() else math.nan

    @property
    def noise_bound_median(self) -> float:
        """Median forward-error bound of a decode over the iterations (nan: none decoded)."""
        b = np.asarray(self.decode_noise_bound, float)
        b = b[~np.isnan(b)]
        return float(np.median(b)) if b.size else math.nan

    @property
    def overhead(self) -> np.ndarray:
        """(T, n): measured response minus injected delay (transfer, compute, scheduling)."""
        return self.response - self.injected

    def mean_iteration_time(self, level: float = 0.95, *, warn: bool = True) -> Any:
        """Mean iteration time with Hall's skewness-corrected interval and the warnings of a
        sample that cannot support ``level`` (:func:`gctheory.montecarlo.mean_of_samples`: an
        :class:`gctheory.montecarlo.Estimate`); no interval (nan) from one iteration."""
        from gctheory.montecarlo import Estimate, mean_of_samples

        x = np.asarray(self.iteration_time, float)
        if len(x) > 1:
            return mean_of_samples(x, level=level, warn=warn)
        v = float(np.mean(x)) if len(x) else math.nan
        return Estimate(v, math.nan, math.nan, len(x), level, None, math.nan, "hall")

    def trace(self) -> Any:
        """The run as a :class:`gctheory.delays.Trace` (see :mod:`gctheory.cluster.trace`)."""
        from gctheory.cluster.trace import run_trace

        return run_trace(self)

    def save(self, path: Any) -> Any:
        """Write the trace CSV and its ``.json`` sidecar (the config replay needs)."""
        from gctheory.cluster.trace import save_run

        return save_run(self, path)

    # -- notebooks: the run summary as HTML, and a pandas frame per iteration
    def _summary(self) -> list[tuple[str, str]]:
        t = self.mean_iteration_time(warn=False)
        shaky = t.diagnostics is not None and bool(t.diagnostics.messages)
        cells = [
            ("scheme", f"{self.scheme} (n = {self.n}, waits for {self.need})"),
            ("engine", self.engine),
            ("delay", self.delay),
            ("iterations", f"{self.iterations} ({self.iterations_per_second:.4g} it/s)"),
            ("mean iteration time (s)", f"{t.value:.4g} [{t.low:.4g}, {t.high:.4g}] (95%"
             + ("; too few or too heavy-tailed times to support it)" if shaky else ")")),
            ("stragglers ignored per iteration", f"{np.mean(self.stragglers_ignored):.3g}"),
            ("bytes per iteration (down, up)",
             f"{np.mean(self.bytes_down):.4g}, {np.mean(self.bytes_up):.4g}"),
        ]  # fmt: skip
        if not math.isnan(self.noise_bound_max):
            bounds = f"{self.noise_bound_max:.3g}, {self.noise_bound_median:.3g}"
            cells.append(("decode forward-error bound (max, median)", bounds))
        for name, values in sorted(self.metrics.items()):
            arr = np.asarray(values, dtype=float)
            if arr.size:
                cells.append((f"final {name}", f"{arr[-1]:.4g}"))
        if self.dead:
            cells.append(("dead workers", ", ".join(str(w) for w in sorted(self.dead))))
        return cells

    def _repr_html_(self) -> str:
        """The run summary as an HTML table (Jupyter shows it in place of the repr)."""
        import html

        body = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
            for k, v in self._summary()
        )
        return f'<table class="gctheory-run"><caption>ClusterRun</caption>{body}</table>'

    def to_pandas(self) -> Any:
        """One row per iteration (time, wait, decode, stragglers ignored); needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "ClusterRun.to_pandas needs pandas, which gctheory does not install: "
                "pip install pandas"
            ) from None
        return pd.DataFrame(
            {
                "iteration_time": self.iteration_time,
                "wait_time": self.wait_time,
                "decode_time": self.decode_time,
                "stragglers_ignored": self.stragglers_ignored,
                "decode_noise_bound": self.decode_noise_bound,
            }
        )

    def __repr__(self) -> str:
        return (
            f"ClusterRun({self.scheme!r}, n={self.n}, engine={self.engine!r}, "
            f"iterations={self.iterations}, {self.iterations_per_second:.3g} it/s, "
            f"dead={sorted(self.dead)})"
        )
