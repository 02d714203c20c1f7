"""Claims of ``sakorikar2021``, a source outside the five seeds: Sakorikar, Wang, 'Soft BIBD
and product gradient codes', 2021 (arXiv:2105.05231).

One module per topic: ``product``.
"""
