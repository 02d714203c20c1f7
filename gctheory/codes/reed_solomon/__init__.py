"""Reed-Solomon gradient codes with balanced masks and O(f^2) online decoding.

Halbawi, Azizan, Salehi, Hassibi, "Improving distributed gradient descent
using Reed-Solomon codes" (2017) [1]. Workers ``0..n-1``, data partitions
``0..k-1``; every worker holds ``w`` partitions and sends one complex linear
combination ``c_i = B_i g`` of its partial gradients (eq. (3)). The master
recovers ``1^T g`` from the first ``f = n - s`` workers, where
``s = floor(w n / k) - 1`` attains the bound of eq. (2).

- :func:`row_balanced_mask_matrix` -- Algorithm 1 (fixed column weight ``d``,
  row weights ``floor(kd/n)`` or ``ceil(kd/n)``, Proposition 2 / Corollary 1).
- :func:`mask_matrix` -- Algorithm 4, the column-balanced mask with every row of
  weight ``w``, also when ``nw/k`` is not an integer (Appendix 8.2).
- :func:`rs_encoding_matrix`, :func:`rs_polynomials` -- Algorithm 2: column
  ``j`` of ``B`` is the evaluation on the n-th roots of unity of
  ``t_j(x) = prod_{r : M[r, j] = 0} (x - alpha^r) / (-alpha^r)`` (eqs. (7)-(10)),
  so ``B = G T`` with ``G`` the Vandermonde matrix of eq. (6), ``t_j(0) = 1``.
- :func:`rs_inverse_table`, :func:`rs_decoding_vector` -- Algorithm 3: the
  decoding vector is the first row of ``G_F^{-1}`` (eq. (12)), whose entries
  are ``prod_{j != l} (1 - alpha^{i_l - i_j})^{-1}`` (eq. (14)), computed in
  ``O(f^2)`` operations from a table of the ``n - 1`` values
  ``(1 - alpha^i)^{-1}``.
- :class:`ReedSolomonCode` -- the code behind the :mod:`gctheory.codes.base`
  interface.

Complex arithmetic: ``B`` is complex, so a real gradient is decoded as a
complex number whose imaginary part is pure rounding. The decoder returns the
real part and reports the imaginary residue ``max |Im|`` (see
:class:`RSDecodeResult`, returned by :meth:`ReedSolomonCode.decode_detail`).

References
----------
.. [1] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", arXiv:1706.05436 (2017).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.codes.reed_solomon import _code, _decoding, _encoding, _masks
from gctheory.codes.reed_solomon._code import ReedSolomonCode
from gctheory.codes.reed_solomon._decoding import (
    RSDecodeResult,
    rs_decoding_vector,
    rs_decoding_vector_solve,
    rs_inverse_table,
)
from gctheory.codes.reed_solomon._encoding import rs_encoding_matrix, rs_polynomials
from gctheory.codes.reed_solomon._masks import mask_matrix, row_balanced_mask_matrix, rs_tolerance

__all__ = [
    "row_balanced_mask_matrix",
    "mask_matrix",
    "rs_tolerance",
    "rs_polynomials",
    "rs_encoding_matrix",
    "rs_inverse_table",
    "rs_decoding_vector",
    "rs_decoding_vector_solve",
    "RSDecodeResult",
    "ReedSolomonCode",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _code, _decoding, _encoding, _masks)
