"""Gradient codes of :mod:`gctheory.codes` as training schemes: wait for the fastest, decode."""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory.training.schemes.base import Iteration, Scheme, Step, _kth

__all__ = ["Coded"]


class Coded(Scheme):
    """A gradient code from :mod:`gctheory.codes`: wait for the fastest ``wait_for``, decode.

    Encoding and decoding are the code's own ``encode`` / ``decode_detail``;
    exact codes wait for ``n - s``; approximate codes for ``wait_for`` given by
    the caller. ``scale`` multiplies the decoded sum (1 for exact codes).
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

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        S, wait = _kth(T, self.f)
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
        return Step(res.gradient.real * self.scale, wait, self.n + self.f, comp, ops)
