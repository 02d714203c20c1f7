"""Wang, Charles, Papailiopoulos 2019, ErasureHead: approximate FRC on real runs."""

from paper_checks.wang2019erasurehead import runs as runs  # noqa: F401  (registers the claims)
