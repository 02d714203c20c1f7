"""The asymptotic closed-form lower bounds of Wang et al. [1] for a uniformly random
straggler set: exact recovery with high probability (Theorem 3, eq. (13), and the
fixed point (29) of its proof), and error at most ``eps * n`` with high probability
(Theorem 5 as stated, and eq. (52) of its proof: the two differ).

Every closed form here is base-free (a ratio of logarithms); they are evaluated in
mpmath and rounded exactly to an integer load. At a finite ``n`` they are a guide:
:mod:`.finite_n` gives bounds valid at that ``n``.

.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

from typing import Any

import mpmath

from gctheory.load_bounds._common import (
    _DPS,
    LoadBound,
    _check_eps,
    _check_ns,
    _emit,
    _lower_load,
)

__all__ = ["exact_recovery_lower_bound", "approximate_recovery_lower_bound"]


def _decreasing_note(a: Any, L: Any) -> str | None:
    """The closed forms read (a + 2 ln L) / L with L = ln(1/delta); d/dL < 0 iff a + 2 ln L > 2."""
    if a + 2 * mpmath.log(L) < 2:
        return (
            f"the closed form decreases as s grows here (ln(1/delta)={float(L):.4g} < "
            f"exp((2 - a)/2)={float(mpmath.exp((2 - a) / 2)):.4g}): the substitution "
            "d0 ~ log(n)/log(1/delta) of its derivation has broken down at this n; "
            "see min_load_lower_bound for a finite-n bound"
        )
    return None


def exact_recovery_lower_bound(
    n: int, s: int, form: str = "theorem", *, warn: bool = True
) -> LoadBound:
    """Minimum load of a code whose decoding fails with probability o(1) (Wang et al., Thm 3).

    ``s = delta n`` stragglers chosen uniformly at random; the code must
    recover the gradient exactly (``err(A_S) = 0``) with probability
    ``1 - o(1)`` as ``n -> infinity``.

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``), stragglers (``0 <= s < n``).
    form : {"theorem", "proof"}
        ``"theorem"``: eq. (13), ``d >= log(n log^2(1/delta) / log^2 n) / log(1/delta)``.
        ``"proof"``: the proof's eq. (29), the strict ``d > d0`` with
        ``d0 = log(n e log^2(1/delta) / log^2 n) / log(1/delta)`` (the extra
        ``e`` comes from ``delta^d0 n / d0^2 -> 1/e``; (13) drops it, so (13) is
        lower by ``1 / log(1/delta)``).
    warn : bool
        Emit :class:`LoadBoundRegimeWarning` when out of regime (default True).

    Returns
    -------
    LoadBound
        Asymptotic lower bound. Regime: ``s = Omega(1)`` (for ``s = 0``,
        ``d* = 1`` exactly), ``delta = Omega(1/n)``. The closed form is only
        meaningful where it increases with ``s``; it decreases (and can go
        negative) when ``2 ln ln(1/delta) < 2 - a`` with ``a = ln n - 2 ln ln n``
        (+1 for the proof form), e.g. ``delta > 0.55`` at ``n = 1000``: a
        warning says so.

    Examples
    --------
    >>> from gctheory.load_bounds import exact_recovery_lower_bound
    >>> b = exact_recovery_lower_bound(1000, 100)
    >>> round(b.value, 4), b.load, b.asymptotic
    (2.0458, 3, True)
    """
    n, s = _check_ns(n, s)
    if form not in ("theorem", "proof"):
        raise ValueError(f"form must be 'theorem' or 'proof', got {form!r}")
    src = "Wang et al. 2019, Theorem 3, eq. (13)"
    if form == "proof":
        src = "Wang et al. 2019, proof of Theorem 3, eq. (29)"
    regime = "s = Omega(1), delta = s/n in [Omega(1/n), Theta(1)], n -> infinity"
    if s == 0:
        return LoadBound(1.0, 1, "lower", src, regime, asymptotic=False)
    with mpmath.workdps(_DPS):
        L = mpmath.log(mpmath.mpf(n) / s)
        a = mpmath.log(n) - 2 * mpmath.log(mpmath.log(n)) + (1 if form == "proof" else 0)
        value = (a + 2 * mpmath.log(L)) / L
        note = _decreasing_note(a, L)
        strict = form == "proof"
        b = LoadBound(
            float(value),
            _lower_load(value, strict),
            "lower",
            src,
            regime,
            asymptotic=True,
            strict=strict,
            notes=(note,) if note else (),
        )
    return _emit(b, warn)


def approximate_recovery_lower_bound(
    n: int, s: int, eps: float, form: str = "theorem", *, warn: bool = True
) -> LoadBound:
    """Minimum load of an eps-approximate gradient code (Wang et al. 2019, Thm 5).

    The code must satisfy ``P[err(A_S) > eps n] = o(1)`` (eq. (7)).

    Parameters
    ----------
    n, s : int
        Workers (``n >= 2``), stragglers (``0 <= s < n``).
    eps : float
        Error level in ``[0, 1)``; the theorem assumes ``eps < O(1/log^2 n)``
        (a :class:`LoadBoundRegimeWarning` is emitted for ``eps >= 1/ln^2 n``,
        i.e. reading the O-constant as 1).
    form : {"theorem", "proof"}
        ``"theorem"``: Theorem 5 as stated,
        ``d >= log(n log^2(1/delta) / ((2 eps n + 4) log^2 n)) / log(1/delta)``.
        ``"proof"``: eq. (52) of Appendix E, with ``c = eps n``:
        ``d >= log(n log^2(1/delta) / ((2c + 4) log^2(n / (2c + 4)))) / log(1/delta)``.
        The two differ in the inner ``log^2``: ``log^2 n`` versus
        ``log^2(n/(2c+4))``; the proof's is the larger bound. The paper's
        example (Sec. 4.1, ``n = 1000, s = 100``: "0.01-approximate needs 2")
        matches the proof's eq. (52) (1.20 -> 2), not the statement (0.67 -> 1).
    warn : bool
        Emit warnings when out of regime (default True).

    Returns
    -------
    LoadBound
        Asymptotic lower bound. Regime: ``0 <= eps < O(1/log^2 n)``,
        ``s = Omega(1)``, and the proof assumes ``d = o(s)``.

    Examples
    --------
    >>> from gctheory.load_bounds import approximate_recovery_lower_bound
    >>> b = approximate_recovery_lower_bound(1000, 10, 0.01)
    >>> round(b.value, 4), b.load
    (0.6338, 1)
    >>> b = approximate_recovery_lower_bound(1000, 100, 0.01, warn=False)  # outside its regime
    >>> b.in_regime, len(b.notes) > 0
    (False, True)
    """
    n, s = _check_ns(n, s)
    e = _check_eps(eps)
    if form not in ("theorem", "proof"):
        raise ValueError(f"form must be 'theorem' or 'proof', got {form!r}")
    src = (
        "Wang et al. 2019, Theorem 5 (as stated)"
        if form == "theorem"
        else "Wang et al. 2019, proof of Theorem 5, eq. (52)"
    )
    regime = "0 <= eps < O(1/log^2 n), s = Omega(1), d = o(s), n -> infinity"
    if s == 0:
        return LoadBound(1.0, 1, "lower", src, regime)
    notes = []
    with mpmath.workdps(_DPS):
        lnn = mpmath.log(n)
        e_mp = mpmath.mpf(e.numerator) / e.denominator
        if e_mp >= 1 / lnn**2:
            notes.append(f"eps={float(e):g} >= 1/ln^2(n)={float(1 / lnn**2):.4g}")
        c4 = 2 * e_mp * n + 4
        if form == "proof":
            if c4 >= n:
                raise ValueError(
                    f"eq. (52) needs n > 2 eps n + 4 (log^2(n/(2c+4)) > 0), got n={n}, eps={eps}"
                )
            a = mpmath.log(n / c4) - 2 * mpmath.log(mpmath.log(n / c4))
        else:
            a = mpmath.log(n / c4) - 2 * mpmath.log(lnn)
        L = mpmath.log(mpmath.mpf(n) / s)
        value = (a + 2 * mpmath.log(L)) / L
        note = _decreasing_note(a, L)
        if note:
            notes.append(note)
        if value >= s:
            notes.append(
                f"bound {float(value):.4g} >= s={s}: the proof's assumption d = o(s) fails"
            )
        b = LoadBound(
            float(value),
            _lower_load(value, False),
            "lower",
            src,
            regime,
            asymptotic=True,
            notes=tuple(notes),
        )
    return _emit(b, warn)
