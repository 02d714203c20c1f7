"""Claims of ``comm-internal``: gctheory's own derivations for the link model and the
communication axis of the atlas, checked; not any paper's printed claims.

The crossover bandwidth of cyclic-MDS against the m-fold codes: its root-found location
against hand closed forms, against a Monte Carlo of the same system, and on a shared link.
One module per topic: ``crossover``.
"""
