"""LT / batch raptor codes of Wang et al. 2019, Theorem 6: degree distribution, conditions, peeling.

References
----------
.. [1] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", 2019, Theorem 6, eqs. (17), (53)-(55), Algorithm 1.
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.ldpc.raptor import _asymptotic, _finite_length
from gctheory.ldpc.raptor._asymptotic import (
    RaptorParameters,
    check_condition_54,
    lt_residual_fraction,
    raptor_code_matrix,
    raptor_degree_distribution,
    raptor_failure_rate,
    raptor_parameters,
    raptor_residual_rate,
)
from gctheory.ldpc.raptor._finite_length import (
    LTProfile,
    lt_peeling_profile,
    raptor_failure_profile,
)

__all__ = [
    "LTProfile",
    "RaptorParameters",
    "check_condition_54",
    "lt_peeling_profile",
    "lt_residual_fraction",
    "raptor_failure_profile",
    "raptor_code_matrix",
    "raptor_degree_distribution",
    "raptor_failure_rate",
    "raptor_parameters",
    "raptor_residual_rate",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _asymptotic, _finite_length)
