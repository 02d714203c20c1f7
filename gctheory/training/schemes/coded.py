"""Gradient codes of :mod:`gctheory.codes` as training schemes: wait for the fastest, decode.

:class:`Coded` waits for the fastest ``n - s`` (exact codes; Tandon et al. 2017,
Section 2), the earliest moment every group decodes (FRC, CommFR), the first
decodable set (peeling codes: :class:`PeelingWait`), or the fastest
``wait_for`` (other approximate codes). The real-run master
(:mod:`gctheory.cluster.rules`) waits by the same objects: a simulated and a
real run of a scheme pick the same survivor set from the same arrival order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory.training.schemes.base import Iteration, Scheme, Step, _kth

__all__ = ["Coded", "PeelingWait"]


class PeelingWait:
    """The first decodable set of a peeling code (batch raptor code, Wang et al. 2019, Alg. 1).

    A set of survivors is *decodable* when peeling recovers from it every
    batch that all ``n`` messages would (every batch, for a code that covers
    and peels fully: the exact gradient). Not a count: sets of one size may
    or may not peel. Recovery only grows with the set, so the first decodable
    prefix of an arrival order is found by bisection. Answers are cached per
    survivor set (at most 4096, then the cache starts afresh).

    Parameters
    ----------
    code : BatchRaptorCode
        A code with ``recovered_batches(survivors)`` (structure only).
    """

    def __init__(self, code: Any) -> None:
        self.code, self.n = code, int(code.n)
        self.target = int(code.recovered_batches(range(self.n)).sum())
        self._peels: dict[tuple[int, ...], bool] = {}

    def decodable(self, survivors: Any) -> bool:
        """Peeling recovers from ``survivors`` every batch all ``n`` workers would."""
        key = tuple(sorted(int(i) for i in survivors))
        hit = self._peels.get(key)
        if hit is None:
            hit = bool(key) and int(self.code.recovered_batches(key).sum()) >= self.target
            if len(self._peels) > 4096:
                self._peels.clear()
            self._peels[key] = hit
        return hit

    def first_decodable(self, order: Any) -> int | None:
        """Length of the shortest decodable prefix of ``order`` (None: none is)."""
        order = list(order)
        if not order or not self.decodable(order):
            return None
        lo, hi = 1, len(order)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.decodable(order[:mid]):
                hi = mid
            else:
                lo = mid + 1
        return lo


class Coded(Scheme):
    """A gradient code from :mod:`gctheory.codes`: wait for the fastest ``wait_for``, decode.

    Encoding and decoding are the code's own ``encode`` / ``decode_detail``;
    exact codes wait for ``n - s``; peeling codes (a batch raptor code with
    its peeling decoder) for the first decodable set of the arrival order
    (:class:`PeelingWait`; all ``n`` when none is, decoded as far as peeling
    goes); other approximate codes for ``wait_for`` given by the caller.
    ``scale`` multiplies the decoded sum (1 for exact codes).
    """

    def __init__(self, code: Any, wait_for: int, name: str, scale: float = 1.0) -> None:
        super().__init__(code.n, code.k, code.support, msg_frac=1.0 / code.m)
        self.code, self.f, self.name, self.scale = code, wait_for, name, scale
        self.exact = bool(getattr(code, "exact", False))
        self.last_decode: Any = None
        # group-structured exact codes decode once every group has `need` survivors
        self.groups_need: tuple[int, int] | None = None
        from gctheory.codes import CommFRCode, FractionalRepetitionCode

        if isinstance(code, FractionalRepetitionCode) and code.k == code.n:
            self.groups_need = (code.s + 1, 1)
        elif type(code) is CommFRCode and code.delta is not None:  # (always, but LDPC's)
            self.groups_need = (code.N, code.N - code.delta + 1)
        self.peeling: PeelingWait | None = None
        if code.s is None and getattr(code, "decoder", None) == "peeling":
            self.peeling = PeelingWait(code)

    def survivors(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        """The survivor set the server decodes from and when it has it, for finishing times T.

        The fastest ``wait_for`` (ties broken by index), or for a peeling code
        the first decodable prefix of the arrival order (all ``n`` if none).
        """
        if self.peeling is None:
            return _kth(T, self.f)
        order = np.argsort(T, kind="stable")
        L = self.peeling.first_decodable(order.tolist()) or self.n
        return order[:L], float(T[order[L - 1]])

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        S, wait = self.survivors(T)
        if self.groups_need is not None:
            # Tandon et al. 2017, Sec. 3.1 (one survivor per group); Kadhe et al. 2019,
            # Theorem 1 (N - delta + 1 per group): the sum is decodable at
            # max_g T^(g)_(need); the exact code decodes the same sum (up to rounding)
            # from its n - s fastest, which is what its decoder accepts.
            size, need = self.groups_need
            wait = float(np.sort(T.reshape(-1, size), axis=1)[:, need - 1].max())
        d = it.G.shape[1]
        Y = self.code.encode(it.G)
        # the simulator knows the true gradient and records the decoding error itself
        # (``grad_error``); the forward-error bound stays in ``res.noise_bound``, unwarned
        res = self.code.decode_detail(S, Y[S], d, on_noise="ignore")
        self.last_decode = res
        ops = int(self.code.decoding_cost(S, d).total)
        comp = float(self.support.sum())
        return Step(res.gradient.real * self.scale, wait, self.n + len(S), comp, ops)
