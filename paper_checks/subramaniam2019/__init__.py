"""Claims of ``subramaniam2019``, a source outside the five seeds: Subramaniam, Heidarzadeh,
Narayanan, 'Random Khatri-Rao-product codes for numerically-stable distributed matrix
multiplication', Allerton 2019 (arXiv:1907.05965).

One module per topic: ``generators``.
"""
