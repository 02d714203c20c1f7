"""What a real run records per iteration (the trace's columns), and the run handed back.

:class:`Record` holds the arrays :func:`gctheory.cluster.run`'s loop fills
(injected delays, responses, statuses, bytes, timings, survivor sets, the
parameters' history), what a checkpoint saves of them and restores, and builds
the :class:`~gctheory.cluster.results.ClusterRun`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from gctheory.cluster.base import LATE
from gctheory.cluster.results import ClusterRun

__all__ = ["Record"]

#: the per-iteration arrays a checkpoint keeps (by their checkpoint keys)
ARRAYS = ("injected", "start_at", "finish", "status", "bytes_down", "bytes_up", "it_time",
          "wait_t", "dec_t", "cpu_t", "noise_b", "comm")  # fmt: skip


class Record:
    """The run's records for ``T`` iterations of ``n`` workers, from parameters ``w``."""

    def __init__(self, T: int, n: int, w: np.ndarray) -> None:
        self.injected = np.full((T, n), np.nan)
        self.start_at = np.zeros(T)
        self.finish = np.full((T, n), np.nan)
        self.status = np.zeros((T, n), dtype=np.int8)
        self.bytes_down, self.bytes_up = np.zeros(T), np.zeros(T)
        self.it_time, self.wait_t, self.dec_t, self.cpu_t = (np.zeros(T) for _ in range(4))
        self.noise_b = np.full(T, np.nan)  # the decoder's forward-error bound per iteration
        # seconds from a message leaving its worker to the master holding it (nan: unknown)
        self.comm = np.full((T, n), np.nan)
        self.survivors: list[tuple[int, ...]] = []
        self.history = [w.copy()]
        self.metrics: dict[str, list[float]] = {}
        self.metric_its: list[int] = []
        self.dead: dict[int, int] = {}
        self.measured_len = 0
        self.elapsed = 0.0  # seconds run before a resume
        self.t_run = time.perf_counter()

    def start_clock(self) -> None:
        """The trace's clock starts (a resumed run's goes on where it stopped)."""
        self.t_run = time.perf_counter() - self.elapsed

    @property
    def done(self) -> int:
        return len(self.survivors)

    def state(self, done: int) -> dict[str, Any]:
        """What a checkpoint keeps of the first ``done`` iterations."""
        out: dict[str, Any] = {key: getattr(self, key)[:done] for key in ARRAYS}
        out.update(history=np.array(self.history), survivors=self.survivors,
                   metrics=self.metrics, metric_its=self.metric_its, dead=self.dead,
                   measured_len=self.measured_len,
                   elapsed=time.perf_counter() - self.t_run)  # fmt: skip
        return out

    def restore(self, st: dict[str, Any]) -> int:
        """Take a checkpoint's records back; the iteration reached."""
        t0 = int(st["done"])
        for key in ARRAYS:
            if key in st:  # (a checkpoint written before noise_b was kept has nan there)
                getattr(self, key)[:t0] = st[key]
        self.history = [np.array(h) for h in st["history"]]
        self.survivors = list(st["survivors"])
        self.metrics = {key: list(v) for key, v in st["metrics"].items()}
        self.metric_its = list(st["metric_its"])
        self.measured_len = st["measured_len"]
        self.elapsed = float(st["elapsed"])
        return t0

    def late(self, ev: Any, t: int) -> None:
        """A result of an earlier iteration: recorded, dropped."""
        self.finish[ev.t, ev.worker] = ev.at - self.t_run
        self.status[ev.t, ev.worker] = LATE

    def fill_metrics(self, workload: Any) -> None:
        """The metrics noted, evaluated from the parameters reached (never timed)."""
        evaluated = len(next(iter(self.metrics.values()), []))
        for t in self.metric_its[evaluated:]:
            for key, v in workload.metrics(self.history[t]).items():
                self.metrics.setdefault(key, []).append(float(v))

    def result(self, sch: Any, rule: Any, engine: Any, w: np.ndarray, config: dict,
               done: int) -> ClusterRun:  # fmt: skip
        """The run of its first ``done`` iterations."""
        T = done
        return ClusterRun(
            scheme=str(config["scheme"]),
            engine=engine.describe(),
            delay=str(config["delay"]),
            n=sch.n,
            k=sch.k,
            need=rule.need,
            params=w.copy(),
            params_history=np.array(self.history[: T + 1]),
            iteration_time=self.it_time[:T].copy(),
            wait_time=self.wait_t[:T].copy(),
            decode_time=self.dec_t[:T].copy(),
            decode_noise_bound=self.noise_b[:T].copy(),
            master_cpu=self.cpu_t[:T].copy(),
            survivors=list(self.survivors[:T]),
            injected=self.injected[:T].copy(),
            response=self.finish[:T] - self.start_at[:T, None],
            status=self.status[:T].copy(),
            bytes_down=self.bytes_down[:T].copy(),
            bytes_up=self.bytes_up[:T].copy(),
            message_numbers=rule.message_length(w.size),
            message_numbers_measured=int(self.measured_len),
            metrics={key: np.array(v) for key, v in self.metrics.items()},
            metric_iterations=np.array(self.metric_its, dtype=np.int64),
            dead=dict(self.dead),
            config=dict(config, iterations=T, _starts=self.start_at[:T].tolist()),
            wall_time=time.perf_counter() - self.t_run,
            loads=np.asarray(sch.loads, float).copy(),  # l_i: the injected sleep is l_i X
            comm_time=self.comm[:T].copy(),
        )
