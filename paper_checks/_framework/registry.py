"""The claim registry, the judge helper and the runner behind ``gctheory reproduce``.

The report writer is :mod:`paper_checks._framework.report`.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

PAPERS = {
    "kadhe2019": "Kadhe, Koyluoglu, Ramchandran, 'Communication-efficient gradient coding for "
    "straggler mitigation in distributed learning' (CommFR-GC), 2019",
    "wang2019": "Wang, Liu, Shroff, 'Fundamental limits of approximate gradient coding', 2019",
    "halbawi2017": "Halbawi, Azizan, Salehi, Hassibi, 'Improving distributed gradient descent "
    "using Reed-Solomon codes', 2017",
    "zhang2020": "Zhang, Simeone, 'LAGC: Lazily aggregated gradient coding for straggler-tolerant "
    "and communication-efficient distributed learning', 2020",
    "xu2021": "Xu, Huang, Song, Lan, 'Live gradient compensation for evading stragglers in "
    "distributed learning' (LGC-SGD), 2021",
}

# Papers outside the five seeds whose claims the toolkit also checks (the later literature
# behind the code families and generators). Their checks are reported under their own
# heading. A paper-check module adds its source with :func:`register_source` at import.
OTHER_SOURCES: dict[str, str] = {}

VERDICTS = ("reproduced", "differs", "not checkable")
KINDS = ("claim", "theorem")


def register_source(key: str, citation: str) -> None:
    """Register a paper outside the five seeds (``PAPERS``) so claims can cite it.

    Registering the same key twice with the same citation is a no-op.
    """
    if key in PAPERS:
        raise ValueError(f"source {key!r} is one of the seed papers; use it directly")
    old = OTHER_SOURCES.get(key)
    if old is not None and old != citation:
        raise ValueError(f"source {key!r} is already registered with another citation")
    OTHER_SOURCES[key] = citation


def all_sources() -> dict[str, str]:
    """Seed papers first, then the other sources (in registration order)."""
    return {**PAPERS, **OTHER_SOURCES}


@dataclass(frozen=True)
class Outcome:
    """What a claim's check found.

    ``computed`` is the recomputed value (number, tuple, dict, or text);
    ``comparison`` says how it was compared (tolerance, interval);
    ``cause`` is required for ``differs`` and ``not checkable``.

    ``key`` names the numbers the ledger pins (``paper_checks/ledger.json``):
    ``{name: value}`` with a default tolerance of ``rtol=1e-6``, or
    ``{name: (value, rtol)}`` / ``{name: (value, rtol, atol)}`` for numbers that
    vary more. Each number is pinned at the precision of its computation: a Monte
    Carlo estimate at its interval (:func:`interval_pin`), an integer count exactly
    (``rtol=0``), a closed form at the default. Strings and booleans are compared
    exactly.

    A theorem checked over its parameter range (``kind="theorem"``) reports
    ``instances`` (how many parameter points were verified), ``slack`` (the
    smallest relative slack found) and, when it fails, ``counterexample``.
    """

    verdict: str
    computed: Any
    comparison: str = ""
    cause: str = ""
    key: Mapping[str, Any] = field(default_factory=dict)
    instances: int | None = None
    slack: float | None = None
    counterexample: Any = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict != "reproduced" and not self.cause:
            raise ValueError(f"a {self.verdict!r} verdict needs its cause")
        for name, v in self.key.items():
            value = v[0] if isinstance(v, tuple) else v
            if not isinstance(value, (bool, int, float, str, np.integer, np.floating)):
                raise ValueError(
                    f"key number {name!r} must be a number, bool or string (optionally "
                    f"(value, rtol[, atol])), got {type(value).__name__}"
                )


def interval_pin(estimate: Any) -> tuple[float, float, float]:
    """The ledger pin of a Monte Carlo estimate at the precision of its interval.

    ``estimate`` is ``{"value", "low", "high"}``, a ``(value, low, high)`` tuple or an
    object with those attributes (:class:`gctheory.montecarlo.Estimate`). The pin is
    ``(value, 0, high - low)``: a later run may move the estimate by at most the width
    of its interval (two seeded runs whose intervals overlap differ by less than that),
    not by a fixed fraction of it (``rtol`` 0.3 let a 30% drift pass whatever the
    interval). An exact number is pinned exactly instead (``(value, 0)`` for a count,
    the default ``rtol`` 1e-6 for a closed form).
    """
    if isinstance(estimate, Mapping):
        value, low, high = estimate["value"], estimate["low"], estimate["high"]
    elif isinstance(estimate, tuple):
        if len(estimate) != 3:
            raise ValueError(
                f"estimate: a (value, low, high) tuple has 3 entries, got {len(estimate)}"
            )
        value, low, high = estimate
    else:
        value, low, high = estimate.value, estimate.low, estimate.high
    value, low, high = float(value), float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high) and low <= value <= high):
        raise ValueError(
            f"estimate: needs finite low <= value <= high, got {value!r} [{low!r}, {high!r}]"
        )
    return (value, 0.0, high - low)


#: relative precision of a seeded computation's pin: the same seed draws the same numbers, so
#: the value repeats up to rounding (1e-4 leaves room for BLAS rounding across library versions)
SEEDED_RTOL = 1e-4


def seeded_pin(value: Any, *, atol: float = 1e-12) -> tuple[float, float, float]:
    """The ledger pin of a seeded computation at its own precision: ``(value, 1e-4, atol)``.

    A Monte Carlo estimate or a simulation driven by a fixed seed gives the same number on
    every run up to floating-point rounding, so the pin catches any drift larger than that
    (a changed sampler, a changed formula), where a pin at a fraction of the value
    (``rtol`` 0.3-0.6) or at a Monte Carlo interval wider than the value let real changes
    pass. A change that alters the draws must re-pin with ``--update-ledger`` and say why.
    """
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"value: a seeded pin needs a finite number, got {value!r}")
    return (v, SEEDED_RTOL, float(atol))


def drift_pin(estimate: Any) -> tuple[float, float, float]:
    """:func:`interval_pin` where the interval is narrower than the value's size, else
    :func:`seeded_pin`: an interval wider than the value would let a sign change pass."""
    value, _, width = interval_pin(estimate)
    if width < abs(value):
        return (value, 0.0, width)
    return seeded_pin(value)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper and the functions that recompute and judge it.

    ``check(quick)`` runs the whole claim. For a claim split into *compute*
    and *judge* (every claim should be), ``compute(quick)`` returns the
    computed numbers, ``judge(computed)`` is a pure function from them to an
    :class:`Outcome`, and ``check`` is ``judge(compute(quick))``. ``examples``
    are counterfactual computed values with the verdict the judge must give
    for each: they show that the verdict can flip (``tests/test_judges.py``
    runs them).
    """

    paper: str
    id: str
    where: str
    statement: str
    paper_value: Any
    check: Callable[[bool], Outcome]
    slow: bool = False
    compute: Callable[[bool], Any] | None = None
    judge: Callable[[Any], Outcome] | None = None
    examples: tuple[tuple[Any, str], ...] = ()
    kind: str = "claim"

    @property
    def key(self) -> str:
        return f"{self.paper}:{self.id}"

    @property
    def seed(self) -> bool:
        """Whether the claim is from one of the five seed papers."""
        return self.paper in PAPERS


_REGISTRY: dict[str, Claim] = {}


def _validate_examples(key: str, examples: Sequence[Any]) -> tuple[tuple[Any, str], ...]:
    out = []
    for ex in examples:
        if not (isinstance(ex, tuple) and len(ex) == 2 and ex[1] in VERDICTS):
            raise ValueError(
                f"claim {key!r}: each example must be a (computed, verdict) pair with verdict "
                f"one of {VERDICTS}, got {ex!r}"
            )
        out.append((ex[0], ex[1]))
    if len({v for _, v in out}) < 2:
        raise ValueError(
            f"claim {key!r}: examples must show at least two different verdicts (a verdict "
            "that cannot change is a defect)"
        )
    return tuple(out)


def claim(
    *,
    paper: str,
    id: str,
    where: str,
    statement: str,
    paper_value: Any,
    slow: bool = False,
    judge: Callable[[Any], Outcome] | None = None,
    examples: Sequence[tuple[Any, str]] = (),
    kind: str = "claim",
) -> Callable[[Callable[[bool], Any]], Callable[[bool], Any]]:
    """Register a claim of ``paper``.

    With ``judge`` (the form every claim should take), the decorated function
    is ``compute(quick) -> computed`` and returns the numbers only;
    ``judge(computed) -> Outcome`` decides the verdict from them alone, and
    ``examples`` (at least two different verdicts) are counterfactual
    computed values with the verdict ``judge`` must return for each. Without
    ``judge`` the decorated function is a legacy ``check(quick) -> Outcome``.

    ``quick=True`` is the desk mode (``gctheory reproduce --quick``): fewer
    Monte Carlo trials, smaller grids; a claim with ``slow=True`` is skipped
    then. ``paper_value`` is what the paper prints, for the report and the
    judge's comparison: the computation must never use it. ``kind="theorem"``
    marks a theorem or lemma verified over its parameter range (the report
    lists those with their instance counts and smallest slack).
    """
    if paper not in PAPERS and paper not in OTHER_SOURCES:
        raise ValueError(
            f"paper must be one of {sorted(PAPERS)} or a source registered with "
            f"register_source ({sorted(OTHER_SOURCES)}), got {paper!r}"
        )
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    key = f"{paper}:{id}"
    if judge is None and examples:
        raise ValueError(f"claim {key!r}: examples need a judge")
    checked = _validate_examples(key, examples) if judge is not None else ()

    def register(func: Callable[[bool], Any]) -> Callable[[bool], Any]:
        if judge is None:
            c = Claim(paper, id, where, statement, paper_value, func, slow, kind=kind)
        else:
            j = judge

            def check(quick: bool) -> Outcome:
                return j(func(quick))

            check.__qualname__ = func.__qualname__
            c = Claim(paper, id, where, statement, paper_value, check, slow, func, j, checked, kind)
        if c.key in _REGISTRY and _REGISTRY[c.key].check.__qualname__ != func.__qualname__:
            raise ValueError(f"claim {c.key!r} is registered twice")
        _REGISTRY[c.key] = c
        return func

    return register


def close_verdict(
    computed: float,
    paper_value: float,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    cause: str = "",
) -> Outcome:
    """``reproduced`` if ``|computed - paper| <= atol + rtol |paper|``, else ``differs``."""
    ok = math.isclose(float(computed), float(paper_value), rel_tol=rtol, abs_tol=atol)
    cmp = f"|computed - paper| <= {atol:g} + {rtol:g}*|paper|"
    if ok:
        return Outcome("reproduced", computed, cmp)
    return Outcome("differs", computed, cmp, cause or "no cause identified")


def all_claims(paper: str | None = None) -> list[Claim]:
    """Import every paper module of ``paper_checks`` and return the registered claims."""
    for name in _paper_modules():
        importlib.import_module(name)
    sources = all_sources()
    if paper is not None and paper not in sources:
        raise ValueError(f"paper must be one of {sorted(sources)}, got {paper!r}")
    claims = [c for c in _REGISTRY.values() if paper is None or c.paper == paper]
    order = list(sources)
    return sorted(claims, key=lambda c: (order.index(c.paper), c.id))


def _paper_modules() -> list[str]:
    """The claim modules, in import order: ``paper_checks/<paper>/<topic>.py``.

    Packages in name order, then each package's modules in name order (names starting
    with ``_`` are not claim modules). The order matters: a source outside the seeds
    registers at import, and the report lists those sources in registration order. It is
    the order of the flat ``<paper>_<topic>.py`` layout this replaced, so the report did
    not change when the files moved.
    """
    # found on disk, not through ``import paper_checks`` (which imports this module)
    root = Path(__file__).resolve().parents[1]
    names = []
    for pkg in sorted(pkgutil.iter_modules([str(root)]), key=lambda m: m.name):
        if pkg.name.startswith("_"):
            continue
        full = f"paper_checks.{pkg.name}"
        if not pkg.ispkg:
            names.append(full)
            continue
        mods = sorted(pkgutil.iter_modules([str(root / pkg.name)]), key=lambda m: m.name)
        names += [f"{full}.{m.name}" for m in mods if not m.name.startswith("_")]
    return names


@dataclass
class ClaimResult:
    """A claim together with what running its check gave."""

    claim: Claim
    outcome: Outcome | None
    seconds: float
    error: str = ""
    skipped: str = ""
    #: CPU seconds of this process (threads included, worker processes not), for the log
    cpu_seconds: float = 0.0

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        if self.skipped:
            return "skipped"
        assert self.outcome is not None
        return self.outcome.verdict

    def to_json(self, finding_of: Callable[[str, str], str | None] | None = None) -> dict[str, Any]:
        # no timings: a second run of an unchanged checkout must write the same file
        o = self.outcome
        out = {
            "paper": self.claim.paper,
            "id": self.claim.id,
            "kind": self.claim.kind,
            "where": self.claim.where,
            "statement": self.claim.statement,
            "paper_value": _jsonable(self.claim.paper_value),
            "verdict": self.verdict,
            "computed": _jsonable(o.computed) if o else None,
            "comparison": o.comparison if o else "",
            "cause": o.cause if o else "",
            "key": _jsonable(dict(o.key)) if o else {},
            "error": self.error,
            "skipped": self.skipped,
            # which finding (root cause) a differing claim counts toward: the report knows
            "finding": finding_of(self.claim.key, self.verdict) if finding_of else None,
        }
        if o is not None and self.claim.kind == "theorem":
            out["instances"] = o.instances
            out["slack"] = _jsonable(o.slack)
            out["counterexample"] = _jsonable(o.counterexample)
        return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else str(x)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if x is None or isinstance(x, (bool, int, str)):
        return x
    return str(x)


def run_claims(
    claims: list[Claim], *, quick: bool = False, progress: Callable[[str], None] | None = None
) -> list[ClaimResult]:
    """Run each claim's check; an exception is recorded as an ``error`` result."""
    results = []
    for c in claims:
        if quick and c.slow:
            results.append(ClaimResult(c, None, 0.0, skipped="slow claim, skipped in --quick"))
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            outcome = c.check(quick)
            if not isinstance(outcome, Outcome):
                raise TypeError(f"check returned {type(outcome).__name__}, not Outcome")
            res = ClaimResult(c, outcome, time.perf_counter() - t0)
        except Exception:
            res = ClaimResult(c, None, time.perf_counter() - t0, error=traceback.format_exc())
        res.cpu_seconds = time.process_time() - c0
        results.append(res)
        if progress is not None:
            progress(f"{c.key}: {res.verdict} ({res.seconds:.1f}s)")
    return results


__all__ = [
    "KINDS",
    "OTHER_SOURCES",
    "PAPERS",
    "VERDICTS",
    "Claim",
    "ClaimResult",
    "Outcome",
    "all_claims",
    "all_sources",
    "claim",
    "close_verdict",
    "interval_pin",
    "register_source",
    "run_claims",
]
