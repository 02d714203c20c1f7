"""The common interface of every gradient code, and the linear-algebra contract behind it.

A (communication-efficient) gradient code for ``n`` workers and ``k`` data
partitions is described by

- a placement: ``support`` (n x k boolean), worker i holds partition j iff
  ``support[i, j]``; ``load`` = partitions per worker (l of Kadhe et al. 2019,
  d of Wang et al. 2019);
- a communication saving ``m``: each partial gradient g_j (length d) is
  zero-padded to length ``m * r``, ``r = ceil(d / m)``, and cut into m
  contiguous chunks ``g_j^(u) = padded[u r : (u + 1) r]`` (u = 0..m-1; this is
  the column arrangement of eq. (4) of Kadhe et al. 2019);
- a linear encoding: worker i transmits the length-r vector
  ``y_i = sum_{j, u} E[j m + u, i] g_j^(u)`` where ``E`` is the
  ``(k m) x n`` :attr:`GradientCode.encoding_matrix` (zero outside the
  placement);
- a decoding: from the survivors T the server finds coefficients
  ``A`` (|T| x m) with ``E[:, T] A = C``, where ``C[j m + u, u'] = [u == u']``
  (every partition's chunk u once, no other chunk), and outputs chunk u of the
  sum as ``sum_{i in T} A[i, u] y_i``. Exact codes find ``A`` for every T with
  ``|T| >= n - s``; approximate codes (``s is None``) take the least-squares
  ``A`` (optimal decoding, Wang et al. 2019, eqs. (4)-(5)) and report the
  error they make.

The module passed 800 lines and is split by concept: this file holds the
interface (:class:`GradientCode`, its result types, the verification); the
shared decoding machinery (generic null-space and least-squares solvers, the
residual check, the coefficient cache) is the ``gctheory.codes._decoding``
mixin, batched decoding (``decode_many``) the ``gctheory.codes._batch`` mixin
it extends, chunking, ``target_matrix`` and ``effective_condition_number`` are
in ``gctheory.codes._linalg`` and survivor validation in
``gctheory.codes._survivors``; every public name stays importable from here.

Every construction in :mod:`gctheory.codes` subclasses :class:`GradientCode`
and fills in ``encoding_matrix``; the base class then provides a generic
``encode``, a generic least-squares ``decode``, ``decoding_matrix`` and a
dense-solve cost model. Families override ``_solve`` / ``decoding_matrix`` /
``decoding_cost`` with their structured decoders (per-group solves for
CommFR-GC, inverting V_T for Ye-Abbe, Alg. 3 for Reed-Solomon, peeling for
LDPC and batch raptor codes).

Contract of the public methods (every subclass keeps it):

``encode(partials)``
    ``partials``: real or complex array (k, d) -> transmissions (n, ceil(d/m)).
``decode(survivors, received, d=None)``
    ``survivors``: distinct worker indices in [0, n), any order;
    ``received``: (len(survivors), r) transmissions in the same order.
    Returns the gradient sum (d,) (length m r when ``d`` is None).
    Exact codes raise ``ValueError`` when fewer than ``n - s`` survivors are
    given or when the survivors cannot decode (the relative residual of the
    decoding equations exceeds ``rtol``); approximate codes never raise for
    that reason and return their best estimate.
``decode_detail(...)``
    Same, returning a :class:`DecodeResult` with the condition number of the
    solved system and the achieved residual (DESIGN.md: numerical trouble is
    reported, not hidden).
``decoding_matrix(survivors)``
    The matrix the decoder solves with or inverts (its condition number
    governs the forward error).
``decoding_cost(survivors=None, d=1)``
    A :class:`DecodingCost` operation count (multiply-adds) of the decoder.

References
----------
.. [1] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding: avoiding
   stragglers in distributed learning", ICML 2017.
.. [2] Ye, Abbe, "Communication-computation efficient gradient coding",
   ICML 2018.
.. [3] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019, eq. (1), (4).
.. [4] Wang, Liu, Shroff, "Fundamental limits of approximate gradient coding",
   2019, eqs. (4)-(5).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_real
from gctheory.codes._decoding import GenericDecoding
from gctheory.codes._linalg import (
    _join_chunks,
    effective_condition_number,
    join_chunks,
    split_chunks,
    target_matrix,
)
from gctheory.codes._precision import (
    DecodingPrecisionWarning,
    abs_max,
    act,
    amplification,
    check_flag,
    check_noise_options,
    exceedances,
    input_precision,
    noise_bound,
    quick_check,
    received_scale,
)
from gctheory.codes._survivors import (
    _EPS,
    Survivors,
    _survivors_mask,
    check_positive_int,
    validate_survivors,
)
from gctheory.codes.io import CodeIO  # save / save_tandon_B

__all__ = [
    "DecodeResult",
    "DecodingPrecisionWarning",
    "DecodingCost",
    "GradientCode",
    "check_positive_int",
    "validate_survivors",
    "ye_abbe_lower_bound",
    "effective_condition_number",
    "split_chunks",
    "join_chunks",
    "target_matrix",
    "ToleranceCheck",
    "verify_straggler_sets",
]


def ye_abbe_lower_bound(n: int, k: int, s: int, m: int) -> Fraction:
    """Smallest fractional load ``l / k`` admitting (m, s): ``(s + m) / n`` (Kadhe et al. eq. (1)).

    A triple (l, m, s) is achievable by a linear code iff ``l / k >= (s + m) / n``
    (Ye and Abbe 2018, restated as eq. (1) of Kadhe et al. 2019); returned as an
    exact :class:`fractions.Fraction`.

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    s : int
        Stragglers tolerated.
    m : int
        Communication reduction.

    Returns
    -------
    fractions.Fraction
        The smallest achievable ``l / k``.

    Examples
    --------
    >>> from gctheory.codes import ye_abbe_lower_bound
    >>> ye_abbe_lower_bound(n=10, k=10, s=2, m=3)
    Fraction(1, 2)
    """
    n = check_positive_int("n", n)
    check_positive_int("k", k)
    m = check_positive_int("m", m)
    s = check_positive_int("s", s, minimum=0)
    if s >= n:
        raise ValueError(f"s must be < n (some worker must survive), got s={s}, n={n}")
    return Fraction(s + m, n)


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class DecodingCost:
    """Operation count (multiply-adds) of one decoding.

    ``setup``: finding the decoding coefficients (independent of d; the
    factorisation or peeling schedule); ``apply``: combining the received
    vectors into the gradient sum for gradient length ``d``; ``method`` names
    the decoder counted.

    Parameters
    ----------
    setup : int
        Multiply-adds to find the decoding coefficients.
    apply : int
        Multiply-adds to combine the received vectors.
    method : str
        The decoder counted.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode, DecodingCost
    >>> cost = CyclicMDSCode(5, 2, rng=0).decoding_cost([0, 2, 4], d=3)
    >>> cost
    DecodingCost(setup=90, apply=9, method='dense least squares')
    >>> cost.total
    99
    """

    setup: int
    apply: int
    method: str

    @property
    def total(self) -> int:
        return self.setup + self.apply


@dataclass(frozen=True)
class DecodeResult:
    """What a decoder produced and how trustworthy it is.

    Attributes
    ----------
    gradient : ndarray (d,)
        The decoded gradient sum (complex for complex codes).
    coefficients : ndarray (|T|, m)
        The decoding coefficients ``A`` (see the module docstring).
    condition_number : float
        Effective condition number of the system solved (for block decoders
        the largest over the blocks); the forward error is about
        ``condition_number * eps`` relative to the size of the partials.
    residual : float
        Relative residual ``||E_T A - C||_F / ||C||_F`` of the decoding
        equations: ~eps when exact decoding is possible, the decoding error in
        coefficient space for an approximate code.
    survivors : tuple of int
    exact : bool
        ``residual <= rtol`` (the survivors decode exactly up to rounding).
    noise_bound : float
        Bound on the relative forward error ``max|g_hat - g| / max|g_hat|`` that the
        precision of ``received`` (its dtype's eps, or the ``noise`` given) can cause
        through the decoding coefficients: ``noise * max_u ||A[:, u]||_1 * max|received|
        / max|g_hat|`` (see ``gctheory.codes._precision``). ``decode`` warns
        (:class:`DecodingPrecisionWarning`) or refuses when it exceeds ``rtol``.
        NaN when not computed.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import CyclicMDSCode, DecodeResult
    >>> code = CyclicMDSCode(5, 2, rng=0)
    >>> g = np.arange(15.0).reshape(5, 3)  # 5 partial gradients of length 3
    >>> r = code.decode_detail([0, 2, 4], code.encode(g)[[0, 2, 4]])
    >>> r.gradient.round(6).tolist(), r.exact, r.residual < 1e-12
    ([30.0, 35.0, 40.0], True, True)
    """

    gradient: np.ndarray = field(repr=False)
    coefficients: np.ndarray = field(repr=False)
    condition_number: float
    residual: float
    survivors: tuple[int, ...] = field(repr=False)
    exact: bool
    noise_bound: float = math.nan

    def error_bound(self, scale: float, size: int) -> float:
        """Forward-error tolerance ``10 * size * kappa * eps * scale`` for tests and checks.

        Standard perturbation bound for a linear solve: the backward error of a
        stable solver is a small multiple of ``size * eps`` and is amplified by
        at most the condition number; ``scale`` is the size of the data (e.g.
        ``sum_j max|g_j|``), ``size`` the dimension of the system.
        """
        kappa = self.condition_number if math.isfinite(self.condition_number) else 1 / _EPS
        return 10.0 * size * kappa * _EPS * scale


def _show_list(T: np.ndarray, most: int = 12) -> str:
    """A survivor list for a message, truncated past ``most`` entries."""
    items = sorted(T.tolist())
    if len(items) <= most:
        return str(items)
    head = ", ".join(str(i) for i in items[:most])
    return f"[{head}, ... ({len(items)} in all)]"


# ---------------------------------------------------------------- interface
class GradientCode(CodeIO, GenericDecoding):
    """Base class of all gradient codes (see the module docstring for the contract).

    Subclasses set ``n, k, load, m, s`` and ``support`` in ``__init__`` and
    implement the ``encoding_matrix`` property; they may override ``_solve``,
    ``decoding_matrix`` and ``decoding_cost`` with structured decoders.

    Attributes
    ----------
    n : int
        Number of workers.
    k : int
        Number of data partitions.
    load : int
        Partitions per worker (maximum row sum of ``support``).
    m : int
        Communication saving: each worker sends ceil(d/m) numbers.
    s : int or None
        Guaranteed straggler tolerance (any ``n - s`` survivors decode
        exactly); None for approximate codes.
    support : ndarray (n, k) of bool
        Placement.
    name : str
        Human-readable scheme name.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import CyclicMDSCode, GradientCode
    >>> code = CyclicMDSCode(5, 2, rng=0)  # any GradientCode subclass
    >>> code
    CyclicMDSCode(n=5, k=5, load=3, m=1, s=2)
    >>> g = np.arange(15.0).reshape(5, 3)  # one partial gradient per row
    >>> y = code.encode(g)  # what the 5 workers send
    >>> code.decode([0, 2, 4], y[[0, 2, 4]]).round(6).tolist()  # workers 1, 3 straggle
    [30.0, 35.0, 40.0]
    >>> g.sum(axis=0).tolist()
    [30.0, 35.0, 40.0]
    """

    n: int
    k: int
    load: int
    m: int
    s: int | None
    support: np.ndarray
    name: str = "gradient code"

    # -- to be provided by subclasses
    @property
    def encoding_matrix(self) -> np.ndarray:
        """The (k m) x n matrix ``E``: ``y_i = sum_{j,u} E[j m + u, i] g_j^(u)``."""
        raise NotImplementedError

    # -- derived facts
    @property
    def exact(self) -> bool:
        """True for codes with a guaranteed tolerance ``s`` (exact decoding)."""
        return self.s is not None

    @property
    def min_survivors(self) -> int:
        """Fewest survivors ``decode`` accepts: ``n - s`` (exact) or 1 (approximate)."""
        return self.n - self.s if self.s is not None else 1

    @property
    def is_complex(self) -> bool:
        return bool(np.iscomplexobj(self.encoding_matrix))

    @property
    def is_optimal(self) -> bool:
        """``load / k == (s + m) / n`` exactly: meets eq. (1) of Kadhe et al. with equality."""
        if self.s is None:
            return False
        return Fraction(self.load, self.k) == Fraction(self.s + self.m, self.n)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n={self.n}, k={self.k}, load={self.load}, m={self.m}, "
            f"s={self.s})"
        )

    # -- encoding
    def encode(self, partials: np.ndarray) -> np.ndarray:
        """Transmissions (n, ceil(d/m)) of all workers for partial gradients (k, d)."""
        P = self._check_partials(partials)
        rows, _ = split_chunks(P, self.m)
        return self.encoding_matrix.T @ rows

    def _check_partials(self, partials: Any) -> np.ndarray:
        P = np.asarray(partials)
        if P.ndim != 2 or P.shape[0] != self.k or P.shape[1] < 1:
            raise ValueError(
                f"partials must have shape (k, d) = ({self.k}, d) with d >= 1, got {P.shape}"
            )
        if not (np.issubdtype(P.dtype, np.number)):
            raise ValueError(f"partials must be numeric, got dtype {P.dtype}")
        P = P.astype(np.result_type(P.dtype, float), copy=False)
        received_scale(P, "partials")  # NaN or inf would spread to every worker silently
        return P

    @property
    def noise_exceedances(self) -> int:
        """How many decodings (survivor sets) of this object had a forward-error bound
        above ``rtol`` with ``on_noise="warn"``: only the first warned
        (:class:`DecodingPrecisionWarning`, once per code object)."""
        return exceedances(self)

    # -- decoding
    #: Most survivor sets whose decoding coefficients are kept (see :meth:`clear_decode_cache`).
    decode_cache_size: int = 1024
    #: Survivor sets an exact code with the generic decoder solves directly (least squares
    #: on ``E[:, T]``) before it makes its null-space factorisation, one SVD of E, about
    #: five such solves. 0 makes it at the first decode: then a decode's last
    #: bits never depend on the sets decoded before (runs that replay bit for bit set it).
    decode_direct_sets: int = 2

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """The matrix solved with when decoding from ``survivors``: here ``E[:, T]``."""
        T = validate_survivors(survivors, self.n, 1)
        return self.encoding_matrix[:, T]

    def decoding_coefficients(
        self, survivors: Sequence[int], *, check: bool = True
    ) -> tuple[np.ndarray, float, float]:
        """``(A, condition_number, residual)`` for ``survivors`` (no gradient needed).

        With ``check=False`` fewer than :attr:`min_survivors` are accepted
        (to measure how decoding breaks); the residual then tells.
        """
        T = validate_survivors(survivors, self.n, self.min_survivors if check else 1)
        A, res, kappa = self._coefficients_and_condition(T)
        return A, kappa, res

    def _check_received(self, T: np.ndarray, received: Any, d: int | None) -> np.ndarray:
        Y = np.asarray(received)
        if Y.ndim != 2 or Y.shape[0] != T.size:
            raise ValueError(
                f"received must have shape (len(survivors), r) = ({T.size}, r), got {Y.shape}"
            )
        if d is not None:
            d = check_positive_int("d", d)
            if -(-d // self.m) != Y.shape[1]:
                raise ValueError(
                    f"d={d} needs r = ceil(d/m) = {-(-d // self.m)} received entries, "
                    f"got {Y.shape[1]}"
                )
        return Y

    def _refuse(self, T: np.ndarray, res: float, rtol: float, kappa: float | None) -> None:
        assert self.s is not None, "only an exact code refuses a set for its residual"
        cond = f" (condition number {kappa:.3g})" if kappa is not None else ""
        raise ValueError(
            f"survivors {_show_list(T)} cannot decode the gradient sum: the decoding "
            f"equations have relative residual {res:.3g} > rtol={rtol:g}{cond}; "
            f"{type(self).__name__} guarantees decoding only from any n - s = "
            f"{self.n - self.s} survivors"
        )

    def decode_detail(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        condition: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> DecodeResult:
        """Decode and report conditioning and residual (see :class:`DecodeResult`).

        Parameters
        ----------
        survivors : sequence of int
            Distinct worker indices in [0, n), any order.
        received : array (len(survivors), r)
            Their transmissions, row i from worker ``survivors[i]``.
        d : int, optional
            Gradient length (drops the padding); default returns m r entries.
        rtol : float
            Largest relative residual of the decoding equations counted as exact.
        check : bool
            For exact codes, raise ``ValueError`` when fewer than
            :attr:`min_survivors` are given or the residual exceeds ``rtol``.
            Set False to measure a broken decoding instead (then only the
            index rules are enforced and ``exact`` in the result tells).
        condition : bool
            Compute the condition number of the solved system (an SVD, the
            dominant cost of a decode); False reports ``nan``.
        noise : float, optional
            Relative precision of the entries of ``received`` (default: the unit
            roundoff of its dtype, 1.2e-7 for float32, 2.2e-16 for float64).
        on_noise : {"warn", "raise", "ignore"}
            What to do when the forward-error bound ``noise_bound`` (see
            :class:`DecodeResult`) exceeds ``rtol``: warn with
            :class:`DecodingPrecisionWarning` (default), raise ``ValueError``, or
            nothing. The bound is reported in the result either way. A code object
            warns once: later decodings past ``rtol`` (any survivor set, here or in
            ``decode``/``decode_many``) are only counted in :attr:`noise_exceedances`.
        """
        noise = check_noise_options(noise, on_noise)
        check, condition = check_flag(check, "check"), check_flag(condition, "condition")
        T = validate_survivors(survivors, self.n, self.min_survivors if check else 1)
        Y = self._check_received(T, received, d)
        ymax = received_scale(Y)
        if condition:
            A, res, kappa = self._coefficients_and_condition(T)
        else:
            A, res = self._cached_coefficients(T)
            kappa = math.nan
        ok = res <= rtol
        if check and self.exact and not ok:
            self._refuse(T, res, rtol, kappa if condition else None)
        chunks = A.T @ Y
        bound = noise_bound(
            amplification(A), ymax, abs_max(chunks), input_precision(Y.dtype, noise)
        )
        act(bound, rtol, on_noise, lambda: f"decoding from survivors {_show_list(T)}", self)
        return DecodeResult(
            gradient=_join_chunks(chunks, d),
            coefficients=A,
            condition_number=kappa,
            residual=res,
            survivors=tuple(int(t) for t in T),
            exact=bool(ok),
            noise_bound=bound,
        )

    def decode(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> np.ndarray:
        """The gradient sum (d,) from the survivors' transmissions (see the module contract).

        The correctness check stays on: the relative residual of the decoding
        equations (O(size of the system)) must be <= ``rtol`` for an exact
        code, else ``ValueError``. So does the precision check: the forward
        error the precision of ``received`` (or ``noise``) can cause through the
        decoding coefficients must be <= ``rtol``, else a
        :class:`DecodingPrecisionWarning` (``on_noise="raise"``: ``ValueError``;
        see :meth:`decode_detail`). Non-finite ``received`` is refused. No
        condition number is computed (ask :meth:`decode_detail`). Coefficients
        of repeated survivor sets come from a cache.
        """
        if noise is not None or on_noise != "warn":
            noise = check_noise_options(noise, on_noise)
        if check is not True and check is not False:
            check = check_flag(check, "check")
        T, alive = _survivors_mask(survivors, self.n, self.min_survivors if check else 1)
        Y = self._check_received(T, received, d)
        A, res = self._cached_coefficients(T, alive)
        if check and self.s is not None and res > rtol:
            self._refuse(T, res, rtol, None)
        chunks = A.T @ Y
        quick_check(
            A,
            Y,
            chunks,
            noise,
            rtol,
            on_noise,
            lambda: f"decoding from survivors {_show_list(T)}",
            self,
        )
        return _join_chunks(chunks, d)

    # -- cost model
    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Multiply-adds of the generic dense least-squares decoder.

        Householder QR of the (k m) x t matrix ``E_T`` costs about
        ``2 (k m) t^2`` and applying ``A`` costs ``t m ceil(d/m)``; t is the
        number of survivors used (``n - s`` by default).
        """
        t = self.min_survivors if survivors is None else len(survivors)
        r = -(-check_positive_int("d", d) // self.m)
        return DecodingCost(
            setup=2 * self.k * self.m * t * t, apply=t * self.m * r, method="dense least squares"
        )


# ------------------------------------------------------------- verification
@dataclass(frozen=True)
class ToleranceCheck:
    """Outcome of :func:`verify_straggler_sets`.

    ``sets``: straggler sets tried; ``failures``: those that did not decode
    within the condition-number tolerance (or raised); ``max_error``: largest
    relative forward error ``||g_hat - g||_inf / sum_j ||g_j||_inf`` seen;
    ``max_condition``: largest condition number of a solved system;
    ``max_error_over_bound``: largest ratio of the error to its
    :meth:`DecodeResult.error_bound` (<= 1 means within tolerance).
    ``over_rtol``: sets whose decoding equations the code cannot solve to ``rtol``
    in float64 (residual above it: the code does not deliver its ``s`` there, however
    it was constructed); ``over_bound``: sets decoded with an error beyond the bound;
    ``refused``: sets that raised; ``max_residual``: the largest residual seen. ``str()``
    says how many sets exceed the tolerance.

    Parameters
    ----------
    stragglers : int
        The number of stragglers removed.
    sets : int
        Straggler sets tried.
    failures : tuple of tuple of int
        The sets that failed.
    max_error : float
        Largest relative forward error.
    max_condition : float
        Largest condition number of a solved system.
    max_error_over_bound : float
        Largest error over its bound (<= 1 within tolerance).
    exhaustive : bool
        Whether every set of that size was tried.
    over_rtol, over_bound, refused : int
        Sets whose error exceeded ``rtol``, the bound, or that the decoder refused.
    max_residual : float
        Largest relative residual of a decoding system.
    rtol : float
        The tolerance used.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode, ToleranceCheck, verify_straggler_sets
    >>> check = verify_straggler_sets(CyclicMDSCode(5, 2, rng=0), rng=0)
    >>> check.ok, check.sets, check.exhaustive, check.failures
    (True, 10, True, ())
    """

    stragglers: int
    sets: int
    failures: tuple[tuple[int, ...], ...]
    max_error: float
    max_condition: float
    max_error_over_bound: float
    exhaustive: bool
    over_rtol: int = 0
    over_bound: int = 0
    refused: int = 0
    max_residual: float = 0.0
    rtol: float = 1e-6

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        how = "every" if self.exhaustive else "a random sample of"
        if self.ok:
            return (
                f"{how} {self.sets} sets of {self.stragglers} stragglers decode within "
                f"tolerance (largest condition number {self.max_condition:.3g})"
            )
        return (
            f"{len(self.failures)} of {how} {self.sets} sets of {self.stragglers} stragglers "
            f"exceed the tolerance: {self.over_rtol} with a residual above rtol="
            f"{self.rtol:g} (largest {self.max_residual:.3g}, condition number up to "
            f"{self.max_condition:.3g}), {self.over_bound} with an error beyond the "
            f"forward bound, {self.refused} refused"
        )


def verify_straggler_sets(
    code: GradientCode,
    stragglers: int | None = None,
    *,
    d: int = 5,
    max_sets: int | None = None,
    rng: Any = None,
    rtol: float = 1e-6,
) -> ToleranceCheck:
    """Decode from every straggler set of a given size and compare with the true gradient sum.

    Random Gaussian partials (k, d); each set of ``stragglers`` workers
    (default ``code.s``) is removed, the rest decode, and the result must agree
    with ``sum_j g_j`` to within :meth:`DecodeResult.error_bound` with
    ``scale = max_u ||A[:, u]||_1 max|y| + sum_j ||g_j||_inf`` (the size of
    what the decoder adds up) and ``size = k m``, plus ``residual * k m *
    max|g|``, the part of the error fixed by the residual of the decoding
    equations (a code whose matrices came from an ill-conditioned solve is
    exact only up to that residual; ``residual > rtol`` fails anyway). A set that raises
    ``ValueError`` (cannot decode) counts as a failure. With ``max_sets``, a
    random sample of that many sets is tried instead of all
    (``exhaustive=False``). Decoding runs with ``check=False``, so sets with
    more than ``s`` stragglers are decoded as far as the algebra allows and
    counted as failures when not exact. A set whose decoding equations keep a
    residual above ``rtol`` counts as a failure too (``over_rtol``): a random
    cyclic-MDS code of n = 1000, s = 10 has such sets in float64 (condition
    numbers ~1e8-1e9), so ``code.s`` is a statement about exact arithmetic;
    ``str(result)`` says how many sets exceed the tolerance (docs/codes.md gives
    the n where random cyclic-MDS codes stop being reliable).

    Parameters
    ----------
    code : GradientCode
        The code to check.
    stragglers : int, optional
        Size of the straggler sets (default ``code.s``).
    d : int
        Length of the random partial gradients.
    max_sets : int, optional
        Check a random sample of this many sets instead of all of them.
    rng : None, int or numpy.random.Generator
        Seed of the partials and of the sample.
    rtol : float
        Relative error above which a set is reported.

    Returns
    -------
    ToleranceCheck
        The sets tried, the failures and the largest errors.

    Examples
    --------
    >>> from gctheory.codes import CyclicMDSCode, verify_straggler_sets
    >>> print(verify_straggler_sets(CyclicMDSCode(5, 2, rng=0), rng=0))
    every 10 sets of 2 stragglers decode within tolerance (largest condition number 2.16e+03)
    >>> verify_straggler_sets(CyclicMDSCode(5, 2, rng=0), stragglers=3, rng=0).ok
    False
    """
    if not isinstance(code, GradientCode):
        raise ValueError(f"code must be a GradientCode, got {type(code).__name__}")
    gen = as_generator(rng)
    e = code.s if stragglers is None else check_positive_int("stragglers", stragglers, minimum=0)
    if e is None:
        raise ValueError("stragglers must be given for an approximate code (s is None)")
    if e >= code.n:
        raise ValueError(f"stragglers must be < n={code.n}, got {e}")
    d = check_positive_int("d", d)
    if max_sets is not None:
        max_sets = check_positive_int("max_sets", max_sets)
    rtol = check_real(rtol, "rtol", low=0.0, low_open=True)
    P = gen.standard_normal((code.k, d))
    Y = code.encode(P)
    truth = P.sum(axis=0)
    scale0 = float(np.abs(P).max(axis=1).sum())
    total = math.comb(code.n, e)
    sets: Iterable[tuple[int, ...]]
    if max_sets is None or total <= max_sets:
        sets = itertools.combinations(range(code.n), e)
        exhaustive = True
    else:
        sets = (
            tuple(sorted(gen.choice(code.n, e, replace=False).tolist())) for _ in range(max_sets)
        )
        exhaustive = False
    failures: list[tuple[int, ...]] = []
    count, max_err, max_kappa, max_ratio = 0, 0.0, 0.0, 0.0
    over_rtol = over_bound = refused = 0
    max_res = 0.0
    for S in sets:
        count += 1
        alive = np.setdiff1d(np.arange(code.n), S)
        try:
            # the error is measured here, against its own bound: no precision warning
            res = code.decode_detail(
                alive, Y[alive], d, check=False, condition=True, rtol=rtol, on_noise="ignore"
            )
        except ValueError:
            failures.append(tuple(S))
            refused += 1
            continue
        err = float(np.abs(res.gradient - truth).max())
        scale = float(np.abs(res.coefficients).sum(axis=0).max() * np.abs(Y[alive]).max()) + scale0
        # rounding in the solve (condition number) plus the exactly-known part of the error
        # carried by the residual R = E_T A - C of the decoding equations as built:
        # |R^T P| <= max|P| sqrt(km) ||R||_F and ||R||_F = residual sqrt(km)
        km = code.k * code.m
        bound = res.error_bound(scale, km) + res.residual * km * float(np.abs(P).max())
        max_err = max(max_err, err / scale0)
        max_kappa = max(max_kappa, res.condition_number)
        max_ratio = max(max_ratio, err / bound)
        max_res = max(max_res, res.residual)
        over_rtol += not res.exact
        over_bound += err > bound
        if not res.exact or err > bound:
            failures.append(tuple(S))
    return ToleranceCheck(
        stragglers=e,
        sets=count,
        failures=tuple(failures),
        max_error=max_err,
        max_condition=max_kappa,
        max_error_over_bound=max_ratio,
        exhaustive=exhaustive,
        over_rtol=int(over_rtol),
        over_bound=int(over_bound),
        refused=refused,
        max_residual=max_res,
        rtol=rtol,
    )
