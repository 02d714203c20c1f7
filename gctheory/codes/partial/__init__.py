"""Partial stragglers: a slow worker's finished partitions still count.

A *partial straggler* has done part of its work by the deadline. Two ways to
use that work are modelled here, under one timing model.

**Timing model.** Worker ``i`` needs ``X_i`` seconds per unit of data (the
whole dataset is one unit); the ``X_i`` are independent with one distribution
(a frozen ``scipy.stats`` distribution of non-negative values, ``dist``) for
the exact results, or drawn by any ``sampler(rng, size) -> (size, n)`` for
Monte Carlo (correlated or trace-driven times). A worker processes its pieces
in a fixed order, every piece being ``1/k`` of the data, so its ``a``-th piece
is finished at ``a X_i / k`` and by a deadline ``tau`` it has finished
``m_i = min(L_i, floor(tau k / X_i))`` pieces, ``P(m_i >= a) = F(tau k / a)``.

**Count finished partitions** (:class:`PartialPlacement`). For a repetition
placement (fractional repetition, cyclic repetition, a BIBD's incidence)
each worker sends every partition gradient as it finishes it; the master
sums each finished partition once. Partition ``j`` is finished when some
holder ``i`` has it at position ``a < m_i`` of its order. Orders:
cyclic repetition ``i, i + 1, ..., i + s`` (mod n); fractional repetition
staggered inside a group (the worker at position ``r`` of its group starts
at the group's ``r``-th partition; ``order="same"`` makes them all start at
the first); other supports: ascending, rotated by the worker's index.

- The expected fraction recovered by ``tau`` is exact for *every* placement
  under independent workers: by linearity,
  ``E = (1/k) sum_j [1 - prod_{(i, a) holds j} (1 - F(tau k / (a + 1)))]``.
  With staggered orders fractional and cyclic repetition give the *same*
  value (every partition is held at positions 0..s by distinct workers);
  the distributions differ.
- The probability of recovering everything by ``tau`` is exact for cyclic
  repetition by a transfer matrix around the cycle (the state is how many
  partitions ahead the workers so far already cover, at most ``s``; the carry
  into worker 0 is summed over and must equal the carry out of worker
  ``n - 1``, which cannot depend on it as ``s < n``), and for staggered
  fractional repetition as the product over groups of the same chain on a
  group (``n = s + 1``). Otherwise Monte Carlo (:func:`estimate_partial`).
- The expected time of exact recovery, ``E R = int_0^inf P(R > t) dt``, is
  integrated numerically from the exact ``P(R <= t)`` for those placements, with
  the pieces counted (``rule="partial"``) or only whole workers counted
  (``rule="whole"``: a worker's partitions count once it finished all of
  them) or the classic gradient-code threshold (``rule="n-s"``: the
  ``(n - s)``-th fastest whole worker, what a cyclic-MDS code needs).

**Tandon et al.'s partial schemes** (:class:`PartialCyclicScheme`,
:class:`PartialReplicationScheme`; Tandon, Lei, Dimakis, Karampatziakis,
ICML 2017, Sec. 5, as implemented in the authors' public code
``rashisht1/gradient_coding``, ``src/partial_coded.py`` and
``src/partial_replication.py``, read for the scheme, not copied). Each worker
handles ``p`` pieces (``p >= s + 1``) of ``k = (p - s) n``. The first
``u = p - s - 1`` are its own, uncoded; the last ``s + 1`` are partitions of
a block of ``n`` coded like a gradient code (cyclic-MDS coefficients on a
cyclic placement, or fractional repetition). A worker sends two messages: the
sum of its uncoded pieces when they are done, then its coded combination.
The master needs every first message and either ``n - s`` second messages
(cyclic) or one per group (replication). A worker that is at most
``p / (p - s - 1)`` times slower than the others still delivers its first
message by the time they finish everything, so up to ``s`` such partial
stragglers cost nothing. Fraction recovered by ``tau``: the uncoded sums
received plus the coded block when it decodes (cyclic: all or nothing;
replication: per group).

Bad input (``tau < 0``, ``p < s + 1``, a distribution with negative values,
progress outside ``[0, L_i]``) raises ``ValueError`` naming the parameter
and the rule.

The module is a package split by concept (the timing model in ``_timing``, the
placements in ``_placement``, Tandon's schemes in ``_two_message``, the Monte Carlo in
``_monte_carlo``); every name stays importable from here, and the definitions keep
this module as their ``__module__``, so pickles and checkpoint fingerprints are as before.
"""

from __future__ import annotations

from gctheory._home import keep_home
from gctheory.codes.partial._monte_carlo import (
    _exact_chunk,
    _fraction_chunk,
    _time_chunk,
    estimate_partial,
)
from gctheory.codes.partial._placement import PartialPlacement, PartialRecovery
from gctheory.codes.partial._timing import (
    PARTIAL_RULES,
    _cdf_at,
    _check_dist,
    _check_progress,
    _check_tau,
    _cyclic_cover_probability,
    _expected_time,
    scipy_sampler,
)
from gctheory.codes.partial._two_message import (
    PartialCyclicScheme,
    PartialReplicationScheme,
    _TwoMessageScheme,
)

__all__ = [
    "PartialRecovery",
    "PartialPlacement",
    "PartialCyclicScheme",
    "PartialReplicationScheme",
    "PARTIAL_RULES",
    "estimate_partial",
    "scipy_sampler",
]

keep_home(
    __name__,
    _cdf_at,
    _check_dist,
    _check_progress,
    _check_tau,
    _cyclic_cover_probability,
    _exact_chunk,
    _expected_time,
    _fraction_chunk,
    _time_chunk,
    _TwoMessageScheme,
    estimate_partial,
    scipy_sampler,
    PartialCyclicScheme,
    PartialPlacement,
    PartialRecovery,
    PartialReplicationScheme,
)
