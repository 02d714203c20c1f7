"""The common interface of every gradient code: :class:`GradientCode`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gctheory.codes._decoding import GenericDecoding
from gctheory.codes._linalg import (
    _join_chunks,
    split_chunks,
)
from gctheory.codes._precision import (
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
    Survivors,
    _survivors_mask,
    check_positive_int,
    validate_survivors,
)
from gctheory.codes.base._results import DecodeResult, DecodingCost, _show_list
from gctheory.codes.io import CodeIO  # save / save_tandon_B

__all__ = ["GradientCode"]


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
