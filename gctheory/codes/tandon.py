"""Tandon et al.'s gradient codes: fractional repetition and cyclic-MDS (m = 1).

Each worker i sends one linear combination ``sum_j B[i, j] g_j`` of its
partial gradients; the server finds ``a`` with ``a^T B_T = 1^T`` from any
``n - s`` survivors T. Both families have load ``s + 1`` when ``k = n``, the
minimum possible (Tandon et al. 2017, Theorem 1), so they meet eq. (1) of
Kadhe et al. 2019 with equality for m = 1.

- :class:`FractionalRepetitionCode`: Tandon et al. Section 3.1 (Algorithm 1);
  ``(s + 1) | n``, workers in n/(s+1) groups, each group holds its own block
  of partitions and every worker of the group sends the block sum.
- :class:`CyclicMDSCode`: cyclic placement, worker i holds partitions
  i, ..., i+s (mod n). ``construction="random"`` is Tandon et al.'s
  Algorithm 2 (a random s x n matrix H with ``H 1 = 0``; each row of B has
  support of size s+1, ``B[i, i] = 1`` and lies in the null space of H);
  ``construction="deterministic"`` takes H to be s rows of the DFT matrix
  whose frequencies form an arithmetic progression with step coprime to n
  (avoiding 0), i.e. the rows of B are cyclic shifts of the generator
  polynomial of a (complex or real) cyclic BCH code as in Raviv, Tamo,
  Tandon, Dimakis 2018 (cyclic-MDS gradient codes), computed in closed form.
  It is real when n - s is odd, complex otherwise.
- :class:`MatrixGradientCode`: any given n x k matrix B with a claimed
  tolerance s (e.g. Tandon et al.'s n = 3, s = 1 example).

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017.
.. [2] Raviv, Tamo, Tandon, Dimakis, "Gradient coding from cyclic MDS codes
   and expander graphs", ICML 2018.
.. [3] Kadhe, Koyluoglu, Ramchandran 2019, eq. (1) and Remark 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_choice, check_int, check_memory
from gctheory.codes.base import (
    DecodingCost,
    GradientCode,
    check_positive_int,
    validate_survivors,
)

__all__ = [
    "MatrixGradientCode",
    "FractionalRepetitionCode",
    "CyclicMDSCode",
    "cyclic_support",
    "group_residual",
]


def _check_ns(n: Any, s: Any) -> tuple[int, int]:
    n = check_positive_int("n", n)
    s = check_positive_int("s", s, minimum=0)
    if s >= n:
        raise ValueError(f"s must be < n (at least one worker must survive), got s={s}, n={n}")
    return n, s


def cyclic_support(n: int, load: int) -> np.ndarray:
    """The cyclic placement of Tandon et al. 2017: worker i holds i, ..., i+load-1 (mod n).

    Parameters
    ----------
    n : int
        Workers (= partitions).
    load : int
        Partitions per worker, ``1 <= load <= n``.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        ``support[i, j]``: worker i holds partition j.

    Examples
    --------
    >>> from gctheory.codes import cyclic_support
    >>> cyclic_support(4, 2).astype(int)
    array([[1, 1, 0, 0],
           [0, 1, 1, 0],
           [0, 0, 1, 1],
           [1, 0, 0, 1]])
    """
    n = check_positive_int("n", n)
    load = check_positive_int("load", load)
    if load > n:
        raise ValueError(f"load must be <= n, got load={load}, n={n}")
    check_memory(n * n, "n", f"the {n} x {n} placement")
    S = np.zeros((n, n), dtype=bool)
    for i in range(n):
        S[i, (i + np.arange(load)) % n] = True
    return S


def _one_per_group(T: np.ndarray, group: np.ndarray, groups: int) -> tuple[np.ndarray, int]:
    """Coefficients (|T|, 1) with a single 1 for one survivor of each group present, and
    the number of groups present."""
    pick = np.full(groups, -1, dtype=np.int64)
    pick[group] = np.arange(T.size)  # one of the survivors of each group wins
    chosen = pick[pick >= 0]
    A = np.zeros((T.size, 1))
    A[chosen, 0] = 1.0
    return A, chosen.size


def group_residual(missing_groups: int, per_group: int, k: int) -> float:
    """Relative residual of a one-survivor-per-group decode, in closed form.

    With a 0/1 placement whose groups hold disjoint blocks of ``per_group``
    partitions and coefficient 1 on one survivor of each present group,
    ``E_T a - 1`` is exactly -1 on the partitions of the ``missing_groups``
    groups without a survivor and 0 elsewhere, so
    ``||E_T a - 1|| / sqrt(k) = sqrt(missing_groups per_group / k)``:
    the residual check at the cost of a count, no product with B.
    Integers with ``0 <= missing_groups``, ``0 <= per_group`` and ``k >= 1``.

    Parameters
    ----------
    missing_groups : int
        Groups with no survivor.
    per_group : int
        Partitions per group.
    k : int
        Total partitions.

    Returns
    -------
    float
        ``sqrt(missing_groups per_group / k)``.

    Examples
    --------
    >>> from gctheory.codes import group_residual
    >>> round(group_residual(1, 3, 12), 6)
    0.5
    """
    if type(missing_groups) is not int or type(per_group) is not int or type(k) is not int:
        missing_groups = check_int(missing_groups, "missing_groups", low=0)
        per_group = check_int(per_group, "per_group", low=0)
        k = check_int(k, "k", low=1)
    elif missing_groups < 0 or per_group < 0 or k < 1:  # the decoders' ints: checked cheaply
        check_int(missing_groups, "missing_groups", low=0)
        check_int(per_group, "per_group", low=0)
        check_int(k, "k", low=1)
    if missing_groups * per_group > k:
        raise ValueError(
            f"missing_groups * per_group must be <= k (the missing partitions are among the k), "
            f"got {missing_groups} * {per_group} > {k}"
        )
    return math.sqrt(missing_groups * per_group / k)


class MatrixGradientCode(GradientCode):
    """A gradient code (m = 1) given by its n x k encoding matrix B: worker i sends ``B[i] @ g``.

    ``s`` is the claimed tolerance (checked by tests, not here); ``support`` is
    the non-zero pattern of B. Decoding is the generic least-squares solve of
    ``a^T B_T = 1^T`` (Tandon et al. 2017, Section 2).

    Parameters
    ----------
    B : array_like, shape (n, k)
        The encoding matrix.
    s : int
        The claimed straggler tolerance.
    name : str
        Display name.

    Examples
    --------
    >>> from gctheory.codes import MatrixGradientCode
    >>> import numpy as np
    >>> B = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]) / 2
    >>> code = MatrixGradientCode(2 * B, s=0)
    >>> g = np.ones((3, 2))
    >>> code.decode([0, 1, 2], code.encode(g)).round(6).tolist()
    [3.0, 3.0]
    """

    s: int  # an exact code: the tolerance is always given

    def __init__(self, B: Any, s: int, *, name: str = "matrix gradient code") -> None:
        B = check_array(B, "B", complex_ok=True, min_size=0)
        if B.ndim != 2 or B.shape[0] < 1 or B.shape[1] < 1:
            raise ValueError(f"B must be an n x k matrix, got shape {B.shape}")
        self.n, self.k = B.shape
        _check_ns(self.n, s)
        self.s = int(s)
        self.m = 1
        self.B = B.astype(np.result_type(B.dtype, float))
        self.support = self.B != 0
        self.load = int(self.support.sum(axis=1).max())
        self.name = name

    @property
    def encoding_matrix(self) -> np.ndarray:
        return self.B.T

    def _residual(self, T: np.ndarray, A: np.ndarray) -> float:
        """``||a^T B_T - 1|| / sqrt(k)`` from the rows of B the decoder used (m = 1)."""
        a = A[:, 0]
        used = np.flatnonzero(a)
        R = self.B.take(T.take(used), axis=0).T.dot(a.take(used))
        R -= 1.0
        return float(np.sqrt(np.vdot(R, R).real / self.k))


class FractionalRepetitionCode(MatrixGradientCode):
    """Fractional repetition gradient code (Tandon et al. 2017, Section 3.1).

    Parameters
    ----------
    n : int
        Workers; ``s + 1`` must divide n.
    s : int
        Stragglers tolerated, ``0 <= s < n``.
    k : int, optional
        Partitions (default n); must be a multiple of the number of groups
        ``n / (s + 1)``. Load is ``k (s + 1) / n`` (= s + 1 for k = n).

    Notes
    -----
    Decoding takes one survivor per group (cost O(n), condition number 1).

    Examples
    --------
    >>> from gctheory.codes import FractionalRepetitionCode
    >>> import numpy as np
    >>> code = FractionalRepetitionCode(6, 2)  # 2 groups of 3 workers
    >>> code, code.group_of(4)
    (FractionalRepetitionCode(n=6, k=6, load=3, m=1, s=2), 1)
    >>> g = np.arange(12.0).reshape(6, 2)
    >>> survivors = [0, 1, 4, 5]  # workers 2 and 3 straggle
    >>> code.decode(survivors, code.encode(g)[survivors]).tolist(), g.sum(axis=0).tolist()
    ([30.0, 36.0], [30.0, 36.0])
    """

    def __init__(self, n: int, s: int, k: int | None = None) -> None:
        n, s = _check_ns(n, s)
        if n % (s + 1):
            raise ValueError(f"s + 1 must divide n for fractional repetition, got n={n}, s={s}")
        groups = n // (s + 1)
        k = n if k is None else check_positive_int("k", k)
        if k % groups:
            raise ValueError(f"the number of groups n/(s+1) = {groups} must divide k, got k={k}")
        check_memory(17 * n * k, "n", f"the {n} x {k} coding matrix (and its support)")
        per = k // groups
        B = np.zeros((n, k))
        for g in range(groups):
            B[g * (s + 1) : (g + 1) * (s + 1), g * per : (g + 1) * per] = 1.0
        super().__init__(B, s, name="fractional repetition")
        self.groups = groups

    def group_of(self, worker: int) -> int:
        return worker // (self.s + 1)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        """One survivor per group (the last of each group in the order given), vectorised."""
        return _one_per_group(T, T // (self.s + 1), self.groups)[0], 1.0

    def _coefficients_residual(
        self, T: np.ndarray, alive: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        """One survivor per group and the residual in closed form (:func:`group_residual`)."""
        A, present = _one_per_group(T, T // (self.s + 1), self.groups)
        return A, group_residual(self.groups - present, self.k // self.groups, self.k)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """One survivor per group: ``n`` look-ups, then ``groups * d`` additions."""
        d = check_positive_int("d", d)
        return DecodingCost(setup=self.n, apply=self.groups * d, method="one survivor per group")


class CyclicMDSCode(MatrixGradientCode):
    """Cyclic-MDS gradient code (Tandon et al. 2017): k = n, worker i holds i..i+s (mod n).

    Parameters
    ----------
    n, s : int
        Workers and tolerated stragglers, ``0 <= s < n``.
    construction : {"random", "deterministic"}
        ``"random"``: Tandon et al. 2017, Algorithm 2 (Gaussian H with
        ``H 1 = 0``; MDS property with probability one).
        ``"deterministic"``: the cyclic code whose parity checks are s DFT
        rows with frequencies in arithmetic progression ``a, a + r, ...,
        a + (s - 1) r`` (r coprime to n, none = 0 mod n): MDS by the BCH bound
        (the roots are s consecutive powers of the primitive root
        ``omega^r``), as in Raviv et al. 2018. Every row of B is a cyclic shift
        of the generator polynomial, computed in closed form (product of its
        linear factors, see Notes). B is real when n - s is odd (the
        progression is then symmetric about 0 or n/2, conjugation-closed),
        complex otherwise.
    rng : seed for the random construction (keyword-only).

    Notes
    -----
    Row i of B solves ``H[:, S_i] b = 0`` with ``b_i = 1`` on its support
    ``S_i = {i, ..., i+s}``; it lies in null(H) (dimension n - s, containing
    the all-ones vector), and any n - s rows span null(H), so ``1^T`` is a
    combination of any n - s rows.

    The deterministic construction builds B from the generator polynomial
    ``g(x) = prod_f (x - omega^f) / prod_f (-omega^f)`` (so ``b_i = 1``), shifted,
    from its linear factors with no linear solve; the step r of the frequencies is
    chosen to spread the roots around the unit circle (among the r coprime to n
    near n / s, the one whose g has the smallest largest coefficient; r = 1 only if
    nothing else qualifies).

    Limits: the conditioning of the straggler submatrices ``B_T`` grows with n at
    fixed s/n for both constructions (about 3.5e6 for the worst straggler block of
    the deterministic code at n = 100, s = 10). Check a code before relying on it
    at large n with :func:`gctheory.codes.verify_straggler_sets` (every straggler
    set when there are few, a sample otherwise) or
    :func:`gctheory.codes.decoding_error`; decoding refuses a system whose
    condition number makes the result meaningless.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode
    >>> import numpy as np
    >>> code = CyclicMDSCode(6, 2, construction="deterministic")
    >>> code.load, code.is_complex
    (3, True)
    >>> g = np.arange(12.0).reshape(6, 2)
    >>> survivors = [0, 1, 3, 5]  # workers 2 and 4 straggle
    >>> np.real(code.decode(survivors, code.encode(g)[survivors])).round(6).tolist()
    [30.0, 36.0]
    """

    def __init__(self, n: int, s: int, *, construction: str = "random", rng: Any = None) -> None:
        n, s = _check_ns(n, s)
        check_choice(construction, "construction", ("random", "deterministic"))
        # B (complex while built), its real copy and its support
        check_memory(33 * n * n, "n", f"the {n} x {n} coding matrix")
        if construction == "random":
            gen = as_generator(rng)
            H = gen.standard_normal((s, n))
            if s:
                H[:, -1] = -H[:, :-1].sum(axis=1)
        elif construction == "deterministic":
            self.frequencies = self._frequencies(n, s)
            H = np.exp(2j * np.pi * np.outer(self.frequencies, np.arange(n)) / n)
        else:
            raise ValueError(
                f"construction must be 'random' or 'deterministic', got {construction!r}"
            )
        B = np.zeros((n, n), dtype=H.dtype)
        if construction == "deterministic":
            g = self._generator_polynomial(n, self.frequencies)
            for i in range(n):
                B[i, (i + np.arange(s + 1)) % n] = g
        else:
            for i in range(n):
                others = (i + 1 + np.arange(s)) % n
                B[i, i] = 1.0
                if s:
                    B[i, others] = np.linalg.solve(H[:, others], -H[:, i])
        if np.iscomplexobj(B) and np.max(np.abs(B.imag)) <= 1e3 * np.finfo(float).eps * max(
            1.0, np.max(np.abs(B))
        ):
            B = B.real.copy()
        super().__init__(B, s, name=f"cyclic-MDS ({construction})")
        self.construction = construction
        self.H = H

    @staticmethod
    def _generator_polynomial(n: int, freqs: np.ndarray) -> np.ndarray:
        """Coefficients ``g_0..g_s`` (``g_0 = 1``) of ``prod_f (x - omega^f)``, normalised.

        Built by multiplying the linear factors one at a time (no linear solve);
        conjugation-closed root sets give real coefficients up to rounding.
        """
        roots = np.exp(2j * np.pi * np.asarray(freqs) / n)
        g = np.ones(1, dtype=complex)  # g[k] = coefficient of x^k
        for z in roots:
            g = np.concatenate([-z * g, [0]]) + np.concatenate([[0], g])
        return g / g[0]

    @staticmethod
    def _frequencies(n: int, s: int) -> np.ndarray:
        """Parity-check frequencies ``a + r j`` (j < s) of the deterministic construction.

        r runs over the integers coprime to n within 3 of n / s (and 1); a
        makes the set symmetric (``F = -F`` mod n, so B is real) when n - s is
        odd; otherwise a = 1. Sets containing 0 are skipped (``H 1 = 0`` needs f != 0). Among
        the rest, the r whose generator polynomial has the smallest largest
        coefficient wins (its roots are spread most evenly), ties to the
        smaller r.
        """
        if s == 0:
            return np.zeros(0, dtype=int)
        best = None
        target = n / s
        steps = {1} | {r for r in range(max(1, int(target) - 3), int(target) + 4) if r < n}
        for r in sorted(steps):
            if math.gcd(r, n) != 1:
                continue
            if (n - s) % 2:  # symmetric about 0 (n odd) or n/2 (n even): conjugation-closed
                half = (s - 1) * r * pow(2, -1, n) if n % 2 else (s - 1) // 2 * r
                a = ((n // 2 if n % 2 == 0 else 0) - half) % n
                F = (a + r * np.arange(s)) % n
            else:  # n - s even: no conjugation-closed progression avoids 0, B complex
                F = (1 + r * np.arange(s)) % n
            if np.any(F == 0):
                continue
            size = float(np.max(np.abs(CyclicMDSCode._generator_polynomial(n, F))))
            if best is None or size < best[0]:
                best = (size, F)
        if best is None:
            raise ValueError(f"no parity-check frequency progression avoids 0 for n={n}, s={s}")
        return best[1]

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """``B_T`` (|T| x n): the server solves ``a^T B_T = 1^T``."""
        T = validate_survivors(survivors, self.n, 1)
        return self.B[T]
