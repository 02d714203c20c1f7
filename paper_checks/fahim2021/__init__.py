"""Claims of ``fahim2021``, a source outside the five seeds: Fahim, Cadambe, 'Numerically
stable polynomially coded computing', IEEE Trans. Inf. Theory 67(5), 2021
(arXiv:1903.08326).

One module per topic: ``generators``.
"""
