"""Monte Carlo of peeling at finite length: block failure, residual erasures, waterfalls.

Every estimate goes through :mod:`gctheory.montecarlo` (seeded, chunked, with
confidence intervals). Functions taking ``H`` speak for that one code;
:func:`ensemble_failure_rate` and :func:`ensemble_residual_rate` speak for the
ensemble (a fresh code for every frame, or every few frames), and the
waterfall draws its codes from :func:`~gctheory.ldpc.ensembles.regular_ensemble`.
Which ensemble is meant is the ``multi_edges`` argument there: ``"resample"``
(simple Tanner graphs, the default), ``"cancel"`` or ``"keep"`` (the
configuration-model multigraph, the ensemble of the exact finite-length
analysis, decoded with multigraph peeling).

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A (Proposition 2, Remark 3).
.. [2] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Sec. 3.23 (the finite-length waterfall).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.ldpc.simulation import _ensemble, _fixed_code, _waterfall
from gctheory.ldpc.simulation._ensemble import ensemble_failure_rate, ensemble_residual_rate
from gctheory.ldpc.simulation._fixed_code import _code as _code
from gctheory.ldpc.simulation._fixed_code import _critical_counts as _critical_counts
from gctheory.ldpc.simulation._fixed_code import (
    block_failure_rate,
    count_failure_rate,
    critical_erasure_count,
    residual_erasure_rate,
)
from gctheory.ldpc.simulation._waterfall import WaterfallPoint, waterfall

__all__ = [
    "WaterfallPoint",
    "block_failure_rate",
    "count_failure_rate",
    "critical_erasure_count",
    "ensemble_failure_rate",
    "ensemble_residual_rate",
    "residual_erasure_rate",
    "waterfall",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _ensemble, _fixed_code, _waterfall)
