"""Data that ships inside the package: measured AWS Lambda worker delays.

``aws_lambda_delays.csv.gz`` holds 64,000 measured per-worker completion times
of a distributed gradient computation on AWS Lambda (256 workers per round),
from the delay profiles published by Krishnan, Ebrahimi & Khisti with
"Sequential Gradient Coding for Straggler Mitigation" (ICLR 2023); its
provenance, layout, citation and license note are in ``PROVENANCE.md`` beside
it (:func:`provenance` returns the text). The file is read through
:mod:`importlib.resources`, so it is found wherever the package is installed
(a wheel, ``pip install .``, an editable install); nothing is read from beside
the repository.

The CSV is gzip-compressed; :func:`gctheory.delays.read_trace` and every command
that takes a trace (``gctheory delays fit``, ``gctheory sgc runtime``,
``--delay "trace:PATH"``) read a ``.csv.gz`` as they read a ``.csv``, so
:func:`lambda_delays_path` can be given to any of them.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gctheory.delays import Trace

__all__ = ["LAMBDA_DELAYS_FILE", "lambda_delays", "lambda_delays_path", "provenance"]

#: the packaged file of measured AWS Lambda delays (gzip-compressed CSV)
LAMBDA_DELAYS_FILE = "aws_lambda_delays.csv.gz"
_PROVENANCE_FILE = "PROVENANCE.md"


@functools.lru_cache(maxsize=1)
def _extracted(name: str) -> Path:
    """A packaged file copied out to a private temporary folder (a zipped install)."""
    ref = resources.files(__name__).joinpath(name)
    folder = Path(tempfile.mkdtemp(prefix="gctheory-data-"))
    with ref.open("rb") as src, (folder / name).open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return folder / name


def lambda_delays_path() -> Path:
    """Path of the packaged AWS Lambda delay measurements (a gzip-compressed CSV).

    Returns
    -------
    pathlib.Path
        The file ``aws_lambda_delays.csv.gz`` inside the installed package (or, for a
        package imported from a zip archive, a private copy of it in a temporary
        folder). Give it to :func:`gctheory.delays.read_trace` or to any command that
        reads a trace.

    Examples
    --------
    >>> from gctheory.data import lambda_delays_path
    >>> lambda_delays_path().name
    'aws_lambda_delays.csv.gz'
    """
    ref = resources.files(__name__).joinpath(LAMBDA_DELAYS_FILE)
    if isinstance(ref, Path) and ref.is_file():
        return ref
    if not ref.is_file():
        raise FileNotFoundError(
            f"the packaged measurements {LAMBDA_DELAYS_FILE} are missing from {__name__} "
            "(a build that left out the package data; reinstall gctheory)"
        )
    return _extracted(LAMBDA_DELAYS_FILE)


def lambda_delays(**where: Any) -> Trace:
    """The measured AWS Lambda worker times (Krishnan, Ebrahimi & Khisti, ICLR 2023).

    One row per worker per round: 256 workers, loads 0, 0.25, 0.5, 0.75 and 1 (the
    fraction of the batch whose gradient a worker computes), three campaigns
    (``cnn-desktop-long`` in Canada, 30 rounds; ``cnn-mbp`` in Canada and in London,
    10 rounds each): 64,000 rows in all.

    Parameters
    ----------
    **where
        Column values to keep (``profile="cnn-desktop-long"``, ``load=0.5``), as
        :meth:`gctheory.delays.Trace.select` takes them; none keeps every row.

    Returns
    -------
    gctheory.delays.Trace
        The columns ``round``, ``worker``, ``load`` and ``time`` (seconds), with the
        campaign columns ``profile``, ``model``, ``region``, ``batch`` and
        ``start_offset_s``.

    Raises
    ------
    ValueError
        A column that the data do not have, or a value no row holds (the message
        names the values present).

    Examples
    --------
    >>> from gctheory.data import lambda_delays
    >>> tr = lambda_delays(profile="cnn-desktop-long", region="Canada", load=1.0)
    >>> len(tr), int(tr.worker.max()) + 1
    (7680, 256)
    """
    path = lambda_delays_path()
    # parsed once per process (64,000 rows: about a second); select() copies the rows it
    # keeps, so a caller never holds the cached arrays
    return _parsed(str(path), path.stat().st_mtime).select(**where)


@functools.lru_cache(maxsize=1)
def _parsed(path: str, mtime: float) -> Trace:
    from gctheory.delays import read_trace

    return read_trace(path)


def provenance() -> str:
    """Where the packaged measurements come from: source, layout, citation and license note.

    Returns
    -------
    str
        The text of ``PROVENANCE.md`` (Markdown) shipped beside the data.

    Examples
    --------
    >>> from gctheory.data import provenance
    >>> "Krishnan" in provenance()
    True
    """
    return resources.files(__name__).joinpath(_PROVENANCE_FILE).read_text(encoding="utf-8")
