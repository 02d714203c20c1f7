"""The decoding error of an exact gradient code in floating point, and its sweep over
the number of workers."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory import _names
from gctheory._validate import check_choice
from gctheory.codes.base import GradientCode, check_positive_int, validate_survivors
from gctheory.codes.commfr import commfr_code
from gctheory.codes.tandon import CyclicMDSCode
from gctheory.codes.ye_abbe import YeAbbeCode
from gctheory.montecarlo import Estimate, estimate_mean

__all__ = [
    "STABILITY_FAMILIES",
    "StabilityPoint",
    "stability_code",
    "decoding_error",
    "decoding_stability",
]


STABILITY_FAMILIES = _names.STABILITY_FAMILIES  # every family of the study


#: errors below this are reported as this value (log10 = -18): exact-zero errors
#: (e.g. a decoder that only adds) would otherwise have log10 = -inf.
ERROR_FLOOR = 1e-18


_D = 8  # gradient length used by the study


@dataclass(frozen=True)
class StabilityPoint:
    """Decoding error of one family at one n (see the module docstring).

    Parameters
    ----------
    family : str
        The code family.
    n, s, m : int
        Workers, stragglers and communication reduction.
    worst_error : float
        Largest relative decoding error over the worst-case straggler sets.
    worst_condition : float
        Condition number there.
    worst_exhaustive : bool
        Whether every straggler set was tried.
    random_log10_error : Estimate
        Mean ``log10`` error over random straggler sets.

    Examples
    --------
    >>> from gctheory.codes import StabilityPoint, decoding_stability
    >>> pts = decoding_stability(families=["ye-abbe-vandermonde"], ns=[4, 8], trials=5,
    ...                          worst_samples=2, rng=0)
    >>> p = pts[-1]
    >>> p.family, p.n, p.s, p.worst_exhaustive, p.worst_error < 1e-10
    ('ye-abbe-vandermonde', 8, 2, True, True)
    """

    family: str
    n: int
    s: int
    m: int
    worst_error: float
    worst_condition: float
    worst_exhaustive: bool
    random_log10_error: Estimate

    def row(self) -> dict[str, Any]:
        e = self.random_log10_error
        return {
            "family": self.family,
            "n": self.n,
            "s": self.s,
            "m": self.m,
            "worst_rel_error": self.worst_error,
            "worst_condition": self.worst_condition,
            "worst_exhaustive": self.worst_exhaustive,
            "random_log10_error": e.value,
            "random_low": e.low,
            "random_high": e.high,
        }


def _params(n: int) -> tuple[int, int]:
    if n % 4:
        raise ValueError(
            f"n must be a multiple of 4 for the stability study (s = m = n/4), got {n}"
        )
    return n // 4, n // 4


def stability_code(family: str, n: int, seed: int = 0) -> GradientCode:
    """The code of ``family`` at ``n`` used by the study (s = n/4; m = n/4 or 1).

    ``family`` one of :data:`STABILITY_FAMILIES`, ``n`` a multiple of 4, ``seed`` a
    non-negative int (the random families' placement). Cached per arguments.

    Parameters
    ----------
    family : str
        One of :data:`STABILITY_FAMILIES`.
    n : int
        Workers, a multiple of 4.
    seed : int
        Seed of the random families' placement.

    Returns
    -------
    GradientCode
        The code (cached).

    Examples
    --------
    >>> from gctheory.codes import stability_code
    >>> stability_code("ye-abbe-vandermonde", 8)
    YeAbbeCode(n=8, k=8, load=4, m=2, s=2)
    """
    check_choice(family, "family", STABILITY_FAMILIES)
    n = check_positive_int("n", n, minimum=4)
    _params(n)
    seed = check_positive_int("seed", seed, minimum=0)
    return _stability_code(family, n, seed)


@functools.lru_cache(maxsize=256)
def _stability_code(family: str, n: int, seed: int) -> GradientCode:
    s, m = _params(n)
    if family == "ye-abbe-vandermonde":
        return YeAbbeCode(n, s, m)
    if family == "ye-abbe-gaussian":
        return YeAbbeCode(n, s, m, V="gaussian", rng=seed)
    if family.startswith("commfr-"):
        fam = family.removeprefix("commfr-")
        if fam in ("gaussian", "systematic", "vandermonde"):
            return commfr_code(n, n, s + m, m, family=fam, rng=seed)
    if family == "reed-solomon":
        from gctheory.codes.reed_solomon import ReedSolomonCode  # sibling family, lazy

        return ReedSolomonCode(n, n, s + 1)
    if family == "cyclic-mds":
        return CyclicMDSCode(n, s, rng=seed)
    raise ValueError(f"family must be one of {STABILITY_FAMILIES}, got {family!r}")


def decoding_error(
    code: GradientCode, stragglers: Sequence[int] | np.ndarray, partials: np.ndarray
) -> tuple[float, float]:
    """Relative error ``||g_hat - g||_2 / ||g||_2`` and condition number for one straggler set.

    Decodes with ``check=False`` (the error is measured, not refused);
    a decoder that raises ``numpy.linalg.LinAlgError`` counts as error ``inf``.
    ``stragglers``: distinct worker indices (fewer than n); ``partials``: (k, d).

    Parameters
    ----------
    code : GradientCode
        The code.
    stragglers : sequence of int
        Distinct straggling workers (fewer than n).
    partials : numpy.ndarray, shape (k, d)
        The partial gradients.

    Returns
    -------
    tuple of float
        ``(relative error, condition number)``.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import CyclicMDSCode, decoding_error
    >>> g = np.random.default_rng(0).standard_normal((5, 3))
    >>> err, cond = decoding_error(CyclicMDSCode(5, 2, rng=0), [1, 3], g)
    >>> err < 1e-12, f"{cond:.3g}"
    (True, '35.9')
    """
    if not isinstance(code, GradientCode):
        raise ValueError(f"code must be a GradientCode, got {type(code).__name__}")
    S = validate_survivors(stragglers, code.n, 0)
    if S.size >= code.n:
        raise ValueError(f"stragglers must leave a survivor: got all n={code.n} workers")
    partials = code._check_partials(partials)
    alive = np.setdiff1d(np.arange(code.n), S)
    Y = code.encode(partials)
    truth = partials.sum(axis=0)
    try:
        # the error is measured here, not warned about (the bound is in res.noise_bound)
        res = code.decode_detail(alive, Y[alive], partials.shape[1], check=False, on_noise="ignore")
    except np.linalg.LinAlgError:
        return math.inf, math.inf
    err = float(np.linalg.norm(res.gradient - truth) / np.linalg.norm(truth))
    return err, float(res.condition_number)


def _log10_error_sampler(family: str, n: int, seed: int, rng: np.random.Generator, size: int):
    code = stability_code(family, n, seed)
    out = np.empty(size)
    for i in range(size):
        P = rng.standard_normal((code.k, _D))
        S = rng.choice(n, code.s, replace=False)
        err, _ = decoding_error(code, S, P)
        # inf/nan (a breakdown) is reported as 1e300 so the mean stays finite and huge
        out[i] = math.log10(max(err, ERROR_FLOOR)) if math.isfinite(err) else 300.0
    return out


def decoding_stability(
    families: Sequence[str] = STABILITY_FAMILIES,
    ns: Sequence[int] = tuple(range(4, 61, 8)),
    *,
    trials: int = 100,
    worst_samples: int = 50,
    exhaustive_limit: int = 2000,
    level: float = 0.99,
    executor: Any = None,
    rng: Any = None,
    progress: Any = None,
) -> list[StabilityPoint]:
    """Worst-case and random-set decoding error for each family and n.

    Parameters
    ----------
    families : names from :data:`STABILITY_FAMILIES`.
    ns : multiples of 4 (s = m = n / 4).
    trials : random straggler sets per point (Monte Carlo, ``>= 2``).
    worst_samples : random sets added to the n cyclic blocks when the worst case
        is not enumerated.
    exhaustive_limit : enumerate all C(n, s) sets when there are at most this many.
    level, executor : passed to :func:`gctheory.montecarlo.estimate_mean`.
    rng : seed (keyword-only); the code seeds and straggler sets derive from it.
    progress : callable, optional; called as ``progress(done, total, "family n=N")``
        before each (family, n) point and once at the end.

    Returns
    -------
    list of StabilityPoint
        One point per family and n.

    Examples
    --------
    >>> from gctheory.codes import decoding_stability
    >>> pts = decoding_stability(families=["cyclic-mds"], ns=[4, 8], trials=5, worst_samples=2,
    ...                          rng=0)
    >>> [(p.n, p.s, p.worst_error < 1e-8) for p in pts]
    [(4, 1, True), (8, 2, True)]
    """
    trials = check_positive_int("trials", trials, minimum=2)
    worst_samples = check_positive_int("worst_samples", worst_samples, minimum=0)
    for f in families:
        if f not in STABILITY_FAMILIES:
            raise ValueError(f"family must be one of {STABILITY_FAMILIES}, got {f!r}")
    for n in ns:
        check_positive_int("n", n, minimum=4)
        _params(n)
    root = np.random.SeedSequence(np.random.default_rng(rng).integers(2**63))
    out: list[StabilityPoint] = []
    points = list(itertools.product(families, ns))
    for i, (f, n) in enumerate(points):
        if progress is not None:
            progress(i, len(points), f"{f} n={n}")
        child = np.random.default_rng(root.spawn(1)[0])
        code_seed = int(child.integers(2**31))
        code = stability_code(f, n, code_seed)
        s = code.s
        assert s is not None, "every family of the study is an exact code"
        P = child.standard_normal((code.k, _D))
        total = math.comb(n, s)
        if total <= exhaustive_limit:
            sets = list(itertools.combinations(range(n), s))
            exhaustive = True
        else:
            sets = [tuple((i + np.arange(s)) % n) for i in range(n)]
            sets += [tuple(child.choice(n, s, replace=False)) for _ in range(worst_samples)]
            exhaustive = False
        worst_err, worst_kappa = 0.0, 0.0
        for S in sets:
            err, kappa = decoding_error(code, S, P)
            if not err <= worst_err:  # also catches nan
                worst_err = err if math.isfinite(err) or math.isinf(err) else math.inf
            worst_kappa = max(worst_kappa, kappa)
        sampler = functools.partial(_log10_error_sampler, f, n, code_seed)
        est = estimate_mean(sampler, trials, rng=child, level=level, executor=executor)
        out.append(StabilityPoint(f, n, s, code.m, worst_err, worst_kappa, exhaustive, est))
    if progress is not None:
        progress(len(points), len(points), "")
    return out
