"""Claims of ``bitar2020``, a source outside the five seeds: Bitar, Wootters, El Rouayheb,
'Stochastic gradient coding for straggler mitigation in distributed learning', IEEE J. Sel.
Areas Inf. Theory 1(1), 2020.

One module per topic: ``sgc``.
"""
