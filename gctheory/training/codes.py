"""The gradient codes of the training simulator's coded schemes, built from ``code_options``.

:func:`build_code` turns a scheme name of :data:`gctheory.training.SCHEMES`,
``n`` workers, the ``s = n - K`` stragglers the server does not wait for and
the scheme's ``code_options`` into a code of :mod:`gctheory.codes`. Each
family accepts the options listed in :data:`CODE_OPTIONS` and nothing else;
every option is checked (its rule and valid range in the message) before any
code is built.

Families and their defaults:

- ``expander`` (Raviv, Tamo, Tandon, Dimakis 2020, Section V): ``graph``
  ``"random"`` (a random d-regular graph, ``d`` default ``max(3, ceil(ln n))``
  raised by one when ``n d`` is odd) or ``"margulis"`` (the explicit
  Margulis / Gabber-Galil 8-regular graph on ``Z_m x Z_m``, ``n = m^2``), or
  an explicit ``adjacency``; ``decoder`` ``"optimal"`` (least squares) or
  ``"fixed"`` (``n / |K|`` on the survivors).
- ``graph_assignment`` (Glasgow and Wootters 2021): the ``n`` workers are the
  edges of a random d-regular graph on ``k = 2 n / d`` data blocks (or of an
  explicit ``adjacency`` with ``n`` edges); optimal (least-squares) decoding.
- ``bibd`` (Kadhe, Koyluoglu, Ramchandran, ISIT 2019): workers are the ``v = n``
  points of a (v, block_size, lam) design, data partitions its blocks;
  default the projective plane PG(2, q) when ``n = q^2 + q + 1`` or the affine
  plane AG(2, q) when ``n = q^2`` (q a prime power).
- ``sgc`` (Bitar, Wootters, El Rouayheb 2020): the unbiased estimator scaled
  for straggling probability ``p`` (default ``s / n``, the fraction of workers
  the server does not wait for); placement ``"cyclic"`` (partition j on
  workers j..j+d-1, ``d`` default ``s + 1``) or ``"pairwise-balanced"`` (the
  ``n`` workers are the blocks of a design whose points are the partitions).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory._validate import check_choice, check_int, check_probability
from gctheory.codes._design_families import prime_power

__all__ = ["CODE_OPTIONS", "build_code"]

#: The ``code_options`` each coded scheme accepts (``wait_for`` is taken by
#: :func:`gctheory.training.make_scheme` for the approximate codes).
CODE_OPTIONS: dict[str, tuple[str, ...]] = {
    "cyclic_mds": ("construction",),
    "frc": ("k",),
    "ye_abbe": ("V", "nodes"),
    "commfr": ("k", "family", "nodes"),
    "rs": ("k", "w"),
    "dfrc": ("d", "decoder"),
    "brc": ("eps", "b", "decoder"),
    "bgc": ("p", "k"),
    "expander": ("d", "graph", "adjacency", "decoder"),
    "graph_assignment": ("d", "graph", "adjacency", "decoder"),
    "isgc": ("design_s", "placement", "c1", "groups"),
    "bibd": ("block_size", "lam", "decoder"),
    "sgc": ("p", "placement", "d", "v", "block_size", "lam"),
}


def _codes_attr(family: str, attr: str) -> Any:
    from gctheory import codes

    if not hasattr(codes, attr):
        raise ValueError(f"scheme {family!r} needs gctheory.codes.{attr}, not available")
    return getattr(codes, attr)


def _check_keys(family: str, opts: dict[str, Any]) -> None:
    valid = CODE_OPTIONS[family]
    bad = sorted(k for k in opts if k not in valid)
    if bad:
        raise ValueError(
            f"code option(s) {bad} are not options of scheme {family!r}; its options: "
            f"{', '.join(valid) if valid else 'none'} (and wait_for for approximate codes)"
        )


def _degree(value: Any, low: int, high: int, rule: str) -> int:
    """``d`` as an int in ``[low, high]``, the message naming the option and the rule."""
    return check_int(value, f"d (--degree; {rule})", low=low, high=high)


def _adjacency(family: str, opts: dict[str, Any], n_rows: int | None) -> np.ndarray | None:
    """The explicit ``adjacency`` option (refused together with ``graph`` or ``d``)."""
    if "adjacency" not in opts:
        return None
    clash = [k for k in ("graph", "d") if k in opts]
    if clash:
        raise ValueError(
            f"{family}: give the graph either as adjacency or by {' and '.join(clash)}, not both"
        )
    adj = opts.pop("adjacency")
    try:
        A = np.asarray(adj)
    except (TypeError, ValueError):
        raise ValueError(f"{family}: adjacency must be a square integer matrix") from None
    if n_rows is not None and (A.ndim != 2 or A.shape[0] != n_rows):
        raise ValueError(
            f"{family}: adjacency must be {n_rows} x {n_rows} (one vertex per worker, "
            f"n={n_rows}), got shape {A.shape}"
        )
    return A


def _graph(family: str, opts: dict[str, Any], choices: tuple[str, ...]) -> str:
    graph = opts.pop("graph", "random")
    if family == "graph_assignment" and graph == "margulis":
        raise ValueError(
            "graph='margulis' is not available for graph_assignment: the Margulis graph has "
            "self-loops and a machine (an edge) would hold one block twice; use graph='random' "
            "or an explicit adjacency without self-loops"
        )
    return check_choice(graph, "graph (--graph)", choices)


def _expander(n: int, opts: dict[str, Any], rng: Any) -> Any:
    decoder = check_choice(opts.pop("decoder", "optimal"), "decoder", ("optimal", "fixed"))
    adj = _adjacency("expander", opts, n)
    if adj is None:
        graph = _graph("expander", opts, ("random", "margulis"))
        if graph == "margulis":
            if "d" in opts:
                _degree(opts.pop("d"), 8, 8, "the Margulis graph is 8-regular")
            m = math.isqrt(n)
            if m * m != n or m < 2:
                raise ValueError(
                    f"graph='margulis' needs n = m^2 workers with m >= 2 (the vertices of "
                    f"Z_m x Z_m: 4, 9, 16, 25, ...), got n={n}"
                )
            adj = _codes_attr("expander", "margulis_graph")(m)
        else:
            if n < 2:
                raise ValueError(f"the expander scheme needs n >= 2 workers, got n={n}")
            if "d" in opts:
                rule = f"a simple d-regular graph on n={n} vertices needs 1 <= d <= n - 1"
                deg = _degree(opts.pop("d"), 1, n - 1, rule)
                if (n * deg) % 2:
                    raise ValueError(
                        f"d (--degree) times n must be even (the degrees sum to "
                        f"twice the edges), got n={n}, d={deg}; valid: d in [1, {n - 1}] "
                        f"{'even' if n % 2 else ''}".rstrip()
                    )
            else:
                deg = max(3, math.ceil(math.log(n))) if n > 3 else n - 1
                deg += (n * deg) % 2  # n d must be even
            adj = _codes_attr("expander", "random_regular_graph")(n, deg, rng=rng)
    return _codes_attr("expander", "ExpanderCode")(adj, decoder=decoder)


def _assignment_degrees(n: int) -> list[int]:
    """Degrees d with a simple d-regular graph of n edges: d | 2n and d < 2n / d."""
    return [d for d in range(1, math.isqrt(2 * n) + 1) if (2 * n) % d == 0 and d < 2 * n // d]


def _graph_assignment(n: int, opts: dict[str, Any], rng: Any) -> Any:
    decoder = check_choice(opts.pop("decoder", "components"), "decoder", ("components", "lstsq"))
    adj = _adjacency("graph_assignment", opts, None)
    code_cls = _codes_attr("graph_assignment", "GraphAssignmentCode")
    if adj is not None:
        code = code_cls(adj, decoder=decoder)
        if code.n != n:
            raise ValueError(
                f"graph_assignment: the adjacency has {code.n} edges (machines), but n={n} "
                "workers were asked for"
            )
        return code
    _graph("graph_assignment", opts, ("random",))
    valid = _assignment_degrees(n)
    if "d" in opts:
        rule = (
            f"the n={n} workers are the n = k d / 2 edges of a simple d-regular graph on k "
            f"blocks, so d must divide 2n = {2 * n} and be < k = 2n / d; valid: {valid}"
        )
        deg = _degree(opts.pop("d"), 1, 2 * n, rule)
        if deg not in valid:
            raise ValueError(f"d (--degree) = {deg} is not valid: {rule}")
    else:
        fits = [d for d in valid if d >= 3]
        if not fits:
            raise ValueError(
                f"graph_assignment: no default degree for n={n} workers (the default is the "
                f"smallest d >= 3 with d | 2n and d < 2n / d); give d, one of {valid}"
            )
        deg = fits[0]
    k = 2 * n // deg
    adj = _codes_attr("graph_assignment", "random_regular_graph")(k, deg, rng=rng)
    return code_cls(adj, decoder=decoder)


def _default_design(n: int, what: str) -> tuple[int, int]:
    """``(v, block_size)`` of the default design for ``what`` (workers as points or blocks)."""
    # n fixes q: q^2 + q + 1 = n, q^2 = n or q^2 + q = n has at most one root q >= 2 each,
    # q = isqrt(n) or isqrt(n) - 1; planes over GF(q) exist for prime powers q
    for q in {math.isqrt(n), math.isqrt(n) - 1}:
        if q < 2 or prime_power(q) is None:
            continue
        if what == "points" and n == q * q + q + 1:
            return n, q + 1  # PG(2, q): v = b = q^2 + q + 1
        if what == "points" and n == q * q:
            return n, q  # AG(2, q): v = q^2 points
        if what == "blocks" and n == q * q + q + 1:
            return n, q + 1  # PG(2, q) is symmetric: b = v
        if what == "blocks" and n == q * q + q:
            return q * q, q  # AG(2, q): b = q^2 + q lines
    if what == "points":
        hint = "n = q^2 + q + 1 (projective planes: 7, 13, 21, 31, ...) or n = q^2 (affine "
        hint += "planes: 4, 9, 16, 25, ...), q a prime power"
    else:
        hint = "n = q^2 + q + 1 (projective planes: 7, 13, 21, 31, ...) or n = q^2 + q (affine "
        hint += "planes: 6, 12, 20, 30, ...), q a prime power"
    give = (
        "block_size (--block-size) and lam (--lam) of a design with v = n points"
        if what == "points"
        else "v (--v), block_size (--block-size) and lam (--lam) of a design with b = n blocks"
    )
    raise ValueError(f"no default design with {n} {what}: give {give}; defaults exist for {hint}")


def _design(n: int, opts: dict[str, Any], what: str) -> Any:
    lam = check_int(opts.pop("lam", 1), "lam (--lam)", low=1)
    v = opts.pop("v", None)
    size = opts.pop("block_size", None)
    if size is None and v is None and lam == 1:
        v, size = _default_design(n, what)
    elif size is None:
        raise ValueError(f"give block_size (--block-size) with {'v and ' * (v is not None)}lam")
    if v is None:
        v = n if what == "points" else None
    if v is None:
        raise ValueError("placement='pairwise-balanced' with block_size needs v (the partitions)")
    v = check_int(v, "v", low=3)
    size = check_int(size, f"block_size (--block-size; blocks of a design on v={v} points)",
                     low=2, high=v - 1)  # fmt: skip
    design = _codes_attr("bibd", "bibd")(v, size, lam)
    if what == "blocks" and design.b != n:
        raise ValueError(
            f"placement='pairwise-balanced' needs a design with b = n = {n} blocks (one per "
            f"worker); the ({v}, {size}, {lam}) design has b = {design.b}"
        )
    return design


def _bibd(n: int, opts: dict[str, Any]) -> Any:
    decoder = check_choice(opts.pop("decoder", "closed-form"), "decoder", ("closed-form", "lstsq"))
    return _codes_attr("bibd", "BIBDGradientCode")(_design(n, opts, "points"), decoder=decoder)


def _sgc(n: int, s: int, opts: dict[str, Any]) -> Any:
    p = opts.pop("p", s / n)
    p = check_probability(p, "p (--p; the straggling probability the estimator is scaled for)",
                          open_high=True)  # fmt: skip
    placement = check_choice(
        opts.pop("placement", "cyclic"), "placement (--placement)", ("cyclic", "pairwise-balanced")
    )
    cls = _codes_attr("sgc", "StochasticGradientCode")
    if placement == "cyclic":
        if "v" in opts or "block_size" in opts or "lam" in opts:
            raise ValueError(
                "v, block_size and lam are options of placement='pairwise-balanced', not 'cyclic'"
            )
        rule = f"partition j on workers j..j+d-1 of n={n}: 1 <= d <= n"
        d = _degree(opts.pop("d", min(s + 1, n)), 1, n, rule)
        return cls.cyclic(n, d, p)
    if "d" in opts:
        raise ValueError(
            "d is an option of placement='cyclic'; a pairwise-balanced placement replicates "
            "every partition on r workers (r of the design)"
        )
    return cls.pairwise_balanced(_design(n, opts, "blocks"), p)


def build_code(family: str, n: int, s: int, *, m: int = 1, rng: Any = None, **kw: Any) -> Any:
    """A code of :mod:`gctheory.codes` for the coded scheme ``family`` (see the module doc).

    ``s`` is ``n - K`` (the stragglers not waited for); ``kw`` are the
    scheme's ``code_options`` (without ``wait_for``), checked against
    :data:`CODE_OPTIONS` first.
    """
    if family not in CODE_OPTIONS:  # a code plug-in (gctheory.codes.plugins), or refused
        from gctheory.codes.plugins import code_family, plugin_families

        if family not in plugin_families():
            raise ValueError(f"scheme {family!r} is not a gradient code")
        return code_family(family).make(n, s, **kw)
    _check_keys(family, kw)
    need = _codes_attr
    if family == "cyclic_mds":
        return need(family, "CyclicMDSCode")(n, s, rng=rng, **kw)
    if family == "frc":
        return need(family, "FractionalRepetitionCode")(n, s, **kw)
    if family == "ye_abbe":
        return need(family, "YeAbbeCode")(n, s, m, rng=rng, **kw)
    if family == "commfr":
        # an MDS [N, K] code with K = m and N = s + m: (l, m, s) = (N, m, s) (Theorem 1)
        fam = kw.pop("family", "systematic")
        return need(family, "commfr_code")(n, kw.pop("k", n), s + m, m, family=fam, rng=rng, **kw)
    if family == "rs":
        return need(family, "ReedSolomonCode")(n, kw.pop("k", n), kw.pop("w", s + 1))
    if family == "dfrc":
        if "d" in kw:
            d = _degree(kw.pop("d"), 1, n, f"the replication of n={n} workers: 1 <= d <= n")
        else:
            d = max(1, math.ceil(need(family, "dfrc_theorem4_load")(n, s))) if s else 1
        return need(family, "DFractionalRepetitionCode")(n, d, rng=rng, **kw)
    if family == "brc":
        eps = kw.pop("eps", None)
        if eps is None:  # smallest eps of Theorem 6 whose degrees fit the floor(n/b) batches
            K = n // need(family, "theorem6_batch_size")(n, max(s, 1))
            fits = [e for e in (0.05, 0.1, 0.2) if _theorem6_max_degree(e) <= K]
            if not fits:
                raise ValueError(f"brc: no Theorem 6 degree distribution fits n={n}; give eps")
            eps = fits[0]
        return need(family, "BatchRaptorCode").theorem6(n, max(s, 1), eps, rng=rng, **kw)
    if family == "expander":
        return _expander(n, kw, rng)
    if family == "graph_assignment":
        return _graph_assignment(n, kw, rng)
    if family == "isgc":
        # design tolerance (storage s + 1) defaults to n - K; placement to FR when it fits
        design = check_int(kw.pop("design_s", s), "design_s (storage design_s + 1)", low=0,
                           high=n - 1)  # fmt: skip
        if kw.get("placement") == "fr":
            kw["placement"] = "frc"
        placement = kw.pop("placement", "frc" if n % (design + 1) == 0 else "cyclic")
        return need(family, "ISGCCode")(n, design, placement, **kw)
    if family == "bgc":
        p = kw.pop("p", min(1.0, math.log(n) / n))
        return need(family, "BernoulliGradientCode")(n, p, rng=rng, **kw)
    if family == "bibd":
        return _bibd(n, kw)
    return _sgc(n, s, kw)


def _theorem6_max_degree(eps: float) -> int:
    from gctheory.codes import theorem6_degree_distribution

    degrees, pmf = theorem6_degree_distribution(eps)
    return int(degrees[pmf > 0].max())
