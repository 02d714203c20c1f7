"""Claims of ``wang2019``, one of the five seed papers: Wang, Liu, Shroff, 'Fundamental limits
of approximate gradient coding', 2019.

One module per topic: ``codes``, ``finite_length``, ``ldpc``, ``load``, ``proofs``,
``theorems``, ``training``.
"""
