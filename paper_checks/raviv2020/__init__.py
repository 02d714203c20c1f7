"""Claims of ``raviv2020``, a source outside the five seeds: Raviv, Tamo, Tandon, Dimakis,
'Gradient coding from cyclic MDS codes and expander graphs', IEEE Trans. Inf. Theory 66(12),
2020 (ICML 2018).

One module per topic: ``expander``.
"""
