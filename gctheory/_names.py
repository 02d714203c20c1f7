"""Names a module and the command line share, in a module that imports nothing.

The ``gctheory`` command offers these as ``choices`` and in its help, and building
the parser must stay cheap (``gctheory --version`` and ``--help`` import neither
scipy nor matplotlib). Each tuple or mapping is defined once, here, and re-exported
by the module that owns the concept under its public name (``gctheory.runtime.SCHEMES``
is :data:`RUNTIME_SCHEMES`, the same object); ``tests/test_cli.py`` checks that.
"""

from __future__ import annotations

__all__ = [
    "COMMFR_FAMILIES",
    "COMPARE_SCHEMES",
    "C_CHEN_DONGARRA",
    "DELAY_LAWS",
    "GENERATOR_FAMILIES",
    "PREFACTORS",
    "RUNTIME_SCHEMES",
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
