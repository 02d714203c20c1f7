"""A real run as a :class:`gctheory.delays.Trace`: one row per worker per iteration.

Columns of :func:`gctheory.delays.read_trace`'s format: ``round`` (the
iteration), ``worker``, ``load`` (the worker's unit load ``l_i`` = partitions
held x ``n`` / ``k``: the factor of the injected sleep ``l_i X``, so a law fitted
to ``time / load`` is per unit load, in the units ``--delay`` takes) and ``time``
(seconds from the master sending the parameters to the result reaching it).
Optional columns: ``profile`` (one campaign: scheme, n, engine), ``status`` (one
of :data:`gctheory.cluster.STATUSES`: ``used`` in the survivor set, ``unused``
on time but not needed, ``late`` after the master moved on, ``never`` (no
result: cancelled by the next iteration, or the run ended), ``error``,
``dead``), ``start`` and ``finish`` (seconds since the run started, ``finish``
nan when never), ``injected`` (the injected delay), ``decode_s`` and
``iteration_s`` of the iteration, ``comm_s`` (the measured transfer time of a
result, where the engine stamps when its message left: the Dask engine), and
``load_unit`` (``unit``: the unit of the ``load`` column). Traces written before
the unit was stated carry the data share (partitions held / ``k``) and no
``load_unit`` column or sidecar key;
:func:`gctheory.delays.censored.run_unit_loads` converts them. A row that never
finished has ``time`` equal to how long it was observed (a lower bound: it is
right-censored, and ``gctheory delays fit`` fits it as such).

A ``.json`` sidecar next to the CSV keeps the run's configuration (scheme,
seed, step size, workload, ``load_unit``), which :func:`gctheory.cluster.replay`
needs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from gctheory._safe_json import bounded_loads
from gctheory.cluster.base import STATUSES
from gctheory.delays.censored import LOAD_UNIT, LOAD_UNITS

__all__ = [
    "LOAD_UNIT",
    "LOAD_UNITS",
    "run_trace",
    "save_run",
    "load_run",
    "sidecar_path",
    "survivors_from_trace",
]


def run_trace(run: Any) -> Any:
    """The :class:`gctheory.delays.Trace` of a :class:`~gctheory.cluster.ClusterRun`.

    Parameters
    ----------
    run : ClusterRun
        A run.

    Returns
    -------
    Trace
        One row per worker per iteration.

    Examples
    --------
    >>> from gctheory.cluster import run, run_trace
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> run_trace(result)  # doctest: +SKIP
    """
    from gctheory.delays import make_trace

    T, n = run.status.shape
    rnd = np.repeat(np.arange(T), n)
    wk = np.tile(np.arange(n), T)
    load = np.tile(run.loads, T)
    start = np.repeat(_starts(run), n)
    fin = (start + run.response.ravel()).astype(float)
    # never-finished rows: observed until the next iteration started (or the run ended)
    ends = np.append(_starts(run)[1:], _starts(run)[-1] + run.iteration_time[-1] if T else 0.0)
    observed = np.repeat(ends, n) - start
    time = np.where(np.isnan(run.response.ravel()), observed, run.response.ravel())
    time = np.maximum(time, 0.0)
    status = np.array([STATUSES[s] for s in run.status.ravel()])
    comm = np.asarray(getattr(run, "comm_time", ()), float)
    extra = {"comm_s": comm.ravel()} if comm.shape == (T, n) and np.isfinite(comm).any() else {}
    return make_trace(
        rnd,
        wk,
        load,
        time,
        source=f"gctheory run {run.scheme}",
        profile=np.full(T * n, f"{run.scheme}-n{run.n}-{run.engine.split()[0]}"),
        status=status,
        start=start,
        finish=fin,
        injected=run.injected.ravel(),
        decode_s=np.repeat(run.decode_time, n),
        decode_noise_bound=np.repeat(_noise(run), n),
        iteration_s=np.repeat(run.iteration_time, n),
        load_unit=np.full(T * n, LOAD_UNIT),
        **extra,
    )


def _noise(run: Any) -> np.ndarray:
    b = np.asarray(getattr(run, "decode_noise_bound", ()), float)
    return b if b.size == run.iterations else np.full(run.iterations, np.nan)


def _starts(run: Any) -> np.ndarray:
    st = run.config.get("_starts")
    if st is not None:
        return np.asarray(st, float)
    return np.concatenate([[0.0], np.cumsum(run.iteration_time)[:-1]])


def sidecar_path(path: Any) -> Path:
    """``run.csv`` -> ``run.csv.json``: where the configuration of a trace is kept."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def save_run(run: Any, path: Any) -> Path:
    """Write ``run``'s trace CSV at ``path`` and its configuration at :func:`sidecar_path`.

    Parameters
    ----------
    run : ClusterRun
        A run.
    path : str or pathlib.Path
        The CSV to write (the configuration goes beside it).

    Returns
    -------
    pathlib.Path
        The CSV path.

    Examples
    --------
    >>> from gctheory.cluster import run, save_run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> path = save_run(result, "run.csv")  # doctest: +SKIP
    """
    from gctheory.delays import write_trace

    p = write_trace(run.trace(), path)
    cfg = {k: v for k, v in run.config.items() if not k.startswith("_")}
    cfg["survivors"] = [list(S) for S in run.survivors]
    cfg["load_unit"] = LOAD_UNIT
    sidecar_path(p).write_text(json.dumps(cfg, indent=1, default=_json_default) + "\n")
    return p


def _json_default(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def load_run(path: Any) -> tuple[Any, dict[str, Any]]:
    """The trace at ``path`` and its configuration (from the sidecar, or the rows alone).

    Raises ValueError when the sidecar is missing and the trace has no
    ``status`` column (it is not a run of :func:`gctheory.cluster.run`).

    Parameters
    ----------
    path : str or pathlib.Path
        A trace written by :func:`save_run` or ``run(..., trace=PATH)``.

    Returns
    -------
    tuple
        ``(Trace, config dict)``.

    Raises
    ------
    ValueError
        No sidecar and no ``status`` column.

    Examples
    --------
    >>> from gctheory.cluster import load_run, save_run
    >>> from gctheory.cluster import run
    >>> if __name__ == "__main__":  # doctest: +SKIP
    ...     result = run("frc", 4, 1, iterations=50, delay="exp(0.01)", rng=0)
    >>> trace, config = load_run(save_run(result, "run.csv"))  # doctest: +SKIP
    """
    from gctheory.delays import read_trace

    tr = read_trace(path)
    side = sidecar_path(path)
    if not side.is_file():
        raise ValueError(
            f"{str(side)!r} (the configuration of the run: scheme, seed, step size, workload) "
            f"does not exist; replay needs the sidecar written by gctheory.cluster.run(..., "
            f"trace={str(path)!r})"
        )
    try:
        raw = side.read_bytes()
    except OSError as exc:
        raise ValueError(f"{str(side)!r} cannot be read ({exc.strerror})") from None
    cfg = bounded_loads(raw, f"{str(side)!r} (the run's configuration)")
    if not isinstance(cfg, dict):
        raise ValueError(f"{str(side)!r}: the run's configuration must be a JSON object")
    if "status" not in tr.columns:
        raise ValueError(f"{path}: no 'status' column; not a trace of gctheory.cluster.run")
    return tr, cfg


def survivors_from_trace(tr: Any) -> list[tuple[int, ...]]:
    """The survivor set of each iteration (rows with ``status == 'used'``)."""
    used = tr.columns["status"].astype(str) == "used"
    T = int(tr.round.max()) + 1
    out: list[list[int]] = [[] for _ in range(T)]
    for r, w in zip(tr.round[used], tr.worker[used]):
        out[int(r)].append(int(w))
    return [tuple(sorted(S)) for S in out]
