"""LDPC ensembles: degree distributions and random Tanner graphs.

What this module computes
-------------------------
* Degree distributions in edge perspective ``lambda(x), rho(x)``, conversions
  to and from node perspective, the design rate (Richardson and Urbanke 2008,
  Sec. 3.3).
* Random parity-check matrices of the regular ``(d_v, d_c)`` ensemble
  (:func:`regular_ensemble`) from the configuration model, with a choice of
  what happens to multi-edges.

References
----------
.. [1] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Chapter 3 (the binary erasure channel).
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._validate import as_generator, check_int

__all__ = [
    "design_rate",
    "edge_to_node",
    "node_to_edge",
    "regular_ensemble",
]


def regular_ensemble(n: int, dv: int, dc: int, *, rng: Any = None) -> sparse.csr_matrix:
    """Random parity-check matrix of the regular ``(d_v, d_c)`` LDPC ensemble.

    Configuration model (Richardson and Urbanke 2008, Sec. 3.3; the ensemble
    ``C(d_c, d_v)`` of Kadhe et al. 2019, Sec. IV-A): ``n*d_v`` variable
    sockets are matched to ``m*d_c`` check sockets by a uniform random
    permutation, ``m = n*d_v/d_c``. Multi-edges cancel modulo 2 (an entry is
    the number of edges joining its check and variable, mod 2), so the result
    is an exact 0/1 matrix whose column (row) weights are ``d_v`` (``d_c``)
    except at the O(1) expected multi-edges.

    Parameters
    ----------
    n : int
        Code length (number of variables, columns), ``n >= 1``.
    dv, dc : int
        Variable and check degree, ``dv >= 1``, ``dc >= 2``; ``n*dv`` must be
        divisible by ``dc``.
    rng : seed or Generator, keyword-only
        Anything :func:`numpy.random.default_rng` accepts.

    Returns
    -------
    scipy.sparse.csr_matrix of shape ``(n*dv//dc, n)``, dtype int8.
    """
    n = check_int(n, "n", low=1)
    dv = check_int(dv, "dv", low=1)
    dc = check_int(dc, "dc", low=2)
    if (n * dv) % dc:
        raise ValueError(
            f"n*dv must be divisible by dc (m = n*dv/dc checks), got n={n}, dv={dv}, dc={dc}"
        )
    m = n * dv // dc
    rng = as_generator(rng)
    var_sockets = np.repeat(np.arange(n, dtype=np.int64), dv)
    chk_sockets = np.repeat(np.arange(m, dtype=np.int64), dc)
    chk_sockets = chk_sockets[rng.permutation(chk_sockets.size)]
    return _edges_to_matrix(chk_sockets, var_sockets, m, n)


def _edges_to_matrix(rows: np.ndarray, cols: np.ndarray, m: int, n: int) -> sparse.csr_matrix:
    """Sparse 0/1 matrix with entry (r, c) = (number of edges r-c) mod 2."""
    key = rows * n + cols
    uniq, counts = np.unique(key, return_counts=True)
    keep = uniq[counts % 2 == 1]
    r, c = np.divmod(keep, n)
    H = sparse.csr_matrix(
        (np.ones(keep.size, dtype=np.int8), (r.astype(np.int32), c.astype(np.int32))),
        shape=(m, n),
    )
    H.sort_indices()
    return H


# --------------------------------------------------------------------------
# Degree distributions
# --------------------------------------------------------------------------

Distribution = Mapping[int, float]


def _check_distribution(name: str, dist: Any, min_degree: int) -> dict[int, Any]:
    """Validate {degree: fraction}: integer degrees >= min_degree, fractions >= 0, sum 1."""
    if not isinstance(dist, Mapping) or len(dist) == 0:
        raise ValueError(f"{name} must be a non-empty mapping {{degree: fraction}}, got {dist!r}")
    out: dict[int, Any] = {}
    for d, f in dist.items():
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"{name}: degrees must be integers, got {d!r}")
        if d < min_degree:
            raise ValueError(f"{name}: degrees must be >= {min_degree}, got degree {d}")
        # a number (int, float, Fraction, numpy scalar), never a string or a bool: "1.0"
        # would pass float() and then break the sum below with a TypeError
        real = isinstance(f, numbers.Real) and not isinstance(f, (bool, np.bool_))
        if not (real and math.isfinite(float(f)) and float(f) >= 0):
            raise ValueError(
                f"{name}: fractions must be real numbers, finite and >= 0, got {name}[{d}] = {f!r}"
            )
        if f:
            out[int(d)] = f
    total = sum(out.values())
    if not out or abs(float(total) - 1.0) > 1e-9:
        raise ValueError(f"{name}: fractions must sum to 1, got sum {float(total)!r}")
    return dict(sorted(out.items()))


def node_to_edge(node: Distribution, *, name: str = "node") -> dict[int, Any]:
    """Edge-perspective distribution from a node-perspective one.

    ``lambda_i = i L_i / sum_j j L_j`` (Richardson and Urbanke 2008, Sec. 3.3):
    the fraction of edges attached to degree-``i`` nodes. Exact when the
    fractions are :class:`fractions.Fraction`.
    """
    L = _check_distribution(name, node, 1)
    tot = sum(i * f for i, f in L.items())
    return {i: i * f / tot for i, f in L.items()}


def edge_to_node(edge: Distribution, *, name: str = "edge") -> dict[int, Any]:
    """Node-perspective distribution from an edge-perspective one.

    ``L_i = (lambda_i / i) / sum_j lambda_j / j`` (Richardson and Urbanke 2008,
    Sec. 3.3). Exact for :class:`fractions.Fraction` input.
    """
    lam = _check_distribution(name, edge, 1)
    tot = sum(f / i for i, f in lam.items())
    return {i: (f / i) / tot for i, f in lam.items()}


def design_rate(lam: Distribution, rho: Distribution) -> Any:
    """Design rate ``1 - (sum_j rho_j / j) / (sum_i lambda_i / i)`` of an ensemble.

    Richardson and Urbanke 2008, Sec. 3.3; ``lam``/``rho`` are edge-perspective
    {degree: fraction}. The (3, 6) ensemble has rate 1/2, the [10000, 5000]
    code of Kadhe et al. 2019, Remark 3.
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    return 1 - sum(f / j for j, f in rho.items()) / sum(f / i for i, f in lam.items())


def _poly(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    """Edge-perspective generating polynomial ``sum_d f_d x^(d-1)``."""
    x = np.asarray(x, dtype=float)
    return sum(float(f) * x ** (d - 1) for d, f in dist.items())


def _one_minus_poly_one_minus(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    """``1 - P(1 - x)`` for an edge-perspective polynomial, without cancellation at small x."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf gives 1 - 0**(d-1) = 1, as it should
        return sum(float(f) * -np.expm1((d - 1) * np.log1p(-x)) for d, f in dist.items()) + 0 * x


def _dpoly(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return sum(float(f) * (d - 1) * x ** max(d - 2, 0) for d, f in dist.items() if d >= 2) + 0 * x
