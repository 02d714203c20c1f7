"""SR-SGC and M-SGC (Krishnan, Ebrahimi, Khisti, ICLR 2023) as training schemes."""

from __future__ import annotations

import numpy as np

from gctheory._validate import check_real
from gctheory.training.schemes.base import Iteration, Scheme, Step

__all__ = ["Sequential"]


class Sequential(Scheme):
    """SR-SGC or M-SGC (Krishnan, Ebrahimi, Khisti, ICLR 2023) as a training scheme.

    Iteration ``t`` is round ``t``: the server broadcasts ``w_t`` and job ``t``
    (the gradient at ``w_t``) starts; the master of
    :mod:`gctheory.codes.sequential` assigns every worker's tasks from what
    arrived before. The round lasts as in :mod:`gctheory.sgc.runtime` (paper
    rules): the server waits ``(1 + mu)`` times the fastest finishing time,
    slower workers are the round's stragglers, unless that takes the pattern
    outside the (B, W, lambda) model, in which case it waits for all (no
    straggler). Job ``t`` is decoded from the transmissions of rounds
    ``t .. t + T`` with the code's own decoder and enters the optimiser at
    round ``t + T`` (a gradient ``T`` rounds stale); the first ``T`` rounds
    make no step. Data: SR-SGC's ``k = n`` partitions; M-SGC's D1 chunks are
    ``lambda + 1`` equal data partitions each and its D2 partitions one each,
    ``k = n ((W - 1)(lambda + 1) + B)`` (``n (W - 1)`` when ``lambda = n``).
    Every worker's load is the code's normalised load times ``n``.
    """

    exact = True

    def __init__(self, n: int, kind: str, B: int, W: int, lam: int, mu: float) -> None:
        from gctheory.codes.sequential import MSGC, SRSGC

        self.code = SRSGC(n, B, W, lam) if kind == "sr_sgc" else MSGC(n, B, W, lam)
        c = self.code
        self.mu = check_real(mu, "mu", low=0.0)
        self.T = c.T
        self.unit = 1
        if isinstance(c, SRSGC):
            from gctheory.codes import cyclic_support

            k, support = n, cyclic_support(n, c.s + 1)
        else:
            self.unit = c.lam + 1 if c.groups else 1
            d1 = n * (W - 1) * self.unit
            k = d1 + c.groups * n
            support = np.zeros((n, k), bool)
            for i in range(n):
                support[i, i * (W - 1) * self.unit : (i + 1) * (W - 1) * self.unit] = True
                for g in range(c.groups):
                    support[i, d1 + g * n + (i + np.arange(c.lam + 1)) % n] = True
        super().__init__(n, k, support)
        self.loads = np.full(n, float(c.load) * n)
        self.name = f"{c.name}{c.params}"
        self.horizon = 1000
        self._reset()

    def set_horizon(self, iterations: int) -> None:
        """Rounds the run will have (sizes the master's state)."""
        self.horizon = int(iterations)
        self._reset()

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        super().prepare(smooth, alpha, comm_time)
        self._reset()

    def _reset(self) -> None:
        self.master = self.code.master(max(1, self.horizon))
        self.hist: list[np.ndarray] = []
        self.enc: dict[int, dict] = {}
        self.received: dict[int, list] = {}
        self.waited_all = 0  # rounds that left the model: waited for everyone
        self.straggled = 0  # rounds that went on without some worker

    def _code_partials(self, G: np.ndarray) -> np.ndarray:
        """The code's partitions (SR-SGC: G; M-SGC: D1 chunks of ``unit`` partitions, D2)."""
        if self.unit == 1:
            return G
        c = self.code
        d1 = c.n * (c.W - 1)
        chunks = G[: d1 * self.unit].reshape(d1, self.unit, -1).sum(axis=1)
        return np.concatenate([chunks, G[d1 * self.unit :]])

    def _encode(self, j: int, P: np.ndarray) -> dict:
        """Every transmission of job j, encoded once: ``{(part, group): (n, d) rows}``."""
        c = self.code
        if c.name == "SR-SGC":
            return {"Y": c._code().encode(P)}
        d1 = c.n * (c.W - 1)
        out: dict[str | int, np.ndarray] = {"D1": P[:d1]}
        for g in range(c.groups):
            out[g] = c._code().encode(P[d1 + g * c.n : d1 + (g + 1) * c.n])
        return out

    def _message(self, lab: tuple, i: int) -> tuple[tuple, np.ndarray]:
        c, e = self.code, self.enc[lab[0]]
        if c.name == "SR-SGC":
            return (lab[0], lab[1], i), e["Y"][i]
        if lab[1] == "D1":
            return (*lab, i), e["D1"][i * (c.W - 1) + lab[2]]
        return (*lab, i), e[lab[2]][i]

    def step(self, it: Iteration) -> Step:
        t, n = it.t, self.n
        if t >= self.master.rounds:
            raise ValueError(f"{self.name}: more rounds than the horizon {self.horizon} set")
        self.enc[t] = self._encode(t, self._code_partials(it.G))
        Tf = self.finish_times(it.X)
        fast, slow = float(Tf.min()) * (1 + self.mu), float(Tf.max())
        st = Tf > fast
        win = self.hist[-(self.code.W - 1) :]
        hist = np.array(win, bool).reshape(-1, n)
        if self.code.model.round_violation(hist, st) is None:
            wait = min(fast, slow)
        else:
            st = np.zeros(n, bool)
            wait = slow
            self.waited_all += 1
        self.straggled += bool(st.any())
        self.hist = [*win, st]
        labels = self.master.push(st)
        msgs = 0
        for i in np.flatnonzero(~st):
            for lab in labels[i]:
                if lab is not None:
                    self.received.setdefault(lab[0], []).append(self._message(lab, int(i)))
                    msgs += 1
        j = t - self.T
        grad = np.zeros(it.G.shape[1])
        if j >= 0:
            grad = np.real(self.master.decode_job(j, self.received.pop(j, [])))
            self.enc.pop(j, None)
        comp = float(self.loads.sum()) * self.k / n
        return Step(grad, wait, n + msgs, comp)
