"""Generator matrices of [N, K] linear codes over the reals and complexes: every family.

Used by the gradient-code constructions (:mod:`gctheory.codes`) and by the
stability analysis (:mod:`gctheory.conditioning`). Convention: a generator of
an [N, K] code is a K x N matrix ``G``; its columns are the N coded symbols'
coefficient vectors, and decoding from a set T of surviving columns inverts
(or solves with) ``G[:, T]``. The embeddings of Ramamoorthy and Tang give each
worker a *block* of b consecutive columns (``generator_block``): a K x N code
of them is a (b K) x (b N) real matrix and stragglers remove whole blocks.

The families (``GENERATOR_FAMILIES``, built by :func:`generator`):

- ``gaussian``: i.i.d. standard normal entries (Kadhe et al. 2019, Section
  IV-B; MDS with probability one);
- ``vandermonde-equispaced``, ``vandermonde-chebyshev``: ``G[i, j] = x_j ** i``
  on equispaced points of [-1, 1] or Chebyshev points of the first kind (real;
  MDS, ill-conditioned as N grows, Gautschi);
- ``vandermonde-roots-of-unity``: the N-th roots of unity (complex; the
  Reed-Solomon choice of Halbawi et al. 2017, Alg. 2);
- ``chebyshev-vandermonde``: ``G[i, j] = T_i(x_j)``, Chebyshev polynomials at
  the N-point Chebyshev grid (Fahim and Cadambe, "Numerically stable
  polynomially coded computing", IEEE Trans. IT 2021; they bound every K x K
  submatrix's condition number by O(N^{2(N-K)}));
- ``legendre``: orthonormal Legendre polynomials ``sqrt(i + 1/2) P_i`` at the
  N Gauss-Legendre nodes, columns scaled by the square roots of the Gauss
  weights, so that the square N x N matrix is orthogonal (the orthonormal-basis
  analogue of the Chebyshev family, for comparison);
- ``rotation-embedding``: block (i, j) = ``R^{i j}``, R the 2 x 2 rotation by
  ``2 pi / q`` (q = N by default), b = 2 (Ramamoorthy and Tang, "Numerically
  stable coded matrix computations via circulant and rotation matrix
  embeddings", IEEE Trans. IT 2022); real, and every worker submatrix has the
  singular values of the complex Vandermonde matrix on the nodes
  ``exp(2 pi i j / q)`` of its workers (R is unitarily similar to
  ``diag(w, conj(w))``), so its condition number is that one's;
- ``circulant-embedding``: block (i, j) = ``C^{i j}`` with C the q x q cyclic
  permutation restricted to the (q - 1)-dimensional complement of the
  all-ones vector (q the smallest prime >= N), b = q - 1 (same paper; MDS for
  q prime >= N);
- ``rkrp``: random Khatri-Rao-product code, ``G = A (column-wise Kronecker) B``
  with Gaussian ``A`` (K1 x N) and ``B`` (K2 x N), ``K = K1 K2``, K1 the largest
  divisor of K not above sqrt(K) (Subramaniam, Heidarzadeh, Narayanan,
  "Random Khatri-Rao-product codes for numerically-stable distributed matrix
  multiplication", Allerton 2019; MDS with probability one). For prime K it
  degenerates to a column-scaled Gaussian.

Every family has its systematic form (``systematic=True``): ``G[:, :K]^{-1} G =
[I_K | P]`` (for block families, the first K/b workers' columns).
"""

from __future__ import annotations

from gctheory._home import keep_home_of
from gctheory.generators import _embeddings, _families, _polynomial
from gctheory.generators._embeddings import (
    circulant_embedding_generator,
    rkrp_generator,
    rotation_embedding_generator,
)
from gctheory.generators._families import (
    GENERATOR_FAMILIES,
    GeneratorFamily,
    generator,
    generator_block,
    generator_family,
)
from gctheory.generators._families import _one as _one
from gctheory.generators._polynomial import (
    VANDERMONDE_NODES,
    chebyshev_vandermonde_generator,
    check_generator,
    gaussian_generator,
    legendre_generator,
    systematic_generator,
    vandermonde_generator,
    vandermonde_nodes,
)

__all__ = [
    "VANDERMONDE_NODES",
    "GENERATOR_FAMILIES",
    "GeneratorFamily",
    "gaussian_generator",
    "vandermonde_nodes",
    "vandermonde_generator",
    "systematic_generator",
    "chebyshev_vandermonde_generator",
    "legendre_generator",
    "rotation_embedding_generator",
    "circulant_embedding_generator",
    "rkrp_generator",
    "generator",
    "generator_family",
    "generator_block",
    "check_generator",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _embeddings, _families, _polynomial)
