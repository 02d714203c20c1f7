"""Tandon, Lei, Dimakis, Karampatziakis 2017: gradient coding, Sec. 5 (partial stragglers)."""

from paper_checks.tandon2017 import partial as partial  # noqa: F401  (registers the claims)
