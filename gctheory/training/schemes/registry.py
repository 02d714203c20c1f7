"""The registry of training schemes: :data:`SCHEMES`, their aliases, and :func:`make_scheme`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_flag, check_int, check_real
from gctheory.training.codes import build_code as _code
from gctheory.training.schemes.base import Scheme
from gctheory.training.schemes.coded import Coded
from gctheory.training.schemes.grouped import Grouped
from gctheory.training.schemes.sequential import Sequential
from gctheory.training.schemes.uncoded import LGC, AsynchronousSGD, IgnoreStragglers, WaitAll

__all__ = ["SCHEMES", "make_scheme"]


_ALIASES = {
    "ksgd": "ignore",
    "forget-s": "ignore",
    "forget_s": "ignore",
    "full": "gd",
    "gc": "cyclic_mds",
    "graph-assignment": "graph_assignment",
    "stochastic": "sgc",
    "sr-sgc": "sr_sgc",
    "m-sgc": "m_sgc",
}
SCHEMES: dict[str, str] = {
    "gd": "wait for all n workers (uncoded GD, Full-SGD)",
    "ignore": "ignore stragglers: fastest K of n, uncoded (K-SGD, forget-s)",
    "lgc": "LGC-SGD: fastest K now, stragglers compensated next iteration (Xu et al. 2021)",
    "asysg": "asynchronous SGD: update after every K results, stale gradients (Wang et al. 2019)",
    "cyclic_mds": "Tandon et al. cyclic-MDS gradient code, load s+1 (alias gc)",
    "frc": "Tandon et al. fractional repetition code, (s+1) | n",
    "ye_abbe": "Ye-Abbe communication-efficient code, load s+m",
    "commfr": "CommFR-GC on an MDS code (Kadhe et al. 2019)",
    "rs": "Reed-Solomon gradient code (Halbawi et al. 2017)",
    "dfrc": "d-fractional repetition code, approximate (Wang et al. 2019)",
    "brc": "batch raptor code, approximate, peeling decoder (Wang et al. 2019)",
    "bgc": "Bernoulli gradient code, approximate (Wang et al. 2019)",
    "expander": "expander-graph code, approximate, random d-regular or Margulis graph, "
    "optimal or fixed decoder (Raviv et al. 2020)",
    "graph_assignment": "graph assignment code: workers are a d-regular graph's edges, "
    "optimal decoding (Glasgow & Wootters 2021)",
    "bibd": "BIBD code: workers are a block design's points, optimal decoding "
    "(Kadhe et al. ISIT 2019)",
    "sgc": "stochastic gradient coding: unbiased estimator, cyclic or pair-wise balanced "
    "placement (Bitar et al. 2020)",
    "isgc": "IS-GC: largest partial sum of an FR / cyclic / hybrid placement (ignore stragglers)",
    "sr_sgc": "selective-repeat sequential GC, gradients T = B rounds late (Krishnan et al. 2023)",
    "m_sgc": "multiplexed sequential GC, gradients W - 2 + B rounds late (Krishnan et al. 2023)",
    "lag": "LAG-PS: lazily selected workers, no redundancy (Zhang & Simeone 2020)",
    "ggd": "grouped GD: groups of r workers each storing the group's data",
    "glag": "grouped LAG (Zhang & Simeone 2020, Algorithm 2)",
    "lagc": "lazily aggregated gradient coding (Zhang & Simeone 2020, Algorithm 1)",
}


def _canon(scheme: str) -> str:
    """The :data:`SCHEMES` key of a scheme name: the canonical, hyphenated names of
    :data:`gctheory._names.SCHEME_NAMES` (``cyclic-mds``, ``d-frc``, ``uncoded``) and these
    keys are accepted; the other old spellings (``gc``, ``ksgd``, ...) with a
    DeprecationWarning until 0.3."""
    import warnings

    from gctheory._names import SCHEME_ALIASES, SCHEME_NAMES, training_key

    raw = str(scheme).lower()
    if raw in SCHEMES:
        return raw
    norm = raw.replace("_", "-")
    if norm in SCHEME_NAMES:
        return training_key(norm)
    if raw in _ALIASES or norm in SCHEME_ALIASES:
        canonical = SCHEME_ALIASES.get(norm) or SCHEME_ALIASES[_ALIASES[raw].replace("_", "-")]
        warnings.warn(
            f"scheme name {scheme!r} is deprecated and stops working in 0.3; use {canonical!r}",
            DeprecationWarning,
            stacklevel=3,
        )
        return training_key(canonical)
    from gctheory.codes.plugins import plugin_families  # third-party codes (entry points)

    if raw in plugin_families():
        return raw
    raise ValueError(
        f"unknown scheme {scheme!r}; valid schemes: {', '.join(SCHEME_NAMES)} "
        f"(code plug-ins: {', '.join(plugin_families()) or 'none installed'})"
    )


def make_scheme(
    scheme: str,
    n: int,
    *,
    K: int | None = None,
    s: int | None = None,
    r: int | None = None,
    groups: int | None = None,
    m: int = 1,
    xi: float = 0.1,
    D: int = 10,
    blocks: int = 4,
    partial_work: bool = False,
    linear_scaling: bool = True,
    warmup: int = 0,
    code_options: dict[str, Any] | None = None,
    rng: Any = None,
) -> Scheme:
    """Build one scheme for ``n`` workers.

    Parameters
    ----------
    scheme : str
        A name of :data:`SCHEMES` (or an alias).
    n : int
        Number of workers.
    K, s : int
        Number of workers waited for (``K``) or stragglers tolerated
        (``s = n - K``); for ``ignore``, ``lgc``, ``asysg`` (results per update)
        and the gradient codes.
    r : int
        Storage redundancy for ``ggd``, ``glag``, ``lagc`` (Zhang & Simeone 2020).
    groups : int
        Number of groups for ``lagc`` (``ggd``/``glag`` use n/r groups).
    m : int
        Communication saving of ``ye_abbe`` / ``commfr`` (Kadhe et al. 2019).
    xi, D : float, int
        LAG constants of rule (13)/(17) (weight and memory); defaults
        ``xi = 0.1 = 1/D``, ``D = 10`` as in Chen et al. 2018's experiments.
    blocks, partial_work, linear_scaling, warmup :
        LGC options (Xu et al. 2021, Algorithm 1, eq. (6)); see :class:`LGC`.
    code_options : dict
        Options of the gradient code (:data:`gctheory.training.codes.CODE_OPTIONS`
        lists each scheme's; any other key is a ``ValueError``), e.g.
        ``{"d": 4}`` (replication of ``dfrc``, degree of ``expander``,
        ``graph_assignment`` and cyclic ``sgc``), ``{"graph": "margulis"}``
        (``expander`` on the Margulis graph, ``n = m^2``), ``{"decoder":
        "fixed"}`` (``expander``), ``{"placement": "hybrid", "c1": 2,
        "groups": 5}`` (``isgc``), ``{"block_size": 3, "lam": 1}`` (``bibd``),
        ``{"p": 0.2, "placement": "pairwise-balanced"}`` (``sgc``);
        approximate codes also take ``wait_for``.
    rng : None, int or numpy.random.Generator
        Seed of the random constructions.

    Returns
    -------
    Scheme
        The scheme object the simulator runs (its ``code`` where it has one).

    Examples
    --------
    >>> make_scheme("expander", 16, s=3, code_options={"graph": "margulis"}).code.d
    8
    >>> make_scheme("dfrc", 20, s=4, code_options={"d": 5}).code.d
    5
    """
    name = _canon(scheme)
    n = check_int(n, "n", low=1)
    K = _workers_waited_for(n, K, s)
    if code_options is not None and not isinstance(code_options, Mapping):
        raise ValueError(
            f"code_options must be a dict of keyword arguments or None, got {code_options!r}"
        )
    opts = dict(code_options or {})
    # every argument given is checked, whether or not this scheme reads it
    if r is not None:
        r = check_int(r, "r", low=1, high=n)
    if groups is not None:
        groups = check_int(groups, "groups", low=1, high=n)
    m = check_int(m, "m", low=1)
    xi = check_real(xi, "xi", low=0.0)
    D = check_int(D, "D", low=1)
    blocks = check_int(blocks, "blocks", low=1)
    warmup = check_int(warmup, "warmup", low=0)
    partial_work = check_flag(partial_work, "partial_work")
    linear_scaling = check_flag(linear_scaling, "linear_scaling")
    if rng is not None and not isinstance(rng, np.random.Generator):
        as_generator(rng)  # refuses booleans, negative and non-integer seeds by name
    if name in ("gd", "asysg", "ignore", "lgc"):
        return _uncoded(name, n, K, blocks, partial_work, linear_scaling, warmup)
    if name in ("lag", "ggd", "glag", "lagc"):
        return _grouped(name, n, r, groups, xi, D, rng)
    if name in ("sr_sgc", "m_sgc"):
        return _sequential(name, n, s, opts)
    return _coded(name, n, K, m, opts, rng)


def _workers_waited_for(n: int, K: Any, s: Any) -> int | None:
    """``K`` from ``K`` or ``s = n - K`` (checked; None when neither is given)."""
    if s is not None:
        s = check_int(s, "s", low=0, high=n - 1)
    if K is not None and s is not None and K != n - s:
        raise ValueError(f"give K or s, not both inconsistent ones (K={K}, s={s}, n={n})")
    if K is None and s is not None:
        K = n - s
    if K is not None:
        if isinstance(K, (int, np.integer)) and K > n:
            raise ValueError(
                f"K must be at most n={n} (cannot wait for more workers than exist), got K={K}"
            )
        K = check_int(K, "K", low=1, high=n)
    return K


def _uncoded(name: str, n: int, K: int | None, blocks: int, partial_work: bool,
             linear_scaling: bool, warmup: int) -> Scheme:  # fmt: skip
    """GD, asynchronous SGD, ignore-stragglers, LGC."""
    if name == "gd":
        return WaitAll(n)
    if K is None:
        what = "K (results per update)" if name == "asysg" else "K (workers waited for)"
        raise ValueError(f"scheme {name!r} needs {what} or s")
    if name == "asysg":
        return AsynchronousSGD(n, K)
    if name == "ignore":
        return IgnoreStragglers(n, K)
    return LGC(
        n,
        K,
        check_int(blocks, "blocks", low=1),
        bool(partial_work),
        bool(linear_scaling),
        check_int(warmup, "warmup", low=0),
    )


def _grouped(name: str, n: int, r: int | None, groups: int | None, xi: float, D: int,
             rng: Any) -> Scheme:  # fmt: skip
    """The lazily aggregated schemes of Zhang & Simeone 2020 (LAG, GGD, G-LAG, LAGC)."""
    if name == "lag":
        return Grouped(n, n, 1, True, "lag", xi, D)
    if r is None:
        raise ValueError(f"scheme {name!r} needs the storage redundancy r")
    r = check_int(r, "r", low=1, high=n)
    if name in ("ggd", "glag"):
        if n % r:
            raise ValueError(
                f"r must divide n for {name!r} (groups of r workers), got n={n}, r={r}"
            )
        return Grouped(n, n // r, r, name == "glag", name, xi, D)
    if groups is None:
        raise ValueError("scheme 'lagc' needs the number of groups")
    groups = check_int(groups, "groups", low=1, high=n)
    if n % groups:
        raise ValueError(f"groups must divide n, got n={n}, groups={groups}")
    if r >= n // groups:
        raise ValueError(
            f"lagc needs r < n/groups = {n // groups} (use glag for r = n/groups), got r={r}"
        )
    return Grouped(
        n,
        groups,
        r,
        True,
        "lagc",
        xi,
        D,
        code_factory=lambda ng, ss: _code("cyclic_mds", ng, ss, rng=rng),
    )


def _sequential(name: str, n: int, s: int | None, opts: dict[str, Any]) -> Scheme:
    """SR-SGC and M-SGC (Krishnan et al. 2023), with code_options B, W, lam, mu."""
    bad = sorted(set(opts) - {"B", "W", "lam", "mu"})
    if bad:
        raise ValueError(f"{name} takes code_options B, W, lam, mu; got unknown {bad}")
    lam = opts.get("lam", s if s else 1)
    return Sequential(n, name, check_int(opts.get("B", 1), "B", low=1),
                      check_int(opts.get("W", 2), "W", low=2), check_int(lam, "lam", low=1),
                      opts.get("mu", 1.0))  # fmt: skip


def _coded(name: str, n: int, K: int | None, m: int, opts: dict[str, Any], rng: Any) -> Scheme:
    """A gradient code: waits for ``K`` (or ``wait_for`` of an approximate code) workers."""
    wait_for = opts.pop("wait_for", None)
    if K is None and wait_for is None:
        raise ValueError(f"scheme {name!r} needs K (workers waited for) or s")
    s_ = n - (K if K is not None else wait_for)
    code = _code(name, n, s_, m=check_int(m, "m", low=1), rng=rng, **opts)
    if code.s is not None:
        f = n - code.s
        if K is not None and K != f:
            raise ValueError(f"{name} with s={code.s} waits for n - s = {f} workers, got K={K}")
    else:
        f = K if K is not None else wait_for
    return Coded(code, int(f), name)
