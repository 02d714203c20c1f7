"""Compiled kernels of :func:`gctheory.ldpc.ensembles.regular_ensemble` (needs numba).

Module-level functions, so numba's disk cache (``cache=True``) finds them again in a new
process. Imported only when a large simple code is drawn.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["draw_simple_configuration", "sockets_to_csr"]

_MASK32 = np.uint64(0xFFFFFFFF)


@numba.njit(cache=True, inline="always")
def _rotl(x, k):  # pragma: no cover - compiled code
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(cache=True, inline="always")
def _next64(s):  # pragma: no cover - compiled code
    """xoshiro256** (Blackman and Vigna 2018): the next 64-bit word of the state ``s``."""
    out = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return out


@numba.njit(cache=True, inline="always")
def _below(s, buf, span):  # pragma: no cover - compiled code
    """An exactly uniform integer in ``[0, span)``, ``span < 2**32``: Lemire's
    multiply-shift on 32-bit words, the few biased low words rejected. ``buf`` holds a
    spare 32-bit half (``buf[1] == 1`` when it does)."""
    span = np.uint64(span)
    while True:
        if buf[1]:
            x = buf[0]
            buf[1] = 0
        else:
            w = _next64(s)
            x = w & _MASK32
            buf[0] = w >> np.uint64(32)
            buf[1] = 1
        prod = x * span
        low = prod & _MASK32
        if low >= span or low >= (_MASK32 - span + np.uint64(1)) % span:
            return np.int64(prod >> np.uint64(32))


@numba.njit(cache=True, nogil=True, boundscheck=False)
def draw_simple_configuration(seed, n, dv, dc, chk, counts, pool):  # pragma: no cover
    """A uniform configuration of the ``(dv, dc)`` configuration model with no multi-edge,
    by rejection: ``chk[v dv + a]`` is the check of variable ``v``'s socket ``a``.

    Socket by socket, the check is drawn with probability proportional to its free
    sockets (a uniform check ``c``, kept with probability ``counts[c] / dc``: the next
    entry of a uniform permutation of the check sockets, without the permutation's
    12 MB of random memory accesses at n = 10**6), and the draw is abandoned at the
    first socket whose check its variable already has. Once only ``pool.size`` sockets
    are free, the rest is a Fisher-Yates shuffle of them. Returns the number of
    configurations drawn. ``seed``: four 64-bit words, not all zero.
    """
    m = counts.size
    total = n * dv
    s = seed.copy()
    buf = np.zeros(2, dtype=np.uint64)
    switch = total - pool.size
    attempts = 0
    while True:
        attempts += 1
        counts[:] = dc
        ok = True
        i = 0
        first = 0  # the variable's first socket
        while i < switch:
            c = _below(s, buf, m)
            free = counts[c]
            if free < dc and _below(s, buf, dc) >= free:
                continue  # a socket already taken: draw again
            counts[c] = free - 1
            for q in range(first, i):
                if chk[q] == c:
                    ok = False
            if not ok:
                break
            chk[i] = c
            i += 1
            if i - first == dv:
                first = i
        if not ok:
            continue
        k = 0
        for c in range(m):
            for _ in range(counts[c]):
                pool[k] = c
                k += 1
        r = pool.size
        for k in range(r):
            j = k + _below(s, buf, r - k)
            c = pool[j]
            pool[j] = pool[k]
            pool[k] = c
            for q in range(first, i):
                if chk[q] == c:
                    ok = False
            if not ok:
                break
            chk[i] = c
            i += 1
            if i - first == dv:
                first = i
        if ok:
            return attempts


@numba.njit(cache=True, nogil=True, boundscheck=False)
def sockets_to_csr(chk, m, dv, dc):  # pragma: no cover - compiled code
    """CSR arrays ``(indptr, indices)`` of the 0/1 matrix whose column ``v`` has ones in
    rows ``chk[v dv : v dv + dv]`` (distinct), every row holding ``dc`` ones: a counting
    sort by row, columns increasing within a row."""
    indptr = np.arange(0, m * dc + 1, dc).astype(np.int32)
    fill = np.zeros(m, dtype=np.int64)
    indices = np.empty(chk.size, dtype=np.int32)
    for s in range(chk.size):
        r = chk[s]
        indices[r * dc + fill[r]] = s // dv
        fill[r] += 1
    return indptr, indices
