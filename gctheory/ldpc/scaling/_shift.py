"""The shift's constant Omega of the scaling law."""

from __future__ import annotations

import functools

import numpy as np
from scipy import linalg

from gctheory._validate import check_int

__all__ = ["omega_constant"]


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
