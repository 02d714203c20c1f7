"""Measured against predicted over a rate-limited network: cyclic-MDS against Ye-Abbe.

Real runs of the Dask engine over the namespaces of :mod:`gctheory.cluster.network`
(one host namespace per worker, each link limited by ``tbf``; or, ``shared=True``, one
``tbf`` on the master's uplink that every message crosses, as a master's card would be),
held against the prediction with communication of
:func:`gctheory.runtime.link_iteration_time`:

* **the prediction**: the order statistic of (compute delay + transfer time) per worker
  under the injected law, on per-worker links built from the spec
  (:meth:`~gctheory.cluster.network.NetworkSpec.link` with ``payload=True``: ``B`` the
  rate of TCP data, the link's rate times 1448 / 1514 for the headers of full segments;
  ``2 latency + 8 d / B`` down and the code's message up), plus a fixed overhead that is
  *not* transfer (Dask's "task done, then fetch" round trip, the decoding): the mean
  over fast-link runs (``calibration_mbit``: one before each bandwidth's run, one at the
  end) of their measured mean minus their own prediction;
* **the test**: the measured mean against that prediction, with the standard errors of
  the run and of the calibrated overhead; the overhead's is the run-to-run spread of the
  fast runs (the machine's load moves it by milliseconds between runs), pooled over the
  codes, and the quantile Student's t of its few degrees of freedom (:func:`calibration`).
  Negative control: the same prediction without the transfer time (a free link) must be
  rejected where the link is slow;
* **the crossover**: :func:`gctheory.tradeoff.communication.communication_crossover` of
  the same law (the model's), and the one with the calibrated overheads (reported); the
  measured winner at each bandwidth, to see the m-fold code winning below the model's
  and losing above;
* **the bytes**: the uplink's counters (bytes into the master) per fetched message.
  Between two codes at one bandwidth the per-message bytes must grow with the payload
  (``8 x message numbers``) at the rate ``1514 / 1448 = 1.046`` (the headers of full TCP
  segments), within :data:`SLOPE_RANGE`; what is left per message (the ACKs of the
  parameters sent down, Dask's frames and heartbeats) is the measured framing overhead.

The shared card. :func:`~gctheory.runtime.link_iteration_time` sends the ``n`` copies of
the parameters one after another (copy ``q`` arrives at ``q`` times a copy's time on the
wire) and queues the messages up at the card in arrival order. Dask's scheduler hands
the ``n`` tasks, each carrying its copy, to the kernel at once, and ``tbf`` interleaves
their TCP streams, more or less fairly. The iteration time grows with each copy's
arrival, and a card that is never idle while copies wait delivers the ``q``-th copy no
sooner than one after another and the last no later than all together (``n`` copies'
time): the measured mean must lie between the two predictions (``copies="serial"``, the
runtime's, and ``"together"`` of :func:`link_prediction`). Negative control: the
prediction with per-worker links of the same rate (no card shared) must be rejected
where the card is slow (``own_link_rejected``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy import stats

from gctheory._validate import check_int
from gctheory.cluster.network_prediction import (
    COPIES,
    WIDTH,
    link_prediction,
    predict_with_link,
)

__all__ = [
    "calibration",
    "COPIES",
    "DEFAULT_DELAY",
    "network_study",
    "judge_bytes",
    "link_prediction",
    "predict_with_link",
    "predicted_curves",
    "standard_study",
]

#: sleep-dominated injected delay per partition (seconds): a worker holding l
#: partitions sleeps about l x 35 ms
DEFAULT_DELAY = "shifted_exp(0.03, 0.005)"
#: the slope of bytes on the wire against payload a code's promise allows
SLOPE_RANGE = (1.0, 1.15)
#: the bandwidths searched for a crossover with overheads (Mbit/s)
_SEARCH_MBIT = (0.1, 1e5)
#: a residual of the bytes fit beyond this share of the largest payload: not as promised
RESIDUAL_SHARE = 0.05


def judge_bytes(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The bytes check between the codes of one bandwidth: the slope of bytes per fetched
    message against the promised payload (must lie in :data:`SLOPE_RANGE`), the framing
    overhead per message left over, and (three codes or more) the largest distance of a
    code from the fitted line as a share of the largest payload (at most
    :data:`RESIDUAL_SHARE`: each code's message is its promised size, not only on average).

    Examples
    --------
    >>> rows = [{"payload_bytes": 160000, "bytes_per_message": 178000},
    ...         {"payload_bytes": 80000, "bytes_per_message": 93000}]
    >>> out = judge_bytes(rows)
    >>> round(out["slope"], 4), out["ok"]
    (1.0625, True)
    >>> rows[1]["bytes_per_message"] = 175000  # the m-fold code sent d numbers anyway
    >>> judge_bytes(rows)["ok"]
    False
    """
    if len(rows) < 2:
        raise ValueError(f"judge_bytes needs rows of at least 2 codes, got {len(rows)}")
    p = np.array([r["payload_bytes"] for r in rows], float)
    b = np.array([r["bytes_per_message"] for r in rows], float)
    if np.ptp(p) == 0:
        raise ValueError("judge_bytes needs codes with different payloads")
    slope, intercept = np.polyfit(p, b, 1)
    residual = float(np.max(np.abs(b - (slope * p + intercept))) / p.max())
    ok = bool(SLOPE_RANGE[0] <= slope <= SLOPE_RANGE[1] and residual <= RESIDUAL_SHARE)
    return {
        "slope": float(slope),
        "framing_bytes": float(intercept),
        "residual_share": residual,
        "ok": ok,
    }


def _iterations(cfg: dict[str, Any], predicted: float) -> int:
    """``iterations``, or more where an iteration is short: about ``run_seconds`` of
    iterations, at most 4 x ``iterations`` (a fast link's runs are cheap, and their mean
    is the one a rare slow iteration moves most)."""
    want = math.ceil(cfg["run_seconds"] / max(predicted, 1e-3))
    return int(min(4 * cfg["iterations"], max(cfg["iterations"], want)))


def _one_run(scheme: str, m: int, spec: str, cfg: dict[str, Any], law: float) -> dict[str, Any]:
    """A real run over ``spec`` (``law``: its predicted time without overheads): its mean
    (with interval), transfer and bytes."""
    from gctheory.cluster.compare import measured_comm
    from gctheory.cluster.dask_engine import DaskEngine
    from gctheory.cluster.master import run
    from gctheory.cluster.workloads import QuadraticWorkload
    from gctheory.montecarlo import mean_of_samples

    n, s, d = cfg["n"], cfg["s"], cfg["d"]
    iterations = _iterations(cfg, law)
    eng = DaskEngine(network=spec)
    r = run(
        scheme,
        n,
        s,
        m=m,
        workload=QuadraticWorkload(n, dim=d, rows=1),
        engine=eng,
        delay=cfg["delay"],
        iterations=iterations,
        eval_every=0,
        progress=False,
        rng=cfg["rng"],
    )
    rep = eng.network_report()
    x = np.asarray(r.iteration_time, float)
    est = mean_of_samples(x, level=cfg["level"], warn=False)
    fetched = max(int(rep["transfers"]), 1)
    return {
        "scheme": scheme,
        "m": m,
        "network": spec,
        "measured_s": est.value,
        "measured_low": est.low,
        "measured_high": est.high,
        "se_s": float(x.std(ddof=1) / math.sqrt(x.size)),
        "comm_up_measured_s": measured_comm(r),
        "message_numbers": r.message_numbers,
        "message_numbers_measured": r.message_numbers_measured,
        "payload_bytes": WIDTH * r.message_numbers,
        "bytes_to_master": int(rep["bytes_to_master"]),
        "messages_fetched": fetched,
        "bytes_per_message": rep["bytes_to_master"] / fetched,
        "iterations": iterations,
        "wall_s": r.wall_time,
    }


def _code_runs(
    scheme: str, m: int, cfg: dict[str, Any], calib_mbit: float, mbits: Any
) -> tuple[list[float], list[dict[str, Any]]]:
    """One code's runs at ``mbits``, each after a run on the fast link, and one more fast
    run at the end: the fast runs' fixed overheads (measured mean minus the prediction
    there) and the rows."""
    fast = _spec(calib_mbit, cfg)
    law = _law_at(scheme, m, cfg, fast)[0]
    fixed, rows = [], []
    for mb in [*mbits, None]:
        fixed.append(_one_run(scheme, m, fast, cfg, law)["measured_s"] - law)
        if mb is not None:
            spec = _spec(mb, cfg)
            rows.append(dict(_one_run(scheme, m, spec, cfg, _law_at(scheme, m, cfg, spec)[0]),
                             bandwidth_mbit=mb))  # fmt: skip
    return fixed, rows


def _law_at(
    scheme: str, m: int, cfg: dict[str, Any], spec: str, copies: str = "together"
) -> tuple[float, float, float]:
    from gctheory.cluster.network import NetworkSpec

    link = NetworkSpec.parse(spec).link(payload=True)
    return link_prediction(
        scheme, cfg["delay"], cfg["n"], cfg["s"], m, link, cfg["d"], copies=copies, rng=cfg["rng"]
    )


def calibration(fixed: dict[int, list[float]], level: float) -> dict[int, dict[str, Any]]:
    """Each code's fixed overhead (the mean over its fast-link runs), its standard error and
    the quantile to use with it: the run-to-run spread (the machine's load moves the
    overhead between runs), pooled over the codes, with Student's t for its degrees of
    freedom (few runs: a wide quantile rather than an optimistic one).

    Examples
    --------
    >>> c = calibration({1: [0.03, 0.04, 0.035], 2: [0.02, 0.03, 0.025]}, 0.99)
    >>> round(c[1]["fixed_s"], 6), round(c[1]["fixed_se"], 6), c[1]["df"]
    (0.035, 0.002887, 4)
    """
    df = sum(len(f) - 1 for f in fixed.values())
    if df < 1:
        raise ValueError("calibration needs at least two fast-link runs of one code")
    ss = sum(float(np.sum((np.asarray(f) - np.mean(f)) ** 2)) for f in fixed.values())
    q = float(stats.t.ppf(0.5 + level / 2, df))
    return {
        m: {"fixed_s": float(np.mean(f)), "fixed_se": math.sqrt(ss / df / len(f)),
            "fixed_runs": list(f), "df": df, "quantile": q}
        for m, f in fixed.items()
    }  # fmt: skip


def _judge_rows(rows: list[dict[str, Any]], calib: dict[int, dict[str, Any]], cfg: dict) -> None:
    """Each row against its code's prediction: on per-worker links a value, on a shared
    card the bracket from the copies sent one after another (the earliest a card can
    deliver them) to all together (the latest a busy card can): the iteration time grows
    with each copy's arrival, so the mean lies between. Negative controls: the prediction
    with a free link (the fixed overhead alone, no transfer) and, on a shared card, the
    one with per-worker links of the same rate (no sharing)."""
    from gctheory.cluster.network import NetworkSpec
    from gctheory.runtime import Link

    free = Link(up=math.inf, down=math.inf)
    for row in rows:
        c, m, x = calib[row["m"]], row["m"], row["measured_s"]
        link = NetworkSpec.parse(row["network"]).link(payload=True)
        top = _law_at(row["scheme"], m, cfg, row["network"], "together")
        bottom = _law_at(row["scheme"], m, cfg, row["network"], "serial")
        hi, lo = top[0] + c["fixed_s"], bottom[0] + c["fixed_s"]
        se, q = math.hypot(row["se_s"], c["fixed_se"]), c["quantile"]
        # the test's tolerance, plus Monte Carlo's half-width (0 where exact)
        tol = q * se + max(top[2] - top[1], bottom[2] - bottom[1]) / 2
        nearest = min(max(x, lo), hi)
        no_link = c["fixed_s"] + predict_with_link(
            row["scheme"], cfg["delay"], cfg["n"], cfg["s"], m, free, cfg["d"]
        )
        own = None
        if link.shared:
            own_spec = row["network"].replace(",shared", "")
            own = _law_at(row["scheme"], m, cfg, own_spec)[0] + c["fixed_s"]
        row.update(
            shared=link.shared,
            predicted_s=hi,
            predicted_low=bottom[1] + c["fixed_s"] - q * c["fixed_se"],
            predicted_high=top[2] + c["fixed_s"] + q * c["fixed_se"],
            serial_s=lo if link.shared else None,
            comm_up_predicted_s=link.latency + row["payload_bytes"] / link.up,
            z=(x - nearest) / se if se > 0 else 0.0,
            quantile=q,
            agrees=bool(abs(x - nearest) <= tol),
            no_link_s=no_link,
            no_link_rejected=bool(abs(x - no_link) > tol),
            own_link_s=own,
            own_link_rejected=None if own is None else bool(abs(x - own) > tol),
        )


def _spec(mbit: float, cfg: dict[str, Any]) -> str:
    lat = f",latency={cfg['latency_ms']:g}ms" if cfg["latency_ms"] else ""
    return f"bandwidth={mbit:g}mbit{lat}" + (",shared" if cfg.get("shared") else "")


def _check_codes(n: int, s: int, ms: Any) -> tuple[int, ...]:
    ms = tuple(check_int(m, "m", low=1) for m in ms)
    if not ms or ms[0] != 1 or len(set(ms)) != len(ms):
        raise ValueError(f"ms must start with 1 (cyclic-MDS) and not repeat, got {ms}")
    for m in ms:
        if m > 1 and s + m > n:
            raise ValueError(f"ms: Ye-Abbe needs s + m <= n, got s + m = {s + m}, n = {n}")
    return ms


def network_study(
    *,
    n: int = 5,
    s: int = 1,
    ms: tuple[int, ...] = (1, 2, 4),
    bandwidths_mbit: tuple[float, ...] = (5.0, 100.0),
    shared: bool = False,
    calibration_mbit: float = 1000.0,
    latency_ms: float = 0.0,
    d: int = 20_000,
    delay: str = DEFAULT_DELAY,
    iterations: int = 16,
    run_seconds: float = 6.0,
    level: float = 0.99,
    rng: int = 0,
) -> dict[str, Any]:
    """Run cyclic-MDS (``m = 1``) and Ye-Abbe (each other ``m``) at each bandwidth and hold
    the measured means against the prediction with communication (module docstring).

    Each run makes ``iterations``, or up to 4 x as many where an iteration is short
    (about ``run_seconds`` of them). The message is ``d`` float64 numbers (``8 d``
    bytes) for cyclic-MDS, ``ceil(d / m)`` for Ye-Abbe; the parameters sent down are
    ``8 d`` bytes. ``shared``: one card at the master for all links (each bandwidth is
    its rate). Needs root (namespaces):
    :func:`gctheory.cluster.network.network_available` says what is missing.

    Returns
    -------
    dict
        ``rows`` (one per code and bandwidth: measured and predicted with intervals,
        ``agrees``), ``calibration`` (per code), ``crossover`` (per m >= 2), ``bytes`` (per
        bandwidth) and the settings.
    """

    n, s, d = check_int(n, "n", low=2), check_int(s, "s", low=0), check_int(d, "d", low=1)
    ms = _check_codes(n, s, ms)
    if not isinstance(shared, bool):
        raise ValueError(f"shared must be True or False, got {shared!r}")
    cfg = {
        "run_seconds": float(run_seconds),
        "latency_ms": latency_ms,
        "shared": shared,
        "n": n,
        "s": s,
        "d": d,
        "delay": delay,
        "iterations": iterations,
        "level": level,
        "rng": rng,
    }
    codes = [("cyclic_mds" if m == 1 else "ye_abbe", m) for m in ms]
    rows: list[dict[str, Any]] = []
    fixed = {}
    for scheme, m in codes:
        fixed[m], got = _code_runs(scheme, m, cfg, calibration_mbit, bandwidths_mbit)
        rows += got
    calib = calibration(fixed, level)
    for scheme, m in codes:
        calib[m]["scheme"] = scheme
    _judge_rows(rows, calib, cfg)
    return {
        **{k: cfg[k] for k in ("n", "s", "d", "delay", "iterations", "level", "rng")},
        "shared": shared,
        "message_bytes": {m: WIDTH * -(-d // m) for m in ms},
        "calibration_mbit": calibration_mbit,
        "latency_ms": latency_ms,
        "rows": rows,
        "calibration": calib,
        "crossover": _crossovers(cfg, ms, calib, rows),
        "bytes": {
            mb: judge_bytes([r for r in rows if r["bandwidth_mbit"] == mb])
            for mb in bandwidths_mbit
        }
        if len(ms) > 1
        else {},
    }


def _with_overheads(cfg: dict[str, Any], m: int, calib: dict) -> float:
    """The bandwidth (Mbit/s) where the m-fold code's full prediction (with its overhead)
    meets cyclic-MDS's, searched in :data:`_SEARCH_MBIT` (inf: the m-fold code never wins
    there; 0: it always does). Monte Carlo's draws are shared by the codes and bandwidths
    (one seed), so the difference is a smooth function of the bandwidth."""
    from scipy.optimize import brentq

    def gap(log_mbit: float) -> float:
        spec = _spec(math.exp(log_mbit), cfg)
        return (_law_at("ye_abbe", m, cfg, spec)[0] + calib[m]["fixed_s"]
                - _law_at("cyclic_mds", 1, cfg, spec)[0] - calib[1]["fixed_s"])  # fmt: skip

    lo, hi = (math.log(x) for x in _SEARCH_MBIT)
    g_lo, g_hi = gap(lo), gap(hi)
    if g_lo >= 0 and g_hi >= 0:
        return math.inf
    if g_lo < 0 and g_hi < 0:
        return 0.0
    return float(math.exp(brentq(gap, lo, hi, xtol=1e-6)))


def _crossovers(
    cfg: dict[str, Any], ms: tuple[int, ...], calib: dict, rows: list
) -> dict[int, dict[str, Any]]:
    """Per m >= 2: the model's crossover bandwidth (the ``tbf`` rate whose payload rate is
    :func:`~gctheory.tradeoff.communication.communication_crossover`'s), the one with the
    calibrated overheads, the measured winner at each bandwidth, and whether the winners
    fall on the model's two sides (``shown``)."""
    from gctheory.cluster.compare import _runtime_law
    from gctheory.cluster.network import PAYLOAD_SHARE
    from gctheory.delays import parse_delay
    from gctheory.runtime import BYTES_PER_MBIT, Link
    from gctheory.tradeoff.communication import communication_crossover

    n, s, d = cfg["n"], cfg["s"], cfg["d"]
    z = float(stats.norm.ppf(0.5 + cfg["level"] / 2))
    law = _runtime_law(parse_delay(cfg["delay"]).dist, n)
    out = {}
    for m in (m for m in ms if m > 1):
        # the downlink is the same for both codes (a shift, together on a shared card)
        c = communication_crossover(
            law, n, s, m, link=Link(up=1.0, down=math.inf, shared=cfg["shared"]), d=d,
            bracket=(1e3, 1e11), rng=cfg["rng"],
        )  # fmt: skip
        full = _with_overheads(cfg, m, calib)
        seen = {}
        for mb in sorted({r["bandwidth_mbit"] for r in rows}):
            t = {r["m"]: r for r in rows if r["bandwidth_mbit"] == mb}
            if 1 in t and m in t:
                seen[mb] = {
                    "m_fold_wins": t[m]["measured_s"] < t[1]["measured_s"],
                    # a z-test of the two means' difference at the study's level
                    "decisive": abs(t[m]["measured_s"] - t[1]["measured_s"])
                    > z * math.hypot(t[m]["se_s"], t[1]["se_s"]),
                }
        # judged against the model's crossover (law and links; the calibrated overheads
        # differ between codes by the machine's drift between their runs, which moves the
        # crossover with overheads by far more than the model's parts do)
        model = c.bandwidth / (BYTES_PER_MBIT * PAYLOAD_SHARE) if c.bandwidth else math.nan
        below = [v for mb, v in seen.items() if mb < model]
        above = [v for mb, v in seen.items() if mb > model]
        shown = bool(
            below
            and above
            and all(v["m_fold_wins"] and v["decisive"] for v in below)
            and all(not v["m_fold_wins"] and v["decisive"] for v in above)
        )
        out[m] = {
            "model_mbit": None if math.isnan(model) else model,
            "with_overheads_mbit": full,
            "measured": seen,
            "shown": shown,
        }
    return out


def predicted_curves(
    study: dict[str, Any], mbits: Any, copies: str = "together"
) -> dict[int, list[float]]:
    """Each code's prediction (with its calibrated overhead) at each bandwidth of ``mbits``
    (Mbit/s): the curves the measured points of ``study`` sit on (on a shared card,
    between ``copies="serial"`` and ``"together"``).

    Examples
    --------
    >>> study = {"n": 4, "s": 1, "d": 1000, "delay": "constant(0.01)", "latency_ms": 0.0,
    ...          "calibration": {1: {"scheme": "cyclic_mds", "fixed_s": 0.0}}}
    >>> [round(t, 4) for t in predicted_curves(study, [8.0])[1]]  # 20 ms + 2 x 8 kB at 1 MB/s
    [0.0367]
    """
    cfg = {"latency_ms": study["latency_ms"], "shared": study.get("shared", False),
           "delay": study["delay"], "n": study["n"], "s": study["s"], "d": study["d"],
           "rng": study.get("rng", 0)}  # fmt: skip
    return {
        m: [_law_at(c["scheme"], m, cfg, _spec(mb, cfg), copies)[0] + c["fixed_s"] for mb in mbits]
        for m, c in study["calibration"].items()
    }


def study_table(study: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per code and bandwidth (milliseconds), for a text table."""
    out = []
    for r in study["rows"]:
        out.append({
            "code": r["scheme"] + (f" m={r['m']}" if r["m"] > 1 else ""),
            "link": "shared" if r.get("shared") else "own",
            "Mbit/s": r["bandwidth_mbit"],
            "its": r["iterations"],
            "measured_ms": round(1e3 * r["measured_s"], 1),
            "meas_low": round(1e3 * r["measured_low"], 1),
            "meas_high": round(1e3 * r["measured_high"], 1),
            "predicted_ms": round(1e3 * r["predicted_s"], 1),
            "pred_low": round(1e3 * r["predicted_low"], 1),
            "pred_high": round(1e3 * r["predicted_high"], 1),
            "agrees": r["agrees"],
            "up_meas_ms": round(1e3 * (r["comm_up_measured_s"] or math.nan), 1),
            "up_pred_ms": round(1e3 * r["comm_up_predicted_s"], 1),
            "B/message": round(r["bytes_per_message"]),
            "serial_ms": None if r.get("serial_s") is None else round(1e3 * r["serial_s"], 1),
        })  # fmt: skip
    return out


#: the studies the claims and the figure run: per-worker links with the m = 1, 2, 4 codes
#: (n = 5 lets Ye-Abbe's s + m <= n hold at m = 4); a shared card with m = 1, 2 at rates
#: where its n copies of the parameters take at most about half a second
STUDIES: dict[str, dict[str, Any]] = {
    "per-worker": {"n": 5, "s": 1, "ms": (1, 2, 4), "bandwidths_mbit": (5.0, 100.0),
                   "shared": False},
    "shared": {"n": 5, "s": 1, "ms": (1, 2), "bandwidths_mbit": (20.0, 500.0),
               "shared": True},
}  # fmt: skip


def standard_study(kind: str, iterations: int = 16, level: float = 0.99) -> dict[str, Any]:
    """The study ``kind`` of :data:`STUDIES` (run once per process and kept: the claims
    and the figure share it; do not change what it returns). Needs root, as
    :func:`network_study`."""
    if kind not in STUDIES:
        raise ValueError(f"kind must be one of {sorted(STUDIES)}, got {kind!r}")
    return _standard_study(kind, int(iterations), float(level))


@functools.lru_cache(maxsize=4)
def _standard_study(kind: str, iterations: int, level: float) -> dict[str, Any]:
    return network_study(**STUDIES[kind], iterations=iterations, level=level)


def main(argv: Any = None) -> int:
    """``python -m gctheory.cluster.network_study [--kind per-worker|shared] [--iterations N]
    [--json PATH]``: run a study of :data:`STUDIES` (root) and print its table, crossovers
    and bytes check."""
    import argparse
    import json

    from gctheory._output import format_table
    from gctheory.cluster.network import network_available

    p = argparse.ArgumentParser(prog="python -m gctheory.cluster.network_study")
    p.add_argument("--kind", choices=sorted(STUDIES), default="per-worker",
                   help="per-worker links or one shared card at the master")  # fmt: skip
    p.add_argument("--iterations", type=int, default=16, help="iterations per slow-link run")
    p.add_argument("--json", help="write the whole study as JSON here")
    args = p.parse_args(argv)
    ok, why = network_available()
    if not ok:
        print(f"network study: cannot run here: {why}")
        return 1
    study = network_study(**STUDIES[args.kind], iterations=args.iterations)
    print(format_table(study_table(study), "text", title="measured vs predicted over tbf links"))
    for m, c in study["crossover"].items():
        print(f"m = {m}: predicted crossover {c['with_overheads_mbit']:.3g} Mbit/s (law and "
              f"link alone: {c['model_mbit']:.3g}); measured {c['measured']}; shown: "
              f"{c['shown']}")  # fmt: skip
    for mb, b in study["bytes"].items():
        print(
            f"{mb:g} Mbit/s: bytes per message against payload: slope {b['slope']:.4f}, "
            f"framing {b['framing_bytes']:.0f} bytes per message, ok: {b['ok']}"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(study, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
