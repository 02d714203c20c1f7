"""Numerical stability of exact gradient codes: relative decoding error versus n.

Kadhe et al. 2019 (Section II-B, IV-B) argue that decoders which invert a
large real matrix (Ye-Abbe's V_T, (n - s) x (n - s)) lose accuracy quickly as
n grows, while CommFR-GC only solves per-group systems of size K = m and
can pick a well-conditioned code. This module measures it: for each family
and n, random Gaussian partial gradients are encoded, s workers straggle,
the rest decode, and the relative error ``||g_hat - g||_2 / ||g||_2`` of the
decoded sum is recorded

- over random straggler sets, as the mean of ``log10`` of the error with a
  CLT confidence interval (through :func:`gctheory.montecarlo.estimate_mean`);
- over the worst straggler set found: every set when there are at most
  ``exhaustive_limit`` of them, otherwise the n cyclic blocks of s
  consecutive workers plus ``worst_samples`` random sets (a lower bound on the
  true worst case, flagged ``worst_exhaustive=False``).

Parameters of the comparison (one code per family and n, n a multiple of 4):
k = n partitions, s = n / 4 stragglers; the communication-efficient codes use
m = n / 4 (Ye-Abbe load s + m; CommFR-GC on an [s + m, m] code, two groups),
the m = 1 codes (cyclic-MDS, Reed-Solomon) load s + 1.

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran 2019, Sections II-B and IV-B.
.. [2] Halbawi, Azizan, Salehi, Hassibi 2017 (Reed-Solomon gradient codes).
.. [3] Tandon, Lei, Dimakis, Karampatziakis 2017 (cyclic-MDS).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.codes.stability import _comparison, _decoding, _growth
from gctheory.codes.stability._comparison import (
    COMPARE_SCHEMES,
    GeneratorComparison,
    compare_generators,
    recommend,
)
from gctheory.codes.stability._comparison import _rank as _rank
from gctheory.codes.stability._decoding import ERROR_FLOOR as ERROR_FLOOR
from gctheory.codes.stability._decoding import (
    STABILITY_FAMILIES,
    StabilityPoint,
    decoding_error,
    decoding_stability,
    stability_code,
)
from gctheory.codes.stability._growth import GrowthFit, growth_exponent

__all__ = [
    "COMPARE_SCHEMES",
    "GeneratorComparison",
    "GrowthFit",
    "growth_exponent",
    "compare_generators",
    "recommend",
    "STABILITY_FAMILIES",
    "StabilityPoint",
    "stability_code",
    "decoding_error",
    "decoding_stability",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _comparison, _decoding, _growth)
