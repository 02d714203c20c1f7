"""Expected iteration time of gradient-coding schemes, and the parameters that minimise it.

Every scheme trades more work per worker for waiting on fewer workers. This
package puts numbers on that trade for a user's own ``n`` and delay model,
exactly (through :mod:`gctheory.order_stats`) where the papers used asymptotics:

* Halbawi et al. 2017 [1]_, Section 5: ``T_f`` of eq. (17) with Pareto delays
  and decoding cost ``c_m (f-1) f`` (Reed-Solomon, Alg. 3) or ``c_m f^3``
  (generic linear solve); the approximation (20); the offline optimum
  ``alpha*`` of eq. (22) with its validity condition; the exact integer
  optimum of ``f``; the range of ``c_m`` that makes a given ``f`` optimal.
* Tandon / Ye-Abbe / Kadhe et al. 2019 [2]_: expected iteration time of
  uncoded, ignore-``s``-stragglers, cyclic-MDS, fractional repetition,
  Ye-Abbe and CommFR-GC when a worker's computation time scales with its load
  and its communication time with ``1/m``.
* Zhang et al. 2020 [3]_, Section V: time per iteration, communication load
  and computation load of GD, GC, LAG, G-GD, G-LAG and LAGC, and the
  redundancy / number of groups minimising time per iteration.
* Communication (:mod:`~gctheory.runtime.link`): the iteration time over a
  :class:`Link` (per-worker or shared bandwidth, latency), the order statistic of
  compute plus transfer, with Ye-Abbe's ``d/m`` messages at load ``(s+m)/n`` and
  CommFR-GC's ``d/K`` (Kadhe et al. 2019 [2]_).
* Xu et al. 2021 [4]_, Section IV-C: ``B(K)`` of eq. (18), the feasible
  interval (23), the optimality condition (25) solved for ``p = K/N``, and the
  exact integer optimum of ``K``.

One module per paper: :mod:`~gctheory.runtime.halbawi`,
:mod:`~gctheory.runtime.schemes` (Tandon / Ye-Abbe / Kadhe et al.),
:mod:`~gctheory.runtime.zhang`, :mod:`~gctheory.runtime.xu`, each with its own
optimum, and the checks they share in ``_common``. Everything public is
re-exported here.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
.. [3] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning", 2020.
.. [4] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading stragglers in
   distributed learning", 2021.
"""

from gctheory.runtime.carryover import (
    CarryOver,
    carryover_slowdown,
    carryover_time_mc,
)
from gctheory.runtime.halbawi import (
    OptimumF,
    halbawi_alpha_star,
    halbawi_approx_time,
    halbawi_cm_range,
    halbawi_expected_time,
    halbawi_f,
    halbawi_optimal_f,
)
from gctheory.runtime.link import (
    BYTES_PER_MBIT,
    Link,
    LinkTime,
    link_iteration_time,
    message_numbers,
)
from gctheory.runtime.schemes import (
    SCHEMES,
    SchemeLayout,
    optimal_straggler_tolerance,
    scheme_expected_time,
    scheme_layout,
    scheme_time_mc,
    scheme_time_moments,
)
from gctheory.runtime.schemes import _scaled as _scaled
from gctheory.runtime.xu import (
    xu_bound_B,
    xu_expected_time,
    xu_feasible_interval,
    xu_feasible_k_exact,
    xu_optimal_K,
    xu_optimal_p,
    xu_time_saving,
)
from gctheory.runtime.zhang import (
    ZHANG_SCHEMES,
    ZhangMetrics,
    zhang_best_groups,
    zhang_best_redundancy,
    zhang_metrics,
    zhang_worker_dist,
)

# ``_scaled as _scaled``: the load scaling gctheory.delays.loadscale names as
# ``runtime._scaled``, kept importable from gctheory.runtime
__all__ = [
    "halbawi_f",
    "halbawi_alpha_star",
    "halbawi_expected_time",
    "halbawi_approx_time",
    "halbawi_optimal_f",
    "halbawi_cm_range",
    "OptimumF",
    "SchemeLayout",
    "SCHEMES",
    "scheme_layout",
    "scheme_expected_time",
    "scheme_time_moments",
    "scheme_time_mc",
    "optimal_straggler_tolerance",
    "CarryOver",
    "carryover_time_mc",
    "carryover_slowdown",
    "ZHANG_SCHEMES",
    "ZhangMetrics",
    "zhang_worker_dist",
    "zhang_metrics",
    "zhang_best_redundancy",
    "zhang_best_groups",
    "BYTES_PER_MBIT",
    "Link",
    "LinkTime",
    "link_iteration_time",
    "message_numbers",
    "xu_expected_time",
    "xu_time_saving",
    "xu_feasible_interval",
    "xu_feasible_k_exact",
    "xu_optimal_p",
    "xu_bound_B",
    "xu_optimal_K",
]
