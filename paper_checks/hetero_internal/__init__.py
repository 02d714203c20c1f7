"""Claims of ``hetero-internal``: gctheory's own derivations for heterogeneous and memoryful
workers (issue 23), checked; not any paper's printed claims.

Non-identical order statistics, the heterogeneous code on measure-then-split loads, the
Markov straggler fits and the Lambda traces' best ``s``. One module per topic:
``derivations``.
"""
