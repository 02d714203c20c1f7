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
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory import _names
from gctheory._validate import check_array, check_choice
from gctheory.codes.base import GradientCode, check_positive_int, validate_survivors
from gctheory.codes.commfr import commfr_code
from gctheory.codes.tandon import CyclicMDSCode
from gctheory.codes.ye_abbe import YeAbbeCode
from gctheory.conditioning import Float64Warning
from gctheory.montecarlo import Estimate, estimate_mean

__all__ = [
    "COMPARE_SCHEMES",
    "GeneratorComparison",
    "GrowthFit",
    "growth_exponent",
    "compare_generators",
    "recommend",
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


# ---------------------------------------------------------------------------
# which generator: every family on the same footing

#: the two schemes of the comparison
COMPARE_SCHEMES = _names.COMPARE_SCHEMES  # ("ye-abbe", "commfr")

#: a generator of more columns than this is not analysed (circulant embeddings at large n)
MAX_COLUMNS = 240


@dataclass(frozen=True)
class GeneratorComparison:
    """One generator family in one scheme at (n, s, m): certified worst case, s_kappa, error.

    ``scheme="ye-abbe"``: V is the family's (n - s) x n matrix (k = n); the server
    inverts ``V_T``, ``|T| = n - s``. ``scheme="commfr"``: every group uses the
    family's [m + s, m] code and solves with ``m``-worker submatrices.
    ``worst_lower``/``worst_upper``: the certified interval of the worst
    condition number (equal when ``exact``); ``s_kappa``: the empirical
    straggler threshold at ``kappa`` (``s_kappa_exact`` when certified;
    ``s_kappa_low`` its certified lower end); ``theorem2``: Kadhe et al.'s
    Gaussian guarantee for the same shape (None where the theorem gives
    nothing); ``decoding_error``: relative float64 error of the actual decoder
    on the worst straggler set found (for the block families in Ye-Abbe, whose
    column sets are not MDS one by one, the error of the server's solve with
    ``V_T`` on random data); ``note``: why something is missing.

    Parameters
    ----------
    family, scheme : str
        Generator family and scheme (``"ye-abbe"`` or ``"commfr"``).
    n, s, m : int
        Workers, stragglers and communication reduction.
    kappa : float
        The stability constraint.
    block : int
        Workers per block of the search.
    worst_lower, worst_upper : float
        Certified interval of the worst condition number.
    exact : bool
        Whether the interval is a point.
    stragglers : tuple of int
        The worst straggler set found.
    s_kappa, s_kappa_low : int or None
        Empirical straggler threshold at ``kappa`` and a certified lower bound.
    s_kappa_exact : bool
        Whether ``s_kappa`` is certified.
    theorem2 : int or None
        Theorem 2's Gaussian guarantee for the same shape.
    decoding_error : float
        Float64 error of the decoder on the worst set.
    evaluated, pruned : int
        Subsets evaluated and pruned by the search.
    seconds : float
        Time spent.
    method : str
        ``"exhaustive"`` or the search used.
    note : str
        Why a family was skipped, if it was.

    Examples
    --------
    >>> from gctheory.codes import GeneratorComparison, compare_generators
    >>> rows = compare_generators(8, 2, 2, families=["gaussian"], time_limit=1.0)
    >>> r = rows[0]
    >>> r.scheme, r.family, r.exact, r.s_kappa, r.worst_upper <= r.kappa
    ('ye-abbe', 'gaussian', True, 2, True)
    """

    family: str
    scheme: str
    n: int
    s: int
    m: int
    kappa: float
    block: int
    worst_lower: float
    worst_upper: float
    exact: bool
    stragglers: tuple[int, ...]
    s_kappa: int | None
    s_kappa_exact: bool
    s_kappa_low: int | None
    theorem2: int | None
    decoding_error: float
    evaluated: int
    pruned: int
    seconds: float
    method: str
    note: str = ""

    def row(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "family": self.family,
            "n": self.n,
            "s": self.s,
            "m": self.m,
            "worst_kappa_low": self.worst_lower,
            "worst_kappa_high": self.worst_upper,
            "certified": self.exact,
            "s_kappa": self.s_kappa,
            "s_kappa_exact": self.s_kappa_exact,
            "theorem2_gaussian": self.theorem2,
            "decoding_error": self.decoding_error,
            "evaluated": self.evaluated,
            "pruned": self.pruned,
            "seconds": round(self.seconds, 3),
            "method": self.method,
            "note": self.note,
        }


def _theorem2(scheme: str, n: int, s: int, m: int, kappa: float, eps: float) -> int | None:
    from gctheory.conditioning import s_kappa_commfr, s_kappa_ye_abbe

    try:
        if scheme == "ye-abbe":
            return s_kappa_ye_abbe(n, s, kappa, eps)
        return s_kappa_commfr(s, m, kappa, eps)
    except ValueError:
        return None


def _worst_error(
    scheme: str, G: np.ndarray, n: int, s: int, m: int, b: int, stragglers, rng
) -> float:
    """float64 relative decoding error of the actual decoder on one straggler set."""
    cols = [w * b + c for w in stragglers for c in range(b)]
    if scheme == "ye-abbe" and b > 1:
        # Ye-Abbe's B needs V to be MDS column by column, which a block code is not: the
        # server's own work, the solve with V_T, is measured instead
        alive = np.setdiff1d(np.arange(G.shape[1]), cols)
        V_T = G[:, alive]
        X = rng.standard_normal((G.shape[0], _D))
        try:
            X_hat = np.linalg.solve(V_T.T, V_T.T @ X)
        except np.linalg.LinAlgError:
            return math.inf
        return float(np.linalg.norm(X_hat - X) / np.linalg.norm(X))
    try:
        if scheme == "ye-abbe":
            code: GradientCode = YeAbbeCode(b * n, b * s, b * m, V=G)
        else:
            from gctheory.codes.commfr import CommFRCode

            N = m + s
            code = CommFRCode(b * N, b * N, G, delta=b * s + 1)
    except (ValueError, np.linalg.LinAlgError):
        return math.inf
    P = rng.standard_normal((code.k, _D))
    err, _ = decoding_error(code, cols, P)
    return err


def _check_compare_args(
    n: int,
    s: int,
    m: int,
    families: Sequence[str] | None,
    schemes: Sequence[str],
    kappa: float,
    eps: float,
    time_limit: float,
    exhaustive_limit: int,
) -> tuple[int, int, int, tuple, float, float, float, int]:
    """Check :func:`compare_generators`' arguments (in order); return them as read."""
    from gctheory._validate import check_choice, check_int, check_real
    from gctheory.generators import GENERATOR_FAMILIES

    n = check_int(n, "n", low=2)
    s = check_int(s, "s", low=0, high=n - 1)
    m = check_int(m, "m", low=1)
    if s + m > n:
        raise ValueError(f"s + m must be <= n (load s + m <= k = n), got s={s}, m={m}, n={n}")
    fams = GENERATOR_FAMILIES if families is None else _name_tuple(families, "families")
    for f in fams:
        check_choice(f, "families: family", GENERATOR_FAMILIES)
    for sc in _name_tuple(schemes, "schemes"):
        check_choice(sc, "schemes: scheme", COMPARE_SCHEMES)
    exhaustive_limit = check_int(exhaustive_limit, "exhaustive_limit", low=1)
    kappa = check_real(kappa, "kappa", low=1.0, low_open=True)
    eps = check_real(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True)
    time_limit = check_real(time_limit, "time_limit", low=0.0, low_open=True)
    return n, s, m, fams, kappa, eps, time_limit, exhaustive_limit


def _too_wide(
    fam: str, scheme: str, shape: tuple[int, int, int], kappa: float, b: int, N: int, t2: Any
) -> GeneratorComparison:
    """The row of a family whose ``b N`` columns exceed ``MAX_COLUMNS``: not computed."""
    n, s, m = shape
    return GeneratorComparison(
        fam,
        scheme,
        n,
        s,
        m,
        kappa,
        b,
        math.nan,
        math.nan,
        False,
        (),
        None,
        False,
        None,
        t2,
        math.nan,
        0,
        0,
        0.0,
        "not computed",
        f"{b * N} columns (block {b}) exceed MAX_COLUMNS={MAX_COLUMNS}",
    )


def _compare_one(
    fam: str,
    scheme: str,
    shape: tuple[int, int, int],
    kappa: float,
    b: int,
    KN: tuple[int, int],
    t2: Any,
    gen: np.random.Generator,
    limits: tuple[float, int],
) -> GeneratorComparison:
    """One family in one scheme: worst case, s_kappa and the decoder's error on it."""
    from gctheory.conditioning import empirical_s_kappa, max_condition
    from gctheory.generators import generator

    n, s, m = shape
    K, N = KN
    time_limit, exhaustive_limit = limits
    G = generator(fam, K, N, rng=gen)
    with warnings.catch_warnings():  # float64 limits are reported by the interval
        warnings.simplefilter("ignore", Float64Warning)
        wc = max_condition(
            G,
            N - s,
            time_limit=time_limit,
            exhaustive_limit=exhaustive_limit,
            block=b,
            mp_dps=None,
            rng=gen,
        )
        sk = empirical_s_kappa(
            G,
            kappa,
            time_limit=time_limit,
            exhaustive_limit=exhaustive_limit,
            block=b,
            mp_dps=None,
            rng=gen,
        )
    strag = tuple(sorted(set(range(N)) - set(wc.subset)))
    err = _worst_error(scheme, G, n, s, m, b, strag, gen)
    return GeneratorComparison(
        fam, scheme, n, s, m, kappa, b, wc.lower, wc.upper, wc.exact, strag,
        sk.value, sk.exact, sk.low, t2, err, wc.evaluated, wc.pruned, wc.seconds,
        wc.method,
    )  # fmt: skip


def compare_generators(
    n: int,
    s: int,
    m: int,
    *,
    families: Sequence[str] | None = None,
    schemes: Sequence[str] = COMPARE_SCHEMES,
    kappa: float = 1000.0,
    eps: float = 1e-3,
    time_limit: float = 10.0,
    exhaustive_limit: int = 200_000,
    rng: Any = 0,
    progress: Any = None,
) -> list[GeneratorComparison]:
    """Every generator family as V in Ye-Abbe and as G in CommFR-GC, on the same footing.

    For each family and scheme: the certified worst condition number over the
    decoding matrices (:func:`gctheory.conditioning.max_condition`), the exact
    empirical s_kappa at ``kappa`` (:func:`gctheory.conditioning.empirical_s_kappa`),
    Theorem 2's Gaussian guarantee for the same shape (Kadhe et al. 2019), and
    the float64 error of the actual decoder on the worst straggler set found.

    Parameters
    ----------
    n, s, m : int
        Workers, stragglers, communication saving: ``n >= 2``, ``0 <= s``, ``m >= 1``,
        ``s + m <= n`` (Ye-Abbe's load s + m cannot exceed k = n).
    families : names from :data:`gctheory.generators.GENERATOR_FAMILIES` (default all).
    schemes : subset of ``("ye-abbe", "commfr")``.
    kappa, eps : stability constraint and Theorem 2's failure probability.
    time_limit : seconds per worst-case search (the certified interval is
        reported when it runs out).
    rng : seed of the random families, the searches and the test gradients.
    progress : callable, optional; called as ``progress(done, total, "scheme family")``
        before each (scheme, family) pair and once at the end.
    exhaustive_limit : int
        Enumerate every subset when there are at most this many.

    Returns
    -------
    list of GeneratorComparison
        One row per family and scheme.

    Examples
    --------
    >>> from gctheory.codes import compare_generators
    >>> rows = compare_generators(8, 2, 2, families=["gaussian", "vandermonde-chebyshev"],
    ...                           time_limit=1.0)
    >>> for r in rows:
    ...     print(r.scheme, r.family, round(r.worst_upper))
    ye-abbe gaussian 302
    ye-abbe vandermonde-chebyshev 242
    commfr gaussian 39
    commfr vandermonde-chebyshev 5
    """
    from gctheory._validate import as_generator
    from gctheory.generators import generator_block

    n, s, m, fams, kappa, eps, time_limit, exhaustive_limit = _check_compare_args(
        n, s, m, families, schemes, kappa, eps, time_limit, exhaustive_limit
    )
    root = as_generator(rng)
    seed = int(root.integers(2**31))
    out: list[GeneratorComparison] = []
    total = len(_name_tuple(schemes, "schemes")) * len(fams)
    for scheme in schemes:
        K, N = (n - s, n) if scheme == "ye-abbe" else (m, m + s)
        t2 = _theorem2(scheme, n, s, m, kappa, eps)
        for fam in fams:
            if progress is not None:
                progress(len(out), total, f"{scheme} {fam}")
            b = generator_block(fam, N)
            gen = np.random.default_rng([seed, len(out)])
            if b * N > MAX_COLUMNS:
                out.append(_too_wide(fam, scheme, (n, s, m), kappa, b, N, t2))
                continue
            limits = (time_limit, exhaustive_limit)
            out.append(_compare_one(fam, scheme, (n, s, m), kappa, b, (K, N), t2, gen, limits))
    if progress is not None:
        progress(total, total, "")
    return out


def _name_tuple(values: Any, name: str) -> tuple:
    """A sequence of names (a lone string is refused: it would be read letter by letter)."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a sequence of names, got {values!r}")
    return tuple(values)


def _rank(r: GeneratorComparison) -> tuple:
    """Smallest certified worst case first; equal ones (to 9 digits: the rotation embedding
    and the complex Vandermonde code are equal by construction) real before complex."""
    from gctheory.generators import generator_family

    return (float(f"{r.worst_upper:.9g}"), not generator_family(r.family).real, r.family)


def recommend(rows: Sequence[GeneratorComparison]) -> dict[str, GeneratorComparison | None]:
    """Per scheme, the family to use: certified worst kappa within the constraint, smallest.

    Ranking: certified ``worst_upper <= kappa`` first (the whole straggler
    tolerance s is stable), then the smallest certified upper bound, ties (to 9
    digits) real before complex, then by name. None when no family is certified stable
    at this s (then use a smaller s: see ``s_kappa``).

    Parameters
    ----------
    rows : sequence of GeneratorComparison
        Output of :func:`compare_generators`.

    Returns
    -------
    dict of str to GeneratorComparison or None
        Per scheme, the family to use (None when none is certified stable).

    Examples
    --------
    >>> from gctheory.codes import compare_generators, recommend
    >>> rows = compare_generators(8, 2, 2, families=["gaussian", "vandermonde-chebyshev"],
    ...                           time_limit=1.0)
    >>> {scheme: r.family for scheme, r in recommend(rows).items()}
    {'ye-abbe': 'vandermonde-chebyshev', 'commfr': 'vandermonde-chebyshev'}
    """
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise ValueError(f"rows must be a sequence of GeneratorComparison, got {rows!r}")
    for r in rows:
        if not isinstance(r, GeneratorComparison):
            raise ValueError(
                f"rows must hold GeneratorComparison records (from compare_generators), "
                f"got {type(r).__name__}"
            )
    best: dict[str, GeneratorComparison | None] = {}
    for scheme in COMPARE_SCHEMES:
        ok = [r for r in rows if r.scheme == scheme and r.worst_upper <= r.kappa]
        ok.sort(key=_rank)
        if any(r.scheme == scheme for r in rows):
            best[scheme] = ok[0] if ok else None
    return best


@dataclass(frozen=True)
class GrowthFit:
    """``kappa(n) ~ c n^p``: least-squares slope of log kappa on log n, with its interval.

    Parameters
    ----------
    exponent : float
        Fitted slope ``p``.
    low, high : float
        Its t-interval.
    level : float
        Confidence level.
    points : int
        Points fitted.

    Examples
    --------
    >>> from gctheory.codes import GrowthFit, growth_exponent
    >>> fit = growth_exponent([10, 20, 40, 80], [1.0, 4.1, 15.9, 64.5])
    >>> round(fit.exponent, 3), bool(fit.contains(2.0))
    (1.999, True)
    """

    exponent: float
    low: float
    high: float
    level: float
    points: int

    def contains(self, p: float) -> bool:
        return self.low <= p <= self.high


def growth_exponent(ns: Sequence[float], values: Sequence[float], level: float = 0.95) -> GrowthFit:
    """Fitted polynomial growth exponent of ``values`` in ``ns``, with a t-interval at ``level``.

    Ordinary least squares of ``log(values)`` on ``log(ns)``; the interval is
    ``slope +- t_{(1+level)/2, k-2} se`` (Student t with k - 2 degrees of
    freedom, k points). Needs at least 3 positive finite points.

    Parameters
    ----------
    ns : sequence of float
        Sizes.
    values : sequence of float
        Positive values at those sizes (at least 3 points).
    level : float
        Confidence level of the t-interval.

    Returns
    -------
    GrowthFit
        The slope of ``log(values)`` on ``log(ns)`` with its interval.

    Examples
    --------
    >>> from gctheory.codes import growth_exponent
    >>> fit = growth_exponent([10, 20, 40, 80], [1.0, 4.1, 15.9, 64.5])
    >>> round(fit.exponent, 3), round(float(fit.low), 3), round(float(fit.high), 3)
    (1.999, 1.953, 2.044)
    """
    from scipy import stats

    from gctheory._validate import check_probability

    level = check_probability(level, "level", open_low=True, open_high=True)
    xs = check_array(ns, "ns", ndim=1, finite=False, min_size=0)
    ys = check_array(values, "values", ndim=1, finite=False, min_size=0)
    if xs.shape != ys.shape or len(xs) < 3:
        raise ValueError(
            f"ns and values must be two sequences of >= 3 numbers of one length, got "
            f"{len(xs)} and {len(ys)}"
        )
    if not (np.all(np.isfinite(xs) & (xs > 0)) and np.all(np.isfinite(ys) & (ys > 0))):
        raise ValueError("ns and values must be positive and finite")
    x, y = np.log(xs), np.log(ys)
    if np.all(x == x[0]):
        raise ValueError("ns must hold at least two different sizes to fit an exponent")
    res = stats.linregress(x, y)
    half = stats.t.ppf((1 + level) / 2, len(x) - 2) * res.stderr
    return GrowthFit(float(res.slope), res.slope - half, res.slope + half, level, len(x))
