"""Measured versus predicted: a real run's mean iteration time against the theory.

The prediction is the expected time at which the scheme's rule is met under
the injected law (exact, from :func:`gctheory.runtime.scheme_time_moments`
where :mod:`gctheory.runtime` models the scheme: uncoded, ignore-s, cyclic
MDS, FRC, Ye-Abbe; otherwise a Monte Carlo of the same rule on draws of the
same delay model) plus the fixed overheads *measured* in the run: a worker's
response minus its injected delay (sending the parameters, the gradient
computation, the transfer back), averaged over every result that arrived, and
the master's decoding and update. The test: is the measured mean inside the
prediction's interval, a z-test of their difference with both standard errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

__all__ = ["Comparison", "compare", "predicted_wait"]

#: :mod:`gctheory.runtime` names of the schemes it models
_RUNTIME_NAMES = {"gd": "uncoded", "ignore": "ignore-s", "cyclic_mds": "cyclic-mds",
                  "frc": "frc", "ye_abbe": "ye-abbe"}  # fmt: skip


@dataclass(frozen=True)
class Comparison:
    """Measured and predicted mean iteration time of one run (seconds).

    Attributes
    ----------
    measured, measured_low, measured_high : float
        Mean iteration time and its interval at ``level``.
    predicted, predicted_low, predicted_high : float
        ``law_mean + overhead``, with the interval of the measured overhead
        (and of the Monte Carlo, if used).
    law_mean : float
        Expected wait under the law alone.
    method : str
        ``"gctheory.runtime (exact)"`` or ``"monte carlo"``.
    overhead : float
        Measured fixed overhead per iteration (worker-side and decoding).
    z, p_value : float
        Two-sided z-test of measured = predicted.
    agrees : bool
        ``p_value >= 1 - level``.
    """

    measured: float
    measured_low: float
    measured_high: float
    predicted: float
    predicted_low: float
    predicted_high: float
    law_mean: float
    method: str
    overhead: float
    z: float
    p_value: float
    agrees: bool
    level: float
    delay: str

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _runtime_law(dist: Any, n: int) -> Any:
    """runtime's ``X`` is the time to process the whole dataset: ``n`` times the simulator's."""
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return dist.dist(*shapes, loc=loc * n, scale=scale * n)


def predicted_wait(
    run: Any, delay: Any = None, *, trials: int = 20_000, rng: Any = 0
) -> tuple[float, float, str]:
    """Expected wait under ``delay`` (default: the run's law): (mean, standard error, method)."""
    from gctheory.cluster.rules import Rule, build_scheme
    from gctheory.delays import parse_delay

    cfg = run.config
    dm = parse_delay(cfg["delay"] if delay is None else delay)
    sch = build_scheme(
        cfg["scheme"], run.n, s=cfg.get("s"), K=cfg.get("K"), m=int(cfg.get("m", 1)),
        code_options=cfg.get("code_options"), seed=int(cfg["seed"]),
    )  # fmt: skip
    rule = Rule(sch)
    name = _RUNTIME_NAMES.get(sch.name)
    uniform = bool(np.all(sch.loads == sch.loads[0]))
    if (
        name is not None
        and dm.replay is None
        and dm.n_slow == 0
        and dm.persist == 1
        and hasattr(dm.dist, "dist")
        and uniform
    ):
        from gctheory.runtime import scheme_time_moments

        s = run.n - rule.need
        m = int(cfg.get("m", 1))
        try:
            mom = scheme_time_moments(
                name, _runtime_law(dm.dist, run.n), run.n, s, m, tau=dm.comm_time
            )
            if rule.groups is None or name == "frc":
                return float(mom.mean), 0.0, "gctheory.runtime (exact)"
        except ValueError:
            pass
    gen = np.random.default_rng(rng)
    waits = np.empty(trials)
    X = None
    for j in range(trials):
        if dm.replay is not None:
            X = dm.replay.per_unit_times(j, sch.loads, gen)
        elif j % dm.persist == 0 or X is None:
            X = dm.draw(gen, run.n)
        waits[j] = rule.wait_time(sch.finish_times(X))
    return float(waits.mean()), float(waits.std(ddof=1) / math.sqrt(trials)), "monte carlo"


def compare(run: Any, delay: Any = None, *, level: float = 0.99, rng: Any = 0) -> Comparison:
    """Hold ``run``'s mean iteration time against the prediction for ``delay``.

    Parameters
    ----------
    run : ClusterRun
    delay : spec, optional
        The law to predict with (default: the one injected; give another for
        a negative control: a wrong law should be rejected).
    level : float
        Confidence level of the intervals; ``agrees`` when the z-test does not
        reject at ``1 - level``.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = np.asarray(run.iteration_time, float)
    T = len(x)
    if T < 2:
        raise ValueError(f"compare needs at least 2 iterations, got {T}")
    z_lv = float(stats.norm.ppf(0.5 + level / 2))
    se_meas = float(np.std(x, ddof=1)) / math.sqrt(T)
    mean = float(x.mean())
    law, se_law, method = predicted_wait(run, delay, rng=rng)
    o = np.asarray(run.overhead, float)
    o = o[np.isfinite(o)]
    over_w = float(o.mean()) if o.size else 0.0
    se_w = float(o.std(ddof=1) / math.sqrt(o.size)) if o.size > 1 else 0.0
    dec = np.asarray(run.decode_time, float)
    over = over_w + float(dec.mean())
    se_over = math.hypot(se_w, float(dec.std(ddof=1)) / math.sqrt(T))
    pred = law + over
    se_pred = math.hypot(se_law, se_over)
    se = math.hypot(se_meas, se_pred)
    z = (mean - pred) / se if se > 0 else (0.0 if mean == pred else math.inf)
    p = float(2 * stats.norm.sf(abs(z)))
    label = run.config["delay"] if delay is None else str(delay)
    return Comparison(
        mean, mean - z_lv * se_meas, mean + z_lv * se_meas, pred, pred - z_lv * se_pred,
        pred + z_lv * se_pred, law, method, over, float(z), p, p >= 1 - level, level, label,
    )  # fmt: skip
