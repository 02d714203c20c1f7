"""The scaling law's parameters of an ensemble and the block erasure probability it
predicts."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from mpmath import mp, mpf
from scipy import special

from gctheory._validate import check_array, check_choice, check_int, check_probability
from gctheory.ldpc.ensembles import (
    MAX_DEGREE,
    Distribution,
    _check_distribution,
    edge_to_node,
)
from gctheory.ldpc.scaling._covariance import (
    CriticalPoint,
    _covariance_evolution,
    _critical_points,
    _mp_poly,
)
from gctheory.ldpc.scaling._shift import omega_constant

__all__ = [
    "ScalingParameters",
    "regular_scaling_parameters",
    "scaling_law_block_erasure",
    "scaling_parameters",
]


ERASURE_MODELS = ("random", "fixed")


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
