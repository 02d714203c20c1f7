"""Parity-check matrices in MacKay's alist format (read and write).

The format (D. J. C. MacKay, "Encyclopedia of sparse graph codes", the
``alist`` files) lists a sparse 0/1 matrix of ``M`` checks (rows) and ``N``
variables (columns) twice, by columns and by rows, with 1-based indices::

    N M
    max_column_weight max_row_weight
    weight of column 1 ... weight of column N
    weight of row 1 ... weight of row M
    N lines: the rows of column j's ones, padded with 0 to max_column_weight
    M lines: the columns of row i's ones, padded with 0 to max_row_weight

:func:`write_alist` writes this with zero padding; :func:`read_alist` reads
it with or without the padding and refuses, with a ``ValueError`` naming the
file, the line and the problem, any inconsistency: a declared weight that is
not the number of indices listed, a maximum weight that is not the largest,
an index out of range or listed twice, and column lists that disagree with
the row lists.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._validate import check_array, check_flag, check_path

__all__ = ["read_alist", "write_alist"]


def write_alist(H: Any, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write the 0/1 parity-check matrix ``H`` (``m x n``, dense or sparse) in alist format.

    Refused: entries other than 0 and 1 (a Tanner multigraph has no alist
    form), and an existing ``path`` unless ``overwrite=True``.

    Parameters
    ----------
    H : array_like or scipy.sparse matrix, shape (m, n)
        0/1 parity-check matrix.
    path : str or os.PathLike
        File to write.
    overwrite : bool
        Replace an existing file.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.ldpc import read_alist, regular_ensemble, write_alist
    >>> H = regular_ensemble(12, 3, 6, rng=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     again = read_alist(write_alist(H, pathlib.Path(tmp) / "h.alist"))
    >>> (again != H).nnz
    0
    """
    p = Path(check_path(path, "path", exists=False, folder=True))
    overwrite = check_flag(overwrite, "overwrite")
    if sparse.issparse(H):
        if H.dtype.kind not in "biuf":
            raise ValueError(f"H must be a numeric matrix, got a sparse one of dtype {H.dtype}")
        A = sparse.csr_matrix(H)
    else:
        A = sparse.csr_matrix(check_array(H, "H", ndim=2))
    A.sum_duplicates()
    A.eliminate_zeros()
    if A.ndim != 2 or min(A.shape) < 1:
        raise ValueError(f"H must be a non-empty m x n matrix, got shape {A.shape}")
    if A.nnz and not np.all(A.data == 1):
        raise ValueError("H must be 0/1 (alist lists positions of ones)")
    if p.exists() and not overwrite:
        raise ValueError(f"path: {p} exists; pass overwrite=True to replace it")
    m, n = A.shape
    rows = [A.indices[A.indptr[i] : A.indptr[i + 1]] + 1 for i in range(m)]
    C = A.tocsc()
    cols = [np.sort(C.indices[C.indptr[j] : C.indptr[j + 1]]) + 1 for j in range(n)]
    cw, rw = [len(c) for c in cols], [len(r) for r in rows]
    mc, mr = max(cw), max(rw)

    def pad(xs: np.ndarray, width: int) -> str:
        return " ".join(str(int(x)) for x in [*np.sort(xs), *([0] * (width - len(xs)))])

    lines = [f"{n} {m}", f"{mc} {mr}", " ".join(map(str, cw)), " ".join(map(str, rw))]
    lines += [pad(c, mc) for c in cols]
    lines += [pad(r, mr) for r in rows]
    p.write_text("\n".join(lines) + "\n", encoding="ascii")
    return p


def read_alist(path: str | os.PathLike) -> sparse.csr_matrix:
    """The ``m x n`` parity-check matrix (CSR, int8) of an alist file, checked throughout.

    Parameters
    ----------
    path : str or os.PathLike
        An alist file.

    Returns
    -------
    scipy.sparse.csr_matrix
        The ``m x n`` parity-check matrix (int8).

    Raises
    ------
    ValueError
        A malformed file, with the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.ldpc import read_alist, write_alist
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     H = read_alist(write_alist([[1, 1, 0], [0, 1, 1]], pathlib.Path(tmp) / "h.alist"))
    >>> H.toarray().tolist()
    [[1, 1, 0], [0, 1, 1]]
    """
    # every refusal names the parameter: a file's faults are faults of the argument ``path``
    p = f"path: {check_path(path, 'path', what='alist file')}"
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p}: cannot read an alist file ({exc})") from None
    lines = [(i + 1, line.split()) for i, line in enumerate(text.splitlines()) if line.strip()]

    def ints(k: int, what: str, count: int | None = None) -> list[int]:
        if k >= len(lines):
            raise ValueError(f"{p}: ends before {what} (alist needs it)")
        number, words = lines[k]
        try:
            vals = [int(w) for w in words]
        except ValueError:
            raise ValueError(f"{p}: line {number} ({what}): not integers: {words[:6]}") from None
        if count is not None and len(vals) != count:
            raise ValueError(f"{p}: line {number} ({what}): {len(vals)} numbers, expected {count}")
        return vals

    n, m = ints(0, "the sizes N M", 2)
    if n < 1 or m < 1:
        raise ValueError(f"{p}: line {lines[0][0]}: sizes N={n}, M={m} must be positive")
    mc, mr = ints(1, "the maximum weights", 2)
    cw = ints(2, "the column weights", n)
    rw = ints(3, "the row weights", m)
    if max(cw) != mc or max(rw) != mr or min(cw + rw) < 0:
        raise ValueError(
            f"{p}: inconsistent degrees: maximum weights given as {mc} (columns), {mr} (rows), "
            f"the weight lists have maxima {max(cw)} and {max(rw)}"
        )
    if sum(cw) != sum(rw):
        raise ValueError(
            f"{p}: inconsistent degrees: the column weights sum to {sum(cw)}, the row weights "
            f"to {sum(rw)} (both count the ones of H)"
        )

    def entries(k: int, weight: int, width: int, bound: int, what: str) -> list[int]:
        vals = ints(k, what)
        number = lines[k][0]
        nonzero = [v for v in vals if v != 0]
        if (
            len(vals) not in (weight, width)
            or vals[: len(nonzero)] != nonzero
            or (len(nonzero) != weight)
        ):
            raise ValueError(
                f"{p}: line {number} ({what}): inconsistent degree: declared weight {weight}, "
                f"listed {vals}"
            )
        idx = vals[:weight]
        if any(not 1 <= v <= bound for v in idx):
            raise ValueError(f"{p}: line {number} ({what}): index out of 1..{bound} in {idx}")
        if len(set(idx)) != len(idx):
            raise ValueError(f"{p}: line {number} ({what}): an index is listed twice in {idx}")
        return idx

    by_col = [entries(4 + j, cw[j], mc, m, f"column {j + 1}") for j in range(n)]
    by_row = [entries(4 + n + i, rw[i], mr, n, f"row {i + 1}") for i in range(m)]
    if len(lines) > 4 + n + m:
        raise ValueError(f"{p}: line {lines[4 + n + m][0]}: unexpected data after the row lists")
    ones_c = {(i - 1, j) for j, col in enumerate(by_col) for i in col}
    ones_r = {(i, j - 1) for i, row in enumerate(by_row) for j in row}
    if ones_c != ones_r:
        i, j = sorted(ones_c ^ ones_r)[0]
        side = "column" if (i, j) in ones_c else "row"
        raise ValueError(
            f"{p}: inconsistent degrees: H[{i + 1}, {j + 1}] is listed by its {side} only "
            "(the column and row lists disagree)"
        )
    if not ones_r:
        return sparse.csr_matrix((m, n), dtype=np.int8)
    r, c = (np.array(x, dtype=np.int64) for x in zip(*sorted(ones_r), strict=True))
    return sparse.csr_matrix((np.ones(r.size, dtype=np.int8), (r, c)), shape=(m, n))
