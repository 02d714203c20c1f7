"""Replay measured rounds in the training simulator: ``simulate(..., delay="trace:PATH")``.

Iteration ``t`` of a simulated run takes the worker times of one measured
round (round ``t mod R`` in order, or a round drawn at random), worker ``i``
of the simulation being worker slot ``i`` of the trace, so a worker that
straggled in a round straggles in its replay, and rounds where many workers
were slow together stay so. A worker whose data share is a measured load gets
its measured time; any other share is reached from the nearest measured load
by the load model (:class:`gctheory.delays.LoadScaling`: the fitted affine
slope, which keeps every round's order of workers), and without one such a
share is refused before the run starts.

The simulator multiplies a per-unit-load time by the worker's relative load
``l_i`` (1 = one n-th of the data); the replay hands it ``T_i / l_i`` so the
product is the replayed time ``T_i`` itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

from gctheory._validate import check_choice
from gctheory.delays.censored import as_data_shares
from gctheory.delays.loadscale import LoadScaling, ProportionalLoad, fit_load_scaling
from gctheory.delays.trace import Trace, read_trace

__all__ = ["TraceReplay", "parse_trace_spec", "ORDERS"]

#: How a :class:`TraceReplay` walks the measured rounds.
ORDERS = ("sequential", "random")


class TraceReplay:
    """Per-iteration worker times drawn from the rounds of a one-campaign trace.

    Parameters
    ----------
    trace : Trace
        One campaign (select it first); every round at a load must hold the
        same workers.
    load_model : LoadScaling, ProportionalLoad or None
        How a data share that was not measured is reached (None: refused).
    order : {"sequential", "random"}
        Round ``t mod R`` at iteration ``t`` (the measured sequence, so
        persistence across consecutive rounds is kept), or a round drawn
        uniformly at random (with the run's generator) each iteration.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import TraceReplay, concat_traces, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> from gctheory.delays import ProportionalLoad
    >>> replay = TraceReplay(trace, load_model=ProportionalLoad())  # shares 1/6 scaled from load 1
    >>> x = replay.per_unit_times(0, np.ones(6), np.random.default_rng(0))
    >>> x.shape, bool((x > 0).all())
    ((6,), True)
    """

    def __init__(self, trace: Trace, *, load_model: Any = None, order: str = "sequential") -> None:
        if not isinstance(trace, Trace):
            raise ValueError(f"trace must be a Trace, got {type(trace).__name__}")
        trace.require_single_campaign("a trace replay")
        trace = as_data_shares(trace)  # a run trace's unit loads -> data shares
        if load_model is not None and not isinstance(load_model, (LoadScaling, ProportionalLoad)):
            raise ValueError(
                f"load_model must be None, a LoadScaling or a ProportionalLoad, got {load_model!r}"
            )
        self.trace = trace
        self.order = check_choice(order, "order", ORDERS)
        self.load_model = load_model
        self.loads = trace.loads
        self._mats = {float(ld): trace.rounds(ld) for ld in self.loads}
        self.workers = min(M.shape[1] for M in self._mats.values())
        self._moved: dict[float, np.ndarray] = {}

    def __repr__(self) -> str:
        rounds = {f"{ld:g}": M.shape[0] for ld, M in self._mats.items()}
        lm = "none" if self.load_model is None else self.load_model.name
        return (
            f"TraceReplay({self.trace.source or 'in memory'}, {self.workers} workers, rounds per "
            f"load {rounds}, order {self.order}, load model {lm})"
        )

    def _matrix(self, share: float) -> np.ndarray:
        for ld, M in self._mats.items():
            if abs(ld - share) <= 1e-12 * max(1.0, share):
                return M
        moved = self._moved.get(share)
        if moved is None:
            if self.load_model is None:
                raise ValueError(
                    f"a worker's data share {share:.6g} is not a measured load of the trace "
                    f"({', '.join(f'{x:g}' for x in self.loads)}) and the replay has no load "
                    "model (fit one with fit_load_scaling, or use a trace with >= 2 loads)"
                )
            l0 = self.load_model.source_load(self.loads, share)
            moved = self.load_model.move(self._mats[l0], l0, share)
            self._moved[share] = moved
        return moved

    def check(self, n: int, relative_loads: np.ndarray) -> None:
        """Refuse before any work: more workers than the trace has, or an unreachable share."""
        if n > self.workers:
            raise ValueError(
                f"the trace's rounds have {self.workers} workers; a replay cannot simulate "
                f"n={n} (use n <= {self.workers})"
            )
        for share in np.unique(np.asarray(relative_loads, float) / n):
            if share > 0:
                self._matrix(float(share))

    def per_unit_times(
        self, t: int, relative_loads: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Times of the ``n`` workers at iteration ``t``, divided by their relative loads."""
        loads = np.asarray(relative_loads, float)
        n = loads.size
        X = np.zeros(n)
        for lrel in np.unique(loads):
            if lrel <= 0:
                continue  # a worker with no data returns at once
            M = self._matrix(float(lrel) / n)
            R = M.shape[0]
            r = t % R if self.order == "sequential" else int(rng.integers(R))
            idx = np.flatnonzero(loads == lrel)
            X[idx] = M[r, idx] / lrel
        return X


def parse_trace_spec(spec: str) -> TraceReplay:
    """A :class:`TraceReplay` from ``"trace:PATH"`` or ``"trace:PATH?key=value&..."``.

    Keys: ``order`` (``sequential`` or ``random``), ``load_model``
    (``affine``, the default when the trace has >= 2 loads; ``proportional``;
    ``none``), and any column of the trace to select one campaign
    (``profile=cnn-mbp&region=London``). A file holding several campaigns
    without a selection is refused, listing them.

    Parameters
    ----------
    spec : str
        ``"trace:PATH"`` or ``"trace:PATH?key=value&..."``.

    Returns
    -------
    TraceReplay
        The replay.

    Raises
    ------
    ValueError
        A bad spec, or several campaigns without a selection.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.delays import make_trace, parse_trace_spec, write_trace
    >>> t = make_trace([0, 0, 1, 1], [0, 1, 0, 1], [1.0] * 4, [0.2, 0.3, 0.25, 0.9])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     replay = parse_trace_spec(f"trace:{write_trace(t, pathlib.Path(tmp) / 'r.csv')}")
    >>> type(replay).__name__
    'TraceReplay'
    """
    if not isinstance(spec, str) or not spec.startswith("trace:"):
        raise ValueError(f"spec must be a string 'trace:PATH[?key=value&...]', got {spec!r}")
    body = spec[len("trace:") :]
    path, _, query = body.partition("?")
    if not path:
        raise ValueError(f"delay spec {spec!r}: give the trace file, 'trace:PATH'")
    opts = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=False)) if query else {}
    order = opts.pop("order", "sequential")
    lm = opts.pop("load_model", None)
    trace = _read_cached(str(Path(path).expanduser()))
    if opts:
        trace = trace.select(**opts)
    trace.require_single_campaign(f"delay spec {spec!r}")
    if lm is None:
        model: Any = fit_load_scaling(trace) if len(trace.loads) >= 2 else None
    elif lm == "affine":
        model = fit_load_scaling(trace)
    elif lm == "proportional":
        model = ProportionalLoad()
    elif lm == "none":
        model = None
    else:
        raise ValueError(
            f"delay spec {spec!r}: load_model must be affine, proportional or none, got {lm!r}"
        )
    return TraceReplay(trace, load_model=model, order=order)


_CACHE: dict[tuple[str, float, int], Trace] = {}


def _read_cached(path: str) -> Trace:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"spec: trace file {path!r} does not exist")
    st = p.stat()
    key = (str(p.resolve()), st.st_mtime, st.st_size)
    tr = _CACHE.get(key)
    if tr is None:
        tr = read_trace(p)
        _CACHE.clear()
        _CACHE[key] = tr
    return tr
