"""Problems of a sweep: a named estimator, its exact parameters and the code behind it.

A :class:`Problem` is what one curve point of a sweep estimates. Its identity
(:attr:`Problem.key`) is the SHA-256 of the canonical JSON (sorted keys, no
spaces, floats by ``repr``) of

- ``estimator``: the name of an adapter of :data:`ESTIMATORS`;
- ``params``: every parameter, defaults filled in and normalised (``n=100`` and
  ``n=100.0`` are one problem, ``eps=0.3`` and ``eps=0.30`` too);
- ``code``: a fingerprint of the code the estimator runs on (the SHA-256 of a
  parity-check matrix, of the d-FRC groups, of a runtime scheme's layout), so a
  problem whose code changed under the same parameters gets a new key;
- ``seed`` and ``batch_size``: batch ``b`` of a problem draws from
  ``SeedSequence([seed, key64], spawn_key=(b,))`` (``key64`` = the first 16 hex
  digits of the key of the other fields), so two batch sizes never share a
  stream.

The stopping rule (``max_trials``, ``max_events``, ``rel_half_width``) is
not part of the key: raising a budget continues the same statistics.

Each adapter runs one batch through the domain's own Monte Carlo function
(which runs it through :mod:`gctheory.montecarlo`) and returns the batch's
count of events (probabilities) or its sample summary (means: the count, mean,
sums of squared, cubed and fourth-power deviations, extremes and largest
magnitudes, :class:`gctheory.montecarlo.summaries.Moments`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import itertools
import json
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ESTIMATORS", "Problem", "grid"]

_REQUIRED = object()


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces, no nan/inf: one text per value."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sha_arrays(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class Estimator:
    """An adapter: the parameters a problem takes, its code, and one batch of it."""

    name: str
    kind: str  # "probability" or "mean"
    params: dict[str, tuple[type, Any]]  # name -> (type, default or _REQUIRED)
    batch_size: int
    build: Callable[[Mapping[str, Any]], Any]  # params -> the code (cached)
    fingerprint: Callable[[Any], str | None]
    run: Callable[[Any, Mapping[str, Any], int, np.random.SeedSequence], Any]
    description: str = ""


def _quiet(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """Run ``func`` with the engine's progress bar off (it is drawn on a terminal's stderr)."""
    with contextlib.redirect_stderr(io.StringIO()):
        return func(*args, **kwargs)


# ------------------------------------------------------------------ LDPC block failure
def _ldpc_build(p: Mapping[str, Any]) -> Any:
    from gctheory._validate import check_probability
    from gctheory.ldpc import regular_ensemble

    check_probability(p["eps"], "eps")
    return regular_ensemble(
        p["n"], p["dv"], p["dc"], rng=p["code_seed"], multi_edges=p["multi_edges"]
    ).tocsr()


def _ldpc_fingerprint(H: Any) -> str:
    return _sha_arrays(np.asarray(H.shape), H.indptr, H.indices, H.data.astype(np.int64))


def _ldpc_run(H: Any, p: Mapping[str, Any], size: int, ss: np.random.SeedSequence) -> int:
    from gctheory.ldpc import block_failure_rate

    est = block_failure_rate(
        H, p["eps"], size, rng=ss, multigraph=p["multi_edges"] == "keep", progress=False
    )
    assert est.successes is not None, "block_failure_rate estimates a probability"
    return int(est.successes)


# ------------------------------------------------------------------ d-FRC failure
def _dfrc_build(p: Mapping[str, Any]) -> Any:
    from gctheory.load_bounds import frc_group_sizes

    return [int(x) for x in frc_group_sizes(p["n"], p["d"], p["rounding"])]


def _dfrc_run(sizes: Any, p: Mapping[str, Any], size: int, ss: np.random.SeedSequence) -> int:
    from gctheory.load_bounds import frc_failure_mc

    est = _quiet(frc_failure_mc, p["n"], p["s"], p["d"], size, rng=ss, rounding=p["rounding"])
    return int(est.successes)


# ------------------------------------------------------------------ condition-number tails
def _cond_run(code: Any, p: Mapping[str, Any], size: int, ss: np.random.SeedSequence) -> int:
    from gctheory.conditioning import condition_tail_mc

    est = _quiet(condition_tail_mc, p["u"], p["v"], p["kappa"], size, rng=ss)
    return int(est.successes)


# ------------------------------------------------------------------ runtime by Monte Carlo
def _runtime_dist(p: Mapping[str, Any]) -> Any:
    from scipy import stats

    if p["dist"] == "pareto":
        return stats.pareto(p["xi"], scale=p["t0"])
    if p["dist"] == "exponential":
        return stats.expon(loc=p["delta"], scale=p["mu"])
    raise ValueError(f"dist must be 'exponential' or 'pareto', got {p['dist']!r}")


def _runtime_build(p: Mapping[str, Any]) -> Any:
    from gctheory.runtime import scheme_layout

    _runtime_dist(p)
    return scheme_layout(p["scheme"], p["n"], p["s"], p["m"])


def _runtime_fingerprint(layout: Any) -> str:
    from dataclasses import asdict

    return sha256_text(canonical_json({k: repr(v) for k, v in asdict(layout).items()}))


def _moments(est: Any) -> Any:
    """The batch's sample summary (:class:`gctheory.montecarlo.summaries.Moments`)."""
    m = est.diagnostics.moments if est.diagnostics is not None else None
    if m is None:
        raise ValueError("the estimate carries no sample moments (negative times shifted?)")
    return m


def _runtime_run(layout: Any, p: Mapping[str, Any], size: int, ss: np.random.SeedSequence) -> Any:
    from gctheory.runtime import scheme_time_mc

    est = scheme_time_mc(
        p["scheme"], _runtime_dist(p), p["n"], p["s"], p["m"], size, tau=p["tau"], rng=ss
    )
    return _moments(est)


# ------------------------------------------------------------------ simulated iteration times
def _iteration_time(p: Mapping[str, Any], rng: np.random.Generator, size: int) -> np.ndarray:
    from gctheory.training import simulate

    options = {"s": p["s"]} if p["s"] >= 0 else {}
    out = np.empty(size)
    for i in range(size):
        run = simulate(
            p["scheme"],
            n=p["n"],
            delay=p["delay"],
            iterations=p["iterations"],
            model=p["model"],
            rng=int(rng.integers(0, 2**63)),
            **options,
        )
        out[i] = (run.time[-1] - run.time[0]) / (len(run.time) - 1)
    return out


def _training_run(code: Any, p: Mapping[str, Any], size: int, ss: np.random.SeedSequence) -> Any:
    from gctheory.montecarlo import estimate_mean

    sampler = functools.partial(_iteration_time, p)
    return _moments(estimate_mean(sampler, size, rng=ss, chunk_size=size, progress=False))


# ------------------------------------------------------------------ real-run iteration times
def _cluster_time(p: Mapping[str, Any], rng: np.random.Generator, size: int) -> np.ndarray:
    """Mean measured iteration time of ``size`` real runs on local worker processes.

    Wall-clock times are measured, not simulated: a batch recomputed elsewhere gives
    other numbers of the same law (the seed fixes the injected delays, not the clock).
    """
    from gctheory.cluster import run

    options = {"s": p["s"]} if p["s"] >= 0 else {}
    out = np.empty(size)
    for i in range(size):
        res = run(
            p["scheme"],
            p["n"],
            delay=p["delay"],
            iterations=p["iterations"],
            workload=p["workload"],
            rng=int(rng.integers(0, 2**63)),
            progress=False,
            **options,
        )
        out[i] = float(np.mean(res.iteration_time))
    return out


def _cluster_run(code: Any, p: Mapping[str, Any], size: int, ss: np.random.SeedSequence) -> Any:
    from gctheory.montecarlo import estimate_mean

    sampler = functools.partial(_cluster_time, p)
    return _moments(estimate_mean(sampler, size, rng=ss, chunk_size=size, progress=False))


def _no_code(p: Mapping[str, Any]) -> None:
    return None


def _no_fingerprint(code: Any) -> None:
    return None


#: The estimators a sweep :class:`Problem` can name, by name (parameters and kind of each).
ESTIMATORS: dict[str, Estimator] = {
    e.name: e
    for e in (
        Estimator(
            "ldpc-block",
            "probability",
            {
                "n": (int, _REQUIRED),
                "eps": (float, _REQUIRED),
                "dv": (int, 3),
                "dc": (int, 6),
                "code_seed": (int, 0),
                "multi_edges": (str, "resample"),
            },
            1000,
            _ldpc_build,
            _ldpc_fingerprint,
            _ldpc_run,
            "block failure of peeling on BEC(eps) for one code of the regular (dv,dc) ensemble",
        ),
        Estimator(
            "dfrc-failure",
            "probability",
            {"n": (int, _REQUIRED), "s": (int, _REQUIRED), "d": (int, _REQUIRED)}
            | {"rounding": (str, "ceil")},
            10_000,
            _dfrc_build,
            lambda sizes: sha256_text(canonical_json(sizes)),
            _dfrc_run,
            "some d-FRC group straggles entirely (s random stragglers of n)",
        ),
        Estimator(
            "condition-tail",
            "probability",
            {"u": (int, _REQUIRED), "v": (int, _REQUIRED), "kappa": (float, _REQUIRED)},
            1000,
            _no_code,
            _no_fingerprint,
            _cond_run,
            "P(cond(M) > kappa) for a u x v standard Gaussian M",
        ),
        Estimator(
            "runtime",
            "mean",
            {
                "scheme": (str, _REQUIRED),
                "n": (int, _REQUIRED),
                "s": (int, 0),
                "m": (int, 1),
                "dist": (str, "exponential"),
                "mu": (float, 1.0),
                "delta": (float, 0.0),
                "xi": (float, 1.1),
                "t0": (float, 0.001),
                "tau": (float, 0.0),
            },
            10_000,
            _runtime_build,
            _runtime_fingerprint,
            _runtime_run,
            "iteration time of a scheme under i.i.d. worker delays (runtime.scheme_time_mc)",
        ),
        Estimator(
            "training-time",
            "mean",
            {
                "scheme": (str, _REQUIRED),
                "n": (int, _REQUIRED),
                "s": (int, -1),
                "delay": (str, "exp(1)"),
                "iterations": (int, 20),
                "model": (str, "logistic"),
            },
            4,
            _no_code,
            _no_fingerprint,
            _training_run,
            "mean simulated iteration time of one training run (training.simulate)",
        ),
        Estimator(
            "cluster-time",
            "mean",
            {
                "scheme": (str, _REQUIRED),
                "n": (int, _REQUIRED),
                "s": (int, -1),
                "delay": (str, "shifted_exp(0.005, 0.01)"),
                "iterations": (int, 10),
                "workload": (str, "softmax"),
            },
            2,
            _no_code,
            _no_fingerprint,
            _cluster_run,
            "mean measured iteration time of a real run on local processes (cluster.run)",
        ),
    )
}


def _normalise(estimator: Estimator, params: Mapping[str, Any], label: str) -> dict:
    unknown = sorted(set(params) - set(estimator.params))
    if unknown:
        raise ValueError(
            f"{label}: unknown parameter(s) {unknown}; {estimator.name} takes "
            f"{sorted(estimator.params)}"
        )
    out: dict[str, Any] = {}
    for name, (kind, default) in estimator.params.items():
        if name not in params:
            if default is _REQUIRED:
                raise ValueError(f"{label}: parameter {name!r} is required")
            out[name] = default
            continue
        v = params[name]
        if isinstance(v, np.generic):
            v = v.item()
        if kind is int:
            if (
                isinstance(v, bool)
                or not isinstance(v, numbers.Real)
                or not math.isfinite(v)
                or v != math.trunc(v)
            ):
                raise ValueError(f"{label}: {name} must be an integer, got {v!r}")
            out[name] = math.trunc(v)
        elif kind is float:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise ValueError(f"{label}: {name} must be a finite number, got {v!r}")
            out[name] = float(v)
        else:
            if not isinstance(v, str):
                raise ValueError(f"{label}: {name} must be a string, got {v!r}")
            out[name] = v
    return out


@functools.lru_cache(maxsize=64)
def _built(name: str, params_json: str) -> tuple[Any, str | None]:
    est = ESTIMATORS[name]
    code = est.build(json.loads(params_json))
    return code, est.fingerprint(code)


@dataclass(frozen=True)
class Problem:
    """One point of a sweep: ``Problem("ldpc-block", {"n": 200, "eps": 0.35})``.

    Parameters
    ----------
    estimator : str
        A name of :data:`ESTIMATORS`.
    params : mapping
        Its parameters (see ``ESTIMATORS[name].params``); unknown or missing
        ones are refused naming the problem.
    seed : int
        Base seed of the problem's batches (part of the key).
    batch_size : int, optional
        Trials per batch (a row of the stats file; part of the key); default the
        estimator's.
    max_trials, max_events, rel_half_width : optional
        This problem's stopping rule; None takes :func:`~gctheory.sweeps.collect`'s.

    Examples
    --------
    >>> from gctheory.sweeps import Problem
    >>> p = Problem("ldpc-block", {"n": 60, "eps": 0.4}, batch_size=100)
    >>> p.label
    'problem ldpc-block(n=60 eps=0.4 dv=3 dc=6 code_seed=0 multi_edges=resample)'
    >>> p.kind, len(p.key)  # the key: a hash of the exact problem
    ('probability', 64)
    >>> Problem("ldpc-block", {"n": 60, "eps": 0.4}, batch_size=100).key == p.key  # same problem
    True
    """

    estimator: str
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    batch_size: int | None = None
    max_trials: int | None = None
    max_events: int | None = None
    rel_half_width: float | None = None

    def __post_init__(self) -> None:
        if self.estimator not in ESTIMATORS:
            raise ValueError(
                f"problem {self.estimator!r}: unknown estimator; known: {sorted(ESTIMATORS)}"
            )
        est = ESTIMATORS[self.estimator]
        params = _normalise(est, dict(self.params), self._label(self.params))
        object.__setattr__(self, "params", params)
        for name in ("seed", "batch_size", "max_trials", "max_events"):
            v = getattr(self, name)
            low = 0 if name in ("seed", "max_events") else 1
            if name == "batch_size" and v is None:
                v = est.batch_size
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
                raise ValueError(f"{self.label}: {name} must be an integer >= {low}, got {v!r}")
            object.__setattr__(self, name, int(v))
        batch_size = self.batch_size
        assert batch_size is not None, "set just above: the estimator's default when not given"
        if est.kind == "mean" and batch_size < 2:
            raise ValueError(f"{self.label}: batch_size must be >= 2 for a mean")
        if est.kind == "mean" and self.max_events is not None:
            raise ValueError(f"{self.label}: max_events applies to probabilities, not means")
        r = self.rel_half_width
        if r is not None and (
            isinstance(r, bool) or not isinstance(r, numbers.Real) or not 0 < r < math.inf
        ):
            raise ValueError(f"{self.label}: rel_half_width must be a positive number, got {r!r}")

    def _label(self, params: Mapping[str, Any]) -> str:
        inner = " ".join(f"{k}={v}" for k, v in params.items())
        return f"problem {self.estimator}({inner})"

    @property
    def label(self) -> str:
        """``problem ldpc-block(n=100 eps=0.3 ...)``, as error messages name it."""
        return self._label(self.params)

    @property
    def kind(self) -> str:
        """``"probability"`` (rows count events) or ``"mean"`` (rows hold sums)."""
        return ESTIMATORS[self.estimator].kind

    def code(self) -> Any:
        """The code the estimator runs on (built once per process)."""
        return self._built()[0]

    def _built(self) -> tuple[Any, str | None]:
        try:
            return _built(self.estimator, canonical_json(self.params))
        except ValueError as exc:
            raise ValueError(f"{self.label}: {exc}") from None

    def identity(self) -> dict[str, Any]:
        """The JSON object hashed into :attr:`key` (also stored in every row)."""
        return {
            "estimator": self.estimator,
            "params": self.params,
            "code": self._built()[1],
            "seed": self.seed,
            "batch_size": self.batch_size,
        }

    @property
    def json(self) -> str:
        return canonical_json(self.identity())

    @property
    def key(self) -> str:
        """SHA-256 of :attr:`json`."""
        return sha256_text(self.json)

    def batch_seed(self, batch: int) -> np.random.SeedSequence:
        """The seed of batch ``batch``: child ``batch`` of ``SeedSequence([seed, key64])``."""
        return np.random.SeedSequence([self.seed, int(self.key[:16], 16)], spawn_key=(batch,))

    def run_batch(self, batch: int, size: int) -> Any:
        """One batch: the event count, or its sample summary (``Moments``) for a mean."""
        code = self.code()
        try:
            return ESTIMATORS[self.estimator].run(code, self.params, size, self.batch_seed(batch))
        except ValueError as exc:
            raise ValueError(f"{self.label}: {exc}") from None


def grid(estimator: str, *, seed: int = 0, batch_size: int | None = None, **values: Any) -> list:
    """Problems over the Cartesian product of ``values`` (scalars are fixed).

    ``grid("ldpc-block", n=[100, 200], eps=[0.3, 0.35])`` gives four problems,
    the last parameter varying fastest.

    Parameters
    ----------
    estimator : str
        A name of :data:`ESTIMATORS`.
    seed : int
        Seed of every problem.
    batch_size : int, optional
        Trials per batch.
    **values
        Parameter values; sequences are crossed, scalars fixed.

    Returns
    -------
    list of Problem
        One per combination, the last parameter varying fastest.

    Examples
    --------
    >>> from gctheory.sweeps import grid
    >>> problems = grid("ldpc-block", n=[100, 200], eps=[0.3, 0.35])
    >>> [(p.params["n"], p.params["eps"]) for p in problems]
    [(100, 0.3), (100, 0.35), (200, 0.3), (200, 0.35)]
    """
    names = list(values)
    lists = [
        v if isinstance(v, Iterable) and not isinstance(v, str) else [v] for v in values.values()
    ]
    return [
        Problem(estimator, dict(zip(names, combo, strict=True)), seed=seed, batch_size=batch_size)
        for combo in itertools.product(*lists)
    ]
