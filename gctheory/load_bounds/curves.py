"""Every bound beside the loads the codes reach, for the CLI and the figures: all bounds
at one ``(n, s)`` with the exact d-FRC failure probability at each load
(:func:`all_bounds`), the columns of Figure 2 of Wang et al. [1] regenerated and
extended (:func:`load_curves`), and the smallest load at which a construction of
:mod:`gctheory.codes.approximate` (d-FRC, batch raptor, Bernoulli gradient code)
meets a target, by Monte Carlo (:func:`achieved_load_mc`).

.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from gctheory._validate import check_memory
from gctheory.load_bounds._common import (
    LoadBound,
    _check_eps,
    _check_ns,
    _check_target,
    _int,
    _sequence,
)
from gctheory.load_bounds.asymptotic import (
    approximate_recovery_lower_bound,
    exact_recovery_lower_bound,
)
from gctheory.load_bounds.finite_n import min_load_lower_bound
from gctheory.load_bounds.frc import frc_failure_probability, frc_load, frc_min_load
from gctheory.load_bounds.worst_case import halbawi_load, worst_case_load

if TYPE_CHECKING:  # the Monte Carlo engine (and scipy.special) load only for the MC rows
    from gctheory.montecarlo import Estimate

__all__ = ["all_bounds", "load_curves", "AchievedLoad", "achieved_load_mc"]


def all_bounds(
    n: int, s: int, eps: float = 0.01, target: float = 0.01
) -> list[tuple[str, LoadBound, Fraction | float]]:
    """Every bound and achievable load for ``(n, s)``, without warnings.

    Returns ``(label, bound, frc_failure)`` triples, where ``frc_failure`` is
    the d-FRC failure probability at the bound's integer load (what a user
    would get by building the FRC with that many partitions per worker): an
    exact Fraction, or a float where the exact sum is too costly (as
    :func:`group_failure_probability`). Regime problems are in each bound's
    ``notes``.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    eps : float
        Error fraction of the approximate bounds.
    target : float
        Failure probability of the finite-n bounds.

    Returns
    -------
    list of tuple
        ``(label, LoadBound, frc_failure)``.

    Examples
    --------
    >>> from gctheory.load_bounds import all_bounds
    >>> for label, b, fail in all_bounds(100, 10)[:3]:
    ...     print(label, b.load)
    worst case (Tandon / Ye-Abbe m=1) 11
    worst case (Halbawi eq. 2) 11
    exact whp, Thm 3 eq. (13) 2
    """
    n, s = _check_ns(n, s)
    eps, target = float(_check_eps(eps)), float(_check_target(target))
    rows: list[tuple[str, LoadBound]] = [
        ("worst case (Tandon / Ye-Abbe m=1)", worst_case_load(n, s)),
        ("worst case (Halbawi eq. 2)", halbawi_load(n, s)),
        ("exact whp, Thm 3 eq. (13)", exact_recovery_lower_bound(n, s, warn=False)),
        ("exact whp, Thm 3 proof eq. (29)", exact_recovery_lower_bound(n, s, "proof", warn=False)),
        ("eps=0, Thm 5 as stated", approximate_recovery_lower_bound(n, s, 0, warn=False)),
        (
            f"eps={eps:g}, Thm 5 as stated",
            approximate_recovery_lower_bound(n, s, eps, warn=False),
        ),
    ]
    if 2 * _check_eps(eps) * n + 4 < n:
        rows.append(
            (
                f"eps={eps:g}, Thm 5 proof eq. (52)",
                approximate_recovery_lower_bound(n, s, eps, "proof", warn=False),
            )
        )
    rows += [
        (f"finite-n, P(fail)<={target:g}, eps=0", min_load_lower_bound(n, s, target)),
        (f"finite-n, P(err>eps n)<={target:g}", min_load_lower_bound(n, s, target, eps)),
        ("FRC, Thm 4 eq. (14)", frc_load(n, s, warn=False)),
        ("FRC, Thm 4 proof d=1+log n/log(1/delta)", frc_load(n, s, "proof", warn=False)),
    ]
    d_frc = frc_min_load(n, s, target)
    rows.append(
        (
            f"FRC exact, smallest d with P(fail)<={target:g}",
            LoadBound(
                float(d_frc),
                d_frc,
                "achievable",
                "exact inclusion-exclusion, Wang et al. 2019 App. D (37)-(38)",
                "finite n, exact",
            ),
        )
    )
    return [(label, b, frc_failure_probability(n, s, b.load)) for label, b in rows]


def load_curves(
    n: int, s_values: Sequence[int], eps: float = 0.01, target: float = 0.01
) -> dict[str, list]:
    """The columns behind Figure 2 of Wang et al. 2019, regenerated (and extended).

    For each ``s`` in ``s_values``: the real-valued bounds (worst case ``s+1``,
    eq. (13), eq. (29), Theorem 5 as stated and eq. (52) at ``eps``), their
    integer loads, the finite-n lower bounds at ``target`` (``eps = 0`` and
    ``eps``), Theorem 4's FRC load and the exact smallest d-FRC load with
    failure probability ``<= target``; and whether eq. (13) is in its
    decreasing (broken-down) region. No warnings are emitted.

    Parameters
    ----------
    n : int
        Workers.
    s_values : sequence of int
        Straggler counts.
    eps : float
        Error fraction of the approximate bounds.
    target : float
        Failure probability of the finite-n bounds.

    Returns
    -------
    dict of str to list
        One column per quantity, one entry per ``s``.

    Examples
    --------
    >>> from gctheory.load_bounds import load_curves
    >>> cols = load_curves(100, [5, 10])
    >>> cols["s"], len(cols) > 5
    ([5, 10], True)
    """
    n = _int("n", n)
    s_values = [_int("s_values entry", v) for v in _sequence("s_values", s_values)]
    cols: dict[str, list] = {
        k: []
        for k in (
            "s",
            "worst_case",
            "thm3_eq13",
            "thm3_eq29",
            "thm5_stated",
            "thm5_eq52",
            "thm3_eq13_load",
            "thm5_eq52_load",
            "finite_n_lb_eps0",
            "finite_n_lb_eps",
            "frc_eq14_load",
            "frc_exact_min_load",
            "eq13_decreasing",
        )
    }
    _check_target(target)  # checked even when s_values is empty
    proof_ok = 2 * _check_eps(eps) * n + 4 < n
    for s in s_values:
        _check_ns(n, s)
        t3 = exact_recovery_lower_bound(n, s, warn=False)
        t5 = approximate_recovery_lower_bound(n, s, eps, warn=False)
        p52 = approximate_recovery_lower_bound(n, s, eps, "proof", warn=False) if proof_ok else None
        cols["s"].append(int(s))
        cols["worst_case"].append(worst_case_load(n, s).load)
        cols["thm3_eq13"].append(t3.value)
        cols["thm3_eq29"].append(exact_recovery_lower_bound(n, s, "proof", warn=False).value)
        cols["thm5_stated"].append(t5.value)
        cols["thm5_eq52"].append(p52.value if p52 else float("nan"))
        cols["thm3_eq13_load"].append(t3.load)
        cols["thm5_eq52_load"].append(p52.load if p52 else -1)
        cols["finite_n_lb_eps0"].append(min_load_lower_bound(n, s, target).load)
        cols["finite_n_lb_eps"].append(min_load_lower_bound(n, s, target, eps).load)
        cols["frc_eq14_load"].append(frc_load(n, s, warn=False).load)
        cols["frc_exact_min_load"].append(frc_min_load(n, s, target))
        cols["eq13_decreasing"].append(int(not t3.in_regime))
    return cols


# ---------------------------------------------------------------------------
# achievability of the constructions of gctheory.codes.approximate, by Monte Carlo


@dataclass(frozen=True)
class AchievedLoad:
    """One construction's load and its Monte Carlo ``P(err(A_S) > eps n)``.

    Attributes
    ----------
    family : str
        ``"frc"``, ``"brc"`` or ``"bgc"``.
    parameter : float
        The family's knob: ``d`` (FRC), batch size ``b`` (BRC with Theorem 6's
        ``P_w``), expected load ``p n`` (BGC).
    max_load : int
        ``kappa(A)`` of Definition 2 (the most partitions any worker holds).
    mean_load : float
        Partitions per worker, averaged over workers.
    estimate : Estimate
        ``P(err > eps n)`` under ``s`` uniform stragglers, with the code's own decoder.

    Examples
    --------
    >>> from gctheory.load_bounds import AchievedLoad, achieved_load_mc
    >>> best, scanned = achieved_load_mc("frc", 60, 6, 0.01, 0.05, 300, rng=0)
    >>> best.family, best.parameter, best.max_load, len(scanned)
    ('frc', 3.0, 3, 3)
    """

    family: str
    parameter: float
    max_load: int
    mean_load: float
    estimate: Estimate


def _build_code(family: str, n: int, s: int, eps: Fraction, parameter: int, rng: Any):
    from gctheory.codes import approximate as ap  # lazy: codes sit beside this module

    if family == "frc":
        return ap.DFractionalRepetitionCode(n, parameter, rng=rng)
    if family == "brc":
        return ap.BatchRaptorCode.theorem6(n, s, eps, b=parameter, rng=rng)
    return ap.BernoulliGradientCode(n, min(1.0, parameter / n), rng=rng)


def achieved_load_mc(
    family: str,
    n: int,
    s: int,
    eps: float,
    target: float,
    trials: int,
    *,
    parameters: Sequence[int] | None = None,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.98,
) -> tuple[AchievedLoad | None, list[AchievedLoad]]:
    """Smallest-load member of a code family whose ``P(err > eps n)`` is ``<= target``.

    Scans ``parameters`` (increasing; default ``1, 2, ...``) of the family
    (``"frc"``: the d-FRC of :mod:`gctheory.codes.approximate`, Definition 4 /
    Remark 1, group-sum decoder; ``"brc"``: the batch raptor code with
    Theorem 6's ``P_w(eps)`` and batch size ``b = parameter``, peeling
    decoder; ``"bgc"``: the Bernoulli gradient code with ``p = parameter/n``,
    least-squares decoder), builds one random code per value and estimates
    its failure probability through :mod:`gctheory.montecarlo`. A member is
    accepted when the *upper* confidence limit is ``<= target`` (at the
    two-sided ``level``, i.e. one-sided ``(1 + level)/2``): conservative.

    Parameters for which the family cannot be built (a BRC with fewer
    batches ``n/b`` than its largest degree ``D + 1``) are skipped.

    Returns ``(first accepted or None, every member tried)``. Monte Carlo:
    BRC peeling costs about 4 ms per trial at ``n = 100``; BGC least squares
    tens of ms.

    Parameters
    ----------
    family : {"frc", "brc", "bgc"}
        The code family.
    n : int
        Workers.
    s : int
        Stragglers.
    eps : float
        Error fraction (failure: ``err > eps n``).
    target : float
        Failure probability to reach.
    trials : int
        Monte Carlo trials per parameter.
    parameters : sequence of int, optional
        The family's knob values to scan (increasing).
    rng : None, int or numpy.random.Generator
        Seed.
    executor : int or concurrent.futures.Executor, optional
        Parallel chunks.
    level : float
        Confidence level.

    Returns
    -------
    tuple
        ``(best, scanned)``: the smallest-load member meeting ``target`` (None if none)
        and every member tried.

    Examples
    --------
    >>> from gctheory.load_bounds import achieved_load_mc
    >>> best, scanned = achieved_load_mc("frc", 60, 6, 0.01, 0.05, 300, rng=0)
    >>> [(a.parameter, a.estimate.value) for a in scanned]
    [(1.0, 1.0), (2.0, 0.23333333333333334), (3.0, 0.013333333333333334)]
    """
    if family not in ("frc", "brc", "bgc"):
        raise ValueError(f"family must be 'frc', 'brc' or 'bgc', got {family!r}")
    n, s = _check_ns(n, s)
    # each code's n x n placement (and the n parameters tried by default): n = 10**18
    # hit MemoryError
    check_memory(n * n + 8 * n, "n", f"the {n} x {n} placement of each code")
    e = _check_eps(eps)
    tgt = _check_target(target)
    from gctheory.order_stats import _check_mc_args  # lazy: it imports scipy.stats

    _check_mc_args(trials, level, None)
    if family == "brc" and not 0 < e < Fraction(1, 4):
        raise ValueError(f"eps must lie in (0, 1/4) for the BRC of Theorem 6, got eps={eps}")
    from gctheory.codes.approximate import estimate_decoding_failure

    params = list(parameters) if parameters is not None else list(range(1, n + 1))
    from gctheory.montecarlo import seed_sequence  # lazy: see the imports above

    seeds = seed_sequence(rng).spawn(2 * len(params))
    tried = []
    for i, par in enumerate(params):
        try:
            code = _build_code(family, n, s, e, int(par), np.random.default_rng(seeds[2 * i]))
        except ValueError:  # e.g. a BRC batch size leaving fewer batches than the top degree
            continue
        est = estimate_decoding_failure(
            code,
            s,
            trials,
            threshold=float(e * n),
            rng=np.random.default_rng(seeds[2 * i + 1]),
            level=level,
            executor=executor,
        )
        loads = np.asarray(code.support).sum(axis=1)
        row = AchievedLoad(family, float(par), int(loads.max()), float(loads.mean()), est)
        tried.append(row)
        if est.high <= tgt:
            return row, tried
    return None, tried
