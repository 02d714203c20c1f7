"""Block designs and the gradient codes built on them (BIBD codes, stochastic gradient coding).

A (v, k, lambda) balanced incomplete block design (BIBD) is a family of b
blocks (k-subsets of v points) in which every point lies in r blocks and every
pair of points in lambda blocks; ``b k = v r`` and ``lambda (v - 1) = r (k - 1)``.
Its incidence matrix N (v x b) has ``N N^T = (r - lambda) I + lambda J``.

- :func:`bibd` returns a design for (v, k, lambda) when one of the
  constructions here applies: projective planes PG(2, q) and affine planes
  AG(2, q) over GF(q) for every prime power q (q = 2: the Fano plane;
  GF(p^e) arithmetic is built here from a primitive polynomial found by
  search), Steiner triple systems STS(v) for every v = 1 or 3 mod 6 (Bose and
  Skolem constructions), symmetric difference-set designs (Paley (q, (q-1)/2,
  (q-3)/4) for prime powers q = 3 mod 4; Singer PG(m, q) points versus
  hyperplanes, e.g. (15, 7, 3)), complete designs (all k-subsets), and
  lambda-fold repetitions of these. Parameters that violate the necessary
  conditions (divisibility, Fisher's inequality b >= v, Bruck-Ryser-Chowla
  for symmetric designs, v even or odd, :func:`bruck_ryser_chowla`) are
  refused with the reason; admissible parameters without a construction here
  are refused as such; designs with more than ``MAX_INCIDENCE`` (5e6)
  incidence entries are refused before any work. Every design is verified
  on creation by exact pair counting (:class:`BlockDesign`).
- :class:`BIBDGradientCode` -- Kadhe, Koyluoglu, Ramchandran (ISIT 2019) [1]:
  workers are the v points, data partitions the b blocks (worker i holds the
  r blocks through point i). Any w surviving workers have Gram matrix
  ``(r - lambda) I + lambda J``, so the optimal (least-squares) decoder is the
  uniform ``u = r / (r - lambda + lambda w)`` and its error
  ``err = b - r^2 w / (r - lambda + lambda w)`` depends only on the number
  of stragglers (:func:`bibd_error`): an adversary gains nothing over random
  stragglers. The stored copies of [1] give the abstract only (arXiv
  1904.13373: "the approximation error for these codes depends only on the
  number of stragglers", symmetric BIBDs maximise the lower bound on the
  adversarial threshold); its section and equation numbers could not be
  checked here, so the orientation and this closed form are derived here,
  not transcribed. For symmetric designs, v = b, both orientations coincide.
- :class:`StochasticGradientCode` -- Bitar, Wootters, El Rouayheb [2]: every
  partition is replicated on d workers, worker i sends the plain sum of its
  partitions, workers straggle independently with probability p, and the
  server outputs ``g_hat = sum_{i alive} y_i / (d (1 - p))``, an unbiased
  estimate of the full gradient (with no survivor, the estimate is 0: the
  same formula over an empty set; decoding never refuses, see
  :class:`gctheory.codes._empty.PartialDecodeResult`). :func:`sgc_variance`
  is its exact mean squared error
  ``p / (d^2 (1 - p)) sum_{j,l} c_jl <g_j, g_l>`` (c_jl: workers holding
  both j and l), which for a pair-wise balanced placement (c_jl = lambda for
  j != l, e.g. a BIBD with partitions as points) is
  ``p / (d^2 (1 - p)) ((d - lambda) sum ||g_j||^2 + lambda ||sum g_j||^2)``.
  The stored sources hold only the abstract of [2] (no section or equation
  numbers could be checked); the estimator and its variance are derived here
  from first principles (independent Bernoulli survivals, E[1{alive}] = 1 - p,
  Var = p (1 - p)) and checked by Monte Carlo in the tests.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Gradient coding based on
   block designs for mitigating adversarial stragglers", ISIT 2019
   (arXiv:1904.13373).
.. [2] R. Bitar, M. Wootters, S. El Rouayheb, "Stochastic gradient coding for
   straggler mitigation in distributed learning", IEEE J. Sel. Areas Inf.
   Theory 1(1), 2020.
.. [3] C. J. Colbourn, J. H. Dinitz, Handbook of Combinatorial Designs, 2nd
   ed., 2006 (existence conditions).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.codes.designs import _bibd_code, _constructions, _existence, _stochastic
from gctheory.codes.designs._bibd_code import BIBDGradientCode, bibd_error
from gctheory.codes.designs._constructions import (
    BlockDesign,
    affine_plane,
    paley_design,
    projective_plane,
    singer_design,
    steiner_triple_system,
)
from gctheory.codes.designs._existence import bibd, bruck_ryser_chowla, complete_design
from gctheory.codes.designs._stochastic import StochasticGradientCode, sgc_variance

__all__ = [
    "BlockDesign",
    "projective_plane",
    "affine_plane",
    "complete_design",
    "steiner_triple_system",
    "paley_design",
    "singer_design",
    "bruck_ryser_chowla",
    "bibd",
    "bibd_error",
    "BIBDGradientCode",
    "StochasticGradientCode",
    "sgc_variance",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _bibd_code, _constructions, _existence, _stochastic)
