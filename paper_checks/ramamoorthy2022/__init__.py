"""Claims of ``ramamoorthy2022``, a source outside the five seeds: Ramamoorthy, Tang,
'Numerically stable coded matrix computations via circulant and rotation matrix embeddings',
IEEE Trans. Inf. Theory 68(4), 2022 (arXiv:1910.06515).

One module per topic: ``generators``.
"""
