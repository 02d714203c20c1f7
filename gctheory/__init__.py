"""gctheory: the theory of gradient coding, turned into numbers you can check.

Modules
-------
montecarlo   seeded, chunked Monte Carlo engine with confidence intervals

The public names of every module are re-exported here.
"""

from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability

__version__ = "0.1.0"

__all__ = ["__version__", "Estimate", "estimate_mean", "estimate_probability"]
