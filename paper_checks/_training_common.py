"""Shared helper of the training paper checks: is the digits data available?"""

from __future__ import annotations

from paper_checks import Outcome

SKLEARN_CAUSE = (
    "the simulation trains on scikit-learn's bundled digits data; install it with "
    'pip install "gctheory[data]"'
)


def sklearn_missing() -> Outcome | None:
    """``not checkable`` if scikit-learn cannot be imported, else None."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return Outcome("not checkable", None, cause=SKLEARN_CAUSE)
    return None
