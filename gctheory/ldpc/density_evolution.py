"""Density evolution on the erasure channel: BP (peeling) and MAP thresholds, the recursion.

References
----------
.. [1] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Chapter 3 (Theorems 3.50, 3.59; Sec. 3.13).
.. [3] C. Measson, A. Montanari, R. Urbanke, "Maxwell construction: the hidden
   bridge between iterative and maximum a posteriori decoding", IEEE Trans. Inf.
   Theory 54(12), 2008.
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A (the threshold ``p*``, Remark 3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gctheory._validate import check_int, check_memory, check_probability
from gctheory.ldpc.ensembles import (
    MAX_DEGREE,
    Distribution,
    _check_distribution,
    _dpoly,
    _one_minus_poly_one_minus,
    _poly,
    design_rate,
    edge_to_node,
)

__all__ = [
    "MapThreshold",
    "Threshold",
    "bec_threshold",
    "de_fixed_point",
    "de_trajectory",
    "map_threshold",
    "regular_map_threshold",
    "regular_threshold",
]


@dataclass(frozen=True)
class Threshold:
    """The BEC peeling threshold of an ensemble.

    Attributes
    ----------
    eps : float
        ``eps* = sup{eps : eps*lambda(1 - rho(1 - x)) < x for all x in (0, 1]}``.
    x : float
        The critical point: the minimiser of ``x / lambda(1 - rho(1 - x))``
        (where density evolution first gets stuck at ``eps*``); 0 when the
        threshold is set by the stability condition at ``x -> 0``.
    stability : bool
        True if ``eps* = 1/(lambda_2 rho'(1))`` (the limit ``x -> 0``) binds.

    Examples
    --------
    >>> from gctheory.ldpc import Threshold, regular_threshold
    >>> t = regular_threshold(3, 6)
    >>> round(t.eps, 6), round(t.x, 4), t.stability
    (0.42944, 0.2606, False)
    """

    eps: float
    x: float
    stability: bool

    def __repr__(self) -> str:
        tag = ", stability-limited" if self.stability else ""
        return f"Threshold(eps*={self.eps:.12f}, x*={self.x:.10f}{tag})"


def bec_threshold(lam: Distribution, rho: Distribution) -> Threshold:
    """Density-evolution (peeling) threshold ``p*`` of an LDPC ensemble (Kadhe et al. 2019, IV-A).

    The largest ``eps`` with ``eps * lambda(1 - rho(1 - x)) < x`` for all
    ``x in (0, 1]`` (Kadhe et al. 2019, Sec. IV-A, the threshold ``p*``;
    Richardson and Urbanke 2008, Theorem 3.59), computed from the closed
    characterisation ``eps* = min_{x in (0,1]} x / lambda(1 - rho(1 - x))``:
    the function is tabulated on a fine grid, the best local minima are
    refined by a root of the derivative (Brent), and the ``x -> 0`` limit
    ``1 / (lambda_2 rho'(1))`` (the stability condition) is included. Accurate
    to about 1e-14 for smooth ensembles (tested against mpmath at 50 digits).

    Parameters
    ----------
    lam : mapping {degree: fraction of edges}
        Variable-node edge-perspective distribution, degrees >= 1.
    rho : mapping {degree: fraction of edges}
        Check-node edge-perspective distribution, degrees >= 2.

    Returns
    -------
    Threshold
        ``eps`` (the threshold), ``x`` (critical point), ``stability``.

    Examples
    --------
    >>> from gctheory.ldpc import bec_threshold
    >>> round(bec_threshold({3: 1.0}, {6: 1.0}).eps, 6)  # the (3, 6) ensemble
    0.42944
    >>> round(bec_threshold({2: 0.5, 3: 0.5}, {6: 1.0}).eps, 6)
    0.345136
    """
    from scipy import optimize  # lazy: scipy.optimize costs ~0.2 s to import

    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    # x -> 0 limit: x / lambda(1 - rho(1-x)) ~ 1 / (lambda_2 rho'(1)) when lambda_1 = 0
    if lam_f.get(1, 0.0) > 0:
        return Threshold(0.0, 0.0, True)
    lam2 = lam_f.get(2, 0.0)
    stab = 1.0 / (lam2 * float(_dpoly(rho_f, 1.0))) if lam2 > 0 else math.inf

    def f(x):
        y = _poly(lam_f, _one_minus_poly_one_minus(rho_f, x))
        with np.errstate(divide="ignore", over="ignore"):  # x/y -> inf where y underflows
            return np.where(y > 0, x / np.where(y > 0, y, 1.0), np.inf)

    def h(x):  # numerator of f'(x): lambda(y) - x lambda'(y) rho'(1 - x)
        y = float(_one_minus_poly_one_minus(rho_f, x))
        return float(_poly(lam_f, y)) - x * float(_dpoly(lam_f, y)) * float(_dpoly(rho_f, 1.0 - x))

    grid = np.unique(np.concatenate([np.geomspace(1e-9, 1e-2, 400), np.linspace(1e-2, 1.0, 8001)]))
    fv = f(grid)
    best_eps, best_x = float(fv[-1]), 1.0  # f(1) = 1 / lambda(1) = 1
    # local minima of the tabulated function (interior), best few refined
    inner = np.flatnonzero((fv[1:-1] <= fv[:-2]) & (fv[1:-1] <= fv[2:])) + 1
    for i in inner[np.argsort(fv[inner])[:4]]:
        lo, hi = grid[i - 1], grid[i + 1]
        if h(lo) < 0 < h(hi):
            xs = optimize.brentq(h, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=200)
        else:
            xs = optimize.minimize_scalar(
                lambda t: float(f(t)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
            ).x
        val = float(f(xs))
        if val < best_eps:
            best_eps, best_x = val, float(xs)
    if stab <= best_eps:
        return Threshold(float(stab), 0.0, True)
    return Threshold(best_eps, best_x, False)


def regular_threshold(dv: int, dc: int) -> Threshold:
    """BEC peeling threshold of the regular ``(d_v, d_c)`` ensemble.

    ``p* = sup{eps : eps (1 - (1 - x)^(d_c - 1))^(d_v - 1) < x, x in (0, 1]}``
    (Kadhe et al. 2019, Sec. IV-A); ``p* = 0.4294...`` for (3, 6) (Remark 3).
    See :func:`bec_threshold`.

    Parameters
    ----------
    dv : int
        Variable degree, ``>= 2``.
    dc : int
        Check degree, ``>= 2``.

    Returns
    -------
    Threshold
        ``eps*``, the critical point and the stability flag.

    Examples
    --------
    >>> from gctheory.ldpc import regular_threshold
    >>> round(regular_threshold(3, 6).eps, 6)  # p* of Remark 3
    0.42944
    >>> round(regular_threshold(4, 8).eps, 6)
    0.383447
    """
    dv = check_int(dv, "dv", low=1, high=MAX_DEGREE)
    dc = check_int(dc, "dc", low=2, high=MAX_DEGREE)
    return bec_threshold({dv: 1.0}, {dc: 1.0})


def de_trajectory(
    lam: Distribution, rho: Distribution, eps: float, iterations: int = 200
) -> np.ndarray:
    """Density evolution on the BEC: ``x_0 = eps``, ``x_{l+1} = eps lambda(1 - rho(1 - x_l))``.

    ``x_l`` is the erasure probability of a variable-to-check message after
    ``l`` rounds of peeling (Richardson and Urbanke 2008, Theorem 3.50;
    Kadhe et al. 2019, Sec. IV-A). Returns the array ``x_0 .. x_iterations``.

    Parameters
    ----------
    lam, rho : mapping of int to float
        Edge-perspective variable and check degree distributions ``{degree: fraction}``.
    eps : float
        Erasure probability, in [0, 1].
    iterations : int
        Rounds of density evolution.

    Returns
    -------
    numpy.ndarray, shape (iterations + 1,)
        ``x_0, ..., x_iterations``.

    Examples
    --------
    >>> from gctheory.ldpc import de_trajectory
    >>> x = de_trajectory({3: 1.0}, {6: 1.0}, 0.4, iterations=50)
    >>> round(float(x[0]), 3), float(x[-1]) < 1e-6  # below the threshold: x -> 0
    (0.4, True)
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    eps = check_probability(eps, "eps")
    iterations = check_int(iterations, "iterations", low=0)
    check_memory(8 * (iterations + 1), "iterations", f"{iterations} iterations' trajectory")
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    x = np.empty(iterations + 1)
    x[0] = eps
    for i in range(iterations):
        x[i + 1] = eps * float(_poly(lam_f, _one_minus_poly_one_minus(rho_f, x[i])))
    return x


def de_fixed_point(lam: Distribution, rho: Distribution, eps: float) -> tuple[float, float]:
    """Limit of density evolution and the asymptotic residual erasure fraction.

    Returns ``(x_inf, residual)``: ``x_inf`` is the largest fixed point of
    ``x = eps lambda(1 - rho(1 - x))`` in ``[0, eps]`` (where the monotone
    recursion from ``x_0 = eps`` stops), and ``residual = eps L(1 - rho(1 -
    x_inf))`` with ``L`` the node-perspective variable distribution, the
    fraction of variables still erased after peeling as ``n -> infinity``
    (Richardson and Urbanke 2008, Sec. 3.13). Both are 0 below the threshold.

    Parameters
    ----------
    lam, rho : mapping of int to float
        Edge-perspective variable and check degree distributions ``{degree: fraction}``.
    eps : float
        Erasure probability, in [0, 1].

    Returns
    -------
    tuple of float
        ``(x_inf, residual)``.

    Examples
    --------
    >>> from gctheory.ldpc import de_fixed_point
    >>> de_fixed_point({3: 1.0}, {6: 1.0}, 0.4)
    (0.0, 0.0)
    >>> x, r = de_fixed_point({3: 1.0}, {6: 1.0}, 0.45)  # above the threshold
    >>> round(x, 4), round(r, 4)
    (0.3554, 0.3159)
    """
    from scipy import optimize  # lazy: scipy.optimize costs ~0.2 s to import

    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    eps = check_probability(eps, "eps")
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    node = {d: float(f) for d, f in edge_to_node(lam).items()}

    def g(x):
        return eps * _poly(lam_f, _one_minus_poly_one_minus(rho_f, x)) - x

    if eps == 0.0:
        return 0.0, 0.0
    grid = np.linspace(0.0, eps, 20001)
    gv = g(grid)
    # the recursion descends from eps while g < 0; it stops at the largest root below eps
    neg = gv[1:] < 0
    if np.all(neg):
        x_inf = 0.0
    else:
        j = np.flatnonzero(~neg)[-1] + 1  # last grid point with g >= 0
        if gv[j] == 0 or j == len(grid) - 1:
            x_inf = float(grid[j])
        else:
            x_inf = optimize.brentq(g, grid[j], grid[j + 1], xtol=1e-15)
    y = float(_one_minus_poly_one_minus(rho_f, x_inf))
    residual = eps * sum(f * y**d for d, f in node.items())
    return float(x_inf), float(residual)


# --------------------------------------------------------------------------
# MAP threshold: the Maxwell construction
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MapThreshold:
    """The MAP threshold of an ensemble by the Maxwell construction, next to the BP threshold.

    Attributes
    ----------
    eps : float
        ``eps_MAP``: where the area under the BP EXIT curve (its stable branch, from
        ``eps_MAP`` to 1) equals the design rate (Measson, Montanari, Urbanke 2008).
    x : float
        The fixed point ``x_MAP`` of density evolution at ``eps_MAP`` on the stable branch
        (0 when the EXIT curve has no jump and ``eps_MAP = eps_BP``).
    bp : Threshold
        The BP (peeling) threshold.
    design_rate : float
        ``1 - L'(1)/R'(1)``; ``eps_MAP <= 1 - design_rate`` (capacity).
    jump : float
        The jump of the MAP EXIT function at ``eps_MAP``: ``L(1 - rho(1 - x_MAP))``.

    Examples
    --------
    >>> from gctheory.ldpc import MapThreshold, design_rate, regular_map_threshold
    >>> m = regular_map_threshold(3, 6)
    >>> round(m.eps, 5), round(m.bp.eps, 5), round(m.design_rate, 3)
    (0.48815, 0.42944, 0.5)
    """

    eps: float
    x: float
    bp: Threshold
    design_rate: float
    jump: float

    def __repr__(self) -> str:
        return (
            f"MapThreshold(eps_MAP={self.eps:.12f}, x={self.x:.10f}, eps_BP={self.bp.eps:.12f}, "
            f"1-R={1 - self.design_rate:.6f})"
        )


def _trial_entropy(lam: dict, rho: dict, x: np.ndarray) -> np.ndarray:
    """Trial entropy ``P(x) = eps(x) L(y) + L'(1) x (1 - y) - L'(1)/R'(1) (1 - R(1 - x))``.

    ``y = 1 - rho(1 - x)``; ``eps(x) = x / lambda(y)`` is the channel on the BP fixed-point
    curve. ``P(x)`` is the
    design rate minus the area under the BP EXIT curve ``h = L(y)`` from the point ``x``
    up to ``x = 1`` (integration by parts of ``int L(y) d eps``); ``P(0) = 0`` and
    ``P(1) = design rate``, and ``dP/dx = eps'(x) L(y)``.
    """
    L = edge_to_node(lam)
    R = edge_to_node(rho)
    Lp1 = 1.0 / sum(float(f) / i for i, f in lam.items())
    Rp1 = 1.0 / sum(float(f) / j for j, f in rho.items())
    y = _one_minus_poly_one_minus(rho, x)
    lam_y = _poly(lam, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(lam_y > 0, x / np.where(lam_y > 0, lam_y, 1.0), np.inf)
    L_y = sum(float(f) * y**i for i, f in L.items())
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf: 1 - 0**j = 1, as it should
        one_minus_R = sum(float(f) * -np.expm1(j * np.log1p(-x)) for j, f in R.items())
    return eps * L_y + Lp1 * x * (1 - y) - Lp1 / Rp1 * one_minus_R


def map_threshold(lam: Distribution, rho: Distribution) -> MapThreshold:
    """MAP threshold of an LDPC ensemble on the BEC by the Maxwell construction.

    The BP EXIT curve is ``(eps(x), h(x)) = (x / lambda(y), L(y))`` with
    ``y = 1 - rho(1 - x)``, ``x`` in ``(0, 1]``. The area theorem says the MAP
    EXIT curve encloses area equal to the rate; the Maxwell construction puts
    the MAP threshold where the stable branch of the BP curve, cut at
    ``eps_MAP``, encloses exactly the design rate (Measson, Montanari and
    Urbanke 2008; Richardson and Urbanke 2008, Sec. 3.20): ``eps_MAP =
    eps(x_MAP)`` with ``x_MAP`` the largest root in ``(0, 1)`` of the trial
    entropy ``P(x)`` (see :func:`_trial_entropy`). Where ``P > 0`` on
    ``(0, 1]`` the EXIT curve has no jump and ``eps_MAP = eps_BP`` (e.g. when
    the stability condition binds and ``eps(x)`` increases).

    The construction gives an upper bound on the MAP threshold of any
    ensemble whose rate is at least its design rate, and the MAP threshold
    itself for the regular ensembles (Measson et al. 2008); for an irregular
    ensemble whose actual rate exceeds the design rate it is only the bound.

    Parameters
    ----------
    lam, rho : mapping {degree: fraction of edges}
        Edge-perspective degree distributions (as :func:`bec_threshold`).

    Returns
    -------
    MapThreshold
        ``eps`` accurate to about 1e-13 (root of ``P`` by Brent's method; tested
        against mpmath at 40 digits).

    Examples
    --------
    >>> from gctheory.ldpc import map_threshold
    >>> round(map_threshold({3: 1.0}, {6: 1.0}).eps, 5)
    0.48815
    """
    from scipy import optimize  # lazy: scipy.optimize costs ~0.2 s to import

    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    rate = float(design_rate(lam, rho))
    if rate <= 0:
        raise ValueError(
            f"lam, rho: the Maxwell construction balances the EXIT area against the design rate, "
            f"which "
            f"must be > 0; this ensemble has design rate {rate:.6g} (more checks than "
            "variables per edge): its MAP threshold is not defined by it"
        )
    bp = bec_threshold(lam, rho)
    if lam_f.get(1, 0.0) > 0:  # degree-1 variables: BP threshold 0, MAP also 0 (ML fails too)
        return MapThreshold(0.0, 0.0, bp, rate, 0.0)
    grid = np.unique(np.concatenate([np.geomspace(1e-9, 1e-2, 400), np.linspace(1e-2, 1.0, 20001)]))
    P = _trial_entropy(lam_f, rho_f, grid)
    # P is a difference of O(x) terms: below ~1e-12 its sign is rounding, not a Maxwell dip
    neg = np.flatnonzero(P < -1e-12)
    if neg.size == 0:
        return MapThreshold(bp.eps, 0.0, bp, rate, 0.0)
    j = neg[-1]  # last negative grid point; P(1) = rate > 0 beyond it
    x_map = optimize.brentq(
        lambda t: float(_trial_entropy(lam_f, rho_f, np.array(t))),
        grid[j],
        grid[j + 1],
        xtol=1e-15,
        rtol=1e-15,
        maxiter=200,
    )
    y = float(_one_minus_poly_one_minus(rho_f, x_map))
    eps = x_map / float(_poly(lam_f, y))
    L = edge_to_node(lam)
    jump = sum(float(f) * y**i for i, f in L.items())
    return MapThreshold(float(eps), float(x_map), bp, rate, float(jump))


def regular_map_threshold(dv: int, dc: int) -> MapThreshold:
    """MAP threshold of the regular ``(d_v, d_c)`` ensemble (see :func:`map_threshold`).

    Parameters
    ----------
    dv : int
        Variable degree.
    dc : int
        Check degree.

    Returns
    -------
    MapThreshold
        ``eps_MAP`` with the BP threshold.

    Examples
    --------
    >>> from gctheory.ldpc import regular_map_threshold
    >>> round(regular_map_threshold(3, 6).eps, 5)
    0.48815
    """
    dv = check_int(dv, "dv", low=1, high=MAX_DEGREE)
    dc = check_int(dc, "dc", low=2, high=MAX_DEGREE)
    if dv >= dc:
        raise ValueError(
            f"dv must be < dc for a positive design rate 1 - dv/dc (the Maxwell construction "
            f"needs it), got dv={dv}, dc={dc}"
        )
    return map_threshold({dv: 1.0}, {dc: 1.0})
