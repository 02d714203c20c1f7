"""CommFR-GC: communication-efficient fractional-repetition gradient coding on any linear code.

Kadhe, Koyluoglu, Ramchandran 2019, Section III. Given an [N, K, delta] code
with K x N generator G over the reals (or complexes), ``N | n`` and
``n | k N``:

- placement (Section III-A.1): p = n / N groups of N consecutive workers;
  group g holds the l = k N / n consecutive partitions g l, ..., g l + l - 1;
- encoding (eqs. (2)-(4)): every worker of group g sums its partitions,
  ``g^(g) = sum_{u in D^(g)} g_u``, cuts it into K chunks (the columns of
  ``g_mat`` in eq. (4)), and worker c of the group sends ``g_mat G_c``;
- decoding (eq. (5)): per group, solve ``[y_{i_1} ... y_{i_t}] = g_mat G^(g)``
  from its t survivors and add the groups' sums.

Theorem 1: the scheme achieves ``(l, m, s) = (k N / n, K, delta - 1)``; with an
MDS code (delta = N - K + 1) it meets eq. (1) with equality (Corollary 1);
with the [N, 1, N] repetition code it is Tandon et al.'s fractional repetition
code (Remark 1). With a systematic MDS code each group only solves a system of
size e <= min(K, s) (the erased systematic coordinates), which gives the
decoding complexity of Proposition 1; an LDPC code decoded by peeling
(:class:`CommFRLDPCCode`) decodes in time linear in n (Proposition 2).

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019 (Section III,
   Theorem 1, Corollary 1, Remark 1, Propositions 1-2).
.. [2] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding", ICML 2017.
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.codes.commfr import _code, _construction, _ldpc_code
from gctheory.codes.commfr._code import CommFRCode, commfr_code
from gctheory.codes.commfr._construction import _EPS as _EPS
from gctheory.codes.commfr._construction import COMMFR_FAMILIES, commfr_triple, minimum_distance
from gctheory.codes.commfr._ldpc_code import CommFRLDPCCode

__all__ = [
    "COMMFR_FAMILIES",
    "CommFRCode",
    "CommFRLDPCCode",
    "commfr_code",
    "commfr_triple",
    "minimum_distance",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _code, _construction, _ldpc_code)
