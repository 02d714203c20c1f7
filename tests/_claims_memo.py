"""Each seeded paper claim computed once per test process, for the tests of what the
``reproduce`` and ``check`` commands do with the results.

Several test files run ``gctheory reproduce --quick --paper halbawi2017`` (the README's
command lines, the CLI's report writing, the ledger's diff on an edited verdict): the
claims are seeded, so their results are the same each time, and what those tests check
is the command's handling of them (its report, its figures, its ledger comparison), not
the claims' computation, which the first run in the process still does in full.
"""

from __future__ import annotations

from typing import Any

import pytest

import paper_checks

#: (claim key, quick) -> its result, for the life of the test process
_RESULTS: dict[tuple[str, bool], Any] = {}


def use_claims_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``paper_checks.run_claims`` compute each (claim, quick) once in this process
    (until ``monkeypatch`` undoes it at the end of the test)."""
    real = paper_checks.run_claims

    def run_once(claims, *, quick=False, progress=None):
        keys = [(c.key, quick) for c in claims]
        todo = [c for c, k in zip(claims, keys) if k not in _RESULTS]
        if todo:
            for c, res in zip(todo, real(todo, quick=quick, progress=progress)):
                _RESULTS[(c.key, quick)] = res
        return [_RESULTS[k] for k in keys]

    monkeypatch.setattr(paper_checks, "run_claims", run_once)
