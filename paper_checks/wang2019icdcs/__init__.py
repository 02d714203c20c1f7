"""Claims of ``wang2019icdcs``, a source outside the five seeds: H. Wang, S. Guo, B. Tang,
R. Li, C. Li, 'Heterogeneity-aware gradient coding for straggler tolerance', IEEE ICDCS 2019.

Not among the stored paper texts; only the abstract and introduction could be retrieved, so the
printed statement is ``not checkable`` and gctheory's heterogeneous code is checked by
``hetero-internal``. One module per topic: ``heterogeneity_aware``.
"""
