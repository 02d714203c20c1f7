"""Claims of ``glasgow2021``, a source outside the five seeds: Glasgow, Wootters, 'Approximate
gradient coding with optimal decoding', IEEE J. Sel. Areas Inf. Theory 2(3), 2021.

One module per topic: ``optimal_decoding``.
"""
