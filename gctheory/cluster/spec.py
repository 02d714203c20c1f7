"""A run's description as data: one frozen, typed, JSON-serialisable object.

:class:`RunSpec` holds what defines a real run of :func:`gctheory.cluster.run`
(the scheme and its code options, the workload, the engine, the delay model,
the iterations, the step size, the seed, the fault policy, the evaluation and
checkpoint cadence, the waiting rule: ``wait_mu``, absent from older specs, which
read as None, the code's own rule). It is validated once, when built (a ValueError names the
parameter, the rule and the valid choices), written into the trace's JSON
sidecar and into checkpoints, and compared field by field when a run resumes
(:meth:`RunSpec.differences`). ``run(**kwargs)`` builds it from its keywords;
``run(spec=...)`` takes it whole; the ``run`` command builds it from its
options. A workload, engine or delay law given as an object is recorded by a
label (its class and, when it has one, its ``spec()``); such a spec cannot be
rebuilt from JSON without the object (:meth:`RunSpec.from_json` says so).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

__all__ = ["RunSpec", "SchemeSpec", "DelaySpec", "FaultSpec", "SPEC_FORMAT"]

#: format tag of a spec's JSON
SPEC_FORMAT = "gctheory.cluster.spec/1"
#: fields that may differ between a checkpoint's run and the run resuming it
_MAY_DIFFER = ("iterations", "engine", "eval_every", "checkpoint_every", "faults.timeout",
               "faults.on_error", "faults.deadline")  # fmt: skip


def _label(value: Any) -> Any:
    """A JSON value standing for ``value``: itself when plain, else its class and spec."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    out: dict[str, Any] = {"object": type(value).__name__}
    spec = getattr(value, "spec", None)
    if callable(spec):
        out["spec"] = spec()
    return out


def _seed(rng: Any) -> int:
    if rng is None:
        return 0
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63))
    raise ValueError(
        f"rng must be a nonnegative int seed or a numpy Generator (a run records its seed "
        f"for replay), got {rng!r}"
    )


def _positive_int(value: Any, name: str, low: int = 1) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low:
        what = "a positive int" if low == 1 else f"an int >= {low}"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class SchemeSpec:
    """The scheme and its code: ``name``, ``n`` workers, ``s`` or ``K``, ``m``, options."""

    name: str
    n: int
    s: int | None = None
    K: int | None = None
    m: int = 1
    code_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValueError(f"scheme must be a scheme name (str), got {self.name!r}")
        object.__setattr__(self, "n", _positive_int(self.n, "n"))
        if not isinstance(self.code_options, dict):
            raise ValueError(f"code_options must be a dict or None, got {self.code_options!r}")
        object.__setattr__(self, "code_options", dict(self.code_options))


@dataclass(frozen=True)
class DelaySpec:
    """The injected delay: the law (``"exp(0.01)"``, ``"trace:PATH"``, an object) and the
    options of :class:`gctheory.delays.DelayModel`."""

    law: Any = "constant(0)"
    persist: int = 1
    n_slow: int = 0
    slowdown: float = 1.0
    comm_time: float = 0.0


@dataclass(frozen=True)
class FaultSpec:
    """What the master does about slow, failing and lost workers."""

    on_error: str = "stop"
    timeout: float = 60.0
    deadline: float | None = None
    preempt: bool = True

    def __post_init__(self) -> None:
        if self.on_error not in ("stop", "straggler"):
            raise ValueError(f"on_error must be 'stop' or 'straggler', got {self.on_error!r}")
        if self.deadline is not None and not self.deadline > 0:
            raise ValueError(f"deadline must be > 0 seconds or None, got {self.deadline!r}")
        if not self.timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {self.timeout!r}")


@dataclass(frozen=True)
class RunSpec:
    """A real run's description (see the module docstring).

    Examples
    --------
    >>> from gctheory.cluster.spec import RunSpec
    >>> spec = RunSpec.build("frc", 4, 1, iterations=20, delay="exp(0.01)", rng=3)
    >>> spec.scheme.n, spec.seed, spec.delay.law
    (4, 3, 'exp(0.01)')
    >>> RunSpec.from_json(spec.to_json()) == spec
    True
    >>> spec.differences(spec.with_(seed=4).to_json())
    ['seed']
    """

    scheme: SchemeSpec
    workload: Any = "softmax"
    engine: Any = "local"
    delay: DelaySpec = field(default_factory=DelaySpec)
    iterations: int = 100
    step_size: float | None = None
    seed: int = 0
    faults: FaultSpec = field(default_factory=FaultSpec)
    eval_every: int = 1
    checkpoint_every: int = 1
    #: None: the code's own waiting rule; a number: the paper's (1 + mu) x first rule
    wait_mu: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "iterations", _positive_int(self.iterations, "iterations"))
        object.__setattr__(
            self, "checkpoint_every", _positive_int(self.checkpoint_every, "checkpoint_every")
        )
        object.__setattr__(self, "eval_every", _positive_int(self.eval_every, "eval_every", 0))
        object.__setattr__(self, "seed", _seed(self.seed))
        if self.step_size is not None and not self.step_size > 0:
            raise ValueError(f"step_size must be > 0, got {self.step_size!r}")
        from gctheory.cluster.rules import check_wait_mu

        object.__setattr__(self, "wait_mu", check_wait_mu(self.wait_mu))

    @classmethod
    def build(
        cls,
        scheme: str,
        n: int,
        s: int | None = None,
        *,
        K: int | None = None,
        m: int = 1,
        code_options: dict[str, Any] | None = None,
        delay: Any = "constant(0)",
        persist: int = 1,
        n_slow: int = 0,
        slowdown: float = 1.0,
        comm_time: float = 0.0,
        rng: Any = 0,
        on_error: str = "stop",
        timeout: float = 60.0,
        deadline: float | None = None,
        preempt: bool = True,
        **rest: Any,
    ) -> RunSpec:
        """The spec of ``run(scheme, n, s, **keywords)`` (the keywords of
        :func:`gctheory.cluster.run` that describe the run)."""
        unknown = sorted(set(rest) - {f.name for f in fields(cls)})
        if unknown:
            valid = sorted({f.name for f in fields(cls)} - {"scheme", "delay", "faults", "seed"})
            raise ValueError(f"unknown run option(s) {unknown}; valid: {', '.join(valid)}")
        return cls(
            scheme=SchemeSpec(scheme, n, s, K, m, dict(code_options or {})),
            delay=DelaySpec(delay, persist, n_slow, slowdown, comm_time),
            seed=_seed(rng),
            faults=FaultSpec(on_error, timeout, deadline, bool(preempt)),
            **rest,
        )

    def with_(self, **changes: Any) -> RunSpec:
        """A copy with top-level fields changed (validated again)."""
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The spec as plain JSON values (objects by their label)."""
        out: dict[str, Any] = {"format": SPEC_FORMAT}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = asdict(v) if f.name in ("scheme", "delay", "faults") else v
        out["workload"], out["engine"] = _label(self.workload), _label(self.engine)
        out["delay"]["law"] = _label(self.delay.law)
        json.dumps(out, allow_nan=False)  # refuses here what a sidecar could not hold
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSpec:
        """The spec written by :meth:`to_json` (validated again)."""
        if not isinstance(data, dict) or data.get("format") != SPEC_FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"not a run spec of format {SPEC_FORMAT!r}: {str(got)[:60]!r}")
        for key in ("workload", "engine"):
            if isinstance(data.get(key), dict):
                raise ValueError(
                    f"the spec's {key} was an object ({data[key].get('object')}); a spec "
                    f"cannot rebuild it: pass {key}= again"
                )
        parts = {"scheme": SchemeSpec, "delay": DelaySpec, "faults": FaultSpec}
        kw = {k: v for k, v in data.items() if k != "format"}
        for key, kind in parts.items():
            kw[key] = kind(**kw[key])
        return cls(**kw)

    def differences(self, other: dict[str, Any]) -> list[str]:
        """The fields (dotted) where the spec ``other`` (its JSON) differs from this one,
        leaving out those a resumed run may change (iterations, engine, timeout...)."""
        mine, out = self.to_json(), []
        for key, v in mine.items():
            sub = v if isinstance(v, dict) and key != "workload" else {"": v}
            theirs = other.get(key) if isinstance(other, dict) else None
            for k, x in sub.items():
                name = f"{key}.{k}" if k else key
                y = theirs.get(k) if k and isinstance(theirs, dict) else theirs
                if name not in _MAY_DIFFER and x != y:
                    out.append(name)
        return out
