"""Claims of ``isgc``, a source outside the five seeds: 'On arbitrary ignorance of stragglers
with gradient coding' (IS-GC); paper text and full reference not in the stored sources;
placements from the authors' public code (github.com/IS-GC/IS-GC, ray_gc.py, 2022).

One module per topic: ``ignore_stragglers``.
"""
