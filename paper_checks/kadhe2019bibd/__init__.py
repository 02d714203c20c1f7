"""Claims of ``kadhe2019bibd``, a source outside the five seeds: Kadhe, Koyluoglu, Ramchandran,
'Gradient coding based on block designs for mitigating adversarial stragglers', ISIT 2019
(arXiv:1904.13373).

One module per topic: ``designs``.
"""
