"""The common interface of every gradient code, and the linear-algebra contract behind it.

A (communication-efficient) gradient code for ``n`` workers and ``k`` data
partitions is described by

- a placement: ``support`` (n x k boolean), worker i holds partition j iff
  ``support[i, j]``; ``load`` = partitions per worker (l of Kadhe et al. 2019,
  d of Wang et al. 2019);
- a communication saving ``m``: each partial gradient g_j (length d) is
  zero-padded to length ``m * r``, ``r = ceil(d / m)``, and cut into m
  contiguous chunks ``g_j^(u) = padded[u r : (u + 1) r]`` (u = 0..m-1; this is
  the column arrangement of eq. (4) of Kadhe et al. 2019);
- a linear encoding: worker i transmits the length-r vector
  ``y_i = sum_{j, u} E[j m + u, i] g_j^(u)`` where ``E`` is the
  ``(k m) x n`` :attr:`GradientCode.encoding_matrix` (zero outside the
  placement);
- a decoding: from the survivors T the server finds coefficients
  ``A`` (|T| x m) with ``E[:, T] A = C``, where ``C[j m + u, u'] = [u == u']``
  (every partition's chunk u once, no other chunk), and outputs chunk u of the
  sum as ``sum_{i in T} A[i, u] y_i``. Exact codes find ``A`` for every T with
  ``|T| >= n - s``; approximate codes (``s is None``) take the least-squares
  ``A`` (optimal decoding, Wang et al. 2019, eqs. (4)-(5)) and report the
  error they make.

The module passed 800 lines and is split by concept: this file holds the
interface (:class:`GradientCode`, its result types, the verification); the
shared decoding machinery (generic null-space and least-squares solvers, the
residual check, the coefficient cache) is the ``gctheory.codes._decoding``
mixin, batched decoding (``decode_many``) the ``gctheory.codes._batch`` mixin
it extends, chunking, ``target_matrix`` and ``effective_condition_number`` are
in ``gctheory.codes._linalg`` and survivor validation in
``gctheory.codes._survivors``; every public name stays importable from here.

Every construction in :mod:`gctheory.codes` subclasses :class:`GradientCode`
and fills in ``encoding_matrix``; the base class then provides a generic
``encode``, a generic least-squares ``decode``, ``decoding_matrix`` and a
dense-solve cost model. Families override ``_solve`` / ``decoding_matrix`` /
``decoding_cost`` with their structured decoders (per-group solves for
CommFR-GC, inverting V_T for Ye-Abbe, Alg. 3 for Reed-Solomon, peeling for
LDPC and batch raptor codes).

Contract of the public methods (every subclass keeps it):

``encode(partials)``
    ``partials``: real or complex array (k, d) -> transmissions (n, ceil(d/m)).
``decode(survivors, received, d=None)``
    ``survivors``: distinct worker indices in [0, n), any order;
    ``received``: (len(survivors), r) transmissions in the same order.
    Returns the gradient sum (d,) (length m r when ``d`` is None).
    Exact codes raise ``ValueError`` when fewer than ``n - s`` survivors are
    given or when the survivors cannot decode (the relative residual of the
    decoding equations exceeds ``rtol``); approximate codes never raise for
    that reason and return their best estimate.
``decode_detail(...)``
    Same, returning a :class:`DecodeResult` with the condition number of the
    solved system and the achieved residual (DESIGN.md: numerical trouble is
    reported, not hidden).
``decoding_matrix(survivors)``
    The matrix the decoder solves with or inverts (its condition number
    governs the forward error).
``decoding_cost(survivors=None, d=1)``
    A :class:`DecodingCost` operation count (multiply-adds) of the decoder.

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017.
.. [2] Ye, Abbe, "Communication-computation efficient gradient coding",
   ICML 2018.
.. [3] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019, eq. (1), (4).
.. [4] Wang, Liu, Shroff, "Fundamental limits of approximate gradient coding",
   2019, eqs. (4)-(5).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.codes._linalg import effective_condition_number as effective_condition_number
from gctheory.codes._linalg import join_chunks as join_chunks
from gctheory.codes._linalg import split_chunks as split_chunks
from gctheory.codes._linalg import target_matrix as target_matrix
from gctheory.codes._precision import DecodingPrecisionWarning as DecodingPrecisionWarning
from gctheory.codes._survivors import check_positive_int as check_positive_int
from gctheory.codes._survivors import validate_survivors as validate_survivors
from gctheory.codes.base import _bounds, _interface, _results, _verification
from gctheory.codes.base._bounds import ye_abbe_lower_bound
from gctheory.codes.base._interface import GradientCode
from gctheory.codes.base._results import DecodeResult, DecodingCost
from gctheory.codes.base._verification import ToleranceCheck, verify_straggler_sets

__all__ = [
    "DecodeResult",
    "DecodingPrecisionWarning",
    "DecodingCost",
    "GradientCode",
    "check_positive_int",
    "validate_survivors",
    "ye_abbe_lower_bound",
    "effective_condition_number",
    "split_chunks",
    "join_chunks",
    "target_matrix",
    "ToleranceCheck",
    "verify_straggler_sets",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _bounds, _interface, _results, _verification)
