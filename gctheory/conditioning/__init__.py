"""Numerical stability of gradient codes: condition-number tail bounds, s_kappa, worst cases.

A gradient code's straggler tolerance is only useful if every matrix the server
inverts while decoding is well conditioned. Following Kadhe et al. [1],
Section IV-B, the *straggler threshold under stability constraint* ``kappa``,
``s_kappa``, is the number of stragglers a scheme tolerates while every
decoding matrix has 2-norm condition number at most ``kappa``.

One module per concept:

- :mod:`~gctheory.conditioning.bounds`: the Chen-Dongarra tail bound (Lemma 1
  of [1], Theorem 4.5 of [2]), the union bound ``f`` of eq. (7), eq. (8);
- :mod:`~gctheory.conditioning.skappa`: ``t*`` and Theorem 2's guaranteed
  ``s_kappa`` for CommFR-GC and, by the paper's substitution, for the Gaussian
  Ye-Abbe scheme [3];
- :mod:`~gctheory.conditioning.numbers`: batched float64 condition numbers
  and mpmath references (Vandermonde generators with exact nodes, as in
  Halbawi et al. [4]);
- :mod:`~gctheory.conditioning.worst_case`: the certified worst condition
  number over column subsets (enumeration, or branch and bound with
  interlacing bounds) and the exact empirical ``s_kappa`` of a generator;
- :mod:`~gctheory.conditioning.mc`: the Monte Carlo twins (through
  :mod:`gctheory.montecarlo`).

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
.. [2] Z. Chen, J. J. Dongarra, "Condition numbers of Gaussian random
   matrices", SIAM J. Matrix Anal. Appl. 27(3), 603-620, 2005.
.. [3] M. Ye, E. Abbe, "Communication-computation efficient gradient coding",
   ICML 2018.
.. [4] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", 2017.
"""

from gctheory.conditioning._common import (
    C_CHEN_DONGARRA,
    FLOAT64_RELIABLE_LIMIT,
    GRAM_LIMIT,
    PREFACTORS,
    Float64Warning,
    RegimeWarning,
)
from gctheory.conditioning.bounds import (
    chen_dongarra_tail,
    gaussian_condition_bound,
    is_monotone_decreasing,
    kappa_condition,
    straggler_union_bound,
    union_bound_profile,
)
from gctheory.conditioning.mc import (
    condition_tail_mc,
    empirical_s_kappa_mc,
    s_kappa_shortfall_mc,
    subset_failure_mc,
)
from gctheory.conditioning.numbers import (
    condition_number_mp,
    condition_numbers,
    vandermonde_condition_mp,
)
from gctheory.conditioning.skappa import (
    SKappaBound,
    c_interval,
    s_kappa_bound,
    s_kappa_commfr,
    s_kappa_ye_abbe,
    t_star,
)
from gctheory.conditioning.worst_case import (
    EmpiricalSKappa,
    MaxCondition,
    _combinations_array,  # noqa: F401  (kept importable for tests and benchmarks)
    empirical_s_kappa,
    max_condition,
)

__all__ = [
    "C_CHEN_DONGARRA",
    "PREFACTORS",
    "GRAM_LIMIT",
    "FLOAT64_RELIABLE_LIMIT",
    "RegimeWarning",
    "Float64Warning",
    "chen_dongarra_tail",
    "gaussian_condition_bound",
    "straggler_union_bound",
    "union_bound_profile",
    "kappa_condition",
    "is_monotone_decreasing",
    "SKappaBound",
    "s_kappa_bound",
    "t_star",
    "s_kappa_commfr",
    "s_kappa_ye_abbe",
    "c_interval",
    "condition_numbers",
    "condition_number_mp",
    "vandermonde_condition_mp",
    "condition_tail_mc",
    "subset_failure_mc",
    "empirical_s_kappa_mc",
    "s_kappa_shortfall_mc",
    "MaxCondition",
    "max_condition",
    "EmpiricalSKappa",
    "empirical_s_kappa",
]
