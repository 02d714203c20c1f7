"""Generator matrices compared on the worst-case decoding error, and the recommended one."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory import _names
from gctheory._validate import check_choice
from gctheory.codes.base import GradientCode
from gctheory.codes.stability._decoding import _D, decoding_error
from gctheory.codes.ye_abbe import YeAbbeCode
from gctheory.conditioning import Float64Warning

__all__ = ["COMPARE_SCHEMES", "GeneratorComparison", "compare_generators", "recommend"]


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
    from gctheory._validate import check_int, check_real
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
    time_limit = check_real(time_limit, "time_limit", low=0.0, low_open=True, finite=False)
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
        reported when it runs out); ``math.inf``: none, the result then the same on
        any machine.
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
