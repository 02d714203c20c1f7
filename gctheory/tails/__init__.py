"""Rare-event estimation for the tail statements of gradient coding.

The guarantees the toolkit checks are tail statements: Lemma 1 of Kadhe et
al. 2019 (Chen and Dongarra's bound) bounds ``P(cond(M) > x)`` for a Gaussian
``u x v`` matrix where it is ``1e-9`` and smaller; Theorem 2 promises that a
Gaussian ``[m + s, m]`` code's worst ``t*``-column submatrix exceeds ``kappa``
with probability at most ``eps = 1e-3``; an LDPC code is good when its block
failure rate under peeling is ``1e-6``. Crude Monte Carlo cannot see these;
this package gives proposals for :func:`gctheory.montecarlo.importance_sampling`
whose likelihood ratios are exact, and the estimators built on them. It sits
above :mod:`gctheory.conditioning` and :mod:`gctheory.ldpc` (the engine itself
knows neither).

- :mod:`~gctheory.tails.gaussian`: Gaussian condition-number tails (the exact
  law for ``2 x n``, the conditional Bartlett proposal, Theorem 2's union);
- :mod:`~gctheory.tails.erasures`: tilted erasure patterns for peeling.
"""

from gctheory.tails.erasures import PeelingFails, TiltedErasures, block_failure_is
from gctheory.tails.gaussian import (
    ConditionExceeds,
    GaussianConditionTail,
    SubsetConditionTail,
    SubsetMaxExceeds,
    condition_tail_2xn,
    condition_tail_is,
    conditional_tail_probability,
    subset_failure_is,
)

__all__ = [
    "ConditionExceeds",
    "GaussianConditionTail",
    "PeelingFails",
    "SubsetConditionTail",
    "SubsetMaxExceeds",
    "TiltedErasures",
    "block_failure_is",
    "conditional_tail_probability",
    "condition_tail_2xn",
    "condition_tail_is",
    "subset_failure_is",
]
