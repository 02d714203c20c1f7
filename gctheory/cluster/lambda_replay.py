"""The measured AWS Lambda profile replayed on real processes, against ``gctheory sgc runtime``.

Krishnan, Ebrahimi and Khisti (ICLR 2023) compared GC, SR-SGC and M-SGC on 256
Lambda workers by a trace-driven runtime (:mod:`gctheory.sgc.runtime`, the
``gctheory sgc runtime`` command). This module replays the same packaged
profile (:func:`gctheory.data.lambda_delays`, campaign ``cnn-desktop-long``,
load 0) on real worker processes with :func:`gctheory.cluster.run` and holds
each scheme's measured total time against the prediction for the same profile.

**The same profile.** ``gctheory sgc runtime`` with its defaults (base load 0,
base comp 0) gives every scheme, whatever its load, the load-0 times
``d[t, i]`` of round ``t`` and worker ``i``. The replay does the same: worker
``i`` of iteration ``t`` is injected ``d[t, i]`` x ``scale`` seconds whatever
its data share (:class:`SameProfileReplay`), on top of its real (small)
computation.

**The rules.** Every scheme's real master waits by the paper's rule (Krishnan
et al. 2023, Section 5: until ``(1 + mu)`` x the first arrival; all when the
pattern leaves what the code tolerates), so the prediction is
:func:`gctheory.sgc.run_scheme`'s per-round durations. SR-SGC and M-SGC: the
sequential master (:mod:`gctheory.cluster.sequential`), all when the pattern
leaves the (B, W, lambda) model. SR-SGC's prediction skips (0 s) the rounds
after the last job with nothing left to repeat; the real master still plays
them (to decode the last jobs), so the comparison covers the rounds the
prediction does not skip and the others are reported apart. GC (cyclic-MDS):
the master runs with ``wait_mu = mu`` (:class:`gctheory.cluster.rules.MuRule`:
decode at the cut when at most ``s`` are missing, else wait for all), as
``gctheory sgc runtime``'s GC does (``rule="paper"``, the default). The
master's own rule for an exact code, the fastest ``n - s``, is the second GC
case (``rule="master"``), predicted by the ``n - s``-th fastest time of each
round; each GC case's measured total is also held against the other rule's
prediction, which must be rejected (a negative control).

**Time scale.** Lambda rounds last about a second; the replay injects the
measured times times ``scale`` (default 1/2) and the predictions are scaled
the same, so a scheme's replay at ``n = 256`` takes 10-20 s of wall time on 2 cores.

**Overhead and tolerance.** A real round also costs fixed time: each worker's
response minus its injected wait ``o[t, i]`` (transport, its computation, its
group's queue; a worker cut as a straggler: the round's median ``o_t``). It only
adds, and near a cut it can flip a decision (a worker pushed past SR-SGC's
``(1 + mu)`` cut may take the pattern out of the model, and the master then waits
for all). The prediction *with overhead* is the same rule on ``d[t, i] + o[t, i]``:
the profile with the measured lateness of every answer. The rule's clock also
leaves out the master's decoding and update after the cut (measured, a few ms a
round, and once the decoder's first use: about 0.6 s for M-SGC at ``n = 256``). A
measured total agrees when it lies between the prediction without overhead and the
one with it plus the measured decoding time, widened on each side by ``sum_t o_t``
(the master's remaining residual, its polling, about one median overhead a round).
A negative control must fall outside the same band computed for it.
Run ``python -m gctheory.cluster.lambda_replay`` for the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory.delays.replay import TraceReplay

__all__ = ["SameProfileReplay", "LambdaComparison", "lambda_profile", "compare_lambda",
           "LAMBDA_SCHEMES"]  # fmt: skip

#: The schemes and parameters ``gctheory sgc runtime`` picks on the packaged profile
#: (campaign cnn-desktop-long, load 0, 20 jobs, mu = 1, paper rules): (sgc name, real-run
#: name, params); a slow test checks that the search still picks them.
LAMBDA_SCHEMES = (("GC", "cyclic-mds", (58,)), ("SR-SGC", "sr_sgc", (5, 6, 82)),
                  ("M-SGC", "m_sgc", (1, 2, 21)))  # fmt: skip
#: the waiting rules a replay's master can use: the paper's (every scheme) and, for GC,
#: the real master's fastest n - s
RULES = ("paper", "master")


class SameProfileReplay(TraceReplay):
    """A replay that gives every worker its measured time at one load, whatever its share.

    ``gctheory sgc runtime`` with ``base_comp = 0`` models a scheme's round by the
    measured times at the base load for every load; this replay injects exactly
    those (``per_unit_times`` returns ``d / l_i`` so the worker sleeps ``d``).

    Parameters
    ----------
    matrix : numpy.ndarray, shape (rounds, workers)
        The times to replay, round ``t mod rounds`` at iteration ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.cluster.lambda_replay import SameProfileReplay
    >>> r = SameProfileReplay(np.array([[0.1, 0.2], [0.3, 0.4]]))
    >>> (r.per_unit_times(1, np.array([2.0, 0.5]), None) * [2.0, 0.5]).tolist()
    [0.3, 0.4]
    """

    def __init__(self, matrix: Any) -> None:  # no trace: the matrix is the profile
        M = np.asarray(matrix, float)
        if M.ndim != 2 or M.size == 0 or not np.isfinite(M).all() or (M < 0).any():
            raise ValueError(f"matrix must be a (rounds, workers) array of times >= 0, got {M!r}")
        self.matrix, self.workers, self.order = M, M.shape[1], "sequential"
        self.load_model, self.loads = None, np.array([0.0])

    def __repr__(self) -> str:
        return f"SameProfileReplay({self.matrix.shape[0]} rounds, {self.workers} workers)"

    def check(self, n: int, relative_loads: np.ndarray) -> None:
        if n > self.workers:
            raise ValueError(f"the profile has {self.workers} workers; n={n} is more")

    def per_unit_times(self, t: int, relative_loads: np.ndarray, rng: Any) -> np.ndarray:
        loads = np.asarray(relative_loads, float)
        row = self.matrix[t % self.matrix.shape[0], : loads.size]
        out = np.zeros(loads.size)
        pos = loads > 0
        out[pos] = row[pos] / loads[pos]
        return out


def lambda_profile(profile: str = "cnn-desktop-long", load: float = 0.0) -> np.ndarray:
    """The packaged Lambda delays of one campaign at ``load``: a (workers, rounds) matrix (s).

    Examples
    --------
    >>> from gctheory.cluster.lambda_replay import lambda_profile
    >>> lambda_profile().shape
    (256, 30)
    """
    from gctheory.data import lambda_delays
    from gctheory.sgc import trace_delays

    return trace_delays(lambda_delays().select(profile=profile), load)


def predicted_rounds(D: np.ndarray, scheme: str, params: tuple[int, ...], *, jobs: int,
                     mu: float, rule: str = "paper") -> np.ndarray:  # fmt: skip
    """Per-round durations on ``D`` (workers, rounds): ``gctheory sgc runtime``'s model
    (``rule="paper"``), or for GC the real master's (``rule="master"``: the ``n - s``-th
    fastest time of each of the first ``jobs`` rounds)."""
    from gctheory.sgc import run_scheme

    if rule == "master":
        if scheme != "GC":
            raise ValueError(f"rule='master' applies to GC only, got scheme {scheme!r}")
        return np.sort(D[:, :jobs], axis=0)[D.shape[0] - params[0] - 1]
    if rule != "paper":
        raise ValueError(f"rule must be 'paper' or 'master', got {rule!r}")
    return run_scheme(D, scheme, params, jobs=jobs, mu=mu).durations


@dataclass
class LambdaComparison:
    """One scheme's replay: measured and predicted totals (s, at the replay's scale).

    ``measured``: the real iteration times summed over the ``compared`` rounds (those the
    prediction does not skip; ``measured_extra``: the others); ``predicted``: the rule on
    the profile; ``corrected``: on the profile plus each answer's measured overhead
    (``overhead_worker``, rounds x n; ``overhead_round``: its round medians, ``overhead``
    their mean); ``predicted_paper``: ``gctheory sgc runtime``'s own rule; ``profile``:
    the replayed (workers, rounds) times, scaled; ``decode``: the master's decoding and
    update time over the compared rounds; ``wall``: the replay's wall time; ``rule``: the
    rule the master waited by (``"paper"``, or for GC ``"master"``: the fastest n - s).
    """

    scheme: str
    params: tuple[int, ...]
    n: int
    rounds: int
    compared: int
    scale: float
    measured: float
    predicted: float
    corrected: float
    predicted_paper: float
    measured_extra: float
    overhead: float
    wall: float
    iteration_time: np.ndarray
    predicted_round: np.ndarray
    overhead_round: np.ndarray
    overhead_worker: np.ndarray
    profile: np.ndarray
    decode: float
    mu: float = 1.0
    jobs: int = 20
    rule: str = "paper"

    @property
    def tolerance(self) -> float:
        """The master's residual allowed (s): the round medians of the overhead, summed."""
        return float(self.overhead_round.sum())

    def predict(self, D: np.ndarray, rule: str | None = None, overhead: bool = True) -> float:
        """Total predicted for profile ``D`` (workers, rounds, already at the replay's scale)
        over the compared rounds, with each worker's measured overhead added or not."""
        rule = rule or self.rule
        D2 = np.asarray(D, float)[: self.n, : self.rounds]
        if overhead:
            D2 = D2 + self.overhead_worker.T
        pr = predicted_rounds(D2, self.scheme, self.params, jobs=self.jobs, mu=self.mu, rule=rule)
        keep = self.predicted_round > 0
        return float(pr[keep[: len(pr)]].sum())

    def band(self, D: np.ndarray, rule: str | None = None) -> tuple[float, float]:
        """The accepted totals: from the prediction without overhead minus the tolerance to
        the prediction with it plus the measured decoding time plus the tolerance."""
        lo, hi = self.predict(D, rule, overhead=False), self.predict(D, rule)
        return min(lo, hi) - self.tolerance, max(lo, hi) + self.decode + self.tolerance

    def within(self, D: np.ndarray, rule: str | None = None) -> bool:
        """The measured total lies in :meth:`band` for profile ``D``."""
        lo, hi = self.band(D, rule)
        return lo <= self.measured <= hi

    @property
    def relative_error(self) -> float:
        """(measured - predicted with overhead) / predicted with overhead."""
        return (self.measured - self.corrected) / self.corrected

    def row(self) -> dict[str, Any]:
        """The table row (the band: for the replayed profile)."""
        lo, hi = self.band(self.profile)
        return {"scheme": self.scheme, "rule": self.rule,
                "params": ",".join(map(str, self.params)),
                "n": self.n, "rounds": self.rounds, "compared": self.compared,
                "measured": self.measured, "predicted": self.predicted,
                "with_overhead": self.corrected, "paper_rule": self.predicted_paper,
                "rel_err": self.relative_error, "band_lo": lo, "band_hi": hi,
                "within": bool(lo <= self.measured <= hi), "wall_s": self.wall}  # fmt: skip


def _run(name: str, n: int, params: tuple[int, ...], mu: float, rounds: int, delay: Any,
         engine: Any, rule: str) -> Any:  # fmt: skip
    from gctheory.cluster import build_scheme, run
    from gctheory.cluster.workloads import QuadraticWorkload

    wait: dict[str, Any] = {}
    if name == "cyclic-mds":
        kw: dict[str, Any] = {"s": params[0]}
        wait = {"wait_mu": mu} if rule == "paper" else {}
    else:
        B, W, lam = params
        kw = {"code_options": {"B": B, "W": W, "lam": lam, "mu": mu}}
    k = build_scheme(name, n, **kw).k
    wl = QuadraticWorkload(k, dim=4, rows=2)
    return run(name, n, **kw, workload=wl, engine=engine, delay=delay, iterations=rounds,
               eval_every=0, progress=False, timeout=120.0, **wait)  # fmt: skip


def compare_lambda(scheme: str, params: tuple[int, ...], *, scale: float = 0.5,
                   jobs: int = 20, mu: float = 1.0, n: int = 256, engine: Any = "local",
                   D: np.ndarray | None = None,
                   rule: str = "paper") -> LambdaComparison:  # fmt: skip
    """Replay ``D`` (default: the packaged profile) on real workers for one scheme.

    ``scheme`` is ``"GC"``, ``"SR-SGC"`` or ``"M-SGC"`` (``params``: ``(s,)`` or
    ``(B, W, lambda)``); ``n`` the first workers of the profile; the injected and
    predicted times are ``scale`` x the profile's. ``rule``: the master waits by the
    paper's ``(1 + mu)`` rule (``"paper"``), or, GC only, for the fastest ``n - s``
    (``"master"``); the prediction is for the same rule.
    """
    import time

    names = {"GC": "cyclic-mds", "SR-SGC": "sr_sgc", "M-SGC": "m_sgc"}
    if scheme not in names:
        raise ValueError(f"scheme must be one of {', '.join(names)}, got {scheme!r}")
    if not (isinstance(scale, (int, float)) and 0 < scale <= 1):
        raise ValueError(f"scale (the replay's time factor) must be in (0, 1], got {scale!r}")
    if rule not in RULES or (rule == "master" and scheme != "GC"):
        raise ValueError(
            f"rule must be 'paper' (every scheme) or 'master' (GC only), got {rule!r} for {scheme}"
        )
    D = (lambda_profile() if D is None else np.asarray(D, float))[:n] * float(scale)
    paper = predicted_rounds(D, scheme, params, jobs=jobs, mu=mu)
    pred = predicted_rounds(D, scheme, params, jobs=jobs, mu=mu, rule=rule)
    rounds = len(pred)
    keep = pred > 0  # SR-SGC: rounds the prediction skips are reported apart
    t0 = time.perf_counter()
    res = _run(names[scheme], n, params, mu, rounds, SameProfileReplay(D.T), engine, rule)
    wall = time.perf_counter() - t0
    it = np.asarray(res.iteration_time, float)
    # each worker's measured overhead: its response minus its injected wait (transport, its
    # computation, its group's queue); a worker cut as a straggler: its round's median
    O = np.asarray(res.response, float) - np.asarray(res.injected, float)
    over = np.nanmedian(O, axis=1)
    O = np.where(np.isnan(O), over[:, None], O)
    corr = predicted_rounds(D[:, :rounds] + O.T, scheme, params, jobs=jobs, mu=mu, rule=rule)
    return LambdaComparison(
        scheme, tuple(params), n, rounds, int(keep.sum()), float(scale), float(it[keep].sum()),
        float(pred.sum()), float(corr[keep].sum()), float(paper.sum()), float(it[~keep].sum()),
        float(np.mean(over)), wall, it, pred, over, O, D,
        float(np.asarray(res.decode_time, float)[keep].sum()), float(mu), int(jobs), rule,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Replay the three schemes and print measured vs predicted (``--scale``, ``--n``)."""
    import argparse

    from gctheory._output import format_table

    ap = argparse.ArgumentParser(prog="python -m gctheory.cluster.lambda_replay")
    ap.add_argument("--scale", type=float, default=0.5, help="time factor (default 0.5)")
    ap.add_argument("--n", type=int, default=256, help="workers (default 256)")
    args = ap.parse_args(argv)
    rows = []
    cases = [(sc, p, "paper") for sc, _, p in LAMBDA_SCHEMES]
    cases.insert(1, ("GC", LAMBDA_SCHEMES[0][2], "master"))
    for scheme, params, rule in cases:
        row = compare_lambda(scheme, params, scale=args.scale, n=args.n, rule=rule).row()
        rows.append({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()
                     if k not in ("n", "rel_err")})  # fmt: skip
    title = (f"AWS Lambda profile (cnn-desktop-long, load 0) replayed on real processes, "
             f"n = {args.n}, times x {args.scale:g} (s);\npredicted: for the master's rule "
             "(paper: gctheory sgc runtime's (1 + mu) x first; master: GC's fastest n - s), "
             "with_overhead: plus the measured overhead; paper_rule: sgc runtime's "
             "own")  # fmt: skip
    print(format_table(rows, "text", title=title))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
