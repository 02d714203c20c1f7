"""Sweeps of Monte Carlo estimates into one resumable, mergeable statistics file.

The model is sinter's ``collect`` / ``combine`` / ``plot``: a grid of
:class:`Problem` objects (an estimator of :data:`ESTIMATORS`, its parameters,
the fingerprint of its code, hashed into a key) is run in seeded batches by
:func:`collect`, which appends one CSV row per batch (resumable, appendable
from several processes); :func:`combine` merges files from several machines;
:func:`read_stats` turns a file into per-problem estimates with intervals,
and :func:`gctheory.plots.sweeps.plot_stats` draws them on a caller's axes.
See ``docs/sweeps.md``.

Modules: ``problems`` (problems, keys, the estimator adapters), ``statsfile``
(the CSV format, its validation, locked appends), ``stats`` (sums and
intervals), ``collect``, ``combine``.
"""

from gctheory.sweeps.collect import CollectSummary, collect
from gctheory.sweeps.combine import combine
from gctheory.sweeps.problems import ESTIMATORS, Problem, grid
from gctheory.sweeps.stats import Stat, read_stats
from gctheory.sweeps.statsfile import FORMAT, StatsFileError

__all__ = [
    "ESTIMATORS",
    "FORMAT",
    "CollectSummary",
    "Problem",
    "Stat",
    "StatsFileError",
    "collect",
    "combine",
    "grid",
    "read_stats",
]
