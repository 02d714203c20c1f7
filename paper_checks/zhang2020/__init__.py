"""Claims of ``zhang2020``, one of the five seed papers: Zhang, Simeone, 'LAGC: Lazily
aggregated gradient coding for straggler-tolerant and communication-efficient distributed
learning', 2020.

One module per topic: ``codes``, ``runtime``, ``training``.
"""
