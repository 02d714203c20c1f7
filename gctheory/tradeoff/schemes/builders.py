"""The builders of the atlas by scheme name (:data:`BUILDERS`, in the order of
:data:`TRADEOFF_SCHEMES`) and the rows of installed code plug-ins
(:mod:`gctheory.codes.plugins`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gctheory.tradeoff.schemes.approximate import APPROXIMATE_BUILDERS
from gctheory.tradeoff.schemes.context import TRADEOFF_SCHEMES, CannotExist, Context, _finish
from gctheory.tradeoff.schemes.exact import EXACT_BUILDERS, _exact_code_fields
from gctheory.tradeoff.schemes.expander import EXPANDER_BUILDERS
from gctheory.tradeoff.schemes.generator import GENERATOR_BUILDERS
from gctheory.tradeoff.schemes.times import time_fields
from gctheory.tradeoff.table import make_row

__all__ = ["BUILDERS", "plugin_builders"]

_ALL = {**EXACT_BUILDERS, **GENERATOR_BUILDERS, **APPROXIMATE_BUILDERS, **EXPANDER_BUILDERS}

#: builders, by scheme name; each returns the scheme's rows at (s, m) or raises CannotExist.
BUILDERS: dict[str, Callable[[Context, int, int], list[dict[str, Any]]]] = {
    name: _ALL[name] for name in TRADEOFF_SCHEMES
}


def _plugin(family: Any, ctx: Context, s: int, m: int) -> list[dict[str, Any]]:
    """The row of a code plug-in (:mod:`gctheory.codes.plugins`) at ``(n, s)``.

    From the family's own ``tradeoff(n, s)`` columns when it has one, else read
    off the code ``family.make(n, s)`` builds: ``k``, the load in units of
    ``1/n`` of the data (``load n / k``), messages ``1/m``, and, for an exact
    code (``s`` not None), failure 0 as the family declares it. Time (with a
    delay): the ``ignore-s`` order statistic scaled by the load, messages ``tau / m``.
    A family that cannot be built there is refused (``CannotExist``), as a built-in is.
    """
    name = family.name
    try:
        if family.tradeoff is not None:
            fields = dict(family.tradeoff(ctx.n, s))
        else:
            code = family.make(ctx.n, s)
            if code.s is not None and code.s < s:
                raise ValueError(f"the code built tolerates s = {code.s} < {s} stragglers")
            fields = {"k": code.k, "load": code.load * ctx.n / code.k, "m": code.m,
                      "communication": 1 / code.m, "exact": code.s is not None}  # fmt: skip
            if code.s is not None:
                fields.update(_exact_code_fields(s))
                fields["guarantee"] += f" ({type(code).__name__}, as the plug-in declares)"
    except ValueError as exc:
        raise CannotExist(str(exc)) from None
    kind = fields.pop("kind", "exact" if fields.get("exact") else "approximate")
    fields.setdefault("source", f"code plug-in {family.source}")
    fields.setdefault("load_value", fields.get("load"))
    mm = int(fields.pop("m", 1))
    fields.setdefault("communication", 1 / mm)
    notes: list[str] = []
    if "load" in fields and "time" not in fields:
        t, notes = time_fields(ctx, s, 1, layout="ignore-s", scale=float(fields["load"]),
                                mc=s in ctx.mc_s)  # fmt: skip
        for key in ("time", "time_mc", "time_low", "time_high"):
            if t.get(key) is not None:
                t[key] += ctx.tau * (1 / mm - 1)  # messages of 1/m take tau / m
        fields = {**t, **fields}
    for key in ("scheme", "n", "s"):  # the row's own, not the family's to say
        fields.pop(key, None)
    row = make_row(name, kind, n=ctx.n, s=s, m=mm, **fields)
    return [_finish(row, notes)]


def plugin_builders() -> dict[str, Callable[[Context, int, int], list[dict[str, Any]]]]:
    """Row builders of the installed code plug-ins, by family name (read when asked)."""
    from functools import partial

    from gctheory.codes.plugins import plugin_families

    fams = plugin_families()
    return {k: partial(_plugin, f) for k, f in fams.items() if k not in BUILDERS}
