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
    "DELAY_LAWS",
    "RUNTIME_SCHEMES",
    "STABILITY_FAMILIES",
    "TRADEOFF_AXES",
    "TRADEOFF_SCHEMES",
]

#: :data:`gctheory.runtime.SCHEMES`: the schemes whose expected iteration time is modelled.
RUNTIME_SCHEMES = ("uncoded", "ignore-s", "cyclic-mds", "frc", "ye-abbe", "commfr-gc")

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
