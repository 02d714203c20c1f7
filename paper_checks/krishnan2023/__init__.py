"""Krishnan, Ebrahimi, Khisti 2023: sequential gradient coding (SR-SGC, M-SGC)."""

# each import registers its module's claims
from paper_checks.krishnan2023 import lambda_replay as lambda_replay  # noqa: F401
from paper_checks.krishnan2023 import runtime as runtime  # noqa: F401
from paper_checks.krishnan2023 import sgc as sgc  # noqa: F401
