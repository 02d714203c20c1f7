"""Claims of ``charalambides2021``, a source outside the five seeds: Charalambides, Mahdavifar,
Hero, 'Generalized fractional repetition codes for binary coded computations', 2021
(arXiv:2109.10484); ISIT 2020 version 'Numerically stable binary gradient coding'.

One module per topic: ``gfrc``.
"""
