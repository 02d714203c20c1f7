"""Seeded, chunked Monte Carlo with confidence intervals, to the far tail.

Every analytic quantity in gctheory has a Monte Carlo twin computed here. A run
of ``trials`` independent outcomes is cut into chunks of ``chunk_size``; chunk
``i`` draws from ``np.random.default_rng(children[i])`` where ``children`` are
``np.random.SeedSequence(seed).spawn(...)``. Chunk results are integers
(counts) or small float summaries merged in chunk order, so a result depends
only on ``(seed, trials, chunk_size)`` (and ``stop``): it is bit-identical
whether the chunks ran serially, on a local process pool (``executor=2``), on
any :class:`concurrent.futures.Executor`, or on a Dask cluster
(``dask.distributed.Client(...).get_executor()``), and whether or not the run
was interrupted and resumed from a checkpoint.

Modules (one concept each):

- :mod:`~gctheory.montecarlo.engine`: seeds, chunk plans, executors, progress;
- :mod:`~gctheory.montecarlo.estimates`: :class:`Estimate`, :class:`Diagnostics`,
  binomial and CLT intervals; :mod:`~gctheory.montecarlo.coverage`: the exact
  coverage of the binomial intervals, summed over every count;
- :mod:`~gctheory.montecarlo.summaries`: per-chunk summaries and their merges
  (Chan's formula for means);
- :mod:`~gctheory.montecarlo.checkpoint`: append-only, validated checkpoints and
  the fingerprints of the functions behind them;
- :mod:`~gctheory.montecarlo.lockfile`: one run per checkpoint path;
- :mod:`~gctheory.montecarlo.stopping`: adaptive stopping rules (:class:`Stop`), and
  :mod:`~gctheory.montecarlo.sequential`: the exact interval of a run stopped by
  ``rel_half_width``;
- :mod:`~gctheory.montecarlo.calibration` (and, above the domain packages whose
  estimators it studies, :mod:`~gctheory.calibration`):
  coverage studies of every interval estimator on cases with exact truths;
- :mod:`~gctheory.montecarlo.sampling`: crude Monte Carlo
  (:func:`estimate_probability`, :func:`estimate_mean`);
- :mod:`~gctheory.montecarlo.importance`: importance sampling with exact
  likelihood ratios (:func:`importance_sampling`, :class:`Proposal`);
- :mod:`~gctheory.montecarlo.splitting`: adaptive multilevel splitting for
  events ``score(X) > threshold`` (:func:`estimate_splitting`).

Domain-specific proposals (the Gaussian condition-number tail, tilted erasures
for peeling) live above conditioning and ldpc, in :mod:`gctheory.tails`.
"""

from gctheory.montecarlo.engine import DEFAULT_CHUNK_SIZE, MAX_CHUNKS, chunk_plan, seed_sequence
from gctheory.montecarlo.estimates import (
    Diagnostics,
    Estimate,
    PrecisionNotReachedWarning,
    UnreliableEstimateWarning,
    binomial_estimate,
)
from gctheory.montecarlo.importance import Proposal, ShiftedGaussian, importance_sampling
from gctheory.montecarlo.sampling import estimate_mean, estimate_probability, mean_of_samples
from gctheory.montecarlo.splitting import BernoulliSpace, GaussianSpace, estimate_splitting
from gctheory.montecarlo.stopping import Stop

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "MAX_CHUNKS",
    "BernoulliSpace",
    "Diagnostics",
    "Estimate",
    "GaussianSpace",
    "PrecisionNotReachedWarning",
    "Proposal",
    "ShiftedGaussian",
    "Stop",
    "UnreliableEstimateWarning",
    "binomial_estimate",
    "chunk_plan",
    "estimate_mean",
    "estimate_probability",
    "estimate_splitting",
    "importance_sampling",
    "mean_of_samples",
    "seed_sequence",
]
