"""Gaussian condition-number tails by importance sampling (Lemma 1 and Theorem 2 of [1]).

A ``p x q`` standard Gaussian (``p <= q``) is ``M = L Q^T`` with ``L`` lower
triangular, ``L_ii ~ chi_{q-i+1}``, ``L_ij ~ N(0, 1)`` below the diagonal and
``Q`` Haar on the Stiefel manifold, all independent (the Bartlett
decomposition [3]); ``cond(M) = cond(L)``. The event ``cond > x`` is driven by
the last diagonal entry ``c = L_pp`` (``d = q - p + 1`` degrees of freedom,
the exponent of Lemma 1). Given the rest of ``L``, the set of ``c`` with
``cond <= x`` is an interval ``[c_lo, c_hi]`` (``x^2 lambda_min - lambda_max``
of ``L L^T = W_0 + c^2 e e^T`` is concave in ``c^2``), so

    P(cond > x | rest) = F_d(c_lo^2) + 1 - F_d(c_hi^2),   F_d the chi^2_d CDF,

exactly (``c_lo``, ``c_hi`` in closed form for ``p = 2``, from the secular
equation of the rank-one update otherwise). :class:`GaussianConditionTail`
draws a uniformly chosen row's entry from its law given the event, and
weights by ``1 / mean_j [1 / P(cond > x | rest_j)]`` over the rows (exact);
``method="tilt"`` instead draws every ``L_ii`` from a chi law with fewer
degrees of freedom (full support). :class:`SubsetConditionTail` extends the
conditional proposal to Theorem 2's union ``max_{|T| = t} cond(G_T) > kappa``
over the column subsets of a ``K x N`` Gaussian ``G``, as a mixture over
subsets and rows (the union estimator of Owen, Maximov and Chertkov [4]).

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
.. [2] Z. Chen, J. J. Dongarra, "Condition numbers of Gaussian random
   matrices", SIAM J. Matrix Anal. Appl. 27(3), 603-620, 2005.
.. [3] M. S. Bartlett, "On the theory of statistical regression", Proc. Royal
   Soc. Edinburgh 53 (1933); R. J. Muirhead, "Aspects of multivariate
   statistical theory", 1982, Thm. 3.2.14 and 3.2.18.
.. [4] A. B. Owen, Y. Maximov, M. Chertkov, "Importance sampling the union of
   rare events with an application to power systems analysis", Electronic
   Journal of Statistics 13 (2019).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.tails.gaussian import _conditional, _single, _subsets
from gctheory.tails.gaussian._conditional import _bartlett as _bartlett
from gctheory.tails.gaussian._conditional import _roots_2 as _roots_2
from gctheory.tails.gaussian._conditional import _roots_general as _roots_general
from gctheory.tails.gaussian._conditional import condition_tail_2xn, conditional_tail_probability
from gctheory.tails.gaussian._single import (
    MAX_ENTRIES,
    ConditionExceeds,
    GaussianConditionTail,
    condition_tail_is,
)
from gctheory.tails.gaussian._subsets import (
    SubsetConditionTail,
    SubsetMaxExceeds,
    subset_failure_is,
)

__all__ = [
    "MAX_ENTRIES",
    "ConditionExceeds",
    "GaussianConditionTail",
    "SubsetConditionTail",
    "SubsetMaxExceeds",
    "conditional_tail_probability",
    "condition_tail_2xn",
    "condition_tail_is",
    "subset_failure_is",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _conditional, _single, _subsets)
