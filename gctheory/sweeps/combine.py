"""``combine``: merge stats files, summing the rows of each problem into one."""

from __future__ import annotations

import os
from collections.abc import Sequence

from gctheory.sweeps.stats import group_rows, merge_rows
from gctheory.sweeps.statsfile import Row, read_rows, write_rows

__all__ = ["combine"]


def combine(
    paths: Sequence[str | os.PathLike], out: str | os.PathLike, *, overwrite: bool = False
) -> int:
    """Merge the stats files ``paths`` into ``out``: one row per problem, counts summed.

    Each output row lists the batches it sums, so ``out`` can be collected into
    further (a resumed :func:`~gctheory.sweeps.collect` skips them). Every input
    row is validated first: a file of another format, an edited or torn row,
    or a batch present in two rows (the same samples twice, e.g. one file
    given twice) is refused with a ``ValueError`` naming the file and row.
    ``out`` must not exist unless ``overwrite``. Returns the number of rows written.
    """
    if isinstance(paths, (str, os.PathLike)):
        raise ValueError("combine: paths must be a list of stats files, got a single path")
    if not paths:
        raise ValueError("combine: no stats files given")
    rows: list[Row] = []
    for p in paths:
        rows.extend(read_rows(p))
    merged = [merge_rows(group) for group in group_rows(rows).values()]
    write_rows(out, merged, overwrite=overwrite)
    return len(merged)
