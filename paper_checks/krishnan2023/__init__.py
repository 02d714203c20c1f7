"""Krishnan, Ebrahimi, Khisti 2023: sequential gradient coding (SR-SGC, M-SGC)."""

from paper_checks.krishnan2023 import runtime as runtime  # noqa: F401  (registers the claims)
from paper_checks.krishnan2023 import sgc as sgc  # noqa: F401  (registers the claims)
