"""Tables computed once, offline, by the ``make_*`` scripts of this package, and read at run time.

``weibull_shape.npz`` (by ``python -m gctheory.delays._tables.make_weibull_shape``): the
quantiles of the Weibull shape's maximum-likelihood estimate that
:mod:`gctheory.delays._weibull_shape` inverts for its interval. Each file carries the
script's seed, replicate count and version; it is read with ``allow_pickle=False``.
"""
