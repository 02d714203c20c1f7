"""Ye-Abbe communication-efficient gradient codes (k = n, cyclic placement, G = B V).

The scheme as summarised in Kadhe et al. 2019, Section II-B and Appendix A:
k = n partitions, worker i holds partitions i, ..., i+l-1 (mod n) with the
optimal load ``l = s + m``; each partial gradient is cut into m chunks and the
encoding matrix is ``G = B V`` (mn x n) with

- ``V`` an (n - s) x n matrix whose every (n - s) x (n - s) column-submatrix
  is invertible: a Vandermonde matrix ``V[r, i] = x_i ** r`` (the polynomial
  scheme) or an i.i.d. Gaussian matrix;
- ``B`` an mn x (n - s) matrix whose row (j, u) has its last m entries fixed to
  ``e_u`` and its first ``n - s - m`` entries solved so that row (j, u) of
  ``G`` vanishes on the ``n - l = n - s - m`` workers that do not hold
  partition j ("a specific set of the rows of B is orthogonal to V").

For the Vandermonde V, row (j, u) of G is the polynomial of degree
``n - s - m + u`` with leading coefficient 1 (and zero coefficients above it)
vanishing at the nodes of the workers not holding j, evaluated at each
worker's node; for m = 1 it is ``prod_{i not holding j} (x - x_i)``.

Decoding from survivors T (|T| >= n - s): ``G_T = B V_T``, so
``A = V_T^{-1}[:, n-s-m:]`` (minimum-norm solution of ``V_T A = [0; I_m]`` when
|T| > n - s) gives ``G_T A = B [0; I_m] = C``: the server inverts the
(n - s) x (n - s) matrix V_T, whence the O(n^3) cost and the instability of
real Vandermonde V (Kadhe et al. 2019, Section II-B; Proposition 1 compares).

This is our reconstruction of the construction from Appendix A of Kadhe et
al. (which refers to Ye and Abbe for the details of B); it achieves the
triple (l, m, s) = (s + m, m, s) with k = n, i.e. eq. (1) with equality, and
is verified exhaustively in the tests.

References
----------
.. [1] Ye, Abbe, "Communication-computation efficient gradient coding", ICML 2018.
.. [2] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019, Appendix A.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_memory
from gctheory.codes.base import (
    DecodingCost,
    GradientCode,
    check_positive_int,
    effective_condition_number,
    validate_survivors,
)
from gctheory.codes.tandon import cyclic_support
from gctheory.generators import gaussian_generator, vandermonde_generator

__all__ = ["YeAbbeCode", "ye_abbe_coefficients", "ye_abbe_decoding_cost"]


class YeAbbeCode(GradientCode):
    """Ye-Abbe code with k = n, load l = s + m, ``G = B V`` (Kadhe et al. 2019, Appendix A).

    Parameters
    ----------
    n : int
        Workers (= partitions k).
    s : int
        Stragglers tolerated, ``0 <= s < n``.
    m : int
        Communication saving, ``1 <= m`` and ``s + m <= n`` (load cannot exceed k).
    V : {"vandermonde", "gaussian"} or array
        The (n - s) x n matrix: Vandermonde on ``nodes`` (polynomial scheme),
        i.i.d. Gaussian (drawn with ``rng``), or a given matrix.
    nodes : str or array
        Vandermonde nodes, see :func:`gctheory.generators.vandermonde_generator`
        ("chebyshev", "equispaced", "roots_of_unity" or an array of n points).
    rng : seed for the Gaussian V (keyword-only).

    Examples
    --------
    >>> from gctheory.codes import YeAbbeCode
    >>> import numpy as np
    >>> code = YeAbbeCode(6, s=2, m=2)  # load s + m = 4, messages of length ceil(d / 2)
    >>> g = np.arange(12.0).reshape(6, 2)
    >>> y = code.encode(g)
    >>> y.shape
    (6, 1)
    >>> code.decode([0, 1, 2, 3], y[:4]).round(6).tolist(), g.sum(axis=0).tolist()
    ([30.0, 36.0], [30.0, 36.0])
    """

    s: int  # an exact code: the tolerance is always given

    def __init__(
        self,
        n: int,
        s: int,
        m: int = 1,
        *,
        V: str | np.ndarray = "vandermonde",
        nodes: str | np.ndarray = "chebyshev",
        rng: Any = None,
    ) -> None:
        n = check_positive_int("n", n)
        s = check_positive_int("s", s, minimum=0)
        m = check_positive_int("m", m)
        if s >= n:
            raise ValueError(f"s must be < n (at least one worker must survive), got s={s}, n={n}")
        if s + m > n:
            raise ValueError(
                f"s + m must be <= n (the load l = s + m cannot exceed k = n), got s={s}, m={m}, "
                f"n={n}"
            )
        t = n - s
        rng = as_generator(rng)  # checked even where V does not draw (garbage is refused)
        # V (n - s) x n, B n x n and the solves behind it, a few n x n float arrays
        check_memory(48 * n * n, "n", f"the {n} x {n} encoding matrices")
        if isinstance(V, str):
            if V == "vandermonde":
                Vm = vandermonde_generator(t, n, nodes=nodes)
                self.v_kind = "vandermonde"
            elif V == "gaussian":
                Vm = gaussian_generator(t, n, rng=rng)
                self.v_kind = "gaussian"
            else:
                raise ValueError(f"V must be 'vandermonde', 'gaussian' or a matrix, got {V!r}")
        else:
            Vm = check_array(V, "V", ndim=2, complex_ok=True, min_size=0)
            if Vm.shape != (t, n):
                raise ValueError(f"V must have shape (n - s, n) = ({t}, {n}), got {Vm.shape}")
            self.v_kind = "given"
        self.n = self.k = n
        self.s, self.m = s, m
        self.load = s + m
        self.support = cyclic_support(n, self.load)
        self.V = Vm
        self.B = self._solve_B()
        self._G = self.B @ Vm
        # exact zeros outside the placement (the solve leaves rounding residue there)
        mask = np.repeat(self.support.T, m, axis=0)
        self.support_residual = float(np.max(np.abs(self._G[~mask]), initial=0.0))
        self._G[~mask] = 0
        self.name = f"Ye-Abbe ({self.v_kind} V)"

    def _solve_B(self) -> np.ndarray:
        n, s, m, V = self.n, self.s, self.m, self.V
        t, free = n - s, n - s - m
        B = np.zeros((n * m, t), dtype=V.dtype)
        for j in range(n):
            non_holders = np.flatnonzero(~self.support[:, j])  # n - l = free workers
            rows = slice(j * m, (j + 1) * m)
            B[rows, free:] = np.eye(m)
            if free:
                # b V[:free, C] = -V[free + u, C] for the m rows (j, u) at once
                rhs = -V[free:, non_holders].T  # (free, m)
                B[rows, :free] = np.linalg.solve(V[:free, non_holders].T, rhs).T
        return B

    @property
    def encoding_matrix(self) -> np.ndarray:
        """``G = B V`` (mn x n), rows ``j m + u`` (partition j, chunk u)."""
        return self._G

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """``V_T`` ((n - s) x |T|): the matrix inverted by the server."""
        T = validate_survivors(survivors, self.n, 1)
        return self.V[:, T]

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        V_T = self.V[:, T]
        return ye_abbe_coefficients(V_T, self.m), effective_condition_number(V_T)

    def _coefficients(self, T: np.ndarray) -> np.ndarray:
        return ye_abbe_coefficients(self.V[:, T], self.m)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """See :func:`ye_abbe_decoding_cost` (independent of which n - s workers survive)."""
        return ye_abbe_decoding_cost(self.n, self.s, self.m, d)


def ye_abbe_decoding_cost(n: int, s: int, m: int, d: int = 1) -> DecodingCost:
    """Multiply-adds of Ye-Abbe decoding: invert V_T (Kadhe et al. 2019, Section II-B).

    LU of the t x t matrix V_T, ``t^3 / 3``, plus ``m`` solves, ``2 m t^2``
    (t = n - s), then ``t m ceil(d/m)`` to combine the received vectors.
    Computable without building the code (for large n).

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers.
    m : int
        Communication reduction.
    d : int
        Gradient length.

    Returns
    -------
    DecodingCost
        Setup (LU and solves) and apply multiply-adds.

    Examples
    --------
    >>> from gctheory.codes import ye_abbe_decoding_cost
    >>> ye_abbe_decoding_cost(100, 10, 5, d=1000)
    DecodingCost(setup=324000, apply=90000, method='invert V_T')
    """
    n = check_positive_int("n", n)
    s = check_positive_int("s", s, minimum=0)
    m = check_positive_int("m", m)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    t = n - s
    r = -(-check_positive_int("d", d) // m)
    return DecodingCost(setup=t**3 // 3 + 2 * m * t * t, apply=t * m * r, method="invert V_T")


def ye_abbe_coefficients(V_T: np.ndarray, m: int) -> np.ndarray:
    """Decoding coefficients ``A`` (|T| x m) from the survivors' columns ``V_T`` of V.

    Solves ``V_T A = [0; I_m]`` ((n - s) x |T| system; minimum-norm least
    squares when |T| > n - s or V_T is exactly singular). This is the whole
    decoding work of the Ye-Abbe scheme (Kadhe et al. 2019, Section II-B) and
    needs only V, not B or G, so it can be timed at large n without building
    the code.

    Parameters
    ----------
    V_T : numpy.ndarray, shape (n - s, |T|)
        The survivors' columns of V.
    m : int
        Communication reduction.

    Returns
    -------
    numpy.ndarray, shape (|T|, m)
        The coefficients ``A`` with ``V_T A = [0; I_m]``.

    Examples
    --------
    >>> from gctheory.codes import YeAbbeCode, ye_abbe_coefficients
    >>> code = YeAbbeCode(6, s=2, m=2)
    >>> A = ye_abbe_coefficients(code.V[:, :4], 2)
    >>> A.shape
    (4, 2)
    """
    single = getattr(V_T, "dtype", None) in (np.float32, np.complex64)
    V_T = check_array(V_T, "V_T", ndim=2, complex_ok=True)
    if single:  # solved in the precision given, as before the check
        V_T = V_T.astype(np.complex64 if V_T.dtype.kind == "c" else np.float32)
    m = check_positive_int("m", m)
    if V_T.ndim != 2 or V_T.shape[0] > V_T.shape[1] or m > V_T.shape[0]:
        raise ValueError(
            f"V_T must be (n - s) x |T| with |T| >= n - s >= m, got shape {V_T.shape}, m={m}"
        )
    t = V_T.shape[0]
    Q = np.zeros((t, m), dtype=V_T.dtype)
    Q[t - m :, :] = np.eye(m)
    if V_T.shape[1] == t:
        try:
            return np.linalg.solve(V_T, Q)
        except np.linalg.LinAlgError:  # exactly singular: least squares, residual reports it
            pass
    return np.linalg.lstsq(V_T, Q, rcond=None)[0]
