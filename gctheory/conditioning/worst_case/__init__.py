"""The worst condition number over the column subsets of a generator, certified.

``max_condition(G, t)`` bounds ``max_{|T| = t} cond(G_T)`` from both sides and
names the worst subset found: ``lower`` is the condition number of a subset
actually evaluated, ``upper`` a proven bound on every subset, equal when the
search is complete and float64 resolves the value (``rounding``, the relative
uncertainty of one float64 condition number, at most 1e-4; beyond, the
interval is the rounding interval, or unbounded above 1 / (2 delta)). This is
the quantity Theorem 2 of Kadhe et al. 2019 bounds for Gaussian generators
(eq. (10)); :func:`empirical_s_kappa` turns it into the exact straggler
threshold of a given generator.

The search
----------
*Enumeration* (``binom(N, t) <= exhaustive_limit``): every subset, with a
batched Gram-matrix bound ``cond(G_T)^2 <= tr(W) tr(W^-1)`` (``W = G_T G_T^H``)
deciding which subsets need an exact condition number.

*Branch and bound* (beyond the limit): a depth-first search over the deleted
(straggling) workers in increasing order. A node fixes the deleted set D and
the next index i: workers before i not in D are kept, ``r`` more are deleted
from the candidates ``C`` (workers >= i). With ``S`` the columns not in D,
every completion ``T = S \\ R`` (``R`` subset of ``C``, ``|R| = r``) satisfies

    cond(G_T)^2 <= cond(G_S)^2 / (1 - mu),
    mu >= lambda_max(P_RR),  P = G_S^H W_S^-1 G_S  (the projection on G's row space),

because deleting columns only shrinks the singular values (interlacing:
``sigma_max(G_T) <= sigma_max(G_S)``) and ``W_T = W_S^(1/2) (I - U_R U_R^H)
W_S^(1/2)`` with ``U_R^H U_R = P_RR``, so ``lambda_min(W_T) >= lambda_min(W_S)
(1 - lambda_max(P_RR))``. Two certified values of mu are used, the smaller
wins: ``lambda_max(P_CC)`` (Cauchy interlacing: P_RR is a principal submatrix
of P_CC) and the sum of the r largest leverages ``h_c = P_cc`` over C
(``lambda_max <= trace``). A node whose bound cannot beat the incumbent is
pruned with all its completions. At a node with r <= 2 deletions left every
completion gets its own bound from the exact ``lambda_max(P_RR)`` (the
leverage for r = 1, the 2 x 2 closed form for r = 2), computed for all of them
at once, and only those that can beat the incumbent are evaluated. The
incumbent starts from random subsets improved by a swap local search. When
the time runs out, the certified interval is
``[incumbent, max(incumbent, bounds of the unexplored nodes)]``; it is never
reported as exact.

Floating point: a node bound is trusted only while ``cond(G_S)^2`` leaves
float64 enough digits (``K eps cond(G_S)^2 < 1e-4``); it is then inflated by
that relative error. A condition number computed in float64 is accurate to a
relative ``delta = 8 max(K, t) eps`` of ``sigma_max`` on sigma_min (backward
stability of the SVD, and the rounding of G's entries), so the true value of
the worst subset found lies in ``[kappa (1 - delta) / (1 + delta kappa),
kappa (1 + delta) / (1 - delta kappa)]``: the upper bound uses that factor, and
above ``1 / (2 delta)`` nothing is certified from float64 (upper = inf;
``mp_reference``/``mp_dps`` then give the exact value of the subset found).

Blocks: ``block=b`` treats b consecutive columns as one worker (the
rotation and circulant embeddings of Ramamoorthy and Tang 2022): subsets,
stragglers and ``t`` count workers.

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran 2019, Theorem 2, eq. (10).
.. [2] R. A. Horn, C. R. Johnson, "Matrix analysis", 2nd ed., Thm. 4.3.28
   (Cauchy interlacing) and Cor. 7.3.6 (singular values under column deletion).

Modules, one concept each: ``certificate`` (the result and float64 trust),
``subsets`` (batched condition numbers of column subsets), ``enumeration``,
``heuristic``, ``branch_and_bound``, ``search`` (:func:`max_condition`) and
``threshold`` (:func:`empirical_s_kappa`). Every name the single module had is
importable from here.
"""

from gctheory.conditioning.worst_case.branch_and_bound import _NODE_TRUST, _Search
from gctheory.conditioning.worst_case.certificate import (
    _EPS,
    _EXACT_ROUNDING,
    MaxCondition,
    _delta,
    _true_range,
)
from gctheory.conditioning.worst_case.enumeration import (
    _GRAM_PRUNE_MIN,
    _exhaustive_max,
    _gram_bound_sq,
)
from gctheory.conditioning.worst_case.heuristic import _heuristic, _local_search
from gctheory.conditioning.worst_case.search import METHODS, max_condition
from gctheory.conditioning.worst_case.subsets import (
    _chunk,
    _combinations_array,
    _expand,
    _subset_conditions,
    _worker_conditions,
)
from gctheory.conditioning.worst_case.threshold import EmpiricalSKappa, empirical_s_kappa

__all__ = ["MaxCondition", "max_condition", "EmpiricalSKappa", "empirical_s_kappa"]

# the single module's private names, kept importable from their old path
_KEPT = (
    _NODE_TRUST,
    _Search,
    _EPS,
    _EXACT_ROUNDING,
    _delta,
    _true_range,
    _GRAM_PRUNE_MIN,
    _exhaustive_max,
    _gram_bound_sq,
    _heuristic,
    _local_search,
    METHODS,
    _chunk,
    _combinations_array,
    _expand,
    _subset_conditions,
    _worker_conditions,
)
