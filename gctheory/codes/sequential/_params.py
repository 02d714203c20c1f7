"""The (B, W, lambda) parameters of sequential gradient coding, checked, and the two
schemes' tolerance and loads (Krishnan, Ebrahimi & Khisti 2023, Sections 3.1-3.2).

Private to :mod:`gctheory.codes.sequential` (import the names from there).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["check_sgc_params", "sr_sgc_s", "sr_sgc_load", "m_sgc_load"]


def _int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_sgc_params(n: int, B: int, W: int, lam: int, scheme: str = "model") -> None:
    """Raise ``ValueError`` naming the parameter and the rule when (n, B, W, lambda) is invalid.

    ``scheme``: ``"model"`` (the straggler model only: n >= 1, B >= 1, W >= 2,
    B <= W, 1 <= lambda <= n), ``"sr-sgc"`` (also B <= W - 1 and B divides
    W - 1) or ``"m-sgc"`` (also B <= W - 1).

    Parameters
    ----------
    n : int
        Workers.
    B : int
        Burst length of the straggler model.
    W : int
        Window length.
    lam : int
        Stragglers allowed per round inside a burst.
    scheme : {"model", "sr-sgc", "m-sgc"}
        Which rules apply.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        A broken rule, naming the parameter.

    Examples
    --------
    >>> from gctheory.codes.sequential import check_sgc_params
    >>> check_sgc_params(4, 1, 3, 2, "sr-sgc")
    >>> check_sgc_params(4, 2, 2, 2, "sr-sgc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: sr-sgc needs B <= W - 1 (no scheme for B = W = 2: the...
    """
    _int("n", n, 1)
    _int("B", B, 1)
    if isinstance(W, bool) or not isinstance(W, (int, np.integer)) or W < 2:
        raise ValueError(f"W must be an integer >= 2 (a window of at least two rounds), got {W!r}")
    _int("lambda", lam, 1)
    if lam > n:
        raise ValueError(f"lambda must satisfy lambda <= n (= {n}): got lambda = {lam}")
    if B > W:
        raise ValueError(f"B must satisfy B <= W (a burst fits in its window): B={B}, W={W}")
    if scheme == "model":
        return
    if scheme not in ("sr-sgc", "m-sgc"):
        raise ValueError(f"scheme must be 'model', 'sr-sgc' or 'm-sgc', got {scheme!r}")
    if B > W - 1:
        raise ValueError(
            f"{scheme} needs B <= W - 1 (no scheme for B = W = {W}: "
            "the window holds only one burst)"
        )
    if scheme == "sr-sgc" and (W - 1) % B:
        raise ValueError(f"sr-sgc needs B to divide W - 1: B={B}, W - 1={W - 1}")
    if scheme == "sr-sgc" and sr_sgc_s(B, W, lam) > n - 1:
        raise ValueError(
            f"sr-sgc needs s = ceil(B lambda/(W-1+B)) <= n - 1, got s = {sr_sgc_s(B, W, lam)}"
        )


def sr_sgc_s(B: int, W: int, lam: int) -> int:
    """SR-SGC's per-round tolerance ``s = ceil(B lambda / (W - 1 + B))`` (Krishnan et al. 2023).

    Parameters
    ----------
    B : int
        Burst length.
    W : int
        Window length.
    lam : int
        Stragglers per round.

    Returns
    -------
    int
        ``ceil(B lambda / (W - 1 + B))``.

    Examples
    --------
    >>> from gctheory.codes.sequential import sr_sgc_s
    >>> sr_sgc_s(1, 3, 2), sr_sgc_s(2, 3, 4)
    (1, 2)
    """
    # B=True, lam=nan or an array B came back as numbers or raised ZeroDivisionError
    B = _int("B", B, 1)
    if isinstance(W, bool) or not isinstance(W, (int, np.integer)) or W < 2:
        raise ValueError(f"W must be an integer >= 2 (a window of at least two rounds), got {W!r}")
    lam = _int("lam (lambda)", lam, 1)
    return -(-(B * lam) // (W - 1 + B))


def sr_sgc_load(n: int, B: int, W: int, lam: int) -> Fraction:
    """Normalised load of SR-SGC, ``(s + 1) / n`` (Krishnan et al. 2023).

    Parameters
    ----------
    n : int
        Workers.
    B : int
        Burst length of the straggler model.
    W : int
        Window length.
    lam : int
        Stragglers allowed per round inside a burst.

    Returns
    -------
    fractions.Fraction
        ``(s + 1) / n``.

    Examples
    --------
    >>> from gctheory.codes.sequential import sr_sgc_load
    >>> sr_sgc_load(4, 1, 3, 2)
    Fraction(1, 2)
    """
    check_sgc_params(n, B, W, lam, "sr-sgc")
    return Fraction(sr_sgc_s(B, W, lam) + 1, n)


def m_sgc_load(n: int, B: int, W: int, lam: int) -> Fraction:
    """Normalised load of M-SGC, the formula of Krishnan et al. 2023 (D2 empty when lambda = n).

    Parameters
    ----------
    n : int
        Workers.
    B : int
        Burst length of the straggler model.
    W : int
        Window length.
    lam : int
        Stragglers allowed per round inside a burst.

    Returns
    -------
    fractions.Fraction
        The normalised load.

    Examples
    --------
    >>> from gctheory.codes.sequential import m_sgc_load
    >>> m_sgc_load(4, 1, 3, 2)
    Fraction(9, 28)
    """
    check_sgc_params(n, B, W, lam, "m-sgc")  # an array B raised TypeError
    if lam == n:
        return Fraction(W - 1 + B, n * (W - 1))
    return Fraction((lam + 1) * (W - 1 + B), n * (B + (W - 1) * (lam + 1)))
