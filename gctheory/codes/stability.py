"""Numerical stability of exact gradient codes: relative decoding error versus n.

Kadhe et al. 2019 (Section II-B, IV-B) argue that decoders which invert a
large real matrix (Ye-Abbe's V_T, (n - s) x (n - s)) lose accuracy quickly as
n grows, while CommFR-GC only solves per-group systems of size K = m and
can pick a well-conditioned code. This module measures it: for each family
and n, random Gaussian partial gradients are encoded, s workers straggle,
the rest decode, and the relative error ``||g_hat - g||_2 / ||g||_2`` of the
decoded sum is recorded

- over random straggler sets, as the mean of ``log10`` of the error with a
  CLT confidence interval (through :func:`gctheory.montecarlo.estimate_mean`);
- over the worst straggler set found: every set when there are at most
  ``exhaustive_limit`` of them, otherwise the n cyclic blocks of s
  consecutive workers plus ``worst_samples`` random sets (a lower bound on the
  true worst case, flagged ``worst_exhaustive=False``).

Parameters of the comparison (one code per family and n, n a multiple of 4):
k = n partitions, s = n / 4 stragglers; the communication-efficient codes use
m = n / 4 (Ye-Abbe load s + m; CommFR-GC on an [s + m, m] code, two groups),
the m = 1 codes (cyclic-MDS, Reed-Solomon) load s + 1.

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran 2019, Sections II-B and IV-B.
.. [2] Halbawi, Azizan, Salehi, Hassibi 2017 (Reed-Solomon gradient codes).
.. [3] Tandon, Lei, Dimakis, Karampatziakis 2017 (cyclic-MDS).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.codes.base import GradientCode, check_positive_int
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

STABILITY_FAMILIES = (
    "ye-abbe-vandermonde",
    "ye-abbe-gaussian",
    "commfr-gaussian",
    "commfr-systematic",
    "commfr-vandermonde",
    "reed-solomon",
    "cyclic-mds",
)

#: errors below this are reported as this value (log10 = -18): exact-zero errors
#: (e.g. a decoder that only adds) would otherwise have log10 = -inf.
ERROR_FLOOR = 1e-18

_D = 8  # gradient length used by the study


@dataclass(frozen=True)
class StabilityPoint:
    """Decoding error of one family at one n (see the module docstring)."""

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


@functools.lru_cache(maxsize=256)
def stability_code(family: str, n: int, seed: int = 0) -> GradientCode:
    """The code of ``family`` at ``n`` used by the study (s = n/4; m = n/4 or 1)."""
    n = check_positive_int("n", n, minimum=4)
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
    code: GradientCode, stragglers: Sequence[int], partials: np.ndarray
) -> tuple[float, float]:
    """Relative error ``||g_hat - g||_2 / ||g||_2`` and condition number for one straggler set.

    Decodes with ``check=False`` (the error is measured, not refused);
    a decoder that raises ``numpy.linalg.LinAlgError`` counts as error ``inf``.
    """
    alive = np.setdiff1d(np.arange(code.n), np.asarray(stragglers, dtype=int))
    Y = code.encode(partials)
    truth = partials.sum(axis=0)
    try:
        res = code.decode_detail(alive, Y[alive], partials.shape[1], check=False)
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
    out = []
    for f, n in itertools.product(families, ns):
        child = np.random.default_rng(root.spawn(1)[0])
        code_seed = int(child.integers(2**31))
        code = stability_code(f, n, code_seed)
        s = code.s
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
    return out
