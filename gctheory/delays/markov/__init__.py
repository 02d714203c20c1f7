"""Stragglers with memory: two-state Markov (Gilbert-Elliott), Fritchman, (B, W, lambda).

Every runtime answer of :mod:`gctheory.runtime` draws the workers afresh each round.
Measured stragglers persist (Xu et al. 2021, Section V-B; the AWS Lambda traces'
``h`` of 1.09-1.24). This package models a worker's straggler *state* across rounds,
one module per concept (``indicators``, ``chains``, ``fits``, ``bursty``, ``delay``, ``missed``;
every name importable from ``gctheory.delays.markov`` as before the split):

``straggler_matrix``
    the 0/1 (rounds, workers) matrix of a trace at one load: a worker straggles in a
    round when its time is above ``threshold`` seconds or, by default, above the
    ``quantile`` (0.9) of all the times at that load (pooled over rounds and
    workers: the top 10 % of invocations are the stragglers). The rule is stated in
    every fit.
:class:`GilbertElliott`
    each worker a two-state Markov chain, good -> bad with probability ``p`` and bad
    -> good with ``r``, straggling with probability ``h_good`` / ``h_bad`` in each
    state (Gilbert 1960, Elliott 1963; ``h = (0, 1)``, the default, is Gilbert's
    observed chain: the straggler indicator itself is Markov). Stationary straggler
    rate ``p / (p + r)``; lag-one persistence ``P(bad next | bad) = 1 - r``; the
    ``h`` of Xu et al. ``(1 - b) / r`` with ``b`` the straggler rate.
:class:`Fritchman`
    ``K`` good states and one bad (Fritchman 1967, the partitioned chain with a single
    error state): the straggler-free runs are a mixture of ``K`` geometrics, the
    straggling runs geometric. ``K = 1`` is Gilbert's chain.
:class:`BurstyModel`
    the (B, W, lambda)-bursty straggler model of Krishnan, Ebrahimi & Khisti (ICLR
    2023) as their public code checks it (``mamaj/Sequential-Gradient-Coding-2``,
    ``MultiplexedSGC.follows_straggler_model``): in every window of ``W`` consecutive
    rounds at most ``lambda`` distinct workers straggle, and a worker straggling in a
    round did not straggle ``B`` to ``W - 1`` rounds before (its straggling inside a
    window is one burst of at most ``B`` rounds). It is a constraint, not a law:
    :meth:`BurstyModel.conformity` measures how often a trace obeys it, and its
    sampler draws random bursts that obey it.

Fits (:func:`fit_gilbert_elliott`, :func:`fit_fritchman`) are maximum likelihood
(chains pooled over workers, each worker's first round from the stationary law),
with intervals, and a likelihood-ratio test against the i.i.d. model (a straggler
with the same rate every round, independently): ``2 (l_1 - l_0)`` against
``chi^2`` with the difference in free parameters. Workers are taken independent of
each other (what the i.i.d. runtime model also assumes).

:class:`MemoryDelay` turns a chain into a delay model: a worker's time is drawn
from ``fast`` in the good state and from ``slow`` when straggling;
:func:`memory_scheme_times` gives the expected iteration time of a scheme under it
by Monte Carlo (independent stationary runs of ``rounds`` rounds, CLT interval).
Its per-round marginal equals the i.i.d. mixture, so a scheme whose iteration
depends on one round only has the same *mean* time as under the i.i.d. model; the
memory changes the variance of the total over many rounds and every scheme that
carries work across rounds (sequential codes).
"""

from gctheory.delays.markov.bursty import BurstyModel, fit_bursty
from gctheory.delays.markov.chains import (
    Fritchman,
    GilbertElliott,
)
from gctheory.delays.markov.chains import _prob as _prob  # markov_times reads it
from gctheory.delays.markov.delay import (
    BURSTY_BLOCK,
    MarkovSampler,
    MemoryDelay,
    memory_scheme_times,
)
from gctheory.delays.markov.fits import (
    MarkovFit,
    fit_fritchman,
    fit_gilbert_elliott,
    iid_likelihood_ratio,
)
from gctheory.delays.markov.indicators import (
    min_rounds,
    straggler_matrix,
)
from gctheory.delays.markov.missed import (
    MissedLaw,
    chain_missed_moments,
    class_missed_law,
    missed_mc,
)

__all__ = [
    "straggler_matrix",
    "GilbertElliott",
    "Fritchman",
    "BurstyModel",
    "MarkovFit",
    "fit_gilbert_elliott",
    "fit_fritchman",
    "fit_bursty",
    "iid_likelihood_ratio",
    "MemoryDelay",
    "MarkovSampler",
    "BURSTY_BLOCK",
    "memory_scheme_times",
    "min_rounds",
    "MissedLaw",
    "chain_missed_moments",
    "class_missed_law",
    "missed_mc",
]
