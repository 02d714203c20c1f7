"""Claims of ``xu2021``, one of the five seed papers: Xu, Huang, Song, Lan, 'Live gradient
compensation for evading stragglers in distributed learning' (LGC-SGD), 2021.

One module per topic: ``runtime``, ``theorems``, ``training``.
"""
