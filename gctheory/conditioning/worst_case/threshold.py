"""The exact empirical straggler threshold of an actual generator under a stability
constraint kappa (Definition 1 of Kadhe et al. 2019), from certified worst cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator
from gctheory.conditioning._common import _int, _kappa
from gctheory.conditioning.worst_case.budget import _Budget
from gctheory.conditioning.worst_case.certificate import MaxCondition
from gctheory.conditioning.worst_case.search import _limits, _max_condition, _read_generator

__all__ = ["EmpiricalSKappa", "empirical_s_kappa"]


@dataclass(frozen=True)
class EmpiricalSKappa:
    """Empirical straggler threshold of an actual generator under constraint kappa.

    ``value`` is the largest s such that every ``(N - s')``-worker submatrix has
    condition number ``<= kappa`` for all ``s' <= s`` (None if even ``cond(G)``
    exceeds kappa), as far as the certificates of the steps decide it.
    ``exact`` is True when they decide it: every step ``s' <= value`` has a
    certified ``upper <= kappa`` and the next step a certified ``lower > kappa``
    (or ``value = N - K``). Otherwise ``value`` is an upper bound on the true
    threshold (a step whose worst case was not certified may hide a bad
    subset) and ``low`` is the largest s whose steps are all certified ``<= kappa``
    (a lower bound; None when even s = 0 is not certified).

    Parameters
    ----------
    value : int or None
        The empirical threshold (None if ``cond(G) > kappa``).
    exact : bool
        Whether the certificates decide it.
    kappa : float
        The constraint.
    steps : tuple of MaxCondition
        One worst-case search per ``s``.
    low : int or None
        A certified lower bound when not exact.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.conditioning import empirical_s_kappa
    >>> G = np.random.default_rng(0).standard_normal((3, 6))
    >>> r = empirical_s_kappa(G, 50.0)
    >>> r.value, r.exact, len(r.steps)
    (3, True, 4)
    """

    value: int | None
    exact: bool
    kappa: float
    steps: tuple[MaxCondition, ...]
    low: int | None = None


def empirical_s_kappa(
    G: Any,
    kappa: float,
    *,
    exhaustive_limit: int = 200_000,
    time_limit: float = 10.0,
    max_evaluations: int | None = None,
    samples: int = 20_000,
    max_s: int | None = None,
    block: int = 1,
    rng: Any = None,
    mp_dps: int | None = 60,
    mp_reference: Callable[[tuple[int, ...]], Any] | None = None,
) -> EmpiricalSKappa:
    """Largest number of stragglers s with ``max_{|T| = N - s} cond(G_T) <= kappa``.

    Definition 1 of Kadhe et al. 2019 applied to an actual K x N generator:
    s = 0, 1, ... is increased while :func:`max_condition` over the
    ``(N - s)``-worker submatrices stays ``<= kappa`` (its certified lower
    bound decides "above kappa", its upper bound "at most kappa"). Compare
    with Theorem 2's guarantee :func:`gctheory.conditioning.s_kappa_bound`,
    which holds with probability ``>= 1 - eps``. ``time_limit`` and
    ``max_evaluations`` are the budget of the whole search (each step gets what the
    steps before left; a time limit applied to each step let N = 2000 run > 150 s
    under time_limit=2): when either runs out, the steps stop and the result is not
    ``exact``. Only ``max_evaluations`` gives the same result on any machine.

    Parameters
    ----------
    G : array_like
        The ``K x N`` generator.
    kappa : float
        Condition-number constraint.
    exhaustive_limit : int
        Largest number of subsets enumerated exhaustively per step.
    time_limit : float
        Budget in seconds of the whole search (``math.inf``: none).
    max_evaluations : int, optional
        Budget in evaluations of the whole search: the sum over the steps of
        :func:`max_condition`'s count (condition numbers of subsets computed plus
        branch-and-bound nodes bounded). Deterministic. Default: no such budget.
    samples : int
        Random subsets sampled per step in the search.
    max_s : int, optional
        Largest ``s`` tried (default ``N - K``).
    block : int
        Workers per block (structured codes).
    rng : None, int or numpy.random.Generator
        Seed of the search.
    mp_dps : int or None
        Digits of the mpmath check where float64 is unreliable.
    mp_reference : callable, optional
        Exact condition number of a subset (overrides the mpmath SVD).

    Returns
    -------
    EmpiricalSKappa
        The threshold with its certificates.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.conditioning import empirical_s_kappa
    >>> G = np.random.default_rng(0).standard_normal((3, 6))
    >>> [empirical_s_kappa(G, k).value for k in (5.0, 50.0, 1e4)]
    [0, 3, 3]
    """
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] > G.shape[1]:
        raise ValueError(f"G must be a K x N matrix with K <= N, got shape {G.shape}")
    kappa = _kappa(kappa)
    block = _int("block", block, 1)
    K, N = G.shape[0], G.shape[1] // block
    s_max = N - (-(-K // block))
    top_s = s_max if max_s is None else min(s_max, _int("max_s", max_s, 0))
    rng = as_generator(rng)
    steps: list[MaxCondition] = []
    value: int | None = None
    low: int | None = None
    certified_so_far = True
    decided = False
    G = _read_generator(G, block, N)[0]
    exhaustive_limit = _int("exhaustive_limit", exhaustive_limit, 1)
    search = (exhaustive_limit, "auto", _int("samples", samples, 1), 8, 50, 5)
    budget = _Budget(*_limits(time_limit, max_evaluations))
    stopped = False
    for s in range(0, top_s + 1):
        if budget.over():
            stopped = True
            break
        mc = _max_condition(G, block, N - s, N, search, budget, mp_dps, mp_reference, rng)
        steps.append(mc)
        worst = mc.value_mp if mc.value_mp is not None else mc.value
        if mc.lower > kappa:
            decided = True
            break
        if worst > kappa:  # float64 says above kappa but cannot certify it
            break
        certified_so_far &= mc.upper <= kappa
        if certified_so_far:
            low = s
        value = s
    exact = (
        not stopped
        and low == value
        and (decided or value == s_max or (value is not None and value == top_s))
    )
    return EmpiricalSKappa(value=value, exact=exact, kappa=kappa, steps=tuple(steps), low=low)
