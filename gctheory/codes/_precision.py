"""How much a decoder amplifies the rounding (or noise) already in what it receives.

Private to :mod:`gctheory.codes` (one concept: the forward-error bound of the
combination step, shared by ``decode``, ``decode_detail`` and ``decode_many``).

The decoder outputs chunk u of the sum as ``sum_{i in T} A[i, u] y_i``. If each
received entry carries a relative error of at most ``noise`` (its dtype's unit
roundoff when it was rounded to float32, say, or a stated noise level), the
output moves by at most ``noise * ||A[:, u]||_1 * max|y|`` in each entry of
chunk u, so relative to the decoded gradient the forward error is at most

    bound = noise * max_u ||A[:, u]||_1 * max|y| / max|g_hat|

(first order; ``>= noise`` always, since ``max|g_hat| <= max_u ||A[:, u]||_1
max|y|``). The residual check of the decoding equations cannot see this: the
coefficients may be exact while the combination cancels large terms. All
three quantities are at hand after a decode (``A`` is |T| x m, the maxima are
one pass over ``received`` and over the output), so the check costs no solve.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_real

# the shared True/False checker (check="no" was read as true), re-exported for
# the decoders that import it from here
from gctheory._validate import check_flag as check_flag

__all__ = ["DecodingPrecisionWarning", "NOISE_ACTIONS"]

#: what ``decode`` does when the bound exceeds ``rtol``
NOISE_ACTIONS = ("warn", "raise", "ignore")


class DecodingPrecisionWarning(UserWarning):
    """The decoded gradient may be wrong beyond ``rtol``: the decoding coefficients amplify
    the precision of the received values (their dtype's eps, or ``noise``) past it.

    Examples
    --------
    >>> from gctheory.codes import DecodingPrecisionWarning
    >>> issubclass(DecodingPrecisionWarning, UserWarning)
    True
    """


def check_noise_options(noise: Any, on_noise: Any) -> float | None:
    """``noise`` (None, or a relative precision in [0, 1)) and ``on_noise`` checked."""
    check_choice(on_noise, "on_noise", NOISE_ACTIONS)
    if noise is None:
        return None
    return check_real(noise, "noise", low=0.0, high=1.0, high_open=True)


_EPS_OF: dict[np.dtype, float] = {}


def input_precision(dtype: np.dtype, noise: float | None) -> float:
    """``noise`` if stated, else the unit roundoff of ``dtype`` (float64's for integers,
    which are exact but are combined in float64)."""
    if noise is not None:
        return noise
    eps = _EPS_OF.get(dtype)
    if eps is None:
        eps = _EPS_OF[dtype] = float(np.finfo(dtype if dtype.kind in "fc" else float).eps)
    return eps


def sum_of_squares(Y: np.ndarray) -> float:
    """``||Y||_F^2`` in one BLAS pass (no temporary): NaN or inf when ``Y`` holds a
    non-finite entry (or overflows; then :func:`received_scale` tells which)."""
    if Y.dtype.kind not in "biufc":
        raise ValueError(f"received must be a numeric array, got dtype {Y.dtype}")
    if Y.dtype.kind in "biu":
        return 0.0  # integers are finite; their scale is taken exactly when needed
    return float(np.vdot(Y, Y).real)


def quick_check(
    A: np.ndarray,
    Y: np.ndarray,
    chunks: np.ndarray,
    noise: float | None,
    rtol: float,
    on_noise: str,
    what: Callable[[], str],
    owner: Any = None,
) -> None:
    """The fast path of ``decode``: refuse non-finite ``Y`` and check the forward-error
    bound, taking ``max|Y|`` exactly only when the cheap ``||Y||_F >= max|Y|`` does not
    already show the bound is below ``rtol``.

    Cost: one BLAS pass over ``Y`` (``||Y||_F``; about the cost of the combination
    ``A^T Y`` itself when m = 1) and a few over ``A`` and the output. With
    ``on_noise="ignore"`` no pass over ``Y``: a non-finite entry of ``Y`` with a
    non-zero coefficient makes the output non-finite, so the output is checked instead
    (one with a zero coefficient does not reach the sum).
    """
    if Y.dtype.kind not in "biufc":
        raise ValueError(f"received must be a numeric array, got dtype {Y.dtype}")
    if on_noise == "ignore":
        if chunks.size and not math.isfinite(float(np.vdot(chunks, chunks).real)):
            received_scale(Y)  # names the non-finite entries (else a huge Y overflowed)
        return
    sq = sum_of_squares(Y)
    if not math.isfinite(sq) or Y.dtype.kind in "biu":
        ymax = received_scale(Y)  # raises for NaN / inf; else a huge finite Y overflowed
    else:
        ymax = math.sqrt(sq)  # an upper bound of max|Y|
    eps = input_precision(Y.dtype, noise)
    # cheap first: max_u ||A_u||_1 <= sqrt(|T| ||A||_F^2), max|g| >= ||g||_F / sqrt(size)
    if chunks.size and A.size:
        amp_hi = math.sqrt(A.shape[0] * float(np.vdot(A, A).real))
        g_lo = math.sqrt(float(np.vdot(chunks, chunks).real) / chunks.size)
        if eps * amp_hi * ymax <= rtol * g_lo:
            return
    gmax = abs_max(chunks)
    amp = amplification(A)
    if eps * amp * ymax <= rtol * gmax:
        return
    bound = noise_bound(amp, received_scale(Y), gmax, eps)
    act(bound, rtol, on_noise, what, owner, stacklevel=4)  # act, quick_check, decode, caller


def abs_max(X: np.ndarray) -> float:
    """``max|X|`` (0 for an empty array)."""
    if X.size == 0:
        return 0.0
    if X.dtype.kind == "c":
        return float(np.abs(X).max())
    return max(float(X.max()), -float(X.min()))


def received_scale(Y: np.ndarray, name: str = "received") -> float:
    """``max|Y|``; refuses non-finite entries (NaN, inf) and non-numeric arrays, one pass."""
    if Y.dtype.kind not in "biufc":
        raise ValueError(f"{name} must be a numeric array, got dtype {Y.dtype}")
    if Y.size == 0:
        return 0.0
    if Y.dtype.kind == "c":
        top = float(np.abs(Y).max())
    else:
        top = max(float(Y.max()), -float(Y.min()))  # no |Y| temporary; NaN propagates
    if not math.isfinite(top):
        hint = (
            " (a straggler's missing row is left out of the survivors, not sent as NaN)"
            if name == "received"
            else ""
        )
        raise ValueError(f"{name} must hold finite numbers, got NaN or infinite entries{hint}")
    return top


def noise_bound(amplification: float, ymax: float, gmax: float, eps: float) -> float:
    """``eps * amplification * ymax / gmax`` (0 when nothing is amplified, inf when the
    output is exactly 0 but the inputs are not)."""
    top = eps * amplification * ymax
    if top == 0:
        return 0.0
    if gmax == 0 or not math.isfinite(gmax):
        return math.inf
    return top / gmax


def amplification(A: np.ndarray) -> float:
    """``max_u ||A[:, u]||_1`` of the decoding coefficients (|T| x m)."""
    if A.size == 0:
        return 0.0
    return float(np.abs(A).sum(axis=0).max())


#: where a code object keeps how many decodings exceeded ``rtol`` (see :func:`act`)
TALLY = "_noise_exceedances"


def exceedances(code: Any) -> int:
    """How many decodings of ``code`` (survivor sets, for ``decode_many``) had a
    forward-error bound above ``rtol`` under ``on_noise="warn"``."""
    return int(code.__dict__.get(TALLY, 0)) if hasattr(code, "__dict__") else 0


def act(
    bound: float,
    rtol: float,
    on_noise: str,
    what: str | Callable[[], str],
    owner: Any = None,
    sets: int = 1,
    stacklevel: int = 3,
) -> None:
    """Warn or raise (per ``on_noise``) when ``bound > rtol``; ``what`` (or what it
    returns, made only then) says which decoding.

    ``"raise"`` refuses every time. ``"warn"`` warns once per code object ``owner``
    (one warning per distinct survivor set spammed a training loop): ``sets``
    decodings (survivor sets) above ``rtol`` are added to the code's tally
    (:func:`exceedances`, ``code.noise_exceedances``) and only the first time the tally
    leaves 0 is a :class:`DecodingPrecisionWarning` issued, saying so. Without an
    ``owner`` every call warns.
    """
    if on_noise == "ignore" or not bound > rtol:
        return
    first = True
    if on_noise == "warn" and owner is not None:
        before = exceedances(owner)
        owner.__dict__[TALLY] = before + sets
        first = before == 0
    if not first:
        return
    msg = (
        f"{what if isinstance(what, str) else what()}: the decoding coefficients amplify the "
        "precision of received to a "
        f"relative forward error of up to {bound:.3g} > rtol={rtol:g} (pass noise= for "
        "the input's real precision; on_noise='ignore' to accept it)"
    )
    if on_noise == "raise":
        raise ValueError(msg)
    if owner is not None:
        msg += (
            "; warned once per code object: later decodings past rtol are counted in "
            "code.noise_exceedances"
        )
    warnings.warn(msg, DecodingPrecisionWarning, stacklevel=stacklevel)
