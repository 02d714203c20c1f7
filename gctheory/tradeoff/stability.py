"""Numerical stability of the generator-based schemes at the user's kappa (atlas panel 3).

Two schemes of the atlas decode by solving with a generator matrix: Ye-Abbe
(the ``(n - s) x n`` matrix V, Kadhe et al. 2019 Appendix A) and CommFR-GC
(an ``[s + m, m]`` code per group, Kadhe et al. 2019 Section III). For each
generator family and straggler tolerance ``s`` this module gives

- the **guarantee**: Theorem 2 of Kadhe et al. 2019 through
  :func:`gctheory.conditioning.s_kappa_ye_abbe` and
  :func:`gctheory.conditioning.s_kappa_commfr` (i.i.d. Gaussian generators
  only; every other family, and every parameter outside eq. (8) or Lemma 1's
  domain, is reported as not covered, with the theorem's own reason);
- the **empirical** ``s_kappa`` of one generator of the family (Definition 1
  of Kadhe et al. 2019: the largest ``s`` such that every ``(N - s')``-worker
  submatrix, ``s' <= s``, has condition number ``<= kappa``), as a certified
  interval ``[low, high]`` under a work budget: every step ``s'`` whose
  enumeration fits the budget is decided by the certified interval of
  :func:`gctheory.conditioning.max_condition` (``upper <= kappa``: passes,
  ``lower > kappa``: fails); all steps up to ``N - t0`` at once by interlacing;
  a step that fits neither is probed by random worker subsets, which can only
  *refute* (a subset with a certified condition number above ``kappa`` is a
  witness, so ``s_kappa < s'``). The interval is exact (``low == high``) when
  every step up to the first failure was decided. No estimate is ever reported
  as a value.

Work is counted in deterministic units (about ``subsets * (200 + K^2 N + K^3)``
for a ``K x N`` real matrix, four times that for a complex one; a few ns each on
one core), not in seconds, so the same call gives the same interval on any
machine (:func:`gctheory.conditioning.max_condition`'s branch and bound is
time-limited, so it is not used here).

Generator families come from :func:`generator_families`, which reads the
registry :data:`gctheory.generators.GENERATOR_FAMILIES` at run time (a new
family there appears here), each also in its systematic form
(``"<family>-systematic"``). Families whose workers hold blocks of columns (the
embeddings of Ramamoorthy and Tang 2022) are analysed by worker subsets.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory import generators as _gen
from gctheory._validate import as_generator, check_array, check_choice, check_int, check_real
from gctheory.conditioning import (
    Float64Warning,
    max_condition,
    s_kappa_commfr,
    s_kappa_ye_abbe,
)

__all__ = [
    "GUARANTEED_FAMILIES",
    "GeneratorMaker",
    "SKappaInterval",
    "generator_families",
    "generator_too_wide",
    "empirical_s_kappa_interval",
    "s_kappa_guarantee",
]

#: Families Theorem 2 of Kadhe et al. 2019 speaks about (i.i.d. standard normal entries).
GUARANTEED_FAMILIES = ("gaussian",)
#: the schemes :func:`s_kappa_guarantee` knows (Theorem 2's two settings of N and K)
GUARANTEED_SCHEMES = ("ye-abbe", "commfr-gc")

_OVERHEAD = 200  # work units per subset besides the K^2 N of its Gram matrix (measured)
#: generators wider than this many columns (block embeddings of many workers) are not analysed
_MAX_COLUMNS = 2000


@dataclass(frozen=True)
class GeneratorMaker:
    """A generator family as the atlas uses it: ``build(K, N, rng)`` gives the
    ``(b K) x (b N)`` matrix of an [N, K] code whose workers hold ``b = block(N)``
    columns each."""

    name: str
    build: Callable[[int, int, np.random.Generator], np.ndarray]
    block: Callable[[int], int]
    real: bool


def generator_families(systematic: bool = False) -> dict[str, GeneratorMaker]:
    """Name -> :class:`GeneratorMaker` for every family of
    :data:`gctheory.generators.GENERATOR_FAMILIES`, read at call time; with
    ``systematic=True`` also ``"<family>-systematic"`` (``G[:, :K]^{-1} G``).

    Parameters
    ----------
    systematic : bool
        Also list the systematic forms.

    Returns
    -------
    dict of str to GeneratorMaker
        Every generator family by name.

    Examples
    --------
    >>> from gctheory.tradeoff import generator_families
    >>> fams = generator_families()
    >>> "gaussian" in fams, "gaussian-systematic" in generator_families(systematic=True)
    (True, True)
    """
    out: dict[str, GeneratorMaker] = {}
    for name in _gen.GENERATOR_FAMILIES:
        fam = _gen.generator_family(name)
        for sys_form in (False, True) if systematic else (False,):
            label = f"{name}-systematic" if sys_form else name
            out[label] = GeneratorMaker(
                label,
                # mypy cannot infer a lambda whose extra parameters have defaults (binding
                # the loop variables) against the 3-argument Callable it fits
                lambda K, N, rng, _f=name, _s=sys_form: _gen.generator(  # type: ignore[misc]
                    _f, K, N, systematic=_s, rng=rng if _gen.generator_family(_f).random else None
                ),
                fam.block,
                fam.real,
            )
    return out


def s_kappa_guarantee(
    scheme: str, family: str, n: int, s: int, m: int, kappa: float, eps: float
) -> tuple[int | None, str]:
    """Theorem 2's guaranteed ``s_kappa`` (w.p. ``>= 1 - eps``) and a note.

    ``scheme`` is ``"ye-abbe"`` (``N = n``, ``K = n - s``) or ``"commfr-gc"``
    (``N = s + m``, ``K = m``). Returns ``(None, reason)`` where the theorem does not
    cover the parameters (another family, ``K < 2``, eq. (8) or Lemma 1's domain
    violated, no ``t`` with ``f(t) <= eps``): never an extrapolated number.

    Parameters
    ----------
    scheme : {"ye-abbe", "commfr-gc"}
        The scheme.
    family : str
        Generator family (Theorem 2 covers ``"gaussian"``).
    n : int
        Workers.
    s : int
        Stragglers.
    m : int
        Communication saving.
    kappa : float
        Stability constraint.
    eps : float
        Failure probability.

    Returns
    -------
    tuple
        ``(s_kappa or None, note)``.

    Examples
    --------
    >>> from gctheory.tradeoff import s_kappa_guarantee
    >>> s_kappa_guarantee("ye-abbe", "gaussian", 40, 20, 1, 1e5, 0.01)
    (17, '')
    >>> s_kappa_guarantee("ye-abbe", "legendre", 40, 20, 1, 1e5, 0.01)[0] is None
    True
    """
    # an unknown scheme used to fall through to CommFR-GC's formula
    check_choice(scheme, "scheme", GUARANTEED_SCHEMES)
    # every number is checked, also where the family's answer does not use it: n=True or
    # kappa=nan came back as (None, reason) for a non-Gaussian family
    check_int(n, "n", low=1)
    check_int(s, "s", low=0)
    check_int(m, "m", low=1)
    check_real(kappa, "kappa", low=1.0)
    check_real(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True)
    if family not in GUARANTEED_FAMILIES:
        return None, f"Theorem 2 covers i.i.d. Gaussian generators only, not {family}"
    try:
        if scheme == "ye-abbe":
            return s_kappa_ye_abbe(n, s, kappa, eps), ""
        return s_kappa_commfr(s, m, kappa, eps), ""
    except ValueError as exc:
        return None, f"Theorem 2 not covered: {exc}"


@dataclass(frozen=True)
class SKappaInterval:
    """Certified bounds on the empirical ``s_kappa`` of one generator.

    ``low`` and ``high`` bracket the true value (``-1``: even ``cond(G) > kappa``);
    ``exact`` when they agree. ``work`` is the budget used, ``steps`` how each
    ``s'`` was decided: ``"ok"`` / ``"fail"`` (enumerated, certified),
    ``"ok (interlacing)"``, ``"witness"`` (a sampled subset certified above kappa),
    ``"no witness"`` (sampled, nothing found: undecided), ``"undecided"`` (enumerated
    but the certificate straddles kappa), ``"skipped"`` (over budget).

    Parameters
    ----------
    low, high : int
        Certified bounds (``-1``: even ``cond(G) > kappa``).
    work : float
        Budget used.
    steps : tuple of (int, str)
        How each ``s'`` was decided.

    Examples
    --------
    >>> from gctheory.tradeoff import SKappaInterval, empirical_s_kappa_interval
    >>> import numpy as np
    >>> G = np.random.default_rng(0).standard_normal((3, 6))
    >>> iv = empirical_s_kappa_interval(G, 50.0, budget=1e4)
    >>> iv.low, iv.high, iv.exact
    (3, 3, True)
    """

    low: int
    high: int
    work: float
    steps: tuple[tuple[int, str], ...]

    @property
    def exact(self) -> bool:
        return self.low == self.high

    @property
    def method(self) -> str:
        if self.exact:
            return "exact (certified at every step)"
        return "certified interval (decided up to low, a witness subset above high)"


def _cost(count: int, per: float) -> float:
    """``count * per`` as a float, infinite where ``count`` (a binomial) is astronomically large."""
    return math.inf if count > 10**30 else count * per


def _subset_work(rows: int, cols: int, complex_: bool) -> float:
    # the Gram bound of the enumeration costs rows^2 cols per subset, a factorisation rows^3
    return (_OVERHEAD + rows * rows * cols + rows**3) * (4 if complex_ else 1)


def _certified(G: np.ndarray, t: int, block: int, **kw: Any) -> tuple[float, float]:
    """``(lower, upper)`` of :func:`gctheory.conditioning.max_condition` at ``t`` workers.

    Float64 is not asked to recompute huge values in mpmath: its certified range
    (``lower`` from the backward-stability argument of the conditioning module) is
    what decides a step, and a value float64 cannot resolve is left undecided.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Float64Warning)
        mc = max_condition(G, t, block=block, mp_dps=None, **kw)
    return mc.lower, mc.upper


def _columns(workers: np.ndarray, block: int) -> np.ndarray:
    if block == 1:
        return workers
    return (workers[..., :, None] * block + np.arange(block)).reshape(workers.shape[:-1] + (-1,))


def _interlacing_low(G: np.ndarray, kappa: float, block: int, budget: float) -> tuple[int, float]:
    """Largest ``N - t0`` certified by ``cond(G_T') <= sigma_max(G) / sigma_min(G_T)`` for
    ``T`` in ``T'`` (adding columns to a wide matrix can only raise every singular value,
    and a column submatrix has ``sigma_max <= sigma_max(G)``): if the smallest
    ``sigma_min`` over all ``t0``-worker subsets keeps the ratio ``<= kappa``, every subset
    of ``t0`` or more workers does. Tries ``t0 = ceil(K/b), ...`` while enumerating fits
    ``budget``; returns ``(-1, work)`` when no ``t0`` certifies."""
    rows, cols = G.shape
    N = cols // block
    smax = None  # sigma_max(G), an SVD of all of G: only once some t0 fits the budget
    spent = 0.0
    per_unit = 1 if np.isrealobj(G) else 4
    for t0 in range(-(-rows // block), N + 1):
        cost = _cost(math.comb(N, t0), (_OVERHEAD + rows * rows * t0 * block + rows**3) * per_unit)
        if spent + cost > budget:
            break
        spent += cost
        if smax is None:
            smax = float(np.linalg.norm(G, 2))
        smin = math.inf
        combos = itertools.combinations(range(N), t0)
        while True:
            chunk = np.array(list(itertools.islice(combos, 4096)), dtype=np.intp)
            if chunk.size == 0:
                break
            sub = np.swapaxes(G.T[_columns(chunk, block)], -1, -2)  # (b, rows, t0 * block)
            smin = min(smin, float(np.linalg.svd(sub, compute_uv=False)[:, -1].min()))
        # backward-stable SVDs: every computed sigma is within ~1e-15 sigma_max of the truth
        slack = 1e-12 * smax
        if smin > slack and (smax + slack) / (smin - slack) <= kappa:
            return N - t0, spent
    return -1, spent


def empirical_s_kappa_interval(
    G: Any, kappa: float, *, budget: float, block: int = 1, samples: int = 64, rng: Any = None
) -> SKappaInterval:
    """Certified interval for the empirical ``s_kappa`` of ``G`` within ``budget`` work units.

    Definition 1 of Kadhe et al. 2019 applied to the ``(b K) x (b N)`` matrix ``G`` whose
    N workers hold ``b = block`` consecutive columns each: the largest ``s <= N - K``
    such that every ``(N - s')``-worker submatrix, ``s' <= s``, has 2-norm condition
    number ``<= kappa``. Interlacing first (all steps up to ``N - t0`` at once), then
    the steps ``s'`` in increasing order and from the cheap end (few workers) while
    their enumeration fits what is left of the budget (each decided by the certified
    interval of :func:`gctheory.conditioning.max_condition`); steps in between are
    probed by bisection with at most ``samples`` random subsets, which can only find
    a witness.

    Parameters
    ----------
    G : array_like
        The generator, ``(b K) x (b N)``.
    kappa : float
        Stability constraint.
    budget : float
        Work units allowed.
    block : int
        Columns per worker ``b``.
    samples : int
        Random subsets tried per undecided step.
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    SKappaInterval
        Certified ``[low, high]``.

    Examples
    --------
    >>> from gctheory.tradeoff import empirical_s_kappa_interval
    >>> import numpy as np
    >>> G = np.random.default_rng(0).standard_normal((3, 6))
    >>> empirical_s_kappa_interval(G, 50.0, budget=1e4)
    SKappaInterval(low=3, high=3, work=5080.0, steps=((3, 'ok (interlacing)'),))
    """
    G = check_array(G, "G", ndim=2, complex_ok=True)
    kappa = check_real(kappa, "kappa", low=1.0, low_open=True)
    budget = check_real(budget, "budget", low=0.0)
    block = check_int(block, "block", low=1)
    samples = check_int(samples, "samples", low=0)
    rows, cols = G.shape
    if cols % block or rows > cols:
        raise ValueError(
            f"G must have at most as many rows as columns and a column count divisible by "
            f"block={block}, got shape {G.shape}"
        )
    N = cols // block
    K = -(-rows // block)
    S = N - K
    cplx = not np.isrealobj(G)
    per = _subset_work(rows, cols, cplx)
    gen = as_generator(rng)
    left = float(budget)
    status: dict[int, str] = {}

    def enumerate_step(sp: int) -> str | None:
        nonlocal left
        t = N - sp
        cost = _cost(math.comb(N, t), per)
        if cost > left:
            return None
        left -= cost
        lower, upper = _certified(G, t, block, method="exhaustive")
        status[sp] = "ok" if upper <= kappa else "fail" if lower > kappa else "undecided"
        return status[sp]

    def done(low: int, high: int) -> SKappaInterval:
        return SKappaInterval(low, high, budget - left, tuple(sorted(status.items())))

    # every s' <= N - t0 at once, by interlacing (what it leaves goes to the steps below)
    low, spent = _interlacing_low(G, kappa, block, left)
    left -= spent
    if low >= 0:
        status[low] = "ok (interlacing)"
    # climb while enumeration is affordable and every step passes
    for sp in range(low + 1, S + 1):
        if enumerate_step(sp) != "ok":
            break
        low = sp
    if status.get(low + 1) == "fail" or low == S:
        return done(low, low)
    # the cheap end (few workers) may hold a failure: the first one bounds s_kappa above
    high = S
    for sp in range(S, low + 1, -1):
        st = enumerate_step(sp)
        if st is None:
            break
        if st == "fail":
            high = sp - 1
    # bisection between the undecided steps with sampled witnesses
    lo_s, hi_s = low, high + 1  # s' = lo_s passed or is -1; a failure at hi_s (or S + 1)
    while hi_s - lo_s > 1:
        mid = (lo_s + hi_s) // 2
        if status.get(mid) in ("ok", "fail"):  # enumerated at the cheap end
            lo_s, hi_s = (mid, hi_s) if status[mid] == "ok" else (lo_s, mid)
            continue
        count = int(min(samples, left // per))
        if count < 1:
            status.setdefault(mid, "skipped")
            break
        left -= count * per
        lower, _ = _certified(
            G, N - mid, block, method="estimate", samples=count, starts=1, max_rounds=0, rng=gen
        )
        if lower > kappa:
            status[mid] = "witness"
            hi_s = mid
        else:
            status.setdefault(mid, "no witness")
            lo_s = mid
    return done(low, min(high, hi_s - 1))


def generator_too_wide(family: GeneratorMaker, K: int, N: int) -> str | None:
    """Why a family's ``[N, K]`` generator is not analysed here (None when it is)."""
    b = family.block(N)
    if b * N > _MAX_COLUMNS:
        return (
            f"{family.name}: the [{N}, {K}] generator has {b} x {N} = {b * N} columns "
            f"(more than {_MAX_COLUMNS}): not analysed"
        )
    return None
