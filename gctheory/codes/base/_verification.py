"""Exhaustive and sampled checks that a code tolerates its straggler sets."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_real
from gctheory.codes._survivors import (
    check_positive_int,
)
from gctheory.codes.base._interface import GradientCode

__all__ = ["ToleranceCheck", "verify_straggler_sets"]


# ------------------------------------------------------------- verification
@dataclass(frozen=True)
class ToleranceCheck:
    """Outcome of :func:`verify_straggler_sets`.

    ``sets``: straggler sets tried; ``failures``: those that did not decode
    within the condition-number tolerance (or raised); ``max_error``: largest
    relative forward error ``||g_hat - g||_inf / sum_j ||g_j||_inf`` seen;
    ``max_condition``: largest condition number of a solved system;
    ``max_error_over_bound``: largest ratio of the error to its
    :meth:`DecodeResult.error_bound` (<= 1 means within tolerance).
    ``over_rtol``: sets whose decoding equations the code cannot solve to ``rtol``
    in float64 (residual above it: the code does not deliver its ``s`` there, however
    it was constructed); ``over_bound``: sets decoded with an error beyond the bound;
    ``refused``: sets that raised; ``max_residual``: the largest residual seen. ``str()``
    says how many sets exceed the tolerance.

    Parameters
    ----------
    stragglers : int
        The number of stragglers removed.
    sets : int
        Straggler sets tried.
    failures : tuple of tuple of int
        The sets that failed.
    max_error : float
        Largest relative forward error.
    max_condition : float
        Largest condition number of a solved system.
    max_error_over_bound : float
        Largest error over its bound (<= 1 within tolerance).
    exhaustive : bool
        Whether every set of that size was tried.
    over_rtol, over_bound, refused : int
        Sets whose error exceeded ``rtol``, the bound, or that the decoder refused.
    max_residual : float
        Largest relative residual of a decoding system.
    rtol : float
        The tolerance used.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode, ToleranceCheck, verify_straggler_sets
    >>> check = verify_straggler_sets(CyclicMDSCode(5, 2, rng=0), rng=0)
    >>> check.ok, check.sets, check.exhaustive, check.failures
    (True, 10, True, ())
    """

    stragglers: int
    sets: int
    failures: tuple[tuple[int, ...], ...]
    max_error: float
    max_condition: float
    max_error_over_bound: float
    exhaustive: bool
    over_rtol: int = 0
    over_bound: int = 0
    refused: int = 0
    max_residual: float = 0.0
    rtol: float = 1e-6

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        how = "every" if self.exhaustive else "a random sample of"
        if self.ok:
            return (
                f"{how} {self.sets} sets of {self.stragglers} stragglers decode within "
                f"tolerance (largest condition number {self.max_condition:.3g})"
            )
        return (
            f"{len(self.failures)} of {how} {self.sets} sets of {self.stragglers} stragglers "
            f"exceed the tolerance: {self.over_rtol} with a residual above rtol="
            f"{self.rtol:g} (largest {self.max_residual:.3g}, condition number up to "
            f"{self.max_condition:.3g}), {self.over_bound} with an error beyond the "
            f"forward bound, {self.refused} refused"
        )


def verify_straggler_sets(
    code: GradientCode,
    stragglers: int | None = None,
    *,
    d: int = 5,
    max_sets: int | None = None,
    rng: Any = None,
    rtol: float = 1e-6,
) -> ToleranceCheck:
    """Decode from every straggler set of a given size and compare with the true gradient sum.

    Random Gaussian partials (k, d); each set of ``stragglers`` workers
    (default ``code.s``) is removed, the rest decode, and the result must agree
    with ``sum_j g_j`` to within :meth:`DecodeResult.error_bound` with
    ``scale = max_u ||A[:, u]||_1 max|y| + sum_j ||g_j||_inf`` (the size of
    what the decoder adds up) and ``size = k m``, plus ``residual * k m *
    max|g|``, the part of the error fixed by the residual of the decoding
    equations (a code whose matrices came from an ill-conditioned solve is
    exact only up to that residual; ``residual > rtol`` fails anyway). A set that raises
    ``ValueError`` (cannot decode) counts as a failure. With ``max_sets``, a
    random sample of that many sets is tried instead of all
    (``exhaustive=False``). Decoding runs with ``check=False``, so sets with
    more than ``s`` stragglers are decoded as far as the algebra allows and
    counted as failures when not exact. A set whose decoding equations keep a
    residual above ``rtol`` counts as a failure too (``over_rtol``): a random
    cyclic-MDS code of n = 1000, s = 10 has such sets in float64 (condition
    numbers ~1e8-1e9), so ``code.s`` is a statement about exact arithmetic;
    ``str(result)`` says how many sets exceed the tolerance (docs/codes.md gives
    the n where random cyclic-MDS codes stop being reliable).

    Parameters
    ----------
    code : GradientCode
        The code to check.
    stragglers : int, optional
        Size of the straggler sets (default ``code.s``).
    d : int
        Length of the random partial gradients.
    max_sets : int, optional
        Check a random sample of this many sets instead of all of them.
    rng : None, int or numpy.random.Generator
        Seed of the partials and of the sample.
    rtol : float
        Relative error above which a set is reported.

    Returns
    -------
    ToleranceCheck
        The sets tried, the failures and the largest errors.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode, verify_straggler_sets
    >>> print(verify_straggler_sets(CyclicMDSCode(5, 2, rng=0), rng=0))
    every 10 sets of 2 stragglers decode within tolerance (largest condition number 2.16e+03)
    >>> verify_straggler_sets(CyclicMDSCode(5, 2, rng=0), stragglers=3, rng=0).ok
    False
    """
    if not isinstance(code, GradientCode):
        raise ValueError(f"code must be a GradientCode, got {type(code).__name__}")
    gen = as_generator(rng)
    e = code.s if stragglers is None else check_positive_int("stragglers", stragglers, minimum=0)
    if e is None:
        raise ValueError("stragglers must be given for an approximate code (s is None)")
    if e >= code.n:
        raise ValueError(f"stragglers must be < n={code.n}, got {e}")
    d = check_positive_int("d", d)
    if max_sets is not None:
        max_sets = check_positive_int("max_sets", max_sets)
    rtol = check_real(rtol, "rtol", low=0.0, low_open=True)
    P = gen.standard_normal((code.k, d))
    Y = code.encode(P)
    truth = P.sum(axis=0)
    scale0 = float(np.abs(P).max(axis=1).sum())
    total = math.comb(code.n, e)
    sets: Iterable[tuple[int, ...]]
    if max_sets is None or total <= max_sets:
        sets = itertools.combinations(range(code.n), e)
        exhaustive = True
    else:
        sets = (
            tuple(sorted(gen.choice(code.n, e, replace=False).tolist())) for _ in range(max_sets)
        )
        exhaustive = False
    failures: list[tuple[int, ...]] = []
    count, max_err, max_kappa, max_ratio = 0, 0.0, 0.0, 0.0
    over_rtol = over_bound = refused = 0
    max_res = 0.0
    for S in sets:
        count += 1
        alive = np.setdiff1d(np.arange(code.n), S)
        try:
            # the error is measured here, against its own bound: no precision warning
            res = code.decode_detail(
                alive, Y[alive], d, check=False, condition=True, rtol=rtol, on_noise="ignore"
            )
        except ValueError:
            failures.append(tuple(S))
            refused += 1
            continue
        err = float(np.abs(res.gradient - truth).max())
        scale = float(np.abs(res.coefficients).sum(axis=0).max() * np.abs(Y[alive]).max()) + scale0
        # rounding in the solve (condition number) plus the exactly-known part of the error
        # carried by the residual R = E_T A - C of the decoding equations as built:
        # |R^T P| <= max|P| sqrt(km) ||R||_F and ||R||_F = residual sqrt(km)
        km = code.k * code.m
        bound = res.error_bound(scale, km) + res.residual * km * float(np.abs(P).max())
        max_err = max(max_err, err / scale0)
        max_kappa = max(max_kappa, res.condition_number)
        max_ratio = max(max_ratio, err / bound)
        max_res = max(max_res, res.residual)
        over_rtol += not res.exact
        over_bound += err > bound
        if not res.exact or err > bound:
            failures.append(tuple(S))
    return ToleranceCheck(
        stragglers=e,
        sets=count,
        failures=tuple(failures),
        max_error=max_err,
        max_condition=max_kappa,
        max_error_over_bound=max_ratio,
        exhaustive=exhaustive,
        over_rtol=int(over_rtol),
        over_bound=int(over_bound),
        refused=refused,
        max_residual=max_res,
        rtol=rtol,
    )
