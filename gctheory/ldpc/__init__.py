"""LDPC codes on the erasure channel: ensembles, peeling, density evolution, raptor codes.

A package by concept; every public name is importable from ``gctheory.ldpc``
(and from ``gctheory``):

alist              parity-check matrices in MacKay's alist format (:func:`read_alist`,
                   :func:`write_alist`)
ensembles          degree distributions, design rate, random Tanner graphs of the
                   regular ensemble (:func:`regular_ensemble`)
peeling            the peeling decoder (:func:`peel`, :func:`peel_batch`), bit-parallel
density_evolution  the BEC density-evolution (BP) threshold and recursion, the MAP
                   threshold by the Maxwell construction
simulation         Monte Carlo at finite length: block failure, residual erasures,
                   fixed numbers of erasures, waterfalls, ensemble averages
finite_length      exact ensemble-average block and bit erasure probabilities of
                   peeling (Di et al. 2002 recursion)
scaling            the finite-length scaling law (Amraoui et al. 2009): alpha by
                   covariance evolution, the shift beta
stopping_sets      expected numbers of small stopping sets, the error floor
raptor             LT / batch raptor codes of Wang et al. 2019, Theorem 6

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A (Proposition 2, Remark 3).
.. [2] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", 2019, Theorem 6, eqs. (17), (53)-(55).
.. [3] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Chapter 3 (the binary erasure channel).
"""

from __future__ import annotations

from gctheory.ldpc import (
    alist,
    density_evolution,
    ensembles,
    finite_length,
    peeling,
    raptor,
    scaling,
    simulation,
    stopping_sets,
)
from gctheory.ldpc.alist import read_alist as read_alist
from gctheory.ldpc.alist import write_alist as write_alist
from gctheory.ldpc.density_evolution import *  # noqa: F403
from gctheory.ldpc.ensembles import *  # noqa: F403

# private helpers other modules (paper checks, tests) reach through the package
from gctheory.ldpc.ensembles import _edges_to_matrix  # noqa: F401
from gctheory.ldpc.finite_length import *  # noqa: F403
from gctheory.ldpc.peeling import *  # noqa: F403
from gctheory.ldpc.peeling import (  # noqa: F401
    _as_parity_check,
    _peel_numba,
    _peel_numpy,
    _resolve_backend,
)
from gctheory.ldpc.raptor import *  # noqa: F403
from gctheory.ldpc.scaling import *  # noqa: F403
from gctheory.ldpc.simulation import *  # noqa: F403
from gctheory.ldpc.simulation import _critical_counts  # noqa: F401
from gctheory.ldpc.stopping_sets import *  # noqa: F403

__all__ = sorted(
    {
        *alist.__all__,
        *density_evolution.__all__,
        *ensembles.__all__,
        *finite_length.__all__,
        *peeling.__all__,
        *raptor.__all__,
        *scaling.__all__,
        *simulation.__all__,
        *stopping_sets.__all__,
    }
)
