"""Product gradient codes: the Kronecker product of two gradient codes (Sakorikar and Wang 2021).

Sakorikar and Wang [1] build gradient codes "by taking the Kronecker product
of existing gradient codes" (abstract; the stored sources give the abstract
only, so the construction here is that sentence and nothing more). For two
codes with encoding rows ``B1`` (n1 x k1) and ``B2`` (n2 x k2), m = 1, the
product has ``n = n1 n2`` workers and ``k = k1 k2`` partitions, worker
``i1 n2 + i2`` sending ``sum B1[i1, j1] B2[i2, j2] g_{j1 k2 + j2}``; its load
is the product of the loads. Parameters no block design reaches become
available (Fano x Fano: 49 workers of load 9, while a BIBD with v = 49 and
r = 9 would need lambda = 9 * 8 / 48, not an integer).

Exactness (derived here): if code i decodes from any ``n_i - s_i``
survivors, the product decodes from any survivors missing at most
``s1 + s2`` workers. The stragglers are covered by at most s1 "rows" R1 and
s2 "columns" R2 (take the rows of s1 of them and the columns of the rest);
with ``a_i`` decoding code i from the complement of ``R_i``,
``(a1 (x) a2)^T (B1 (x) B2) = (a1^T B1) (x) (a2^T B2) = 1^T`` and
``a1 (x) a2`` vanishes on every straggler. :func:`product_code` returns a
:class:`MatrixGradientCode` with ``s = s1 + s2`` then (decoded by the
generic null-space decoder), and otherwise a :class:`ProductGradientCode`
(approximate, optimal least-squares decoding).

References
----------
.. [1] A. Sakorikar, L. Wang, "Soft BIBD and product gradient codes", 2021
   (arXiv:2105.05231).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory._validate import check_array
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import GradientCode
from gctheory.codes.tandon import MatrixGradientCode

__all__ = ["ProductGradientCode", "product_code"]

#: Most entries the dense Kronecker product may have.
_MAX_ENTRIES = 20_000_000


class ProductGradientCode(_ApproximateCode):
    """Approximate product code ``B = B1 (x) B2`` with optimal (least-squares) decoding.

    Parameters
    ----------
    B : numpy.ndarray
        The ``n x k`` product encoding matrix (rows: workers).
    name : str
        Display name.

    Examples
    --------
    >>> from gctheory.codes import ProductGradientCode, product_code
    >>> from gctheory.codes import BernoulliGradientCode, FractionalRepetitionCode
    >>> code = product_code(FractionalRepetitionCode(2, 1), BernoulliGradientCode(3, 0.7, rng=0))
    >>> type(code).__name__, code.n, code.k
    ('ProductGradientCode', 6, 6)
    """

    def __init__(self, B: np.ndarray, *, name: str = "product gradient code") -> None:
        self.A = check_array(B, "B", ndim=2)
        self.n, self.k = self.A.shape
        self.support = self.A != 0
        self.load = int(self.support.sum(axis=1).max())
        self.name = name


def product_code(first: GradientCode, second: GradientCode) -> GradientCode:
    """The Kronecker product of two m = 1 gradient codes (see the module docstring).

    Exact when both are exact (tolerance ``s1 + s2``), approximate otherwise.
    Refused when a code has ``m > 1`` or the product would exceed 2e7 entries.

    Parameters
    ----------
    first, second : GradientCode
        Two codes with ``m = 1``.

    Returns
    -------
    GradientCode
        The product (exact, tolerance ``s1 + s2``, when both are exact).

    Examples
    --------
    >>> from gctheory.codes import FractionalRepetitionCode, product_code
    >>> code = product_code(FractionalRepetitionCode(2, 1), FractionalRepetitionCode(3, 0))
    >>> code.n, code.k, code.s
    (6, 6, 1)
    """
    for name, code in (("first", first), ("second", second)):
        if not isinstance(code, GradientCode):
            raise ValueError(f"{name} must be a GradientCode, got {type(code).__name__}")
        if code.m != 1:
            raise ValueError(f"{name} must have m = 1 (one combination per worker), got m={code.m}")
    entries = first.n * second.n * first.k * second.k
    if entries > _MAX_ENTRIES:
        raise ValueError(
            f"the product would have (n1 n2) x (k1 k2) = {entries} entries, above "
            f"{_MAX_ENTRIES:.0e}; use smaller codes"
        )
    B = np.kron(_rows(first), _rows(second))
    name = f"product ({first.name}) x ({second.name})"
    if first.s is not None and second.s is not None:
        return MatrixGradientCode(B, first.s + second.s, name=name)
    return ProductGradientCode(B, name=name)


def _rows(code: GradientCode) -> Any:
    """The n x k matrix whose row i is what worker i sends (``encoding_matrix.T``, m = 1)."""
    return np.asarray(code.encoding_matrix).T
