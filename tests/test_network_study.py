"""Measured against predicted over a rate-limited network: the pieces (no root needed) and
the study itself (slow; as root, else skipped with the reason)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from gctheory.cluster.base import UNUSED, USED
from gctheory.cluster.compare import measured_comm
from gctheory.cluster.network import NetworkSpec, network_available
from gctheory.cluster.network_study import (
    STUDIES,
    judge_bytes,
    link_prediction,
    network_study,
    predict_with_link,
    standard_study,
)
from gctheory.runtime import BYTES_PER_MBIT, Link

OK, WHY = network_available()


def test_link_from_a_network_spec():
    link = NetworkSpec.parse("bandwidth=20mbit,latency=5ms").link()
    assert link == Link(up=20 * BYTES_PER_MBIT, down=20 * BYTES_PER_MBIT, latency=0.005)
    assert NetworkSpec.parse("bandwidth=1kbps,shared").link() == Link(
        up=1000.0, down=1000.0, shared=True
    )


def test_prediction_is_the_order_statistic_plus_the_link_by_hand():
    """Constant delay: load x n x c, plus 2 latency + 8 d / B down + 8 ceil(d/m) / B up."""
    link = Link(up=1e6, down=1e6, latency=0.002)
    t1 = predict_with_link("cyclic_mds", "constant(0.01)", 4, 1, 1, link, 1000)
    t2 = predict_with_link("ye_abbe", "constant(0.01)", 4, 1, 2, link, 1001)
    assert t1 == pytest.approx(0.5 * 0.04 + 0.004 + 0.008 + 0.008, rel=1e-12)
    assert t2 == pytest.approx(0.75 * 0.04 + 0.004 + 8 * 1001 / 1e6 + 8 * 501 / 1e6, rel=1e-12)
    with pytest.raises(ValueError, match="scheme must be one of"):
        predict_with_link("frc", "constant(0.01)", 4, 1, 1, link, 10)


def test_a_shared_card_by_hand_copies_serial_or_together():
    """Constant delay 4 x 10 ms, load 1/2, 8 kB copies and messages at 1 MB/s (8 ms each):
    serial copies arrive at 8..32 ms, the 3rd is computed at 44 ms and leaves at 52 ms;
    together they all arrive at 32 ms, are computed at 52 ms and leave 8 ms apart."""
    card = Link(up=1e6, down=1e6, shared=True)
    serial = link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, card, 1000, copies="serial")
    together = link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, card, 1000)
    assert serial == pytest.approx((0.052,) * 3, rel=1e-12)
    assert together == pytest.approx((0.076,) * 3, rel=1e-12)
    own = Link(up=1e6, down=1e6)  # per-worker links: the copies do not matter
    assert link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, own, 1000, copies="serial") == (
        link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, own, 1000)
    )
    with pytest.raises(ValueError, match="copies must be one of"):
        link_prediction("cyclic_mds", "constant(0.01)", 4, 1, 1, card, 1000, copies="fifo")


def test_a_shared_card_under_a_random_law_has_an_interval():
    card = Link(up=2e6, down=2e6, shared=True)
    t = link_prediction("ye_abbe", "shifted_exp(0.03, 0.005)", 5, 1, 2, card, 20_000)
    assert t[1] < t[0] < t[2] and t[2] - t[1] < 0.002
    # the same seed: the same draws, the same numbers
    assert t == link_prediction("ye_abbe", "shifted_exp(0.03, 0.005)", 5, 1, 2, card, 20_000)
    serial = link_prediction(
        "ye_abbe", "shifted_exp(0.03, 0.005)", 5, 1, 2, card, 20_000, copies="serial"
    )
    assert serial[0] < t[0]  # copies one after another: the first workers start earlier


def test_the_crossover_with_overheads_is_the_closed_form_on_own_links():
    """Per-worker links: T_m - T_1 = gap - saved / B, so the root is saved / gap."""
    from gctheory.cluster.network_study import _with_overheads

    cfg = {"latency_ms": 0.0, "shared": False, "delay": "shifted_exp(0.03, 0.005)", "n": 5,
           "s": 1, "d": 20_000, "rng": 0}  # fmt: skip
    calib = {1: {"fixed_s": 0.03}, 2: {"fixed_s": 0.04}}
    free = Link(up=math.inf, down=math.inf)
    ye = predict_with_link("ye_abbe", cfg["delay"], 5, 1, 2, free, 20_000)
    gap = ye + 0.04 - predict_with_link("cyclic_mds", cfg["delay"], 5, 1, 1, free, 20_000) - 0.03
    payload = BYTES_PER_MBIT * 1448 / 1514  # one Mbit/s of tbf carries this much TCP data
    want = 8 * 10_000 / gap / payload
    assert _with_overheads(cfg, 2, calib) == pytest.approx(want, rel=1e-5)
    calib[2]["fixed_s"] = -1.0  # the m-fold code always faster: it wins everywhere
    assert _with_overheads(cfg, 2, calib) == 0.0


def test_a_shared_card_is_judged_against_the_bracket():
    """Between the serial and together predictions: agrees; beyond either end by more
    than the tolerance: not; the per-worker-link prediction is the control."""
    from gctheory.cluster.network_study import _judge_rows

    cfg = {"latency_ms": 0.0, "shared": True, "delay": "constant(0.03)", "n": 5, "s": 1,
           "d": 20_000, "rng": 0}  # fmt: skip
    calib = {1: {"fixed_s": 0.05, "fixed_se": 0.001, "quantile": 4.0}}
    net = "bandwidth=20mbit,shared"

    def judged(x):
        row = {"scheme": "cyclic_mds", "m": 1, "network": net, "measured_s": x,
               "se_s": 0.002, "payload_bytes": 160_000}  # fmt: skip
        _judge_rows([row], calib, cfg)
        return row

    mid = judged(0.5)
    lo, hi = mid["serial_s"], mid["predicted_s"]
    assert lo + 0.1 < hi  # the bracket is wide at 20 Mbit/s: 5 copies of 160 kB
    for x in (lo, (lo + hi) / 2, hi, hi + 0.005):
        assert judged(x)["agrees"] and judged(x)["own_link_rejected"], x
    assert not judged(hi + 0.02)["agrees"] and not judged(lo - 0.02)["agrees"]
    assert judged(hi + 0.02)["z"] > 0 > judged(lo - 0.02)["z"]
    assert not judged(mid["own_link_s"])["own_link_rejected"]


def test_prediction_under_a_random_law_grows_with_the_order_statistic():
    link = Link(up=math.inf, down=math.inf)
    fixed = predict_with_link("cyclic_mds", "constant(0.03)", 4, 1, 1, link, 10)
    rand = predict_with_link("cyclic_mds", "shifted_exp(0.03, 0.005)", 4, 1, 1, link, 10)
    # the 3rd of 4 exponentials (scale 4 x 0.005 / 2 for load 1/2): 1/4 + 1/3 + 1/2
    assert rand - fixed == pytest.approx(0.5 * 0.02 * (1 / 4 + 1 / 3 + 1 / 2), rel=1e-9)


def test_bytes_check_holds_each_code_to_its_payload():
    """Three codes: a slope in range is not enough, each code must sit on the line."""
    rows = [{"payload_bytes": p, "bytes_per_message": 1.05 * p + 8000}
            for p in (160_000, 80_000, 40_000)]  # fmt: skip
    out = judge_bytes(rows)
    assert out["ok"] and out["residual_share"] == pytest.approx(0.0, abs=1e-9)
    rows[1]["bytes_per_message"] += 24_000  # m = 2 sent 15% of d more than it promised
    out = judge_bytes(rows)
    assert 1.0 <= out["slope"] <= 1.15 and not out["ok"] and out["residual_share"] > 0.05


def test_bytes_check_flips():
    good = [{"payload_bytes": 160_000, "bytes_per_message": 178_000},
            {"payload_bytes": 80_000, "bytes_per_message": 93_000}]  # fmt: skip
    out = judge_bytes(good)
    assert out["ok"] and out["slope"] == pytest.approx(85 / 80)
    assert out["framing_bytes"] == pytest.approx(178_000 - 160_000 * 85 / 80)
    bad = [dict(good[0]), dict(good[1], bytes_per_message=176_000)]  # m-fold sent d numbers
    assert not judge_bytes(bad)["ok"]
    with pytest.raises(ValueError, match="at least 2 codes"):
        judge_bytes(good[:1])
    with pytest.raises(ValueError, match="different payloads"):
        judge_bytes([good[0], good[0]])


def test_measured_comm_keeps_the_used_results():
    r = SimpleNamespace(comm_time=np.array([[0.1, 0.9], [np.nan, 0.3]]),
                        status=np.array([[USED, UNUSED], [USED, USED]]))  # fmt: skip
    assert measured_comm(r) == pytest.approx(0.2)
    r.comm_time = np.full((2, 2), np.nan)
    assert measured_comm(r) is None


def test_calibration_pools_the_run_to_run_spread():
    from scipy import stats

    from gctheory.cluster.network_study import calibration

    c = calibration({1: [0.03, 0.04, 0.035], 2: [0.02, 0.03, 0.025, 0.025]}, 0.99)
    # pooled: (2 x 0.005^2 + 2 x 0.005^2) / (2 + 3) degrees of freedom
    var = 4 * 0.005**2 / 5
    assert c[2]["fixed_s"] == pytest.approx(0.025) and c[1]["df"] == 5
    assert c[1]["fixed_se"] == pytest.approx(math.sqrt(var / 3))
    assert c[2]["fixed_se"] == pytest.approx(math.sqrt(var / 4))
    assert c[1]["quantile"] == pytest.approx(stats.t.ppf(0.995, 5))
    with pytest.raises(ValueError, match="at least two fast-link runs"):
        calibration({1: [0.03]}, 0.99)


def test_study_refuses_a_ye_abbe_too_large_before_any_run():
    with pytest.raises(ValueError, match="s \\+ m <= n"):
        network_study(n=4, s=1, ms=(1, 4))
    with pytest.raises(ValueError, match="ms must start with 1"):
        network_study(ms=(2, 4))
    with pytest.raises(ValueError, match="shared must be True or False"):
        network_study(shared="yes")
    with pytest.raises(ValueError, match="kind must be one of"):
        standard_study("mesh")


def test_the_standard_studies_fit_their_codes():
    """m = 4 fits Ye-Abbe at n = 5, s = 1; every study starts with cyclic-MDS."""
    for kind in STUDIES.values():
        assert kind["ms"][0] == 1 and all(kind["s"] + m <= kind["n"] for m in kind["ms"][1:])
    assert 4 in STUDIES["per-worker"]["ms"] and STUDIES["shared"]["shared"]


def _no_leftovers():
    from gctheory.cluster.network import cleanup

    assert cleanup() == []
    assert not [ns for ns in _namespaces() if ns.startswith("gct-")]


def _namespaces():
    import subprocess

    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]


@pytest.mark.slow
@pytest.mark.skipif(not OK, reason=WHY or "namespaces available")
def test_the_study_over_real_links():
    """Cyclic-MDS and Ye-Abbe m = 2, 4 at 5 and 100 Mbit/s per link: inside the
    prediction, the crossovers shown, the bytes as promised; no namespace left."""
    pytest.importorskip("distributed")
    out = network_study(**STUDIES["per-worker"])
    assert len(out["rows"]) == 6
    outside = [r for r in out["rows"] if not r["agrees"]]
    assert len(outside) <= 1, [{k: v for k, v in r.items() if "_s" in k} for r in outside]
    for row in out["rows"]:
        assert row["no_link_rejected"] or row["bandwidth_mbit"] > 5
        assert row["message_numbers_measured"] == row["message_numbers"]
        assert row["message_numbers"] == -(-20_000 // row["m"])
        assert row["comm_up_measured_s"] >= row["comm_up_predicted_s"] * 0.8
    for m in (2, 4):
        assert out["crossover"][m]["shown"], out["crossover"]
        assert 5 < out["crossover"][m]["model_mbit"] < 100
    assert all(v["ok"] for v in out["bytes"].values()), out["bytes"]
    _no_leftovers()


@pytest.mark.slow
@pytest.mark.skipif(not OK, reason=WHY or "namespaces available")
def test_the_study_over_a_shared_card():
    """Cyclic-MDS and Ye-Abbe m = 2 over one card at 20 and 500 Mbit/s: between the
    predictions with the copies one after another and together; per-worker links of the
    same rate rejected at 20 Mbit/s."""
    pytest.importorskip("distributed")
    out = network_study(**STUDIES["shared"])
    assert len(out["rows"]) == 4 and out["shared"]
    outside = [r for r in out["rows"] if not r["agrees"]]
    assert len(outside) <= 1, [{k: v for k, v in r.items() if "_s" in k} for r in outside]
    for row in out["rows"]:
        assert row["shared"] and row["serial_s"] is not None
        assert row["message_numbers_measured"] == row["message_numbers"]
        if row["bandwidth_mbit"] == 20:
            assert row["own_link_rejected"] and row["no_link_rejected"], row
    assert out["crossover"][2]["shown"], out["crossover"]
    assert all(v["ok"] for v in out["bytes"].values()), out["bytes"]
    _no_leftovers()


def test_the_record_keeps_the_measured_transfer_time():
    """The Dask engine stamps when a message left: every used result has a transfer time,
    kept in the run and the trace; the local engine does not: nan, no column."""
    pytest.importorskip("distributed")
    from gctheory.cluster import run
    from gctheory.cluster.dask_engine import DaskEngine

    r = run("cyclic_mds", 4, 1, engine=DaskEngine(), iterations=3, eval_every=0,
            progress=False, workload="quadratic")  # fmt: skip
    used = r.status == USED
    assert r.comm_time.shape == r.status.shape
    assert np.isfinite(r.comm_time[used]).all() and (r.comm_time[used] >= 0).all()
    assert "comm_s" in r.trace().columns
    assert measured_comm(r) == pytest.approx(float(np.mean(r.comm_time[used])))
    local = run("cyclic_mds", 4, 1, iterations=3, eval_every=0, progress=False,
                workload="quadratic")  # fmt: skip
    assert np.isnan(local.comm_time).all() and "comm_s" not in local.trace().columns


@pytest.mark.slow
@pytest.mark.skipif(not OK, reason=WHY or "namespaces available")
def test_cli_shows_the_predicted_transfer_next_to_the_measured(capsys):
    pytest.importorskip("distributed")
    import json

    from gctheory.cli import main

    code = main(["run", "--scheme", "cyclic-mds", "--n", "4", "--s", "1", "--iterations", "4",
                 "--network", "bandwidth=20mbit,latency=2ms", "--engine", "dask",
                 "--model", "logistic", "--quiet", "--format", "json"])  # fmt: skip
    assert code == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["comm_up_s_predicted"] > 0.002 and row["comm_s_predicted"] > 0.004
    assert row["comm_up_s_measured"] >= 0.002  # the injected latency at least


def _fake_study():
    cases = ((1, 5.0, 0.63), (1, 100.0, 0.12), (2, 5.0, 0.53), (2, 100.0, 0.15))
    rows = [{"m": m, "bandwidth_mbit": b, "measured_s": t, "measured_low": t - 0.01,
             "measured_high": t + 0.01, "predicted_s": t} for m, b, t in cases]  # fmt: skip
    calib = {
        1: {"scheme": "cyclic_mds", "fixed_s": 0.025},
        2: {"scheme": "ye_abbe", "fixed_s": 0.03},
    }
    return {"n": 4, "s": 1, "d": 20_000, "delay": "shifted_exp(0.03, 0.005)", "latency_ms": 0.0,
            "rows": rows, "calibration": calib,
            "crossover": {2: {"model_mbit": 15.0}}}  # fmt: skip


def test_the_figure_draws_points_on_curves():
    import matplotlib.pyplot as plt

    from gctheory.cluster.network_study import predicted_curves
    from gctheory.plots.communication import plot_network_study

    study, mbits = _fake_study(), [2.0, 20.0, 200.0]
    curves = predicted_curves(study, mbits)
    assert curves[1][0] > curves[2][0] and curves[1][-1] < curves[2][-1]  # they cross
    drawn = plot_network_study(study, curves, mbits)
    assert len(drawn.artists) >= 5
    assert len(drawn.data["bandwidth_mbit_per_s"]) == len(mbits) + 4
    plt.close("all")


def test_the_shared_figure_draws_the_card_curves():
    import matplotlib.pyplot as plt

    from gctheory.cluster.network_study import predicted_curves
    from gctheory.plots.communication import plot_network_study

    study = dict(_fake_study(), shared=True, n=5)
    mbits = [10.0, 1000.0]
    curves = predicted_curves(study, mbits)
    own = predicted_curves(dict(study, shared=False), mbits)
    assert curves[1][0] > own[1][0]  # five copies and queued messages on one card
    lower = predicted_curves(study, mbits, "serial")
    assert all(lo < hi for lo, hi in zip(lower[1], curves[1]))  # the bracket
    drawn = plot_network_study(study, curves, mbits, lower=lower)
    assert "shared card" in drawn.figure.axes[0].get_title()
    assert len(drawn.data["predicted_serial_m1"]) == len(mbits) + 4
    plt.close("all")


def test_the_script_says_why_it_cannot_run(monkeypatch, capsys):
    import gctheory.cluster.network as net
    from gctheory.cluster.network_study import main

    monkeypatch.setattr(net, "network_available", lambda: (False, "run as root"))
    assert main([]) == 1
    assert "cannot run here: run as root" in capsys.readouterr().out
