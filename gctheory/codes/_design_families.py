"""Finite fields and the combinatorial constructions behind :mod:`gctheory.codes.designs`.

Everything here is exact integer arithmetic; the functions return block lists
or incidence matrices and :mod:`gctheory.codes.designs` wraps them in a
:class:`~gctheory.codes.designs.BlockDesign` (which re-counts every pair).

- :class:`GaloisField` -- GF(p^e): elements are the ints ``0 .. q-1`` read as
  base-p digit vectors (coefficients of a polynomial in x); the modulus is the
  first monic *primitive* polynomial of degree e found by search (irreducible
  and x of order q - 1, checked by walking the powers of x), so ``exp`` /
  ``log`` tables give multiplication.
- Steiner triple systems: Bose (v = 3 mod 6) and Skolem (v = 1 mod 6)
  constructions from (half-)idempotent commutative quasigroups (Lindner and
  Rodger, *Design Theory*, 2nd ed., Sections 1.2-1.3).
- Difference sets: Paley (nonzero squares of GF(q), q = 3 mod 4: a (q, (q-1)/2,
  (q-3)/4) difference set) and Singer (the powers ``alpha^i`` of a primitive
  element of GF(q^(m+1)) with trace 0 over GF(q): the points of a hyperplane
  of PG(m, q), a ((q^(m+1)-1)/(q-1), (q^m-1)/(q-1), (q^(m-1)-1)/(q-1))
  difference set in Z_v); Colbourn-Dinitz, *Handbook*, Part VI.18.
- :func:`bruck_ryser_chowla` -- for a symmetric (v, k, lambda) design with v
  odd, ``z^2 = (k - lambda) x^2 + (-1)^((v-1)/2) lambda y^2`` must have a
  nontrivial integer solution; decided by Hilbert symbols (Serre, *A Course in
  Arithmetic*, Ch. III, Theorem 1 and Theorem 6 for the local-global step);
  for v even, ``k - lambda`` must be a square.
"""

from __future__ import annotations

import math

import numpy as np

#: largest field order built (exp/log tables of this length; primitive-polynomial search
#: walks up to this many powers per candidate)
MAX_FIELD_ORDER = 1 << 16


def is_prime(n: int) -> bool:
    return n >= 2 and all(n % p for p in range(2, math.isqrt(n) + 1))


def prime_power(q: int) -> tuple[int, int] | None:
    """``(p, e)`` with ``q = p^e`` for a prime p, or None."""
    if q < 2:
        return None
    # the smallest prime factor, by trial division up to sqrt(q) (q itself if none)
    p = next((d for d in range(2, math.isqrt(q) + 1) if q % d == 0), q)
    e = 0
    while q % p == 0:
        q //= p
        e += 1
    return (p, e) if q == 1 else None


def factorize(n: int) -> dict[int, int]:
    """Prime factorisation of ``|n| >= 1`` by trial division."""
    n = abs(n)
    out: dict[int, int] = {}
    d = 2
    while d * d <= n:
        while n % d == 0:
            out[d] = out.get(d, 0) + 1
            n //= d
        d += 1
    if n > 1:
        out[n] = out.get(n, 0) + 1
    return out


class GaloisField:
    """GF(p^e) with elements ``0 .. q-1`` (base-p digits = polynomial coefficients).

    ``poly``: the monic primitive modulus (coefficients, constant term first);
    ``exp[i] = x^i`` (i < q - 1) and ``log`` its inverse on the nonzero
    elements. Arithmetic methods accept ints or integer numpy arrays.
    """

    def __init__(self, q: int) -> None:
        pe = prime_power(q)
        if pe is None:
            raise ValueError(f"q must be a prime power for GF(q), got q={q}")
        if q > MAX_FIELD_ORDER:
            raise ValueError(f"q must be <= {MAX_FIELD_ORDER} for GF(q) here, got q={q}")
        self.p, self.e = pe
        self.q = q
        self.poly, self.exp = self._primitive()
        self.log = np.zeros(q, dtype=np.int64)
        self.log[self.exp] = np.arange(q - 1)
        self._digits = self.p ** np.arange(self.e, dtype=np.int64)

    def _primitive(self) -> tuple[tuple[int, ...], np.ndarray]:
        p, e, q = self.p, self.e, self.q
        if e == 1:  # the smallest primitive root mod p
            for g in range(1, p):
                powers = [pow(g, i, p) for i in range(p - 1)]
                if len(set(powers)) == p - 1:
                    return (-g % p, 1), np.array(powers, dtype=np.int64)
        top = p ** (e - 1)
        for low in range(1, q):  # monic x^e + (low as digits); constant term nonzero
            coef = [(low // p**i) % p for i in range(e)]
            if coef[0] == 0:
                continue
            pw = np.empty(q - 1, dtype=np.int64)
            cur, ok = 1, True
            for i in range(q - 1):
                if i and cur == 1:  # x has order < q - 1: not primitive
                    ok = False
                    break
                pw[i] = cur
                lead = cur // top  # multiply by x, reduce by x^e = -sum coef_i x^i
                shifted = (cur % top) * p
                if lead:
                    shifted = self._add_int(
                        shifted, sum(((-lead * c) % p) * p**j for j, c in enumerate(coef))
                    )
                cur = shifted
            if ok and cur == 1:
                return (*coef, 1), pw
        raise AssertionError(
            f"no primitive polynomial of degree {e} over GF({p})"
        )  # pragma: no cover

    def _add_int(self, a: int, b: int) -> int:
        p, out, w = self.p, 0, 1
        while a or b:
            out += ((a % p + b % p) % p) * w
            a, b, w = a // p, b // p, w * p
        return out

    def add(self, a, b):
        """Elementwise sum (digitwise mod p)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        if self.p == 2:
            return a ^ b
        if self.e == 1:
            return (a + b) % self.p
        out = np.zeros(np.broadcast(a, b).shape, dtype=np.int64)
        for w in self._digits.tolist():
            out += ((a // w + b // w) % self.p) * w
        return out

    def mul(self, a, b):
        """Elementwise product (through the log tables)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        prod = self.exp[(self.log[a] + self.log[b]) % (self.q - 1)]
        return np.where((a == 0) | (b == 0), 0, prod)

    def nonzero_squares(self) -> np.ndarray:
        """The (q - 1) / 2 nonzero squares (q odd): the even powers of the primitive element."""
        return np.sort(self.exp[::2])


# ------------------------------------------------------------ planes
def _normalised_points(F: GaloisField, dim: int) -> np.ndarray:
    """Vectors of GF(q)^dim whose first nonzero entry is 1 (one per 1-dim subspace)."""
    q = F.q
    rows = []
    for lead in range(dim):  # first nonzero at position lead
        tail = np.array(np.meshgrid(*[np.arange(q)] * (dim - lead - 1), indexing="ij"))
        tail = tail.reshape(dim - lead - 1, -1).T if dim - lead - 1 else np.zeros((1, 0), int)
        block = np.zeros((tail.shape[0], dim), dtype=np.int64)
        block[:, lead] = 1
        block[:, lead + 1 :] = tail
        rows.append(block)
    return np.concatenate(rows)


def projective_plane_incidence(q: int) -> np.ndarray:
    """Incidence (v x v) of PG(2, q): point x on line y iff ``x . y = 0`` in GF(q)."""
    F = GaloisField(q)
    P = _normalised_points(F, 3)
    dot = F.mul(P[:, None, 0], P[None, :, 0])
    for c in (1, 2):
        dot = F.add(dot, F.mul(P[:, None, c], P[None, :, c]))
    return (dot == 0).astype(np.int8)


def affine_plane_incidence(q: int) -> np.ndarray:
    """Incidence (q^2 x (q^2 + q)) of AG(2, q): lines ``y = a x + c`` and ``x = c``."""
    F = GaloisField(q)
    x, y = np.divmod(np.arange(q * q), q)
    cols = [y == F.add(F.mul(a, x), c) for a in range(q) for c in range(q)]
    cols += [x == c for c in range(q)]
    return np.array(cols, dtype=np.int8).T


# ------------------------------------------------------- Steiner triples
def steiner_triples(v: int) -> list[tuple[int, int, int]]:
    """The b = v (v - 1) / 6 triples of an STS(v), v = 1 or 3 mod 6, v >= 7 (or v = 3)."""
    if v % 6 == 3:  # Bose: Z_n x Z_3, n = v / 3 odd, i o j = (i + j) (n + 1) / 2 mod n
        n = v // 3
        half = (n + 1) // 2

        def pt(x: int, i: int) -> int:
            return x + n * (i % 3)

        blocks = [(pt(x, 0), pt(x, 1), pt(x, 2)) for x in range(n)]
        for i in range(3):
            for x in range(n):
                for y in range(x + 1, n):
                    blocks.append((pt(x, i), pt(y, i), pt((x + y) * half % n, i + 1)))
        return blocks
    if v % 6 == 1:  # Skolem: {inf} + Z_2t x Z_3, half-idempotent i o j = f((i + j) mod 2t)
        t = (v - 1) // 6
        n = 2 * t
        inf = 3 * n

        def pt(x: int, i: int) -> int:
            return x + n * (i % 3)

        def op(x: int, y: int) -> int:
            s = (x + y) % n
            return s // 2 + t * (s % 2)

        blocks = [(pt(x, 0), pt(x, 1), pt(x, 2)) for x in range(t)]
        for i in range(3):
            for x in range(t):
                blocks.append((inf, pt(x + t, i), pt(x, i + 1)))
            for x in range(n):
                for y in range(x + 1, n):
                    blocks.append((pt(x, i), pt(y, i), pt(op(x, y), i + 1)))
        return blocks
    raise ValueError(f"v must be 1 or 3 mod 6 for a Steiner triple system, got v={v}")


# ------------------------------------------------------- difference sets
def paley_difference_set(q: int) -> tuple[GaloisField, np.ndarray]:
    """The nonzero squares of GF(q), q = 3 mod 4: a (q, (q-1)/2, (q-3)/4) difference set."""
    F = GaloisField(q)
    return F, F.nonzero_squares()


def singer_difference_set(q: int, m: int) -> np.ndarray:
    """``{i < v : Tr(alpha^i) = 0}`` in Z_v, v = (q^(m+1) - 1) / (q - 1).

    ``alpha`` primitive in GF(q^(m+1)), ``Tr(x) = sum_j x^(q^j)`` (j = 0..m)
    to GF(q). Trace zero is a GF(q)-hyperplane of GF(q^(m+1)); its nonzero
    elements, taken modulo GF(q)^* (= the powers alpha^(v t)), are the points of
    a hyperplane of PG(m, q) under the Singer cycle ``alpha^i -> alpha^(i+1)``.
    """
    pe = prime_power(q)
    assert pe is not None
    F = GaloisField(q ** (m + 1))
    v = (q ** (m + 1) - 1) // (q - 1)
    i = np.arange(v, dtype=np.int64)
    tr = np.zeros(v, dtype=np.int64)
    for j in range(m + 1):
        tr = F.add(tr, F.exp[(i * q**j) % (F.q - 1)])
    return np.flatnonzero(tr == 0)


def develop(base: np.ndarray, v: int, add=None) -> np.ndarray:
    """Incidence (v x v) of the blocks ``base + g`` (g = 0..v-1; ``add`` the group law)."""
    g = np.arange(v, dtype=np.int64)
    pts = (base[None, :] + g[:, None]) % v if add is None else add(base[None, :], g[:, None])
    N = np.zeros((v, v), dtype=np.int8)
    N[pts, g[:, None]] = 1
    return N


# ---------------------------------------------------------- Bruck-Ryser-Chowla
def _legendre(a: int, p: int) -> int:
    r = pow(a % p, (p - 1) // 2, p)
    return -1 if r == p - 1 else r


def hilbert_symbol(a: int, b: int, p: int) -> int:
    """``(a, b)_p`` for nonzero integers and a prime p (Serre, Ch. III, Theorem 1)."""

    def split(x: int) -> tuple[int, int]:
        k = 0
        while x % p == 0:
            x //= p
            k += 1
        return k, x

    (al, u), (be, w) = split(a), split(b)
    if p == 2:

        def eps(x: int) -> int:
            return ((x - 1) // 2) % 2

        def omega(x: int) -> int:
            return ((x * x - 1) // 8) % 2

        expo = eps(u) * eps(w) + al * omega(w) + be * omega(u)
        return -1 if expo % 2 else 1
    s = -1 if (al * be * ((p - 1) // 2)) % 2 else 1
    if be % 2:
        s *= _legendre(u, p)
    if al % 2:
        s *= _legendre(w, p)
    return s


def bruck_ryser_chowla(v: int, k: int, lam: int) -> tuple[bool, str]:
    """Whether symmetric (v, k, lambda) parameters pass Bruck-Ryser-Chowla, and why.

    v even: ``k - lambda`` a perfect square. v odd: ``z^2 = n x^2 + b y^2``
    (``n = k - lambda``, ``b = (-1)^((v-1)/2) lambda``) has a nontrivial
    integer solution iff ``(n, b)_p = 1`` at every prime p and at infinity
    (Hasse-Minkowski); only p | 2 n b can fail, and at infinity it fails only
    when n, b < 0 (here n > 0).
    """
    n = k - lam
    if v % 2 == 0:
        if math.isqrt(n) ** 2 == n:
            return True, f"k - lambda = {n} is a square"
        return False, f"v is even and k - lambda = {n} is not a square"
    b = lam if ((v - 1) // 2) % 2 == 0 else -lam
    eq = f"z^2 = {n} x^2 {'+' if b > 0 else '-'} {abs(b)} y^2"
    for p in sorted(set(factorize(2 * n * b))):
        if hilbert_symbol(n, b, p) == -1:
            return False, (
                f"v is odd and {eq} has no nontrivial integer solution (Hilbert symbol "
                f"({n}, {b})_{p} = -1)"
            )
    return True, f"{eq} has nontrivial integer solutions (every Hilbert symbol is 1)"
