"""Paper checks: every numeric claim of the source papers, recomputed.

A claim records where it stands in its paper, what it states, the paper's
printed value (for comparison only, never an input), and a function that
recomputes it with gctheory and returns an :class:`Outcome` with a verdict:

- ``reproduced``: the recomputed value agrees within the stated tolerance;
- ``differs``: it does not, and ``cause`` says why (a constant, a typo, a
  convention), as found by the check;
- ``not checkable``: the paper does not give what is needed (``cause`` says what).

Claims live in ``paper_checks/<paper>.py`` and ``paper_checks/<paper>_<topic>.py``
(one file per topic, so independent work never edits one file); each file
registers its claims with the :func:`claim` decorator. ``gctheory reproduce``
imports them all, runs them and writes ``paper_checks/REPORT.md`` and
``REPORT.json``.
"""

from paper_checks._framework import (
    PAPERS,
    VERDICTS,
    Claim,
    ClaimResult,
    Outcome,
    all_claims,
    claim,
    close_verdict,
    render_markdown,
    run_claims,
)

__all__ = [
    "PAPERS",
    "VERDICTS",
    "Claim",
    "ClaimResult",
    "Outcome",
    "all_claims",
    "claim",
    "close_verdict",
    "render_markdown",
    "run_claims",
]
