"""Claims of ``halbawi2017``, one of the five seed papers: Halbawi, Azizan, Salehi, Hassibi,
'Improving distributed gradient descent using Reed-Solomon codes', 2017.

One module per topic: ``analysis``, ``codes``, ``converse`` (eq. (2)'s "no scheme does
better"), ``runtime``, ``theorems``, ``training``.
"""
