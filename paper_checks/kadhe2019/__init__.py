"""Claims of ``kadhe2019``, one of the five seed papers: Kadhe, Koyluoglu, Ramchandran,
'Communication-efficient gradient coding for straggler mitigation in distributed learning'
(CommFR-GC), 2019.

One module per topic: ``codes``, ``conditioning``, ``finite_length``, ``intro``, ``ldpc``,
``tails``, ``theorems``, ``training``.
"""
