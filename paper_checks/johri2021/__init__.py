"""Claims of ``johri2021``, a source outside the five seeds: A. Johri, A. Yardi, T. Bodas,
'Approximate gradient coding for heterogeneous nodes', arXiv:2105.06124, 2021.

Not among the stored paper texts; the stored sources hold its abstract (an arXiv listing,
github.com/zoq/arxiv-updates issue 58, and tomesphere.com/paper/2105.06124) and the
authors' public code (github.com/AmoghJohri/GradientCoding: straggler simulators and the
miss-count expressions of fractional repetition with and without shuffling), not the
paper's text. One module per topic: ``straggler_model``.
"""
