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

from gctheory._home import keep_home_of
from gctheory.ldpc.scaling import _covariance, _law, _shift
from gctheory.ldpc.scaling._covariance import CriticalPoint
from gctheory.ldpc.scaling._covariance import _Chain as _Chain
from gctheory.ldpc.scaling._covariance import _initial_state as _initial_state
from gctheory.ldpc.scaling._law import (
    ScalingParameters,
    regular_scaling_parameters,
    scaling_law_block_erasure,
    scaling_parameters,
)
from gctheory.ldpc.scaling._shift import _omega_pde as _omega_pde
from gctheory.ldpc.scaling._shift import omega_constant

__all__ = [
    "CriticalPoint",
    "ScalingParameters",
    "omega_constant",
    "regular_scaling_parameters",
    "scaling_law_block_erasure",
    "scaling_parameters",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _covariance, _law, _shift)
