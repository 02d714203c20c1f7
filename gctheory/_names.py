"""Names a module and the command line share, in a module that imports nothing.

The ``gctheory`` command offers these as ``choices`` and in its help, and building
the parser must stay cheap (``gctheory --version`` and ``--help`` import neither
scipy nor matplotlib). Each tuple or mapping is defined once, here, and re-exported
by the module that owns the concept under its public name (``gctheory.runtime.SCHEMES``
is :data:`RUNTIME_SCHEMES`, the same object); ``tests/test_cli.py`` checks that.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "COMMFR_FAMILIES",
    "COMPARE_SCHEMES",
    "C_CHEN_DONGARRA",
    "DELAY_LAWS",
    "GENERATOR_FAMILIES",
    "PREFACTORS",
    "RUNTIME_SCHEMES",
    "SCHEME_ALIASES",
    "SCHEME_NAMES",
    "SIMULATED_ONLY",
    "STABILITY_FAMILIES",
    "TRADEOFF_AXES",
    "TRADEOFF_SCHEMES",
    "VANDERMONDE_NODES",
    "ZHANG_SCHEMES",
]

#: :data:`gctheory.runtime.SCHEMES`: the schemes whose expected iteration time is modelled.
RUNTIME_SCHEMES = ("uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc")

#: :data:`gctheory.runtime.ZHANG_SCHEMES`: the six schemes of Zhang & Simeone 2020.
ZHANG_SCHEMES = ("GD", "GC", "LAG", "G-GD", "G-LAG", "LAGC")

#: :data:`gctheory.conditioning.C_CHEN_DONGARRA`: the Chen-Dongarra constant (Kadhe et al.
#: 2019, eq. (7)).
C_CHEN_DONGARRA = 6.414

#: :data:`gctheory.conditioning.PREFACTORS`: the two readings of the leading factor: eq. (7)
#: of Kadhe et al. (= Chen-Dongarra) and Lemma 1.
PREFACTORS = ("eq7", "lemma1")

#: :data:`gctheory.generators.VANDERMONDE_NODES`: the node sets of the Vandermonde generators.
VANDERMONDE_NODES = ("equispaced", "chebyshev", "roots_of_unity")

#: :data:`gctheory.generators.GENERATOR_FAMILIES`: the generator families, in the order of
#: their registry (``gctheory.generators`` builds its tuple from the registry and
#: ``tests/test_cli.py`` checks the two agree).
GENERATOR_FAMILIES = (
    "gaussian",
    "vandermonde-equispaced",
    "vandermonde-chebyshev",
    "vandermonde-roots-of-unity",
    "chebyshev-vandermonde",
    "legendre",
    "rotation-embedding",
    "circulant-embedding",
    "rkrp",
)

#: :data:`gctheory.delays.LAWS`: the laws fitted to measured delays.
DELAY_LAWS = ("shifted_exp", "pareto", "weibull", "gamma", "lognormal", "mixture")

#: :data:`gctheory.codes.COMMFR_FAMILIES`: the [N, K] code families of :func:`commfr_code`.
COMMFR_FAMILIES = (
    "gaussian",
    "systematic",
    "vandermonde",
    "vandermonde-complex",
    "systematic-vandermonde",
    "repetition",
)

#: :data:`gctheory.codes.STABILITY_FAMILIES`: the families of the decoding-stability study.
STABILITY_FAMILIES = (
    "ye-abbe-vandermonde",
    "ye-abbe-gaussian",
    "commfr-gaussian",
    "commfr-systematic",
    "commfr-vandermonde",
    "reed-solomon",
    "cyclic-mds",
)

#: :data:`gctheory.codes.stability.COMPARE_SCHEMES`: the two schemes of the generator comparison.
COMPARE_SCHEMES = ("ye-abbe", "commfr")

#: :data:`gctheory.tradeoff.TRADEOFF_SCHEMES`: name -> (kind, one-line description). Colours
#: and the CLI follow this order.
TRADEOFF_SCHEMES: dict[str, tuple[str, str]] = {
    "uncoded": ("baseline", "wait for all n workers, load 1 (only s = 0)"),
    "ignore-s": ("baseline", "fastest n - s workers, uncoded: s partitions lost"),
    "cyclic-mds": ("exact", "Tandon et al. cyclic-MDS, load s + 1"),
    "frc": ("exact", "Tandon et al. fractional repetition, load s + 1, (s + 1) | n"),
    "reed-solomon": ("exact", "Halbawi et al. Reed-Solomon, load w = s + 1 (eq. (2))"),
    "ye-abbe": ("exact", "Ye-Abbe, load s + m, messages 1/m (Kadhe et al. eq. (1))"),
    "commfr-gc": ("exact", "CommFR-GC on an [s + m, m] MDS code, (s + m) | n (Kadhe et al.)"),
    "d-frc": ("approximate", "Wang et al. d-FRC, smallest d with exact P(fail) <= eps"),
    "batch-raptor": ("approximate", "Wang et al. batch raptor code, Theorem 6 parameters"),
    "bernoulli": ("approximate", "Charles et al. Bernoulli code at the d-FRC's mean load"),
    "expander": ("approximate", "Raviv et al. expander code, smallest d meeting the bound"),
    "bibd": ("approximate", "Kadhe et al. (ISIT 2019) BIBD code on n points"),
}

#: :data:`gctheory.tradeoff.TRADEOFF_AXES`: axis name -> (column, "min" or "max"): which way
#: is better.
TRADEOFF_AXES: dict[str, tuple[str, str]] = {
    "load": ("load", "min"),
    "communication": ("communication", "min"),
    "tolerance": ("s", "max"),
    "failure": ("failure", "min"),
    "stability": ("stable_s", "max"),
    "time": ("time", "min"),
}


# ---------------------------------------------------------------------------------------------
# One vocabulary: the canonical, hyphenated name of every scheme (the names of the docs'
# tables), the old spellings still accepted until 0.3, and the one "did you mean" message.

#: the release in which the old spellings stop being accepted
REMOVED_IN = "0.3"

#: canonical scheme name -> one-line description (``--list`` of ``run``, ``simulate``)
SCHEME_NAMES: dict[str, str] = {
    "uncoded": "wait for all n workers, load 1 (uncoded GD, Full-SGD)",
    "ignore-s": "ignore stragglers: the fastest K = n - s of n, uncoded (K-SGD, forget-s)",
    "lgc": "LGC-SGD: fastest K now, stragglers compensated next iteration (Xu et al. 2021)",
    "asysg": "asynchronous SGD: update after every K results, stale gradients (Wang et al. 2019)",
    "cyclic-mds": "Tandon et al. 2017 cyclic-MDS gradient code, load s + 1",
    "frc": "Tandon et al. 2017 fractional repetition code, load s + 1, (s + 1) | n",
    "reed-solomon": "Halbawi et al. 2017 Reed-Solomon gradient code, load s + 1",
    "ye-abbe": "Ye-Abbe 2018 communication-efficient code, load s + m, messages 1/m",
    "commfr-gc": "CommFR-GC on an [N, K] MDS code (Kadhe et al. 2019)",
    "d-frc": "d-fractional repetition code, approximate (Wang et al. 2019)",
    "batch-raptor": "batch raptor code, approximate, peeling decoder (Wang et al. 2019)",
    "bernoulli": "Bernoulli gradient code, approximate (Charles et al. 2017; Wang et al. 2019)",
    "expander": "expander-graph code, approximate, optimal or fixed decoder (Raviv et al. 2020)",
    "graph-assignment": "workers are a d-regular graph's edges, optimal decoding "
    "(Glasgow & Wootters 2021)",
    "bibd": "workers are a block design's points, optimal decoding (Kadhe et al. ISIT 2019)",
    "sgc": "stochastic gradient coding: an unbiased estimate (Bitar et al. 2020)",
    "isgc": "IS-GC: largest partial sum of an FR / cyclic / hybrid placement",
    "sr-sgc": "selective-repeat sequential GC, gradients B rounds late (Krishnan et al. 2023)",
    "m-sgc": "multiplexed sequential GC, gradients W - 2 + B rounds late (Krishnan et al. 2023)",
    "lag": "LAG-PS: lazily selected workers, no redundancy (Zhang & Simeone 2020)",
    "ggd": "grouped GD: groups of r workers, each storing its group's data",
    "glag": "grouped LAG (Zhang & Simeone 2020, Algorithm 2)",
    "lagc": "lazily aggregated gradient coding (Zhang & Simeone 2020, Algorithm 1)",
}

#: old spelling -> canonical name: accepted with a deprecation warning until 0.3 (an
#: underscore spelling of a canonical name, ``cyclic_mds``, is one too)
SCHEME_ALIASES: dict[str, str] = {
    "gd": "uncoded",
    "full": "uncoded",
    "ignore": "ignore-s",
    "ksgd": "ignore-s",
    "forget-s": "ignore-s",
    "gc": "cyclic-mds",
    "rs": "reed-solomon",
    "commfr": "commfr-gc",
    "dfrc": "d-frc",
    "brc": "batch-raptor",
    "bgc": "bernoulli",
    "stochastic": "sgc",
}

#: schemes that keep server state across iterations: simulated (``gctheory simulate``) only,
#: not run on real workers (``gctheory.cluster.rules`` holds the same tuple)
SIMULATED_ONLY = ("lgc", "asysg", "lag", "ggd", "glag", "lagc")

#: canonical name -> the key of ``gctheory.training.SCHEMES`` where the two differ
TRAINING_KEYS: dict[str, str] = {
    "uncoded": "gd",
    "ignore-s": "ignore",
    "reed-solomon": "rs",
    "commfr-gc": "commfr",
    "d-frc": "dfrc",
    "batch-raptor": "brc",
    "bernoulli": "bgc",
}

#: a canonical scheme name -> the code family ``gctheory codes verify`` builds for it
SCHEME_FAMILIES: dict[str, str] = {
    "frc": "fractional-repetition",
    "ye-abbe": "ye-abbe-vandermonde",
    "commfr-gc": "commfr-gaussian",
}


def training_key(canonical: str) -> str:
    """The ``gctheory.training.SCHEMES`` key of a canonical scheme name."""
    return TRAINING_KEYS.get(canonical, canonical.replace("-", "_"))


def canonical_of_training_key(key: str) -> str:
    """The canonical name of a ``gctheory.training.SCHEMES`` key (``cyclic_mds`` ->
    ``cyclic-mds``, ``gd`` -> ``uncoded``)."""
    back = {v: k for k, v in TRAINING_KEYS.items()}
    return back.get(key, key.replace("_", "-"))


def did_you_mean(text: str, names: Iterable[str], what: str, hint: str = "") -> str:
    """``unknown scheme 'cyclic-mdss'; did you mean cyclic-mds, ...?``: one short line.

    The three closest valid names (difflib), never a rewritten form of what was typed;
    a long input is cut (with ``...``) so the line stays under 100 columns."""
    names = list(names)
    shown = text if len(text) <= 24 else text[:21] + "..."
    probe = text.strip().lower().replace("_", "-")
    close = difflib.get_close_matches(probe, names, n=3, cutoff=0.5)
    if not close:  # an old spelling close to what was typed points to its canonical name
        old = difflib.get_close_matches(probe, list(SCHEME_ALIASES), n=3, cutoff=0.6)
        close = list(dict.fromkeys(SCHEME_ALIASES[o] for o in old if SCHEME_ALIASES[o] in names))
    msg = f"unknown {what} {shown!r}"
    if close:
        msg += f"; did you mean {', '.join(close)}?"
    return msg + (f" ({hint})" if hint else "")


def resolve_scheme(
    text: str, valid: Iterable[str] | None = None, *, what: str = "scheme", hint: str = ""
) -> tuple[str, str]:
    """``(canonical name, deprecation note)`` of a scheme name as typed.

    The note is ``""`` for a canonical name, else says which name to use. ``valid``
    (default: every scheme) limits the names accepted; anything else is a ``ValueError``
    with :func:`did_you_mean`'s message.
    """
    names = tuple(SCHEME_NAMES if valid is None else valid)
    key = str(text).strip().lower()
    norm = key.replace("_", "-")
    canonical = SCHEME_ALIASES.get(norm, norm)
    if canonical not in names:
        raise ValueError(did_you_mean(str(text), names, what, hint))
    note = ""
    if canonical != key:
        note = (
            f"{what} name {text!r} is deprecated and stops working in {REMOVED_IN}; "
            f"use {canonical!r}"
        )
    return canonical, note
