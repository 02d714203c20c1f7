"""``max_condition``: the certified worst condition number over the t-worker column
subsets of a generator (Kadhe et al. 2019, Theorem 2, eq. (10)), by enumeration or by
branch and bound (see the package docstring).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_choice, check_real
from gctheory.conditioning._common import FLOAT64_RELIABLE_LIMIT, Float64Warning, _int
from gctheory.conditioning.numbers import condition_number_mp
from gctheory.conditioning.worst_case.branch_and_bound import _Search
from gctheory.conditioning.worst_case.budget import _Budget
from gctheory.conditioning.worst_case.certificate import (
    _EXACT_ROUNDING,
    MaxCondition,
    _delta,
    _true_range,
)
from gctheory.conditioning.worst_case.enumeration import _exhaustive_max
from gctheory.conditioning.worst_case.heuristic import _heuristic
from gctheory.conditioning.worst_case.subsets import _combinations_array, _expand

__all__ = ["METHODS", "max_condition"]

METHODS = ("auto", "exhaustive", "branch-and-bound", "estimate")


def _read_generator(G: Any, block: int, t: int) -> tuple[np.ndarray, int, int, int]:
    """Check ``G``, ``block`` and ``t``; return ``(G as floats or complex, block, t, N)``."""
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] < 1 or G.shape[1] < 1:
        raise ValueError(f"G must be a K x N matrix, got shape {G.shape}")
    if not (np.issubdtype(G.dtype, np.number) and not np.issubdtype(G.dtype, np.bool_)):
        raise ValueError(f"G must hold real or complex numbers, got dtype {G.dtype}")
    if np.issubdtype(G.dtype, np.integer):
        G = G.astype(float)
    K, Ncols = G.shape
    block = _int("block", block, 1)
    if Ncols % block:
        raise ValueError(f"block must divide the number of columns {Ncols}, got block={block}")
    N = Ncols // block
    if K > Ncols:
        raise ValueError(f"G must have K <= N (rows <= columns), got shape {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError("G must have finite entries (no nan or inf)")
    t = _int("t", t)
    t_min = -(-K // block)
    if not t_min <= t <= N:
        raise ValueError(f"t must lie in [ceil(K / block), N] = [{t_min}, {N}], got t={t}")
    return G, block, t, N


def _stopped(budget: _Budget) -> str:
    """The label's note on an unfinished search: which limit stopped it."""
    return " (stopped at the time limit)" if budget.out_of_time else " (stopped at max_evaluations)"


def _enumerate(
    G: np.ndarray, N: int, t: int, block: int, top: int, budget: _Budget, n_sub: int
) -> tuple[tuple, int, bool, int, str, float]:
    """The exhaustive path: ``(tops, evaluated, complete, pruned, label, open_bound)``."""
    subsets = _combinations_array(N, t)
    top_vals, top_idx, evaluated, open_bound = _exhaustive_max(
        G, _expand(subsets, block), top, budget
    )
    tops = tuple((float(v), tuple(int(c) for c in subsets[i])) for v, i in zip(top_vals, top_idx))
    complete = open_bound == -math.inf
    pruned = n_sub - evaluated if complete else 0
    label = "exhaustive" + ("" if complete else _stopped(budget))
    return tops, evaluated, complete, pruned, label, open_bound


def _heuristic_then_bound(
    G: np.ndarray,
    t: int,
    block: int,
    method: str,
    heuristic: tuple[int, int, int, Any],
    top: int,
    budget: _Budget,
) -> tuple[tuple, int, bool, int, int, str, float]:
    """Heuristic, then the branch and bound it seeds (tops, evaluated, complete, ...)."""
    samples, starts, max_rounds, rng = heuristic
    pruned = nodes = 0
    open_bound = -math.inf  # read only after a branch and bound
    found, evaluated = _heuristic(G, t, block, samples, starts, max_rounds, rng, budget)
    tops = tuple(found[:top])
    complete, label = False, "estimate (random subsets + local search)"
    if method == "branch-and-bound":
        search = _Search(G, t, block, budget, found[0][0])
        search.best_T = np.array(found[0][1])
        search.run()
        evaluated += search.evaluated
        pruned, nodes = search.pruned, search.nodes
        if search.best > found[0][0]:
            tops = ((search.best, tuple(int(c) for c in search.best_T)),) + tops
            tops = tops[:top]
        complete = not search.stopped
        label = "branch-and-bound" + ("" if complete else _stopped(budget))
        open_bound = search.open_bound
    return tops, evaluated, complete, pruned, nodes, label, open_bound


def _certify(
    best_val: float, K: int, rows: int, complete: bool, method: str, open_bound: float
) -> tuple[bool, float, float, float]:
    """Certified interval of the worst value: ``(exact, lower, upper, rounding)``."""
    delta = _delta(K, rows)
    lo, hi = _true_range(best_val, delta)
    rounding = delta * best_val if math.isfinite(best_val) else math.inf
    exact = complete and math.isfinite(hi) and rounding <= _EXACT_ROUNDING
    if exact:
        lower = upper = best_val
    else:
        lower, upper = lo, hi if complete else math.inf
        if not complete and method in ("branch-and-bound", "exhaustive"):
            upper = max(hi, open_bound)
    return exact, lower, upper, rounding


def _value_mp(
    G: np.ndarray,
    best_val: float,
    best_T: tuple[int, ...],
    block: int,
    mp_dps: int | None,
    mp_reference: Callable[[tuple[int, ...]], Any] | None,
) -> float | None:
    """The worst subset's value in mpmath when float64 is unreliable (else warn or None)."""
    if best_val <= FLOAT64_RELIABLE_LIMIT:
        return None
    if mp_dps is None:
        warnings.warn(
            f"worst condition number {best_val:.3g} exceeds {FLOAT64_RELIABLE_LIMIT:g}: "
            "float64 value unreliable (pass mp_dps to recompute)",
            Float64Warning,
            stacklevel=3,
        )
        return None
    ref = mp_reference(best_T) if mp_reference is not None else None
    if ref is None:
        cols = _expand(np.array(best_T), block)
        ref = condition_number_mp(G[:, cols], dps=_int("mp_dps", mp_dps, 16))
    return float(ref)


def max_condition(
    G: Any,
    t: int,
    *,
    exhaustive_limit: int = 200_000,
    time_limit: float = 10.0,
    max_evaluations: int | None = None,
    method: str = "auto",
    block: int = 1,
    samples: int = 2_000,
    starts: int = 8,
    max_rounds: int = 50,
    top: int = 5,
    mp_dps: int | None = 60,
    mp_reference: Callable[[tuple[int, ...]], Any] | None = None,
    rng: Any = None,
) -> MaxCondition:
    """Certified worst 2-norm condition number over the ``K x t`` column submatrices of ``G``.

    This is the quantity Theorem 2 of Kadhe et al. 2019 bounds (eq. (10)):
    ``max_{|T| = t} cond(G_T) <= kappa`` means the code decodes stably from any
    t survivors. The result carries a certified interval ``[lower, upper]``
    and the worst subset found; see the module docstring for the search and
    its bounds.

    Parameters
    ----------
    G : array (K, N b)
        Real or complex generator, finite entries, ``K <= N b``.
    t : int
        Surviving workers, ``t * block >= K`` and ``t <= N``.
    exhaustive_limit : int
        ``method="auto"`` enumerates when ``binom(N, t)`` is at most this.
    time_limit : float
        Seconds for the branch and bound (and the heuristic before it); when
        they run out the certified interval is returned, ``exact=False``.
        ``math.inf``: no time limit. A time limit makes the result depend on the
        machine and its load; ``max_evaluations`` does not.
    max_evaluations : int, optional
        Budget in evaluations: condition numbers of subsets computed (the
        enumeration's, the heuristic's and the branch and bound's leaves) plus
        branch-and-bound nodes bounded, ``evaluated + nodes <= max_evaluations``
        (the enumeration's batched Gram bounds and the mpmath value are not
        counted). When it runs out the certified interval is returned,
        ``exact=False``, the same on any machine. Default: no such budget.
    method : {"auto", "exhaustive", "branch-and-bound", "estimate"}
        ``"estimate"`` is the lower bound of random subsets + local search only.
    block : int
        Columns per worker (embeddings of Ramamoorthy and Tang 2022).
    samples, starts, max_rounds : int
        The heuristic that seeds the incumbent (and the whole ``"estimate"``).
    top : int
        How many of the worst subsets to report (exhaustive path).
    mp_dps, mp_reference
        Where the worst value exceeds :data:`FLOAT64_RELIABLE_LIMIT`, its
        subset is recomputed in mpmath (``value_mp``): from G's entries at
        ``mp_dps`` digits, or by ``mp_reference(subset)`` (exact nodes, e.g.
        ``functools.partial(vandermonde_condition_mp, K, N, nodes="chebyshev")``).
        With ``mp_dps=None`` a :class:`Float64Warning` is issued instead.
    rng : seed of the heuristic (keyword-only).

    Returns
    -------
    MaxCondition
        The worst condition number found, its subset and certified bounds.

    Raises
    ------
    ValueError
        Non-finite entries, ``K > N``, t outside ``[ceil(K / block), N]``, bad options.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.conditioning import max_condition
    >>> G = np.random.default_rng(0).standard_normal((3, 6))
    >>> r = max_condition(G, 4)
    >>> f"{r.value:.4g}", r.lower <= r.value <= r.upper
    ('9.616', True)
    """
    G, block, t, N = _read_generator(G, block, t)
    exhaustive_limit = _int("exhaustive_limit", exhaustive_limit, 1)
    budget = _Budget(*_limits(time_limit, max_evaluations))
    check_choice(method, "method", METHODS)
    samples = _int("samples", samples, 1)
    starts = _int("starts", starts, 1)
    max_rounds = _int("max_rounds", max_rounds, 0)
    top = _int("top", top, 1)
    search = (exhaustive_limit, method, samples, starts, max_rounds, top)
    return _max_condition(G, block, t, N, search, budget, mp_dps, mp_reference, as_generator(rng))


def _limits(time_limit: Any, max_evaluations: Any) -> tuple[float, float]:
    """``(seconds, evaluations)`` of a budget, checked (``math.inf`` where unlimited)."""
    seconds = check_real(time_limit, "time_limit", low=0.0, low_open=True, finite=False)
    if max_evaluations is None:
        return seconds, math.inf
    return seconds, _int("max_evaluations", max_evaluations, 1)


def _max_condition(
    G: np.ndarray,
    block: int,
    t: int,
    N: int,
    search: tuple[int, str, int, int, int, int],
    budget: _Budget,
    mp_dps: int | None,
    mp_reference: Callable[[tuple[int, ...]], Any] | None,
    rng: np.random.Generator,
) -> MaxCondition:
    """:func:`max_condition` on checked arguments, within ``budget`` (at least one
    evaluation left on entry; shared with the caller, which sees what is left)."""
    exhaustive_limit, method, samples, starts, max_rounds, top = search
    n_sub = math.comb(N, t)
    t0 = time.perf_counter()
    if method == "auto":
        method = "exhaustive" if n_sub <= exhaustive_limit else "branch-and-bound"
    nodes = 0
    if method == "exhaustive":
        tops, evaluated, complete, pruned, label, open_bound = _enumerate(
            G, N, t, block, top, budget, n_sub
        )
    else:
        heuristic = (samples, starts, max_rounds, rng)
        tops, evaluated, complete, pruned, nodes, label, open_bound = _heuristic_then_bound(
            G, t, block, method, heuristic, top, budget
        )
    best_val, best_T = tops[0][0], tops[0][1]
    exact, lower, upper, rounding = _certify(
        best_val, G.shape[0], t * block, complete, method, open_bound
    )
    reliable = best_val <= FLOAT64_RELIABLE_LIMIT
    value_mp = _value_mp(G, best_val, best_T, block, mp_dps, mp_reference)
    if value_mp is not None:
        lower = value_mp  # the exact value of one subset: a certified lower bound
    return MaxCondition(
        value=best_val,
        subset=tuple(int(c) for c in best_T),
        exact=exact,
        method=label,
        evaluated=int(evaluated),
        n_subsets=n_sub,
        t=t,
        float64_reliable=reliable,
        value_mp=value_mp,
        top=tops,
        lower=float(lower),
        upper=float(upper),
        pruned=int(pruned),
        nodes=int(nodes),
        complete=complete,
        seconds=time.perf_counter() - t0,
        rounding=float(rounding),
    )
