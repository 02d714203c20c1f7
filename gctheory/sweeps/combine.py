"""``combine``: merge stats files, summing the rows of each problem into one."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from gctheory._validate import check_flag, check_path
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

    Parameters
    ----------
    paths : sequence of path-like
        Stats files.
    out : path-like
        The merged file.
    overwrite : bool
        Replace ``out`` if it exists.

    Returns
    -------
    int
        Rows written.

    Raises
    ------
    ValueError
        A bad file or row, or a batch counted twice.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.sweeps import Problem, collect, combine, read_stats
    >>> p = Problem("ldpc-block", {"n": 60, "eps": 0.4}, batch_size=100)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     a, b = pathlib.Path(tmp) / "a.csv", pathlib.Path(tmp) / "b.csv"
    ...     _ = collect([p], a, max_trials=400, worker=0, workers=2)  # machine 1: even batches
    ...     _ = collect([p], b, max_trials=400, worker=1, workers=2)  # machine 2: odd batches
    ...     rows = combine([a, b], pathlib.Path(tmp) / "all.csv")
    ...     total = read_stats(pathlib.Path(tmp) / "all.csv")[0].trials
    >>> rows, total
    (1, 400)
    """
    if isinstance(paths, (str, os.PathLike)):
        raise ValueError("paths must be a list of stats files, got a single path")
    if not isinstance(paths, Iterable):
        raise ValueError(f"paths must be a list of stats files, got {type(paths).__name__}")
    files = [check_path(p, f"paths[{i}]", what="stats file") for i, p in enumerate(paths)]
    if not files:
        raise ValueError("paths: no stats files given")
    out = check_path(out, "out", exists=False, folder=True)
    overwrite = check_flag(overwrite, "overwrite")
    rows: list[Row] = []
    for p in files:
        rows.extend(read_rows(p))
    merged = [merge_rows(group) for group in group_rows(rows).values()]
    write_rows(out, merged, overwrite=overwrite)
    return len(merged)
