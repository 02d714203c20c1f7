"""Tandon, Lei, Dimakis, Karampatziakis 2017: gradient coding, Sec. 5 (partial stragglers)
and Sec. 7 (coded against uncoded, judged on real runs of gctheory.cluster)."""

from paper_checks.tandon2017 import carryover as carryover  # noqa: F401  (registers)
from paper_checks.tandon2017 import cluster_runs as cluster_runs  # noqa: F401  (registers)
from paper_checks.tandon2017 import partial as partial  # noqa: F401  (registers the claims)
