"""The critical points of density evolution and the covariance evolution of peeling
that gives the scaling law's alpha."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mpmath import mp, mpf

from gctheory.ldpc.ensembles import (
    edge_to_node,
)

__all__ = ["CriticalPoint"]


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
