"""The registry of generator families by name, and generators built from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_choice, check_int
from gctheory.generators._embeddings import (
    _next_prime,
    circulant_embedding_generator,
    rkrp_generator,
    rotation_embedding_generator,
)
from gctheory.generators._polynomial import (
    _check_nk,
    chebyshev_vandermonde_generator,
    gaussian_generator,
    legendre_generator,
    systematic_generator,
    vandermonde_generator,
)

__all__ = [
    "GENERATOR_FAMILIES",
    "GeneratorFamily",
    "generator",
    "generator_family",
    "generator_block",
]


@dataclass(frozen=True)
class GeneratorFamily:
    """One generator family of the registry.

    ``build(K, N, rng)`` gives the matrix; ``block(N)`` the columns per worker;
    ``random`` whether it depends on ``rng``; ``mds`` how the MDS property is
    promised (``"always"`` or ``"with probability one"``); ``source`` the paper.

    Parameters
    ----------
    name : str
        Registry name.
    description : str
        One line.
    source : str
        The paper.
    build : callable
        ``build(K, N, rng)`` returns the matrix.
    block : callable
        ``block(N)``: columns per worker.
    random : bool
        Whether the matrix depends on ``rng``.
    mds : str
        How the MDS property is promised.
    real : bool
        Whether the matrix is real.

    Examples
    --------
    >>> from gctheory.generators import GeneratorFamily, generator_family
    >>> fam = generator_family("legendre")
    >>> fam.name, fam.random, fam.mds, fam.real
    ('legendre', False, 'always', True)
    """

    name: str
    description: str
    source: str
    build: Callable[[int, int, Any], np.ndarray]
    block: Callable[[int], int]
    random: bool
    mds: str
    real: bool


def _one(N: int) -> int:
    return 1


_FAMILIES = {
    f.name: f
    for f in (
        GeneratorFamily(
            "gaussian", "i.i.d. N(0, 1)", "Kadhe et al. 2019, Thm. 2",
            lambda K, N, rng: gaussian_generator(K, N, rng=rng), _one, True,
            "with probability one", True,
        ),
        GeneratorFamily(
            "vandermonde-equispaced", "x_j^i, equispaced nodes in [-1, 1]", "Ye and Abbe 2018",
            lambda K, N, rng: vandermonde_generator(K, N, "equispaced"), _one, False,
            "always", True,
        ),
        GeneratorFamily(
            "vandermonde-chebyshev", "x_j^i, Chebyshev nodes", "Kadhe et al. 2019, Sec. IV-B",
            lambda K, N, rng: vandermonde_generator(K, N, "chebyshev"), _one, False,
            "always", True,
        ),
        GeneratorFamily(
            "vandermonde-roots-of-unity", "w^(i j), w = exp(2 pi i / N)", "Halbawi et al. 2017",
            lambda K, N, rng: vandermonde_generator(K, N, "roots_of_unity"), _one, False,
            "always", False,
        ),
        GeneratorFamily(
            "chebyshev-vandermonde", "T_i(x_j) on the Chebyshev grid", "Fahim and Cadambe 2021",
            lambda K, N, rng: chebyshev_vandermonde_generator(K, N), _one, False, "always", True,
        ),
        GeneratorFamily(
            "legendre", "orthonormal Legendre at Gauss nodes, sqrt-weight scaled",
            "orthonormal-basis comparison to Fahim and Cadambe 2021",
            lambda K, N, rng: legendre_generator(K, N), _one, False, "always", True,
        ),
        GeneratorFamily(
            "rotation-embedding", "2 x 2 rotation blocks R^(i j), angle 2 pi / N",
            "Ramamoorthy and Tang 2022",
            lambda K, N, rng: rotation_embedding_generator(K, N), lambda N: 2, False,
            "always", True,
        ),
        GeneratorFamily(
            "circulant-embedding", "cyclic-permutation blocks C^(i j) on 1-perp, q prime >= N",
            "Ramamoorthy and Tang 2022",
            lambda K, N, rng: circulant_embedding_generator(K, N),
            lambda N: _next_prime(N) - 1, False, "always", True,
        ),
        GeneratorFamily(
            "rkrp", "random Khatri-Rao product of two Gaussians", "Subramaniam et al. 2019",
            lambda K, N, rng: rkrp_generator(K, N, rng=rng), _one, True,
            "with probability one", True,
        ),
    )
}  # fmt: skip


#: Names of every generator family (see the module docstring).
GENERATOR_FAMILIES: tuple[str, ...] = tuple(_FAMILIES)


def generator_family(family: str) -> GeneratorFamily:
    """The registry entry of ``family`` (ValueError listing the valid names otherwise).

    Parameters
    ----------
    family : str
        A name of :data:`GENERATOR_FAMILIES`.

    Returns
    -------
    GeneratorFamily
        The registry entry.

    Raises
    ------
    ValueError
        Unknown name, listing the valid ones.

    Examples
    --------
    >>> from gctheory.generators import generator_family
    >>> generator_family("rkrp").random
    True
    """
    check_choice(family, "family", GENERATOR_FAMILIES)
    return _FAMILIES[family]


def generator_block(family: str, N: int) -> int:
    """Columns per worker of ``family`` for a code of N workers (1, 2, or q - 1).

    Parameters
    ----------
    family : str
        The family.
    N : int
        Workers.

    Returns
    -------
    int
        Columns per worker.

    Examples
    --------
    >>> from gctheory.generators import generator_block
    >>> generator_block("gaussian", 5), generator_block("rotation-embedding", 5)
    (1, 2)
    """
    return generator_family(family).block(check_int(N, "N", low=1))


def generator(
    family: str, K: int, N: int, *, systematic: bool = False, rng: Any = None
) -> np.ndarray:
    """Generator of an [N, K] code (N workers, dimension K) from ``family``.

    Returns a (b K) x (b N) matrix, b = :func:`generator_block` (1 for all but the
    embeddings). ``systematic=True`` returns ``G[:, :b K]^{-1} G``, whose first K
    workers carry the identity. ``rng`` seeds the random families and is refused
    (ValueError) as a non-seed otherwise checked by
    :func:`gctheory._validate.as_generator`.

    Parameters
    ----------
    family : str
        A name of :data:`GENERATOR_FAMILIES`.
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).
    systematic : bool
        Return the systematic form.
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    numpy.ndarray, shape (b K, b N)
        The generator.

    Raises
    ------
    ValueError
        Unknown family (the valid ones are listed), ``K > N``, non-integer sizes.

    Examples
    --------
    >>> from gctheory.generators import generator
    >>> generator("gaussian", 2, 4, rng=0).shape
    (2, 4)
    >>> generator("legendre", 2, 4, systematic=True)[:, :2].round(6).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    fam = generator_family(family)
    N, K = _check_nk(N, K)
    if not isinstance(systematic, (bool, np.bool_)):
        raise ValueError(f"systematic must be True or False, got {systematic!r}")
    gen = as_generator(rng) if fam.random or rng is not None else None
    G = fam.build(K, N, gen)
    if systematic:
        G = systematic_generator(G)
    return G
