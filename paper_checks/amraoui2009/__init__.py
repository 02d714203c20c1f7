"""Amraoui, Montanari, Richardson, Urbanke 2009: finite-length scaling of LDPC ensembles.

The shift parameter of the scaling law (issue 26): ``shift``.
"""

from paper_checks.amraoui2009 import shift as shift  # noqa: F401  (registers the claims)
