"""Approximate gradient codes from expander graphs, and their optimal decoding.

Two codes on a d-regular graph G (adjacency ``Adj``, second eigenvalue
``lam = max(|lambda_2|, |lambda_n|)``, spectral gap ``d - lambda_2``):

- :class:`ExpanderCode` -- Raviv, Tamo, Tandon, Dimakis [1] (the
  expander-graph part; "Section V" follows the citation this module was
  written with: the stored copies of [1] give the abstract and the start of
  the introduction only, so no section or theorem number could be verified):
  the coding matrix is the normalised adjacency ``B = Adj / d`` (n workers =
  n partitions = vertices; worker i holds the partitions of its neighbours).
  Decoders: ``"optimal"`` (least squares, eq. (4)-(5) of Wang et al. 2019) and
  ``"fixed"`` (the linear-time decoder ``u = n / |K|`` on the survivors K, as
  in the authors' public code ``approx_gradient_coding``).
  :func:`expander_error_bound` is a spectral bound on the fixed decoder's
  error, ``(lam / d)^2 n s / (n - s)``, derived in its docstring: it is
  gctheory's derivation, not the paper's printed statement, which could not
  be retrieved from the stored sources (Proposition 39 of [2] makes the same
  argument for assignment matrices).
- :class:`GraphAssignmentCode` -- Glasgow and Wootters [2]: machines are the
  *edges* of G, data blocks its vertices; each machine holds its two
  endpoints. The optimal decoder (least squares) has a closed form per
  connected component of the surviving graph ([2], Section 4): ``alpha_v = 1``
  on a component with an odd cycle, ``1 -/+ (|L| - |R|) / (|L| + |R|)`` on
  the larger/smaller side of a bipartite one, computed in linear time by
  :func:`graph_optimal_alpha`. :func:`glasgow_wootters_random_bound` is the
  random-straggler theorem of [2] (Section 5) and
  :func:`graph_adversarial_bound` its Corollary 40 (adversarial stragglers).

Graphs: :func:`random_regular_graph` (configuration model repaired by
double-edge switches), :func:`margulis_graph` (the explicit Margulis /
Gabber-Galil 8-regular family on Z_m x Z_m, second eigenvalue <= 5 sqrt 2
by Gabber and Galil 1981), :func:`circulant_graph` (Cayley graphs of Z_n:
vertex-transitive, with exact spectrum by FFT, as [2]'s theorem requires).

References
----------
.. [1] N. Raviv, I. Tamo, R. Tandon, A. G. Dimakis, "Gradient coding from
   cyclic MDS codes and expander graphs", IEEE Trans. Inf. Theory 66(12),
   2020 (ICML 2018), arXiv:1707.03858 (the expander-graph part; section and
   theorem numbers not verified).
.. [2] M. Glasgow, M. Wootters, "Approximate gradient coding with optimal
   decoding", IEEE J. Sel. Areas Inf. Theory, 2021, Sections 3-6.
.. [3] O. Gabber, Z. Galil, "Explicit constructions of linear-sized
   superconcentrators", J. Comput. Syst. Sci. 22, 1981.
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.codes.expander import _expander_code, _graph_assignment, _graphs
from gctheory.codes.expander._expander_code import (
    ExpanderCode,
    expander_error_bound,
    expander_worst_case_lower_bound,
)
from gctheory.codes.expander._graph_assignment import (
    GraphAssignmentCode,
    glasgow_wootters_random_bound,
    graph_adversarial_bound,
    graph_optimal_alpha,
)
from gctheory.codes.expander._graph_assignment import _edges as _edges
from gctheory.codes.expander._graphs import _CIRCULANT_DIRECT_MAX as _CIRCULANT_DIRECT_MAX
from gctheory.codes.expander._graphs import _circulant_spectrum as _circulant_spectrum
from gctheory.codes.expander._graphs import _configuration_repaired as _configuration_repaired
from gctheory.codes.expander._graphs import _random_regular_edges as _random_regular_edges
from gctheory.codes.expander._graphs import (
    circulant_graph,
    circulant_spectrum,
    graph_spectrum,
    margulis_graph,
    random_regular_graph,
)

__all__ = [
    "random_regular_graph",
    "margulis_graph",
    "circulant_graph",
    "graph_spectrum",
    "circulant_spectrum",
    "ExpanderCode",
    "expander_error_bound",
    "expander_worst_case_lower_bound",
    "GraphAssignmentCode",
    "graph_optimal_alpha",
    "graph_adversarial_bound",
    "glasgow_wootters_random_bound",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _expander_code, _graph_assignment, _graphs)
