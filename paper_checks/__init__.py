"""Paper checks: every numeric claim of the source papers, recomputed.

A claim records where it stands in its paper, what it states, the paper's
printed value (for comparison only, never an input), and a function that
recomputes it with gctheory. Each claim is split in two: ``compute(quick)``
returns the computed numbers, and ``judge(computed)``, a pure function of
them, returns an :class:`Outcome` with a verdict:

- ``reproduced``: the recomputed value agrees within the stated tolerance;
- ``differs``: it does not, and ``cause`` says why (a constant, a typo, a
  convention), as found by the check;
- ``not checkable``: the paper does not give what is needed (``cause`` says what).

Claims live in one package per paper, ``paper_checks/<paper>/<topic>.py`` (one
file per topic, so independent work never edits one file); each file registers
its claims with the :func:`claim` decorator. The framework (registry, runner,
report, ledger, inventory, shared judges) is ``paper_checks/_framework/``. ``gctheory reproduce``
imports them all, runs them, writes ``paper_checks/REPORT.md`` and
``REPORT.json``, and compares the verdicts with the committed ledger
(``paper_checks/ledger.json``, see :mod:`paper_checks._framework.ledger`): any
difference fails the run. ``paper_checks/inventory/<paper>.json`` lists every
claim a reading of each paper finds and the claims that check it
(:mod:`paper_checks._framework.inventory`).

A claim of a paper outside the five seeds registers its source first with
:func:`register_source`; such claims are reported under their own heading.
"""

from paper_checks._framework.registry import (
    OTHER_SOURCES,
    PAPERS,
    VERDICTS,
    Claim,
    ClaimResult,
    Outcome,
    all_claims,
    all_sources,
    claim,
    close_verdict,
    drift_pin,
    interval_pin,
    register_source,
    run_claims,
    seeded_pin,
)
from paper_checks._framework.report import render_markdown

__all__ = [
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
    "drift_pin",
    "seeded_pin",
    "register_source",
    "render_markdown",
    "run_claims",
]
