"""Lower bounds on the computation load of gradient codes, and the codes that meet them.

The computation load ``d`` of a gradient code is the number of data partitions
each worker stores (Definition 2 of [1]). This module answers, for given ``n``
workers and ``s`` stragglers: how large must ``d`` be to recover the gradient

- exactly for *every* straggler set (worst case: Tandon et al. ``d >= s + 1``;
  Ye-Abbe ``l / k >= (s + m) / n``, eq. (1) of [2]; Halbawi et al.
  ``s <= floor(w n / k) - 1``, eq. (2) of [3]);
- exactly with high probability over a uniformly random straggler set
  (Theorem 3 of [1], eq. (13), and the fixed point (29) of its proof);
- with error at most ``eps * n`` with high probability (Theorem 5 of [1] as
  stated, and eq. (52) of its proof: the two differ);

and which construction gets there: the d-fractional repetition code (d-FRC,
Definition 4 and Theorem 4 of [1], eq. (14)), whose failure probability is
computed *exactly* (inclusion-exclusion over its groups, Appendix D, eqs.
(37)-(38), also when ``d`` does not divide ``n``, Remark 1), and the batch
raptor code's parameters (Theorem 6 of [1]).

Besides the paper's asymptotic closed forms, the module gives *finite-n*
lower bounds that follow exactly from the paper's own proof steps: the
single-column bound (eq. (26), left-hand side, valid for every code of load
``d``), the union bound over a set of columns with pairwise disjoint supports
(eqs. (23)-(24)), Lemma 2 made constructive (:func:`disjoint_support_columns`),
and the exact law of the number of all-zero columns among such a set (the
random variable ``Y(I_d*)`` of Appendix E). Logarithms are natural; every
closed form of Theorems 3 and 5 is base-free (a ratio of logarithms), but
Theorem 4's eq. (14) and Theorem 6's ``b`` are not, and use ``ln``.

References
----------
.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (eq. (1), the bound of Ye and Abbe, ICML 2018).
.. [3] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", 2017 (eq. (2), after Tandon
   et al., ICML 2017).

Layout (by concept; arrows point down only)::

    curves         all_bounds, load_curves, achieved_load_mc (every bound beside the codes)
    worst_case     exact recovery for every straggler set ([2], [3])
    asymptotic     Theorems 3 and 5 of [1], closed forms
    finite_n       finite-n bounds from the proof steps of [1], Lemma 2
    frc            the d-FRC: Theorem 4, exact and Monte Carlo failure, law of err
    brc            Theorem 6: the batch raptor code's parameters
    group_failure  P(some disjoint group fully straggles), exact and saddle-point float
    _common        LoadBound, the regime warning, argument checks, exact rounding
"""

from gctheory.load_bounds._common import LoadBound, LoadBoundRegimeWarning
from gctheory.load_bounds.asymptotic import (
    approximate_recovery_lower_bound,
    exact_recovery_lower_bound,
)
from gctheory.load_bounds.brc import BRCParameters, brc_condition_54_margin, brc_parameters
from gctheory.load_bounds.curves import AchievedLoad, achieved_load_mc, all_bounds, load_curves
from gctheory.load_bounds.finite_n import (
    _zero_column_tail_float,  # noqa: F401 (private; tests import it from here)
    disjoint_support_columns,
    matrix_union_lower_bound,
    min_load_lower_bound,
    single_column_lower_bound,
    union_lower_bound,
    zero_column_count_pmf,
    zero_column_tail_lower_bound,
)
from gctheory.load_bounds.frc import (
    _frc_counts,  # noqa: F401 (private; tests import it from here)
    frc_error_pmf,
    frc_failure_mc,
    frc_failure_probability,
    frc_group_sizes,
    frc_load,
    frc_min_load,
)
from gctheory.load_bounds.group_failure import (
    _group_failure,  # noqa: F401 (private; tests import it from here)
    _group_failure_float,  # noqa: F401 (private; tests import it from here)
    group_failure_probability,
)
from gctheory.load_bounds.worst_case import halbawi_load, halbawi_max_stragglers, worst_case_load

__all__ = [
    "LoadBound",
    "LoadBoundRegimeWarning",
    "BRCParameters",
    "worst_case_load",
    "halbawi_load",
    "halbawi_max_stragglers",
    "exact_recovery_lower_bound",
    "approximate_recovery_lower_bound",
    "frc_load",
    "frc_group_sizes",
    "group_failure_probability",
    "frc_failure_probability",
    "frc_failure_mc",
    "frc_min_load",
    "frc_error_pmf",
    "single_column_lower_bound",
    "union_lower_bound",
    "zero_column_count_pmf",
    "zero_column_tail_lower_bound",
    "min_load_lower_bound",
    "disjoint_support_columns",
    "matrix_union_lower_bound",
    "brc_parameters",
    "brc_condition_54_margin",
    "all_bounds",
    "load_curves",
    "AchievedLoad",
    "achieved_load_mc",
]
