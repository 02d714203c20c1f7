"""Finite-length scaling law of peeling (Amraoui, Montanari, Richardson, Urbanke 2009).

What this module computes
-------------------------
Near the BP threshold ``eps*`` the block erasure probability of peeling on an
ensemble of length ``n`` follows

    P_B(n, eps) ~ Q( sqrt(n) (eps* - beta n^(-2/3) - eps) / alpha ),

``Q`` the Gaussian tail. Both constants are computed here from the ensemble,
none is typed in:

* ``alpha`` by **covariance evolution**: the residual graph seen by peeling
  (erased variables per degree, checks per residual degree) is a Markov chain
  whose mean follows the fluid ODE and whose covariance (per ``n``) follows
  ``dS/dtau = J S + S J^T + Q`` (``J`` the Jacobian of the drift, ``Q`` the
  covariance of one step), started from the exact covariance of the state
  the channel leaves (i.i.d. erasures, or a fixed number of them). At the
  critical point ``tau*`` (where the expected number of degree-1 checks
  ``r_1`` touches 0 at ``eps*``), ``alpha = sqrt(S_11(tau*)) / |d r_1 / d eps|``
  (Amraoui et al. 2009, Sec. III; Richardson and Urbanke 2008, Sec. 3.23).
  For i.i.d. erasures it is cross-checked against the closed form of Amraoui,
  Montanari and Urbanke (2007, eq. for ``alpha``) in the tests.
* ``beta`` from the shape of ``r_1`` near ``tau*``: over a window of
  ``n^(2/3)`` steps the number of degree-1 checks is a Brownian motion with
  per-step variance ``sigma^2`` plus the parabola ``c (tau - tau*)^2 / 2``;
  its minimum lies ``n^(1/3) sigma^(4/3) (2/c)^(1/3) Omega`` below the value at
  ``tau*`` on average, which shifts the threshold by
  ``beta n^(-2/3)`` with ``beta = sigma^(4/3) (2/c)^(1/3) Omega / |d r_1/d eps|``.
  ``Omega = E[-min_{w in R} (B(w) + w^2)] = int_0^inf (1 - K(z)^2) dz``, with
  ``K(z) = P(W(t) < z + t^2 for all t >= 0)``, is the universal constant of
  Dembo and Montanari (2008); it is computed here by solving the backward
  equation of that first-passage problem (:func:`omega_constant`).

Which ensemble
--------------
The law is an ``n -> infinity`` statement about the configuration model; the
multi-edges (``O(1)`` per code) and the conditioning on simplicity change
``P_B`` by ``O(1/n)``-order terms only, so it speaks for ``multi_edges="keep"``
and ``"resample"`` alike, to that order; it says nothing about the floor from
small stopping sets (:mod:`gctheory.ldpc.stopping_sets`), which is where the
ensembles differ.

Domain
------
Ensembles whose threshold is set by an interior critical point. Where the
stability condition binds (``x* = 0``, e.g. degree-2 variables with
``lambda_2 rho'(1) eps* = 1``) the scaling is different and the call is
refused, naming Monte Carlo and the exact analysis. Several interior
critical points are combined as independent events,
``1 - prod_i (1 - Q_i)`` (Amraoui et al. 2009, Sec. V).

References
----------
.. [1] A. Amraoui, A. Montanari, T. Richardson, R. Urbanke, "Finite-length
   scaling for iteratively decoded LDPC ensembles", IEEE Trans. Inf. Theory
   55(2), 2009.
.. [2] A. Amraoui, A. Montanari, R. Urbanke, "How to find good finite-length
   codes: from art towards science", European Trans. Telecomm. 18, 2007.
.. [3] A. Dembo, A. Montanari, "Finite size scaling for the core of large
   random hypergraphs", Ann. Appl. Probab. 18(5), 2008.
.. [4] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Sec. 3.23.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from mpmath import mp, mpf
from scipy import linalg, special

from gctheory._validate import check_array, check_choice, check_int, check_probability
from gctheory.ldpc.ensembles import (
    MAX_DEGREE,
    Distribution,
    _check_distribution,
    edge_to_node,
)

__all__ = [
    "CriticalPoint",
    "ScalingParameters",
    "omega_constant",
    "regular_scaling_parameters",
    "scaling_law_block_erasure",
    "scaling_parameters",
]

ERASURE_MODELS = ("random", "fixed")


# --------------------------------------------------------------------------
# Omega: E[-min_w (B(w) + w^2)] over a two-sided Brownian motion
# --------------------------------------------------------------------------


def omega_constant(grid: int = 2000) -> float:
    """``Omega = int_0^inf (1 - K(z)^2) dz``, ``K(z) = P(W(t) < z + t^2, all t >= 0)``.

    ``-min_{w in R}(B(w) + w^2)`` for a two-sided standard Brownian motion is the
    larger of two independent copies of ``max_{t >= 0}(W(t) - t^2)``, whose
    distribution function is ``K``; hence ``Omega`` is its mean (Dembo and
    Montanari 2008). ``K(z) = h(0, z)`` where ``h(t, x)`` is the probability that
    ``X(s) = x + (s^2 - t^2) - (W(s) - W(t))`` stays positive for ``s >= t``: the
    backward equation ``h_t + 2 t h_x + h_xx / 2 = 0``, ``h(t, 0) = 0``,
    ``h(t, inf) = 1``, solved by Crank-Nicolson from ``t = T`` (where the drift
    ``2T`` is large and ``h = 1 - exp(-4 T x)``, the constant-drift answer) back
    to 0, then Richardson extrapolation in the grid (``grid`` and ``grid/2``
    points in ``x``). Accurate to about 1e-5 (``grid`` 2000 vs 4000, and
    ``T`` 6 vs 8, in the tests); cached.

    Parameters
    ----------
    grid : int
        Grid points of the PDE solver.

    Returns
    -------
    float
        ``Omega``.

    Examples
    --------
    >>> from gctheory.ldpc import omega_constant
    >>> round(omega_constant(), 3)
    0.791
    """
    grid = check_int(grid, "grid", low=100, high=_OMEGA_MAX_GRID)
    return _omega(grid)


#: finest grid of :func:`omega_constant` (its Crank-Nicolson sweep is O(grid^2): 2000 takes
#: 0.3 s, 8000 about 3 s)
_OMEGA_MAX_GRID = 10_000


@functools.cache
def _omega(grid: int) -> float:
    fine = _omega_pde(grid)
    coarse = _omega_pde(grid // 2)
    return float(fine + (fine - coarse) / 3)  # Crank-Nicolson: error O(h^2)


def _omega_pde(nx: int, T: float = 6.0, X: float = 6.0) -> float:
    dx = X / nx
    x = np.linspace(0.0, X, nx + 1)
    nt = int(round(T / dx))  # dt = dx keeps the scheme accurate where the drift is large
    dt = T / nt
    h = 1.0 - np.exp(-4.0 * T * x)
    inner = slice(1, nx)
    for k in range(nt, 0, -1):
        # step from t_k to t_{k-1}: h_t = -(2 t h_x + h_xx/2), trapezoidal in time
        t_hi, t_lo = k * dt, (k - 1) * dt

        def L_coeffs(t):
            a = 0.5 / dx**2 - t / dx  # coefficient of h_{j-1} (central drift 2t h_x)
            b = -1.0 / dx**2
            c = 0.5 / dx**2 + t / dx
            return a, b, c

        a1, b1, c1 = L_coeffs(t_hi)
        a0, b0, c0 = L_coeffs(t_lo)
        rhs = h[inner] + 0.5 * dt * (a1 * h[:-2] + b1 * h[inner] + c1 * h[2:])
        rhs[-1] += 0.5 * dt * c0 * 1.0  # boundary h(X) = 1 at the new time level
        ab = np.zeros((3, nx - 1))
        ab[0, 1:] = -0.5 * dt * c0
        ab[1, :] = 1.0 - 0.5 * dt * b0
        ab[2, :-1] = -0.5 * dt * a0
        h[inner] = linalg.solve_banded((1, 1), ab, rhs)
        h[0], h[-1] = 0.0, 1.0
    K = h
    from scipy import integrate  # lazy: scipy.integrate costs ~0.2 s to import

    return float(integrate.trapezoid(1.0 - K**2, x))


# --------------------------------------------------------------------------
# Critical points (mpmath, to keep the constants' digits)
# --------------------------------------------------------------------------


def _mp_poly(dist: dict, z):
    return sum(mpf(f) * z ** (d - 1) for d, f in dist.items())


def _critical_points(lam: dict, rho: dict) -> list[tuple[mpf, mpf]]:
    """Interior local minima ``x`` of ``x / lambda(1 - rho(1 - x))`` and their ``eps``."""
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}

    def f(x):
        y = 1 - sum(f_ * (1 - x) ** (d - 1) for d, f_ in rho_f.items())
        ly = sum(f_ * y ** (d - 1) for d, f_ in lam_f.items())
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.where(ly > 0, x / np.where(ly > 0, ly, 1.0), np.inf)

    grid = np.linspace(1e-4, 1.0, 20001)
    fv = f(grid)
    inner = np.flatnonzero((fv[1:-1] < fv[:-2]) & (fv[1:-1] <= fv[2:])) + 1
    out = []
    with mp.workdps(40):
        F = lambda x: x / _mp_poly(lam, 1 - _mp_poly(rho, 1 - x))  # noqa: E731
        for i in inner:
            x0 = mpf(float(grid[i]))
            xs = mp.findroot(lambda x: mp.diff(F, x), x0)
            if 0 < xs < 1:
                out.append((+F(xs), +xs))
    return out


# --------------------------------------------------------------------------
# Covariance evolution
# --------------------------------------------------------------------------


class _Chain:
    """Drift and step covariance of the peeling chain's state, per ``n``.

    State: ``v_i`` (erased variables of degree ``i`` still in the graph, for
    ``i`` in ``vdeg``) then ``r_j`` (checks of residual degree ``j = 1..rmax``).
    One step removes the variable behind a uniformly chosen degree-1 check: its
    degree is ``i`` with probability ``q_i = i v_i / e``; its other ``i - 1``
    edges hit checks of residual degree ``j`` with probability ``p_j = j r_j / e``
    each (independently, to leading order), moving them from ``j`` to ``j - 1``.
    """

    def __init__(self, vdeg: list[int], rmax: int):
        self.vdeg = np.array(vdeg, dtype=float)
        self.nv = len(vdeg)
        self.rmax = rmax
        self.jj = np.arange(1, rmax + 1, dtype=float)
        D = np.zeros((rmax, rmax))  # Delta r = -e_1 + D H, H = hits per residual degree
        for j in range(rmax):
            D[j, j] = -1.0
            if j + 1 < rmax:
                D[j, j + 1] = 1.0
        self.D = D

    def parts(self, x):
        v, r = x[: self.nv], x[self.nv :]
        e = np.sum(self.vdeg * v)
        q = self.vdeg * v / e
        p = self.jj * r / e
        mu = np.sum(q * (self.vdeg - 1))
        return v, r, e, q, p, mu

    def drift(self, x):
        _, _, _, q, p, mu = self.parts(x)
        fr = mu * (self.D @ p)
        fr = fr - np.eye(self.rmax, dtype=fr.dtype)[0]
        return np.concatenate([-q, fr])

    def jacobian(self, x):
        """Complex-step derivative of the (rational) drift: exact to rounding."""
        k = x.size
        J = np.empty((k, k))
        h = 1e-30
        for i in range(k):
            z = x.astype(complex)
            z[i] += 1j * h
            J[:, i] = self.drift(z).imag / h
        return J

    def step_cov(self, x):
        _, _, _, q, p, mu = self.parts(x)
        d = self.vdeg - 1
        var_d = np.sum(q * d**2) - mu**2
        cov_vv = np.diag(q) - np.outer(q, q)
        cov_hh = mu * (np.diag(p) - np.outer(p, p)) + var_d * np.outer(p, p)
        cov_vh = -np.outer(q * (d - mu), p)
        cov_rr = self.D @ cov_hh @ self.D.T
        cov_vr = cov_vh @ self.D.T
        return np.block([[cov_vv, cov_vr], [cov_vr.T, cov_rr]])


def _initial_state(lam: dict, rho: dict, eps: float, erasures: str):
    """Mean and covariance (per ``n``) of the state the channel leaves.

    Variables erased i.i.d. with probability ``eps`` (``"random"``) or a fixed
    number ``eps n`` placed uniformly (``"fixed"``); their ``U`` sockets land on
    a uniformly random ``U``-subset of the check sockets. Given ``U`` the check
    degrees are those of i.i.d. sockets used with probability ``pi = U/N``,
    conditioned on the total; ``pi`` itself fluctuates with ``U``.
    """
    L = {i: float(f) for i, f in edge_to_node(lam).items()}
    R = {j: float(f) for j, f in edge_to_node(rho).items()}
    Lp1 = 1.0 / sum(float(f) / i for i, f in lam.items())
    Rp1 = 1.0 / sum(float(f) / j for j, f in rho.items())
    gamma = Lp1 / Rp1  # checks per variable
    vdeg = sorted(L)
    rmax = max(R)
    Lv = np.array([L[i] for i in vdeg])
    w = np.array(vdeg, dtype=float)
    if erasures == "random":
        CV = np.diag(eps * (1 - eps) * Lv)
    else:
        CV = eps * (np.diag(Lv) - np.outer(Lv, Lv))
    pi = eps
    jj = np.arange(1, rmax + 1)
    mean_r = np.zeros(rmax)
    Ciid = np.zeros((rmax, rmax))
    c = np.zeros(rmax)
    g = np.zeros(rmax)
    s2 = 0.0
    for d, Rd in R.items():
        b = np.array([math.comb(d, j) * pi**j * (1 - pi) ** (d - j) if j <= d else 0.0 for j in jj])
        mean_r += gamma * Rd * b
        Ciid += gamma * Rd * (np.diag(b) - np.outer(b, b))
        c += gamma * Rd * b * (jj - d * pi)
        g += gamma * Rd * b * (jj - d * pi) / (pi * (1 - pi))
        s2 += gamma * Rd * d * pi * (1 - pi)
    var_pi = float(w @ CV @ w) / Lp1**2
    Crr = Ciid - np.outer(c, c) / s2 + var_pi * np.outer(g, g)
    Cvr = np.outer(CV @ w / Lp1, g)
    mean = np.concatenate([eps * Lv, mean_r])
    S = np.block([[CV, Cvr], [Cvr.T, Crr]])
    return vdeg, rmax, mean, S


def _covariance_evolution(lam, rho, eps, tau_end, erasures):
    from scipy import integrate  # lazy: scipy.integrate costs ~0.2 s to import

    vdeg, rmax, mean0, S0 = _initial_state(lam, rho, eps, erasures)
    chain = _Chain(vdeg, rmax)
    k = mean0.size

    def rhs(t, y):
        x = y[:k]
        S = y[k:].reshape(k, k)
        J = chain.jacobian(x)
        dS = J @ S + S @ J.T + chain.step_cov(x)
        return np.concatenate([chain.drift(x), dS.ravel()])

    sol = integrate.solve_ivp(
        rhs,
        (0.0, tau_end),
        np.concatenate([mean0, S0.ravel()]),
        method="DOP853",
        rtol=1e-11,
        atol=1e-13,
    )
    if not sol.success:  # pragma: no cover - the system is smooth on [0, tau*]
        raise ArithmeticError(f"covariance evolution failed: {sol.message}")
    y = sol.y[:, -1]
    return chain, y[:k], y[k:].reshape(k, k)


# --------------------------------------------------------------------------
# Scaling parameters
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CriticalPoint:
    """Scaling constants at one critical point of the peeling process.

    Attributes
    ----------
    eps : float
        The channel at which the expected number of degree-1 checks touches 0 here.
    x, y : float
        The critical fixed point ``x = eps lambda(y)``, ``y = 1 - rho(1 - x)``.
    tau : float
        Steps per ``n`` from the start to the critical point, ``eps (1 - L(y))``.
    alpha : float
        ``sqrt(variance) / slope``.
    beta : float
        Shift coefficient: threshold at length ``n`` is ``eps - beta n^(-2/3)``.
    variance : float
        ``Var(R_1(tau)) / n`` at the critical point (covariance evolution).
    slope : float
        ``|d r_1 / d eps|`` at fixed ``tau`` (``L'(1) eps lambda(y)^2 rho'(1 - x)``).
    diffusion : float
        Per-step variance of the change of ``R_1`` at the critical point.
    curvature : float
        ``d^2 r_1 / d tau^2`` at the critical point.

    Examples
    --------
    >>> from gctheory.ldpc import CriticalPoint, regular_scaling_parameters
    >>> pt = regular_scaling_parameters(3, 6).points[0]
    >>> round(pt.eps, 4), round(pt.alpha, 4)
    (0.4294, 0.5604)
    """

    eps: float
    x: float
    y: float
    tau: float
    alpha: float
    beta: float
    variance: float
    slope: float
    diffusion: float
    curvature: float


@dataclass(frozen=True)
class ScalingParameters:
    """Parameters of the finite-length scaling law for one ensemble and erasure model.

    ``eps``, ``alpha`` and ``beta`` are those of the dominant (lowest-``eps``)
    critical point; ``points`` holds all of them. ``erasures`` is ``"random"``
    (each variable erased independently, BEC(eps)) or ``"fixed"`` (exactly
    ``eps n`` erased, uniformly placed: the smaller ``alpha``).
    ``alpha_closed_form`` is the closed-form expression of Amraoui, Montanari and
    Urbanke (2007) for random erasures (None for fixed), a cross-check.

    Parameters
    ----------
    lam, rho : dict
        The ensemble's edge-perspective distributions.
    erasures : {"random", "fixed"}
        The erasure model.
    points : tuple of CriticalPoint
        Every critical point.
    omega : float
        The constant of :func:`omega_constant`.
    alpha_closed_form : float or None
        Amraoui et al.'s closed form (random erasures).

    Examples
    --------
    >>> from gctheory.ldpc import ScalingParameters, regular_scaling_parameters
    >>> sp = regular_scaling_parameters(3, 6)
    >>> round(sp.eps, 4), round(sp.alpha, 4), round(sp.beta, 4)
    (0.4294, 0.5604, 0.6146)
    >>> f"{sp.block_erasure(1000, 0.4):.3g}"
    '0.0943'
    """

    lam: dict
    rho: dict
    erasures: str
    points: tuple[CriticalPoint, ...]
    omega: float
    alpha_closed_form: float | None

    @property
    def eps(self) -> float:
        return self.points[0].eps

    @property
    def alpha(self) -> float:
        return self.points[0].alpha

    @property
    def beta(self) -> float:
        return self.points[0].beta

    @overload
    def block_erasure(self, n: int, eps: float, *, shift: bool = True) -> float: ...
    @overload
    def block_erasure(self, n: int, eps: np.ndarray, *, shift: bool = True) -> np.ndarray: ...
    @overload
    def block_erasure(self, n: Any, eps: Any, *, shift: bool = True) -> Any: ...

    def block_erasure(self, n: Any, eps: Any, *, shift: bool = True) -> Any:
        """``1 - prod_i (1 - Q(sqrt(n) (eps_i - beta_i n^(-2/3) - eps) / alpha_i))``.

        ``eps`` may be an array; ``shift=False`` drops the ``beta`` term.
        """
        n = check_int(n, "n", low=1)
        e = check_array(eps, "eps", min_size=0, bools=False)
        if e.size and not (np.all(e >= 0) and np.all(e <= 1)):
            check_probability(float(e[(e < 0) | (e > 1)].reshape(-1)[0]), "eps")
        # 1 - prod_i (1 - Q(z_i)) cancels to 0 once every Q(z_i) < 1e-17: sum the logs of
        # 1 - Q(z_i) = Phi(z_i) instead (log_ndtr is accurate at both ends), then
        # -expm1(sum) (Q = 3.55e-63 came out as 0.0)
        log_ok = np.zeros_like(e)
        for p in self.points:
            s = p.beta * n ** (-2 / 3) if shift else 0.0
            z = math.sqrt(n) * (p.eps - s - e) / p.alpha
            log_ok = log_ok + special.log_ndtr(z)
        out = -np.expm1(log_ok)
        return float(out) if out.ndim == 0 else out

    def __repr__(self) -> str:
        return (
            f"ScalingParameters(eps*={self.eps:.10f}, alpha={self.alpha:.6f}, "
            f"beta={self.beta:.6f}, erasures={self.erasures!r}, points={len(self.points)})"
        )


def _closed_form_alpha(lam, rho, eps, x, y) -> float:
    """Amraoui, Montanari, Urbanke (2007): ``alpha`` for i.i.d. erasures, in closed form."""
    with mp.workdps(40):
        lam_m = lambda z: _mp_poly(lam, z)  # noqa: E731
        rho_m = lambda z: _mp_poly(rho, z)  # noqa: E731
        dlam = lambda z: mp.diff(lam_m, z)  # noqa: E731
        drho = lambda z: mp.diff(rho_m, z)  # noqa: E731
        Lp1 = 1 / sum(mpf(f) / i for i, f in lam.items())
        xb = 1 - x
        num1 = rho_m(xb) ** 2 - rho_m(xb**2) + drho(xb) * (1 - 2 * x * rho_m(xb))
        num1 -= xb**2 * drho(xb**2)
        t1 = num1 / (Lp1 * lam_m(y) ** 2 * drho(xb) ** 2)
        t2 = (eps**2 * lam_m(y) ** 2 - eps**2 * lam_m(y**2) - y**2 * eps**2 * dlam(y**2)) / (
            Lp1 * lam_m(y) ** 2
        )
        return float(mp.sqrt(t1 + t2))


def scaling_parameters(
    lam: Distribution, rho: Distribution, *, erasures: str = "random"
) -> ScalingParameters:
    """``alpha``, ``beta`` and the critical points of the scaling law for an ensemble.

    Parameters
    ----------
    lam, rho : mapping {degree: fraction of edges}
        Edge-perspective degree distributions (as :func:`bec_threshold`).
    erasures : {"random", "fixed"}, keyword-only
        Each variable erased independently (BEC), or a fixed number ``eps n``.

    Returns
    -------
    ScalingParameters
        ``alpha``, ``beta`` and the critical points.

    Raises
    ------
    ValueError
        For ensembles outside the law's domain (degree-1 variables, or a
        threshold set by the stability condition), naming the alternatives.

    Examples
    --------
    >>> from gctheory.ldpc import scaling_parameters
    >>> sp = scaling_parameters({3: 1.0}, {6: 1.0})
    >>> round(sp.alpha, 4), round(sp.alpha_closed_form, 4)
    (0.5604, 0.5604)
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    check_choice(erasures, "erasures", ERASURE_MODELS)
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    from gctheory.ldpc.density_evolution import bec_threshold

    th = bec_threshold(lam_f, rho_f)
    if lam_f.get(1, 0.0) > 0 or th.stability:
        raise ValueError(
            "lam, rho: the finite-length scaling law (Amraoui et al. 2009) covers ensembles whose "
            "BP threshold is set by an interior critical point; this one is "
            + ("limited by degree-1 variables" if lam_f.get(1, 0.0) > 0 else "stability-limited")
            + f" (eps* = {th.eps:.6g} at x -> 0): use Monte Carlo "
            "(gctheory.ldpc.ensemble_failure_rate) or, for regular ensembles up to n of a few "
            "hundred, the exact analysis (gctheory.ldpc.erasure_profile)"
        )
    if not 0.0 < th.eps < 1.0 - 1e-9:
        raise ValueError(
            "lam, rho: the scaling law needs a BP threshold inside (0, 1); this ensemble has "
            f"eps* = {th.eps:.6g} (a degenerate ensemble): use Monte Carlo "
            "(gctheory.ldpc.ensemble_failure_rate)"
        )
    crit = _critical_points(lam_f, rho_f)
    if not crit or min(float(e) for e, _ in crit) > th.eps * (1 + 1e-9):
        raise ValueError(
            "lam, rho: the finite-length scaling law (Amraoui et al. 2009) covers ensembles whose "
            f"BP threshold is set by an interior critical point; for this one eps* = {th.eps:.6g} "
            f"is reached at x = {th.x:.6g}, the end of the interval, where r_1 has no "
            "quadratic minimum: use Monte Carlo (gctheory.ldpc.ensemble_failure_rate)"
        )
    omega = omega_constant()
    Lp1 = 1.0 / sum(f / i for i, f in lam_f.items())
    Lnode = {i: float(f) for i, f in edge_to_node(lam_f).items()}
    points = []
    for eps_m, x_m in crit:
        with mp.workdps(40):
            y_m = 1 - _mp_poly(rho_f, 1 - x_m)

            def r1(yy, e=eps_m):  # expected degree-1 checks per n along the fluid path
                ly = _mp_poly(lam_f, yy)
                return Lp1 * e * ly * (yy - 1 + _mp_poly(rho_f, 1 - e * ly))

            def tau_of(yy, e=eps_m):
                return e * (1 - sum(mpf(f) * yy**i for i, f in Lnode.items()))

            tau = tau_of(y_m)
            dtau = mp.diff(tau_of, y_m)
            curvature = mp.diff(r1, y_m, 2) / dtau**2
            drho = mp.diff(lambda z: _mp_poly(rho_f, z), 1 - x_m)
            slope = Lp1 * eps_m * _mp_poly(lam_f, y_m) ** 2 * drho
        eps, x, y = float(eps_m), float(x_m), float(y_m)
        chain, mean, S = _covariance_evolution(lam_f, rho_f, eps, float(tau), erasures)
        nv = chain.nv
        variance = float(S[nv, nv])
        _, _, _, q, p, mu = chain.parts(mean)
        var_d = float(np.sum(q * (chain.vdeg - 1) ** 2) - mu**2)
        p2 = float(p[1]) if chain.rmax >= 2 else 0.0
        diffusion = mu * p2 * (1 - p2) + var_d * p2**2  # Var(H_2); p_1 = 0 here
        alpha = math.sqrt(variance) / float(slope)
        beta = diffusion ** (2 / 3) * (2 / float(curvature)) ** (1 / 3) * omega / float(slope)
        points.append(
            CriticalPoint(
                eps=eps,
                x=x,
                y=y,
                tau=float(tau),
                alpha=alpha,
                beta=float(beta),
                variance=variance,
                slope=float(slope),
                diffusion=float(diffusion),
                curvature=float(curvature),
            )
        )
    points.sort(key=lambda p: p.eps)
    closed = None
    if erasures == "random":
        p0 = points[0]
        closed = _closed_form_alpha(lam_f, rho_f, mpf(p0.eps), mpf(p0.x), mpf(p0.y))
    return ScalingParameters(dict(lam_f), dict(rho_f), erasures, tuple(points), omega, closed)


def regular_scaling_parameters(dv: int, dc: int, *, erasures: str = "random") -> ScalingParameters:
    """:func:`scaling_parameters` of the regular ``(d_v, d_c)`` ensemble.

    Parameters
    ----------
    dv : int
        Variable degree.
    dc : int
        Check degree.
    erasures : {"random", "fixed"}
        The erasure model.

    Returns
    -------
    ScalingParameters
        The scaling-law parameters.

    Examples
    --------
    >>> from gctheory.ldpc import regular_scaling_parameters
    >>> sp = regular_scaling_parameters(3, 6, erasures="fixed")
    >>> round(sp.alpha, 4), round(sp.beta, 4)
    (0.2626, 0.6146)
    """
    dv = check_int(dv, "dv", low=1, high=MAX_DEGREE)
    dc = check_int(dc, "dc", low=2, high=MAX_DEGREE)
    try:
        return scaling_parameters({dv: 1.0}, {dc: 1.0}, erasures=erasures)
    except ValueError as exc:
        text = str(exc)
        if text.startswith("lam, rho: "):  # the ensemble is (dv, dc): name them
            text = f"dv={dv}, dc={dc}: " + text[len("lam, rho: ") :]
        raise ValueError(text) from None


def scaling_law_block_erasure(
    n: int,
    lam: Distribution,
    rho: Distribution,
    eps: Any,
    *,
    erasures: str = "random",
    shift: bool = True,
) -> Any:
    """Scaling-law prediction of the block erasure probability of peeling at length ``n``.

    ``Q(sqrt(n) (eps* - beta n^(-2/3) - eps) / alpha)`` (Amraoui et al. 2009),
    parameters from :func:`scaling_parameters`. With ``erasures="fixed"``,
    ``eps`` is the fraction ``t/n`` of erased variables.

    Parameters
    ----------
    n : int
        Code length.
    lam, rho : mapping of int to float
        Edge-perspective variable and check degree distributions ``{degree: fraction}``.
    eps : float or array_like
        Erasure probability (or fraction ``t/n`` for fixed erasures).
    erasures : {"random", "fixed"}
        The erasure model.
    shift : bool
        Apply the ``beta n^(-2/3)`` shift.

    Returns
    -------
    float or numpy.ndarray
        Predicted block erasure probability.

    Examples
    --------
    >>> from gctheory.ldpc import scaling_law_block_erasure
    >>> p = scaling_law_block_erasure(1000, {3: 1.0}, {6: 1.0}, [0.38, 0.40, 0.42])
    >>> [f"{x:.3g}" for x in p]
    ['0.00728', '0.0943', '0.426']
    """
    return scaling_parameters(lam, rho, erasures=erasures).block_erasure(n, eps, shift=shift)
