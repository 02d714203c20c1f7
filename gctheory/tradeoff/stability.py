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
  of Kadhe et al. 2019: the largest ``s`` such that every ``(N - s')``-column
  submatrix, ``s' <= s``, has condition number ``<= kappa``), as a certified
  interval ``[low, high]`` under a work budget: every step ``s'`` whose
  exhaustive enumeration fits the budget is decided exactly by
  :func:`gctheory.conditioning.max_condition`; a step that does not fit is
  probed by random column subsets, which can only *refute* (a subset with
  condition number above ``kappa`` is a witness, so ``s_kappa < s'``). The
  interval is exact (``low == high``) when every step up to the first failure
  was enumerated. No estimate is ever reported as a value.

Work is counted in deterministic units (``subsets * (200 + K^2 N + K^3 / 3)``, a few ns
each on one core) so the same call gives the same interval on any
machine.

Generator families come from :func:`generator_families`, which reads the
families of :mod:`gctheory.generators` at run time (Gaussian, its systematic
form, and Vandermonde on every node set of
:data:`gctheory.generators.VANDERMONDE_NODES`).
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
from gctheory.conditioning import (
    FLOAT64_RELIABLE_LIMIT,
    Float64Warning,
    max_condition,
    s_kappa_commfr,
    s_kappa_ye_abbe,
)

__all__ = [
    "GUARANTEED_FAMILIES",
    "SKappaInterval",
    "generator_families",
    "empirical_s_kappa_interval",
    "s_kappa_guarantee",
]

#: Families Theorem 2 of Kadhe et al. 2019 speaks about (i.i.d. standard normal entries).
GUARANTEED_FAMILIES = ("gaussian",)

_OVERHEAD = 200  # work units per subset besides the K^2 t of its Gram matrix (measured)


def generator_families() -> dict[str, Callable[[int, int, np.random.Generator], np.ndarray]]:
    """Name -> ``make(K, N, rng)`` returning a ``K x N`` generator, read from
    :mod:`gctheory.generators` at call time.

    ``"gaussian"`` (i.i.d. N(0, 1), Kadhe et al. 2019 Thm. 2), ``"systematic-gaussian"``
    (its systematic form ``[I | P]``, Proposition 1) and ``"vandermonde-<nodes>"`` for
    every node set of :data:`gctheory.generators.VANDERMONDE_NODES`.
    """
    fams: dict[str, Callable[[int, int, np.random.Generator], np.ndarray]] = {
        "gaussian": lambda K, N, rng: _gen.gaussian_generator(K, N, rng=rng),
        "systematic-gaussian": lambda K, N, rng: _gen.systematic_generator(
            _gen.gaussian_generator(K, N, rng=rng)
        ),
    }
    for nodes in _gen.VANDERMONDE_NODES:
        fams[f"vandermonde-{nodes}"] = lambda K, N, rng, _nodes=nodes: _gen.vandermonde_generator(
            K, N, nodes=_nodes
        )
    return fams


def s_kappa_guarantee(
    scheme: str, family: str, n: int, s: int, m: int, kappa: float, eps: float
) -> tuple[int | None, str]:
    """Theorem 2's guaranteed ``s_kappa`` (w.p. ``>= 1 - eps``) and a note.

    ``scheme`` is ``"ye-abbe"`` (``N = n``, ``K = n - s``) or ``"commfr-gc"``
    (``N = s + m``, ``K = m``). Returns ``(None, reason)`` where the theorem does not
    cover the parameters (another family, ``K < 2``, eq. (8) or Lemma 1's domain
    violated, no ``t`` with ``f(t) <= eps``): never an extrapolated number.
    """
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
    ``s'`` was decided: ``"ok"`` / ``"fail"`` (enumerated), ``"witness"`` (a sampled
    subset above kappa), ``"no witness"`` (sampled, nothing found: undecided),
    ``"skipped"`` (over budget).
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
            return "exact (every subset enumerated)"
        return "certified interval (enumeration to low, a witness subset above high)"


def _cost(count: int, per: float) -> float:
    """``count * per`` as a float, infinite where ``count`` (a binomial) is astronomically large."""
    return math.inf if count > 10**30 else count * per


def _subset_work(K: int, N: int, complex_: bool) -> float:
    # the Gram bound of the branch and bound costs K^2 N per subset, a Cholesky K^3 / 3
    return (_OVERHEAD + K * K * N + K**3 / 3) * (4 if complex_ else 1)


def _interlacing_low(G: np.ndarray, kappa: float, budget: float) -> tuple[int, float]:
    """Largest ``N - t0`` certified by ``cond(G_T') <= sigma_max(G) / sigma_min(G_T)`` for
    ``T`` in ``T'`` (adding columns to a wide matrix can only raise every singular value,
    and a column submatrix has ``sigma_max <= sigma_max(G)``): if the smallest
    ``sigma_min`` over all ``t0``-subsets keeps the ratio ``<= kappa``, every subset of
    ``t0`` or more columns does. Tries ``t0 = K, K + 1, ...`` while enumerating fits
    ``budget``; returns ``(-1, work)`` when no ``t0`` certifies."""
    K, N = G.shape
    smax = float(np.linalg.norm(G, 2))
    spent = 0.0
    per_unit = 4 if np.iscomplexobj(G) else 1
    for t0 in range(K, N + 1):
        cost = _cost(math.comb(N, t0), (_OVERHEAD + K * K * t0 + K**3) * per_unit)
        if spent + cost > budget:
            break
        spent += cost
        smin = math.inf
        combos = itertools.combinations(range(N), t0)
        while True:
            block = np.array(list(itertools.islice(combos, 4096)), dtype=np.intp)
            if block.size == 0:
                break
            sub = np.swapaxes(G.T[block], -1, -2)  # (b, K, t0)
            smin = min(smin, float(np.linalg.svd(sub, compute_uv=False)[:, -1].min()))
        # backward-stable SVDs: every computed sigma is within ~1e-15 sigma_max of the truth
        slack = 1e-12 * smax
        if smin > slack and (smax + slack) / (smin - slack) <= kappa:
            return N - t0, spent
    return -1, spent


def _worst(G: np.ndarray, t: int, kappa: float, **kw: Any) -> float:
    """Worst condition number over the subsets max_condition looks at; float64 decides
    ``> kappa`` when kappa is far below the float64 limit (backward stability: a computed
    condition number above 1e10 means the matrix's is above ~1e10 too)."""
    if kappa * 100 <= FLOAT64_RELIABLE_LIMIT:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Float64Warning)
            mc = max_condition(G, t, mp_dps=None, **kw)
    else:
        mc = max_condition(G, t, **kw)
    return mc.value_mp if mc.value_mp is not None else mc.value


def empirical_s_kappa_interval(
    G: Any, kappa: float, *, budget: float, samples: int = 64, rng: Any = None
) -> SKappaInterval:
    """Certified interval for the empirical ``s_kappa`` of ``G`` within ``budget`` work units.

    Definition 1 of Kadhe et al. 2019 applied to the ``K x N`` matrix ``G``: the largest
    ``s <= N - K`` such that every ``(N - s')``-column submatrix, ``s' <= s``, has 2-norm
    condition number ``<= kappa``. Steps ``s'`` are enumerated exactly
    (:func:`gctheory.conditioning.max_condition`, branch and bound) in the order
    ``0, 1, ...`` and from the cheap end ``N - K, N - K - 1, ...`` while each fits what is
    left of the budget; steps in between are probed by bisection with at most ``samples``
    random subsets (affordable ones), which can only find a witness.
    """
    G = np.asarray(G)
    K, N = G.shape
    S = N - K
    cplx = bool(np.iscomplexobj(G))
    gen = np.random.default_rng(rng)
    left = float(budget)
    status: dict[int, str] = {}

    def enumerate_step(sp: int) -> str | None:
        nonlocal left
        t = N - sp
        cost = _cost(math.comb(N, t), _subset_work(K, N, cplx))
        if cost > left:
            return None
        left -= cost
        worst = _worst(G, t, kappa, exhaustive_limit=math.comb(N, t))
        status[sp] = "ok" if worst <= kappa else "fail"
        return status[sp]

    # every s' <= N - t0 at once, by interlacing (what it leaves goes to the steps below)
    low, spent = _interlacing_low(G, kappa, left)
    left -= spent
    if low >= 0:
        status[low] = "ok (interlacing)"
    # climb while enumeration is affordable and every step passes
    for sp in range(low + 1, S + 1):
        st = enumerate_step(sp)
        if st == "ok":
            low = sp
            continue
        break
    if status.get(low + 1) == "fail" or low == S:
        return SKappaInterval(low, low, budget - left, tuple(sorted(status.items())))
    # the cheap end (few columns) may hold a failure: the first one bounds s_kappa above
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
        t = N - mid
        per = _subset_work(K, N, cplx)
        count = int(min(samples, left // per))
        if count < 1:
            status.setdefault(mid, "skipped")
            break
        left -= count * per
        worst = _worst(
            G, t, kappa, exhaustive_limit=1, samples=count, starts=1, max_rounds=0, rng=gen
        )
        if worst > kappa:
            status[mid] = "witness"
            hi_s = mid
        else:
            status[mid] = "no witness"
            lo_s = mid
    high = min(high, hi_s - 1)
    return SKappaInterval(low, high, budget - left, tuple(sorted(status.items())))
