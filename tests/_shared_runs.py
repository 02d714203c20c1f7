"""Seeded computations that several tests repeat, done once per test process.

What those tests check is what a command or a page does with the results (a report, a
ledger comparison, a figure, printed rows), not the computation itself, which the first
caller in the process still does in full; the results are seeded, so a later caller gets
what it would have computed.

- :func:`use_claims_once`: the paper claims. ``gctheory reproduce --quick --paper
  halbawi2017`` runs in the README's command lines, in the CLI's report test and twice
  in the ledger's diff test; ``check halbawi2017 --quick`` runs the same claims.
- :func:`use_tradeoff_once`: the tradeoff atlas. The README's ``gctheory tradeoff --n
  120 ...`` line and docs/tradeoff.md's ``tradeoff_table(120, ...)`` compute the same
  table (the same arguments, explicit or by default).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import gctheory
import gctheory.tradeoff as tradeoff_pkg
import paper_checks

#: (claim key, quick) -> its result, for the life of the test process
_CLAIMS: dict[tuple[str, bool], Any] = {}
#: the tradeoff function's bound arguments (but its progress callback) -> its table
_TABLES: dict[str, Any] = {}


def _plain(value: Any) -> bool:
    """Whether ``repr(value)`` says all of it: None, a number, a string, or a list or tuple
    of those."""
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def use_claims_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``paper_checks.run_claims`` compute each (claim, quick) once in this process
    (until ``monkeypatch`` undoes it at the end of the test)."""
    real = paper_checks.run_claims

    def run_once(claims, *, quick=False, progress=None):
        keys = [(c.key, quick) for c in claims]
        todo = [c for c, k in zip(claims, keys) if k not in _CLAIMS]
        if todo:
            for c, res in zip(todo, real(todo, quick=quick, progress=progress)):
                _CLAIMS[(c.key, quick)] = res
        return [_CLAIMS[k] for k in keys]

    monkeypatch.setattr(paper_checks, "run_claims", run_once)


def use_tradeoff_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``gctheory.tradeoff_table`` (``gctheory.tradeoff.tradeoff``, what the CLI
    calls) compute each table once in this process, keyed by all its arguments with
    their defaults filled in; a call with an argument whose text is not its value (an
    object, a generator) always computes."""
    real = tradeoff_pkg.tradeoff
    signature = inspect.signature(real)

    def tradeoff_once(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = {k: v for k, v in bound.arguments.items() if k != "progress"}
        if not all(_plain(v) for v in values.values()):
            return real(*args, **kwargs)
        key = repr(sorted(values.items()))
        if key not in _TABLES:
            _TABLES[key] = real(*args, **kwargs)
        return _TABLES[key]

    for name in ("tradeoff", "tradeoff_table"):
        monkeypatch.setattr(tradeoff_pkg, name, tradeoff_once)
    monkeypatch.setattr(gctheory, "tradeoff_table", tradeoff_once)
