"""Approximate gradient codes: d-FRC, batch raptor codes, Bernoulli gradient codes.

Wang, Liu, Shroff, "Fundamental limits of approximate gradient coding" (2019)
[1] and Charles, Papailiopoulos, Ellenberg, "Approximate gradient coding via
sparse random graphs" (2017) [2]. ``n`` workers and, unless said otherwise,
``k = n`` data partitions; ``A`` (``n x k``) is the coding matrix of [1]
(worker ``i`` sends ``sum_j A[i, j] g_j``, m = 1) and ``A_S`` its rows for
the survivors ``S``. An approximate code (``s is None``) never refuses to
decode: it returns its best estimate ``u^T A_S g`` and reports the error it
made in the sense of eq. (5) of [1],
``err = ||A_S^T u - 1_k||^2`` for the coefficients ``u`` its decoder used
(the minimum over ``u`` for the least-squares decoder).

- :class:`DFractionalRepetitionCode` -- Definition 4 of [1] (and Remark 1 when
  ``d`` does not divide ``n``) with the group-sum decoder: sum the
  transmissions of survivors holding disjoint data that together cover
  everything (a longest-path/interval-scheduling search over the contiguous
  blocks; it reduces to "one survivor per block" when ``d | n``). Exact
  failure probability and expected error under ``s`` uniform stragglers
  (:func:`dfrc_failure_probability`, :func:`dfrc_expected_error`).
- :class:`BatchRaptorCode` -- Definition 5 of [1]: partitions in batches of
  size ``b``, each worker sums ``deg ~ P`` distinct random batches; decoded by
  the peeling decoder of Algorithm 1 (:func:`peeling_decode`, value level).
  :func:`theorem6_degree_distribution` is ``P_w`` of Theorem 6 (eq. (17)).
- :class:`BernoulliGradientCode` -- [2]: every worker holds every partition
  independently with probability ``p``; optimal (least-squares) decoding,
  eqs. (4)-(5) of [1].
- :func:`recovery_error` -- eq. (5) of [1] for any ``A_S``.
- :func:`estimate_decoding_failure`, :func:`estimate_mean_error` -- Monte Carlo
  (through :mod:`gctheory.montecarlo`) of ``P(err > threshold)`` and
  ``E[err]`` over uniformly random straggler sets of size ``s``.

The module passed 900 lines and is split by family: the d-FRC is in
:mod:`gctheory.codes.dfrc`, batch raptor codes and peeling in
:mod:`gctheory.codes.batch_raptor`, and what every approximate code shares
(``recovery_error``, :class:`ApproxDecodeResult`, the base class) in the
private ``gctheory.codes._approximate``. This module keeps the Bernoulli code
and the Monte Carlo estimators, and every name stays importable from here
(pickles naming ``gctheory.codes.approximate.<class>`` still load).

References
----------
.. [1] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
.. [2] Z. Charles, D. Papailiopoulos, J. Ellenberg, "Approximate gradient
   coding via sparse random graphs", arXiv:1711.06771 (2017).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_memory, check_real
from gctheory.codes._approximate import ApproxDecodeResult, _ApproximateCode, recovery_error
from gctheory.codes.base import check_positive_int
from gctheory.codes.batch_raptor import (
    THEOREM6_MIN_EPS as THEOREM6_MIN_EPS,
)
from gctheory.codes.batch_raptor import (
    BatchRaptorCode,
    peeling_decode,
    theorem6_batch_size,
    theorem6_degree_distribution,
    theorem6_mean_degree,
)
from gctheory.codes.dfrc import (
    DFractionalRepetitionCode,
    dfrc_expected_error,
    dfrc_failure_probability,
    dfrc_group_sizes,
    dfrc_theorem4_load,
)
from gctheory.codes.tandon import _check_ns
from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability

__all__ = [
    "ApproxDecodeResult",
    "recovery_error",
    "dfrc_group_sizes",
    "dfrc_failure_probability",
    "dfrc_expected_error",
    "dfrc_theorem4_load",
    "DFractionalRepetitionCode",
    "theorem6_degree_distribution",
    "theorem6_batch_size",
    "theorem6_mean_degree",
    "peeling_decode",
    "BatchRaptorCode",
    "BernoulliGradientCode",
    "estimate_decoding_failure",
    "estimate_mean_error",
]


# ------------------------------------------------------------------- BGC
class BernoulliGradientCode(_ApproximateCode):
    """Bernoulli gradient code of Charles et al. 2017 with optimal decoding.

    Every worker holds every partition independently with probability ``p``
    (``A[i, j] ~ Bernoulli(p)``, expected load ``p k``); decoding takes the
    least-squares ``u`` of eq. (4) of Wang et al. 2019, making the error
    ``err(A_S)`` of eq. (5).

    Parameters
    ----------
    n : int
        Workers.
    p : float
        Placement probability, ``0 < p <= 1``.
    k : int, optional
        Partitions (default ``n``).
    rng : optional
        Seeds the placement.

    Examples
    --------
    >>> from gctheory.codes import BernoulliGradientCode
    >>> code = BernoulliGradientCode(8, 0.5, rng=0)
    >>> code.n, code.k, code.expected_load
    (8, 8, 4.0)
    >>> round(code.decoder_error(list(range(6))), 4)  # 2 stragglers
    1.3333
    """

    name = "Bernoulli gradient code (Charles et al. 2017)"

    def __init__(self, n: int, p: float, *, k: int | None = None, rng: Any = None) -> None:
        self.n = check_positive_int("n", n)
        self.k = self.n if k is None else check_positive_int("k", k)
        if not (
            isinstance(p, (int, float, np.integer, np.floating))
            and not isinstance(p, (bool, np.bool_))
            and 0 < p <= 1
        ):
            raise ValueError(f"p must be a probability in (0, 1], got {p!r}")
        check_memory(18 * self.n * self.k, "n", f"the {self.n} x {self.k} coding matrix")
        self.p = float(p)
        rng = as_generator(rng)
        self.A = (rng.random((self.n, self.k)) < self.p).astype(np.int8)
        self.support = self.A.astype(bool)
        self.load = int(self.support.sum(axis=1).max())

    @property
    def expected_load(self) -> float:
        """``p k``, the mean number of partitions per worker."""
        return self.p * self.k


# ------------------------------------------------------------- Monte Carlo
def _random_survivors(rng: np.random.Generator, size: int, n: int, s: int) -> np.ndarray:
    return np.argsort(rng.random((size, n)), axis=1)[:, : n - s]


def _error_sample(code: _ApproximateCode, s: int, rng: np.random.Generator, size: int):
    survivors = _random_survivors(rng, size, code.n, s)
    # a code that decodes many survivor sets at once (the batch raptor code's peeling)
    # gives the same errors as decoder_error one set at a time, from the same draws
    batched = getattr(code, "_decoder_errors", None)
    out = batched(survivors) if batched is not None else None
    if out is not None:
        return out
    out = np.empty(size)
    for t, T in enumerate(survivors):
        out[t] = code.decoder_error(T)
    return out


def _failure_event(
    code: _ApproximateCode, s: int, threshold: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    return _error_sample(code, s, rng, size) > threshold


def _check_code(code: Any, s: Any) -> int:
    if not isinstance(code, _ApproximateCode):
        raise ValueError(f"code must be an approximate code of this module, got {type(code)}")
    return _check_ns(code.n, s)[1]


def estimate_decoding_failure(
    code: _ApproximateCode,
    s: int,
    trials: int,
    *,
    threshold: float = 0.0,
    rng: Any = None,
    level: float = 0.99,
    executor: Any = None,
    chunk_size: int | None = None,
) -> Estimate:
    """Monte Carlo ``P(err > threshold)`` for ``s`` uniformly random stragglers.

    ``err`` is the error of the code's own decoder (:meth:`decoder_error`);
    ``threshold = 0`` gives the decoding failure probability of Definition 3
    (``G_0``), ``threshold = eps n`` the event of ``G_eps`` in Wang et al.
    2019. Runs through :func:`gctheory.montecarlo.estimate_probability`
    (Wilson interval at ``level``).

    Parameters
    ----------
    code : approximate GradientCode
        A code with ``s = None`` (its ``decoder_error`` is used).
    s : int
        Uniformly random stragglers per trial.
    trials : int
        Straggler sets drawn.
    threshold : float
        Failure when ``err > threshold``; finite and ``>= 0``.
    rng : None, int or numpy.random.Generator
        Seed.
    level : float
        Confidence level.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks; the result does not depend on it.
    chunk_size : int, optional
        Trials per chunk.

    Returns
    -------
    Estimate
        ``P(err > threshold)`` with its Wilson interval.

    Examples
    --------
    >>> from gctheory.codes import DFractionalRepetitionCode, estimate_decoding_failure
    >>> from gctheory.codes import dfrc_failure_probability
    >>> est = estimate_decoding_failure(DFractionalRepetitionCode(6, 2), 2, 500, rng=0)
    >>> est.contains(float(dfrc_failure_probability(6, 2, 2))), print(est)
    0.18 [0.14, 0.2284]
    (True, None)
    """
    s = _check_code(code, s)
    # err is a norm (>= 0): a negative threshold would count every trial a failure
    threshold = check_real(threshold, "threshold", low=0.0)
    event = partial(_failure_event, code, s, threshold)
    return estimate_probability(
        event, trials, rng=rng, level=level, executor=executor, chunk_size=chunk_size
    )


def estimate_mean_error(
    code: _ApproximateCode,
    s: int,
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    executor: Any = None,
    chunk_size: int | None = None,
) -> Estimate:
    """Monte Carlo ``E[err]`` (decoder's error, eq. (5) form) for ``s`` random stragglers.

    Through :func:`gctheory.montecarlo.estimate_mean` (CLT interval; ``err``
    is bounded by ``k``, so the CLT applies).

    Parameters
    ----------
    code : approximate GradientCode
        A code with ``s = None``.
    s : int
        Uniformly random stragglers per trial.
    trials : int
        Straggler sets drawn.
    rng : None, int or numpy.random.Generator
        Seed.
    level : float
        Confidence level.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks.
    chunk_size : int, optional
        Trials per chunk.

    Returns
    -------
    Estimate
        ``E[err]`` with its CLT interval.

    Examples
    --------
    >>> from gctheory.codes import DFractionalRepetitionCode, estimate_mean_error
    >>> from gctheory.codes import dfrc_expected_error
    >>> est = estimate_mean_error(DFractionalRepetitionCode(6, 2), 2, 500, rng=0)
    >>> est.contains(float(dfrc_expected_error(6, 2, 2)))
    True
    """
    s = _check_code(code, s)
    sampler = partial(_error_sample, code, s)
    return estimate_mean(
        sampler, trials, rng=rng, level=level, executor=executor, chunk_size=chunk_size
    )
