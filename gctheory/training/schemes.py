"""The parameter-server schemes simulated by :mod:`gctheory.training`, and their registry.

Each scheme turns one iteration's partial gradients (evaluated at the current
model) and the workers' finishing times into a gradient estimate, the time the
server waited, and the communication and computation loads of Zhang & Simeone
2020, eqs. (7)-(8). Coded schemes use the encoders and decoders of
:mod:`gctheory.codes` unchanged, built by :mod:`gctheory.training.codes`.
:data:`SCHEMES` names every scheme and :func:`make_scheme` builds one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_array, check_flag, check_int, check_real
from gctheory.training.codes import build_code as _code

__all__ = [
    "SCHEMES",
    "make_scheme",
    "Step",
    "Iteration",
    "Scheme",
    "AsynchronousSGD",
    "lgc_compensation",
    "lag_select",
]


@dataclass
class Step:
    """What the server did in one iteration."""

    grad: np.ndarray
    wait: float
    comm: float
    comp: float
    decode_ops: int = 0


@dataclass
class Iteration:
    """Inputs of one iteration, as a scheme sees them.

    ``G`` (k, d): partial gradients of the k data partitions at the current
    model, summing to the full gradient. ``X`` (n,): the workers' per-unit-load
    times this iteration (from the delay model). ``w``: the model. ``t``: the
    iteration index. ``block_grad(j, r, s)``: sum of the first r of s blocks of
    partition j's gradient (Xu et al. 2021, Algorithm 1, line 8).
    """

    G: np.ndarray
    X: np.ndarray
    w: np.ndarray
    t: int
    block_grad: Callable[[int, int, int], np.ndarray]


class Scheme:
    """Base class: ``n`` workers, ``k`` data partitions, placement ``support`` (n, k)."""

    name = "scheme"
    exact = False

    def __init__(self, n: int, k: int, support: np.ndarray, msg_frac: float = 1.0) -> None:
        self.n, self.k = n, k
        self.support = np.asarray(support, bool)
        # relative load: fraction of the data held, times n (1 for one n-th of it)
        self.loads = self.support.sum(axis=1) * (n / k)
        self.msg_frac = np.full(n, float(msg_frac))
        self.smooth, self.alpha, self.comm_time = np.ones(k), 1.0, 0.0

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        """Called once per run with partition smoothness constants and the step size."""
        self.smooth, self.alpha, self.comm_time = smooth, alpha, comm_time

    def finish_times(self, X: np.ndarray) -> np.ndarray:
        """``T_i = l_i X_i + comm_time f_i`` (see :class:`DelayModel`)."""
        return self.loads * X + self.comm_time * self.msg_frac

    def step(self, it: Iteration) -> Step:  # pragma: no cover - abstract
        raise NotImplementedError


def _kth(T: np.ndarray, K: int) -> tuple[np.ndarray, float]:
    """The K fastest workers (ties broken by index) and the K-th order statistic."""
    order = np.argsort(T, kind="stable")
    S = order[:K]
    return S, float(T[order[K - 1]])


class WaitAll(Scheme):
    """Uncoded GD: wait for all n workers (Full-SGD of Xu et al. 2021, eq. (3))."""

    name = "gd"
    exact = True

    def __init__(self, n: int) -> None:
        super().__init__(n, n, np.eye(n, dtype=bool))

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        return Step(it.G.sum(axis=0), float(T.max()), 2 * self.n, self.n)


class IgnoreStragglers(Scheme):
    """K-SGD / forget-s: average the fastest K of n uncoded workers (Xu et al. 2021, Alg. 1).

    Estimate ``(n/K) sum_{i in S_t} g_i`` (in sum-type partials; the worker
    average ``(1/K) sum g^(i)`` of the paper with ``g^(i) = n g_i``).
    """

    name = "ignore"

    def __init__(self, n: int, K: int) -> None:
        super().__init__(n, n, np.eye(n, dtype=bool))
        self.K = K

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        S, wait = _kth(T, self.K)
        return Step(it.G[S].sum(axis=0) * (self.n / self.K), wait, self.n + self.K, self.n)


class AsynchronousSGD(Scheme):
    """AsySG: the server updates after every ``K`` results, whatever models they came from.

    Asynchronous SGD as compared in Wang, Liu, Shroff 2019, Section 5 (after Reddi
    et al. 2015): the server does not wait for the stragglers and "updates the
    parameter every fixed number of iterations". Each worker computes the
    gradient of its own partition at the model it last received and returns it
    when done, ``T_i = l_i X_i + comm`` after it started (``X_i`` drawn when it
    starts); the server updates as soon as ``K`` results have arrived since its
    last update, with ``(n/K) sum`` of those gradients (possibly stale: computed
    at older models), and sends the new model to the ``K`` workers that
    delivered, which start again. The others keep computing on their old models.
    With ``K = n`` every worker delivers every time and this is wait-for-all GD.
    """

    name = "asysg"

    def __init__(self, n: int, K: int) -> None:
        super().__init__(n, n, np.eye(n, dtype=bool))
        self.K = K
        self._reset()

    def _reset(self) -> None:
        self.busy_until: np.ndarray | None = None  # when each worker's current result arrives
        self.pending: np.ndarray | None = None  # the gradient it is computing (at its model)
        self.restart = np.zeros(0, dtype=np.int64)  # workers that delivered last update
        self.now = 0.0

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        super().prepare(smooth, alpha, comm_time)
        self._reset()

    def step(self, it: Iteration) -> Step:
        T = self.finish_times(it.X)
        if self.busy_until is None:  # every worker starts at the initial model
            self.busy_until = T.copy()
            self.pending = it.G.copy()
        else:
            assert self.pending is not None
            idle = self.restart
            self.busy_until[idle] = self.now + T[idle]
            self.pending[idle] = it.G[idle]
        assert self.pending is not None
        order = np.argsort(self.busy_until, kind="stable")
        S = order[: self.K]
        t_next = float(self.busy_until[order[self.K - 1]])
        wait, self.now, self.restart = t_next - self.now, t_next, S
        grad = self.pending[S].sum(axis=0) * (self.n / self.K)
        return Step(grad, wait, 2 * self.K, float(self.K))


def lgc_compensation(worker_grads: np.ndarray, fastest: np.ndarray) -> np.ndarray:
    """LGC compensation (Xu et al. 2021, Algorithm 1, line 20).

    ``e = (1/N) sum_{i not in S} g^(i) - ((N-K)/N) g'``.

    Parameters
    ----------
    worker_grads : array (N, d)
        The workers' gradients ``g^(i)`` (for stragglers, the delayed and
        possibly partial ones of eq. (6)).
    fastest : array of int
        The K fastest workers ``S``; ``g' = (1/K) sum_{i in S} g^(i)``.

    With complete straggler gradients this equals the bias of eq. (7),
    ``(1/N) sum_i g^(i) - (1/K) sum_{i in S} g^(i)``.
    """
    g = check_array(worker_grads, "worker_grads", ndim=2)
    N = g.shape[0]
    f = check_array(fastest, "fastest", ndim=1, min_size=0)
    if np.any(f != np.round(f)) or (f.size and (f.min() < 0 or f.max() >= N)):
        raise ValueError(f"fastest must hold worker indices in [0, N) with N={N}")
    if f.size != np.unique(f).size:
        raise ValueError("fastest must hold distinct workers")
    return _lgc_compensation(g, f.astype(np.int64))


def _lgc_compensation(g: np.ndarray, fastest: np.ndarray) -> np.ndarray:
    """:func:`lgc_compensation` on checked arguments (the training loop's own)."""
    N = g.shape[0]
    mask = np.zeros(N, bool)
    mask[fastest] = True
    K = int(mask.sum())
    if K == 0 or K > N:
        raise ValueError(f"fastest must hold between 1 and N={N} distinct workers, got {K}")
    g_prime = g[mask].mean(axis=0)
    return g[~mask].sum(axis=0) / N - (N - K) / N * g_prime


class LGC(Scheme):
    """LGC-SGD (Xu et al. 2021, Algorithm 1): fastest K now, stragglers' delayed gradients next.

    Parameters: ``K`` threshold; ``blocks`` = s of Algorithm 1; ``partial_work``:
    stragglers process blocks only until the update arrives (at the K-th
    finishing time), r = floor(s T_(K) / T_i) of s blocks, else (the paper's
    default simulation, Section V-B) they complete all s; ``linear_scaling``:
    eq. (6) (scale by r/s) versus the plain average over the r blocks.
    ``warmup``: iterations run as Full-SGD first (the paper uses 2 epochs).
    """

    name = "lgc"

    def __init__(
        self, n: int, K: int, blocks: int = 4, partial_work: bool = False,
        linear_scaling: bool = True, warmup: int = 0,
    ) -> None:  # fmt: skip
        super().__init__(n, n, np.eye(n, dtype=bool))
        self.K, self.blocks, self.partial = K, blocks, partial_work
        self.scaling, self.warmup = linear_scaling, warmup
        self.pending: tuple[np.ndarray, np.ndarray] | None = None

    def step(self, it: Iteration) -> Step:
        n, K = self.n, self.K
        T = self.finish_times(it.X)
        if it.t < self.warmup or K == n:
            self.pending = None
            return Step(it.G.sum(axis=0), float(T.max()), 2 * n, n)
        S, wait = _kth(T, K)
        u = n * it.G  # worker-average gradients g^(i) of Xu et al. eq. (2)
        g_prime = u[S].mean(axis=0)
        est = g_prime.copy()
        if self.pending is not None:
            est += _lgc_compensation(*self.pending)
        comp = float(K)
        delayed = u.copy()
        strag = np.setdiff1d(np.arange(n), S)
        for i in strag:
            if not self.partial:
                comp += 1
                continue
            r = min(self.blocks, int(math.floor(self.blocks * wait / T[i]))) if T[i] > 0 else 0
            comp += r / self.blocks
            part = n * it.block_grad(i, r, self.blocks)
            delayed[i] = part if self.scaling or r == 0 else part * (self.blocks / r)
        self.pending = (delayed, S)
        return Step(est, wait, 2 * n, comp)


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


def lag_select(
    L: np.ndarray,
    stale: np.ndarray,
    w: np.ndarray,
    history: Sequence[float] | np.ndarray,
    alpha: float,
    xi: float,
) -> np.ndarray:
    """LAG-PS selection (Chen et al. 2018; Zhang & Simeone 2020, eqs. (13), (17)).

    Unit m is asked for a fresh gradient iff
    ``L_m^2 |theta_hat_m - theta^k|^2 >=``
    ``xi / (alpha^2 M^2) sum_{d=1}^D |theta^{k+1-d} - theta^{k-d}|^2``
    (``history`` holds the last D squared model changes; ``stale`` (M, dim)
    the models at which each unit last sent).
    """
    L = check_array(L, "L", ndim=1)
    M = L.size
    w = check_array(w, "w", ndim=1)
    stale = check_array(stale, "stale", ndim=2)
    if stale.shape != (M, w.size):
        raise ValueError(
            f"stale must have shape (len(L), len(w)) = ({M}, {w.size}), got {stale.shape}"
        )
    history = check_array(history, "history", ndim=1, min_size=0)
    alpha = check_real(alpha, "alpha", low=0.0, low_open=True)
    xi = check_real(xi, "xi", low=0.0)
    return _lag_select(L, stale, w, history, alpha, xi)


def _lag_select(
    L: np.ndarray, stale: np.ndarray, w: np.ndarray, history: Any, alpha: float, xi: float
) -> np.ndarray:
    """:func:`lag_select` on checked arguments (the training loop's own)."""
    M = len(L)
    rhs = xi / (alpha**2 * M**2) * float(np.sum(history))
    lhs = L**2 * np.sum((stale - w) ** 2, axis=1)
    return lhs >= rhs


class Grouped(Scheme):
    """GD / GC / LAG / G-GD / G-LAG / LAGC of Zhang & Simeone 2020 (Algorithms 1-2, eq. (18)).

    ``n`` workers in ``groups`` groups of ``n_g = n / groups``; the data is cut
    into n base partitions, group g owning those of its n_g worker slots.
    Storage redundancy ``r``: if ``r == n_g`` every worker of a group stores the
    whole group partition and the server needs its fastest worker (G-GD,
    G-LAG, LAG when n_g = 1); if ``r < n_g`` the group runs the cyclic-MDS
    gradient code ``code_factory(n_g, r - 1)`` and needs its fastest
    ``n_g - r + 1`` (LAGC; GC when groups = 1). ``select``: LAG rule (17) with
    constants ``xi`` and memory ``D``; else every group every iteration. A
    group's smoothness constant is the sum of its partitions' constants
    ``|X_j|_2^2 h / N + l2 / k`` (an upper bound; h the model's Hessian bound).
    Iterations where no group is selected take no time (the paper's clock
    counts computation only, Section II-A).
    """

    def __init__(
        self, n: int, groups: int, r: int, select: bool, name: str,
        xi: float = 0.1, D: int = 10, code_factory: Callable[[int, int], Any] | None = None,
    ) -> None:  # fmt: skip
        ng = n // groups
        self.ng, self.groups, self.r, self.select = ng, groups, r, select
        self.xi, self.D = xi, D
        if r < ng:
            if code_factory is None:
                raise ValueError("r < n/groups needs a gradient code inside each group")
            self.code = code_factory(ng, r - 1)  # one code, used by every group
        sup = np.zeros((n, n), bool)
        for g in range(groups):
            slots = np.arange(g * ng, (g + 1) * ng)
            sup[np.ix_(slots, slots)] = True if r == ng else self.code.support
        super().__init__(n, n, sup)
        self.name = name
        self.exact = not select
        self.need = 1 if r == ng else ng - r + 1

    def prepare(self, smooth: np.ndarray, alpha: float, comm_time: float) -> None:
        super().prepare(smooth, alpha, comm_time)
        self.Lg = np.asarray(smooth, float).reshape(self.groups, self.ng).sum(axis=1)
        self.stale_w: np.ndarray | None = None
        self.stale_g: np.ndarray | None = None
        self.history: list[float] = []
        self.prev_w: np.ndarray | None = None
        self.selected_count = np.zeros(self.groups, dtype=np.int64)

    def step(self, it: Iteration) -> Step:
        G, w = it.G, it.w
        d = G.shape[1]
        ng, groups = self.ng, self.groups
        if self.prev_w is not None:
            self.history.append(float(np.sum((w - self.prev_w) ** 2)))
            self.history = self.history[-self.D :]
        self.prev_w = w.copy()
        if self.stale_w is None or self.stale_g is None:  # the first step (set together)
            self.stale_w = np.repeat(w[None], groups, axis=0)
            self.stale_g = np.zeros((groups, d))
            sel = np.ones(groups, bool)
        elif self.select:
            sel = _lag_select(self.Lg, self.stale_w, w, self.history, self.alpha, self.xi)
        else:
            sel = np.ones(groups, bool)
        T = self.finish_times(it.X)
        wait, comm, comp, ops = 0.0, 0, 0.0, 0
        self.selected_count += sel
        for g in np.flatnonzero(sel):
            slots = slice(g * ng, (g + 1) * ng)
            Tg = T[slots]
            if self.r == ng:
                gw = float(Tg.min())
                self.stale_g[g] = G[slots].sum(axis=0)
            else:
                S, gw = _kth(Tg, self.need)
                Y = self.code.encode(G[slots])
                self.stale_g[g] = self.code.decode(S, Y[S], d, on_noise="ignore").real
                ops += int(self.code.decoding_cost(S, d).total)
            self.stale_w[g] = w
            wait = max(wait, gw)
            comm += ng + self.need
            comp += ng * self.r
        return Step(self.stale_g.sum(axis=0), wait, comm, comp, ops)


# ---------------------------------------------------------------------------
# the registry

_ALIASES = {
    "ksgd": "ignore",
    "forget-s": "ignore",
    "forget_s": "ignore",
    "full": "gd",
    "gc": "cyclic_mds",
    "graph-assignment": "graph_assignment",
    "stochastic": "sgc",
    "sr-sgc": "sr_sgc",
    "m-sgc": "m_sgc",
}
SCHEMES: dict[str, str] = {
    "gd": "wait for all n workers (uncoded GD, Full-SGD)",
    "ignore": "ignore stragglers: fastest K of n, uncoded (K-SGD, forget-s)",
    "lgc": "LGC-SGD: fastest K now, stragglers compensated next iteration (Xu et al. 2021)",
    "asysg": "asynchronous SGD: update after every K results, stale gradients (Wang et al. 2019)",
    "cyclic_mds": "Tandon et al. cyclic-MDS gradient code, load s+1 (alias gc)",
    "frc": "Tandon et al. fractional repetition code, (s+1) | n",
    "ye_abbe": "Ye-Abbe communication-efficient code, load s+m",
    "commfr": "CommFR-GC on an MDS code (Kadhe et al. 2019)",
    "rs": "Reed-Solomon gradient code (Halbawi et al. 2017)",
    "dfrc": "d-fractional repetition code, approximate (Wang et al. 2019)",
    "brc": "batch raptor code, approximate, peeling decoder (Wang et al. 2019)",
    "bgc": "Bernoulli gradient code, approximate (Wang et al. 2019)",
    "expander": "expander-graph code, approximate, random d-regular or Margulis graph, "
    "optimal or fixed decoder (Raviv et al. 2020)",
    "graph_assignment": "graph assignment code: workers are a d-regular graph's edges, "
    "optimal decoding (Glasgow & Wootters 2021)",
    "bibd": "BIBD code: workers are a block design's points, optimal decoding "
    "(Kadhe et al. ISIT 2019)",
    "sgc": "stochastic gradient coding: unbiased estimator, cyclic or pair-wise balanced "
    "placement (Bitar et al. 2020)",
    "isgc": "IS-GC: largest partial sum of an FR / cyclic / hybrid placement (ignore stragglers)",
    "sr_sgc": "selective-repeat sequential GC, gradients T = B rounds late (Krishnan et al. 2023)",
    "m_sgc": "multiplexed sequential GC, gradients W - 2 + B rounds late (Krishnan et al. 2023)",
    "lag": "LAG-PS: lazily selected workers, no redundancy (Zhang & Simeone 2020)",
    "ggd": "grouped GD: groups of r workers each storing the group's data",
    "glag": "grouped LAG (Zhang & Simeone 2020, Algorithm 2)",
    "lagc": "lazily aggregated gradient coding (Zhang & Simeone 2020, Algorithm 1)",
}


def _canon(scheme: str) -> str:
    name = _ALIASES.get(str(scheme).lower(), str(scheme).lower())
    if name not in SCHEMES:
        from gctheory.codes.plugins import plugin_families  # third-party codes (entry points)

        if name in plugin_families():
            return name
        raise ValueError(
            f"unknown scheme {scheme!r}; valid schemes: {', '.join(SCHEMES)} "
            f"(code plug-ins: {', '.join(plugin_families()) or 'none installed'}) "
            f"(aliases: {', '.join(f'{a}={b}' for a, b in _ALIASES.items())})"
        )
    return name


def make_scheme(
    scheme: str,
    n: int,
    *,
    K: int | None = None,
    s: int | None = None,
    r: int | None = None,
    groups: int | None = None,
    m: int = 1,
    xi: float = 0.1,
    D: int = 10,
    blocks: int = 4,
    partial_work: bool = False,
    linear_scaling: bool = True,
    warmup: int = 0,
    code_options: dict[str, Any] | None = None,
    rng: Any = None,
) -> Scheme:
    """Build one scheme for ``n`` workers.

    Parameters
    ----------
    scheme : str
        A name of :data:`SCHEMES` (or an alias).
    n : int
        Number of workers.
    K, s : int
        Number of workers waited for (``K``) or stragglers tolerated
        (``s = n - K``); for ``ignore``, ``lgc``, ``asysg`` (results per update)
        and the gradient codes.
    r : int
        Storage redundancy for ``ggd``, ``glag``, ``lagc`` (Zhang & Simeone 2020).
    groups : int
        Number of groups for ``lagc`` (``ggd``/``glag`` use n/r groups).
    m : int
        Communication saving of ``ye_abbe`` / ``commfr`` (Kadhe et al. 2019).
    xi, D : float, int
        LAG constants of rule (13)/(17) (weight and memory); defaults
        ``xi = 0.1 = 1/D``, ``D = 10`` as in Chen et al. 2018's experiments.
    blocks, partial_work, linear_scaling, warmup :
        LGC options (Xu et al. 2021, Algorithm 1, eq. (6)); see :class:`LGC`.
    code_options : dict
        Options of the gradient code (:data:`gctheory.training.codes.CODE_OPTIONS`
        lists each scheme's; any other key is a ``ValueError``), e.g.
        ``{"d": 4}`` (replication of ``dfrc``, degree of ``expander``,
        ``graph_assignment`` and cyclic ``sgc``), ``{"graph": "margulis"}``
        (``expander`` on the Margulis graph, ``n = m^2``), ``{"decoder":
        "fixed"}`` (``expander``), ``{"placement": "hybrid", "c1": 2,
        "groups": 5}`` (``isgc``), ``{"block_size": 3, "lam": 1}`` (``bibd``),
        ``{"p": 0.2, "placement": "pairwise-balanced"}`` (``sgc``);
        approximate codes also take ``wait_for``.

    Examples
    --------
    >>> make_scheme("expander", 16, s=3, code_options={"graph": "margulis"}).code.d
    8
    >>> make_scheme("dfrc", 20, s=4, code_options={"d": 5}).code.d
    5
    """
    name = _canon(scheme)
    n = check_int(n, "n", low=1)
    if s is not None:
        s = check_int(s, "s", low=0, high=n - 1)
    if K is not None and s is not None and K != n - s:
        raise ValueError(f"give K or s, not both inconsistent ones (K={K}, s={s}, n={n})")
    if K is None and s is not None:
        K = n - s
    if K is not None:
        if isinstance(K, (int, np.integer)) and K > n:
            raise ValueError(
                f"K must be at most n={n} (cannot wait for more workers than exist), got K={K}"
            )
        K = check_int(K, "K", low=1, high=n)
    if code_options is not None and not isinstance(code_options, Mapping):
        raise ValueError(
            f"code_options must be a dict of keyword arguments or None, got {code_options!r}"
        )
    opts = dict(code_options or {})
    # every argument given is checked, whether or not this scheme reads it (issue 30)
    if r is not None:
        r = check_int(r, "r", low=1, high=n)
    if groups is not None:
        groups = check_int(groups, "groups", low=1, high=n)
    m = check_int(m, "m", low=1)
    xi = check_real(xi, "xi", low=0.0)
    D = check_int(D, "D", low=1)
    blocks = check_int(blocks, "blocks", low=1)
    warmup = check_int(warmup, "warmup", low=0)
    partial_work = check_flag(partial_work, "partial_work")
    linear_scaling = check_flag(linear_scaling, "linear_scaling")
    if rng is not None and not isinstance(rng, np.random.Generator):
        as_generator(rng)  # refuses booleans, negative and non-integer seeds by name
    if name == "gd":
        return WaitAll(n)
    if name == "asysg":
        if K is None:
            raise ValueError("scheme 'asysg' needs K (results per update) or s")
        return AsynchronousSGD(n, K)
    if name in ("ignore", "lgc"):
        if K is None:
            raise ValueError(f"scheme {name!r} needs K (workers waited for) or s")
        if name == "ignore":
            return IgnoreStragglers(n, K)
        return LGC(
            n,
            K,
            check_int(blocks, "blocks", low=1),
            bool(partial_work),
            bool(linear_scaling),
            check_int(warmup, "warmup", low=0),
        )
    if name in ("lag", "ggd", "glag", "lagc"):
        if name == "lag":
            sch = Grouped(n, n, 1, True, "lag", xi, D)
            return sch
        if r is None:
            raise ValueError(f"scheme {name!r} needs the storage redundancy r")
        r = check_int(r, "r", low=1, high=n)
        if name in ("ggd", "glag"):
            if n % r:
                raise ValueError(
                    f"r must divide n for {name!r} (groups of r workers), got n={n}, r={r}"
                )
            return Grouped(n, n // r, r, name == "glag", name, xi, D)
        if groups is None:
            raise ValueError("scheme 'lagc' needs the number of groups")
        groups = check_int(groups, "groups", low=1, high=n)
        if n % groups:
            raise ValueError(f"groups must divide n, got n={n}, groups={groups}")
        if r >= n // groups:
            raise ValueError(
                f"lagc needs r < n/groups = {n // groups} (use glag for r = n/groups), got r={r}"
            )
        return Grouped(
            n,
            groups,
            r,
            True,
            "lagc",
            xi,
            D,
            code_factory=lambda ng, ss: _code("cyclic_mds", ng, ss, rng=rng),
        )
    if name in ("sr_sgc", "m_sgc"):
        bad = sorted(set(opts) - {"B", "W", "lam", "mu"})
        if bad:
            raise ValueError(f"{name} takes code_options B, W, lam, mu; got unknown {bad}")
        lam = opts.get("lam", s if s else 1)
        return Sequential(n, name, check_int(opts.get("B", 1), "B", low=1),
                          check_int(opts.get("W", 2), "W", low=2), check_int(lam, "lam", low=1),
                          opts.get("mu", 1.0))  # fmt: skip
    # gradient codes
    wait_for = opts.pop("wait_for", None)
    if K is None and wait_for is None:
        raise ValueError(f"scheme {name!r} needs K (workers waited for) or s")
    s_ = n - (K if K is not None else wait_for)
    code = _code(name, n, s_, m=check_int(m, "m", low=1), rng=rng, **opts)
    if code.s is not None:
        f = n - code.s
        if K is not None and K != f:
            raise ValueError(f"{name} with s={code.s} waits for n - s = {f} workers, got K={K}")
    else:
        f = K if K is not None else wait_for
    return Coded(code, int(f), name)
