"""LT / raptor codes at finite length: the exact distribution of what peeling
recovers (Karp, Luby and Shokrollahi's recursion)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import (
    check_int,
    check_memory,
    check_probability,
    check_real,
)
from gctheory.ldpc.ensembles import Distribution, _check_distribution
from gctheory.ldpc.raptor._asymptotic import _theorem6_setup

__all__ = ["LTProfile", "lt_peeling_profile", "raptor_failure_profile"]


# --------------------------------------------------------------------------
# Finite length: the exact distribution of what peeling recovers (Karp, Luby, Shokrollahi)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class LTProfile:
    """Distribution of the number of input symbols an LT peeling decoder leaves unrecovered.

    Attributes
    ----------
    k : int
        Input symbols (batches).
    received : int
        Output symbols received (workers that returned).
    unrecovered : numpy.ndarray
        ``unrecovered[j] = P(peeling stops with j input symbols unrecovered)``, ``j = 0..k``.
    truncation : float
        Probability mass dropped by the truncations (an upper bound on the absolute
        error of every probability derived from ``unrecovered``).

    Examples
    --------
    >>> from gctheory.ldpc import LTProfile, lt_peeling_profile
    >>> prof = lt_peeling_profile(10, 15, {1: 0.2, 2: 0.5, 3: 0.3})
    >>> round(prof.mean_fraction(), 4), round(prof.prob_fraction_above(0.1), 4)
    (0.1175, 0.1575)
    """

    k: int
    received: int
    unrecovered: np.ndarray
    truncation: float

    def prob_fraction_above(self, eps: float) -> float:
        """``P(unrecovered fraction > eps)`` (Wang et al. 2019, Theorem 6's event)."""
        eps = check_probability(eps, "eps")
        j = np.arange(self.k + 1)
        return float(self.unrecovered[j > eps * self.k].sum())

    def mean_fraction(self) -> float:
        """``E[unrecovered fraction]``."""
        return float(np.arange(self.k + 1) @ self.unrecovered / self.k)


#: largest ``k * received`` of :func:`lt_peeling_profile` (about 40 s of recursion here)
_LT_MAX_CELLS = 10**6


def _lt_check(k: int, received: int, p: Distribution, tol: float) -> tuple[int, int, Any, float]:
    """Check :func:`lt_peeling_profile`'s arguments (size first); return ``(k, N, p, tol)``."""
    k = check_int(k, "k", low=1)
    N = check_int(received, "received", low=1)
    if k * N > _LT_MAX_CELLS:
        # measured: 0.5 s at k N = 4e3, 9 s at 1.4e5, growing like (k N)^0.8
        log_guess = math.log(9.0) + 0.8 * (math.log(k * N) - math.log(1.44e5))
        guess = f"{math.exp(log_guess):.2g} s" if log_guess < 700 else "forever"
        raise ValueError(
            f"k, received: the exact recursion over k x received = {k} x {N} states takes "
            f"about {guess} here (k received <= {_LT_MAX_CELLS:.0e} is done); use the "
            "Monte Carlo twin (raptor_failure_rate) instead"
        )
    p = _check_distribution("p", p, 1)
    if max(p) > k:
        raise ValueError(f"p has degree {max(p)} > k = {k} input symbols")
    tol = check_real(tol, "tol", low=0.0, high=1e-6, low_open=True)
    return k, N, p, tol


def _lt_release_prob(k: int, pd: dict[int, float], total: float, L: int) -> float:
    """P(a cloud output is released by the (L+1)-th processed symbol | in the cloud)."""
    u_next = k - L - 1
    num = den = 0.0
    for d, w in pd.items():
        if d < 2:
            continue
        kd = math.comb(k, d)
        num += w / total * math.comb(L, d - 2) * u_next / kd
        den += w / total * sum(math.comb(L, i) * math.comb(k - L, d - i) for i in range(d - 1)) / kd
    return num / den if den > 0 and u_next > 0 else 0.0


def _lt_occupancies(a_max: int, U: int, R: np.ndarray) -> list[np.ndarray]:
    """``occ[a][i, b] = P(b new distinct cells | a uniform throws into U, R[i] occupied)``."""
    occ = np.ones((R.size, 1))
    out = [occ]
    for _ in range(a_max):
        # at most U new cells: columns past U stay zero, so they are not stored
        # (this keeps the cost O(a_max U), not O(a_max^2), when many outputs release)
        w = occ.shape[1]
        bb = np.arange(w)[None, :]
        new = np.zeros((R.size, min(w + 1, U + 1)))
        new[:, :w] = occ * ((R[:, None] + bb) / U)
        grow = occ * np.clip((U - R[:, None] - bb) / U, 0.0, None)
        new[:, 1:] += grow[:, : new.shape[1] - 1]
        occ = new
        out.append(occ)
    return out


def _lt_start(k: int, N: int, p1: float) -> np.ndarray:
    """Law ``P[c, r]`` after the degree-1 outputs' release (cloud ``c``, ripple ``r``)."""
    from scipy import stats

    # start: the degree-1 outputs are released at once; their neighbours are uniform inputs
    a1 = stats.binom.pmf(np.arange(N + 1), N, p1)
    P = np.zeros((N + 1, k + 1))  # P[c, r]
    dist = np.zeros(k + 1)
    dist[0] = 1.0  # distinct inputs hit after a throws, a = 0, 1, ...
    for a in range(N + 1):
        P[N - a] += a1[a] * dist
        nxt = dist * (np.arange(k + 1) / k)
        nxt[1:] += dist[:-1] * ((k - np.arange(k)) / k)
        dist = nxt
    return P


def _lt_step(
    P: np.ndarray, L: int, k: int, q: float, tol: float, top: float, dropped: float
) -> tuple[np.ndarray, float]:
    """Process the ``(L+1)``-th ripple symbol: the next ``P[c, r]`` and the dropped mass."""
    from scipy import stats

    N = P.shape[0] - 1
    keep = P > tol * top
    dropped += float(P[~keep].sum())
    live = np.argwhere(keep)
    c_lo, r_lo = live.min(axis=0)
    c_hi, r_hi = live.max(axis=0)
    sub = np.where(keep, P, 0.0)[c_lo : c_hi + 1, r_lo : r_hi + 1]
    cs = np.arange(c_lo, c_hi + 1)
    a_max = int(min(c_hi, stats.binom.ppf(1 - tol, c_hi, q))) if q > 0 else 0
    U = k - L - 1  # unprocessed inputs after this step
    R = (np.arange(r_lo, r_hi + 1) - 1).astype(float)  # ripple without the processed one
    new = np.zeros((N + 1, k + min(a_max, U) + 2))
    if q > 0:
        W = stats.binom.pmf(np.arange(a_max + 1)[:, None], cs[None, :], q)
    else:
        W = np.zeros((a_max + 1, cs.size))
        W[0] = 1.0
    check_memory(
        8 * (a_max + 1) * R.size * (min(a_max, U) + 1) + 8 * (N + 1) * (k + min(a_max, U) + 2),
        "received",
        f"step {L} of the recursion ({a_max} possible releases, {R.size} ripple sizes)",
    )
    occ = _lt_occupancies(a_max, U, R) if U > 0 else [np.ones((R.size, 1))]
    for a in range(a_max + 1):
        block = sub * W[a][:, None]
        mass = float(block.sum())
        if mass == 0.0:
            continue
        dropped -= mass  # counted back as kept
        rows = slice(max(c_lo - a, 0), c_hi + 1 - a)
        src = block[max(a - c_lo, 0) :]
        for b in range(occ[a].shape[1]):  # ripple r -> r - 1 + b
            new[rows, r_lo - 1 + b : r_hi + b] += src * occ[a][None, :, b]
    dropped += float(sub.sum())
    dropped += float(new[:, k + 1 :].sum())  # (zero: the ripple never outgrows U)
    return new[:, : k + 1], dropped


def lt_peeling_profile(k: int, received: int, p: Distribution, *, tol: float = 1e-14) -> LTProfile:
    """Exact finite-length analysis of LT peeling (Karp, Luby and Shokrollahi 2004).

    ``received`` output symbols, each of degree ``d ~ p`` on a uniform ``d``-subset
    of ``k`` input symbols, independently (the received rows of the batch raptor
    code of Wang et al. 2019, Definition 5 and Algorithm 1, with uniformly random
    stragglers). The decoder processes one *ripple* symbol (an input covered by an
    output of reduced degree one) per step. After ``L`` steps the state is
    ``(c, r)``: ``c`` outputs of reduced degree >= 2 (the cloud), ``r`` ripple
    symbols. Conditioned on the processing order, a cloud output's unprocessed
    neighbours are a uniform set, so each cloud output is released at step ``L+1``
    independently with probability

        sum_d p_d C(L, d-2) (k-L-1) / C(k, d)  /  sum_d p_d P(<= d-2 of its d among the first L)

    and a released output adds its remaining neighbour, uniform among the ``k-L-1``
    unprocessed inputs, to the ripple unless it is there already. The recursion
    over ``(c, r)`` is exact; the support is cropped to entries above ``tol`` times
    the largest and the binomial of releases to its ``1 - tol`` quantile, and the
    dropped mass is reported as ``truncation``. Cost ``O(k * support * releases)``:
    0.5 s for ``k = 50``, ``received = 80``; 9 s for ``k = 300``, ``received = 480``;
    about 15 s at ``k received = 10**6``, the largest done: larger sizes are refused at
    once (``ValueError`` naming ``k, received``), as is work whose arrays would not fit
    in the available memory.

    Parameters
    ----------
    k : int
        Number of input symbols, ``k >= 1``.
    received : int
        Number of output symbols, ``received >= 1``.
    p : mapping {degree: probability}
        Output degree distribution, degrees in ``[1, k]``.
    tol : float
        Truncation threshold (relative), in ``(0, 1e-6]``.

    Returns
    -------
    LTProfile

    Examples
    --------
    >>> from gctheory.ldpc import lt_peeling_profile
    >>> prof = lt_peeling_profile(10, 15, {1: 0.2, 2: 0.5, 3: 0.3})
    >>> prof.k, prof.received, round(float(prof.unrecovered[0]), 4)  # P(everything recovered)
    (10, 15, 0.622)
    """
    k, N, p, tol = _lt_check(k, received, p, tol)
    pd = {int(d): float(w) for d, w in p.items()}
    total = sum(pd.values())
    P = _lt_start(k, N, pd.get(1, 0.0) / total)
    dropped = 0.0
    stops = np.zeros(k + 1)
    for L in range(k):
        stops[k - L] += P[:, 0].sum()  # empty ripple: peeling stops, k - L unrecovered
        P[:, 0] = 0.0
        top = P.max()
        if top <= 0.0:
            break
        P, dropped = _lt_step(P, L, k, _lt_release_prob(k, pd, total, L), tol, top, dropped)
    stops[0] += P.sum()  # every input processed: nothing left unrecovered
    return LTProfile(k, N, stops, max(dropped, 0.0))


def raptor_failure_profile(n: int, s: int, eps: float) -> LTProfile:
    """Exact finite-``n`` decoding profile of the batch raptor code of Wang et al. 2019, Theorem 6.

    ``b`` and ``P_w`` from :func:`raptor_parameters` (``delta = s/n``), ``K = n/b``
    batches, ``n - s`` received worker results (uniformly random stragglers), decoded
    by peeling: :func:`lt_peeling_profile` with ``k = K``, ``received = n - s``.
    ``profile.prob_fraction_above(eps)`` is Theorem 6's ``P(err(A_S) > eps)``, exact up
    to ``profile.truncation``; the Monte Carlo twin is :func:`raptor_failure_rate`.

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers, ``0 < s < n``.
    eps : float
        Target error of Theorem 6.

    Returns
    -------
    LTProfile
        The exact unrecovered-batch distribution.

    Examples
    --------
    >>> from gctheory.ldpc import raptor_failure_profile
    >>> prof = raptor_failure_profile(40, 4, 0.2)
    >>> prof.k, prof.received, f"{prof.prob_fraction_above(0.2):.3g}"
    (20, 36, '0.0709')
    """
    n, s, prm, p = _theorem6_setup(n, s, eps)
    K = n // prm.b
    if K * (n - s) > _LT_MAX_CELLS:
        raise ValueError(
            f"n: the exact profile recurses over K x (n - s) = {K} x {n - s} states, more than "
            f"the {_LT_MAX_CELLS:.0e} done here (seconds); use the Monte Carlo twin "
            "raptor_failure_rate for this n"
        )
    return lt_peeling_profile(K, n - s, p)
