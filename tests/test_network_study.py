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
from gctheory.cluster.network_study import judge_bytes, network_study, predict_with_link
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


def test_prediction_under_a_random_law_grows_with_the_order_statistic():
    link = Link(up=math.inf, down=math.inf)
    fixed = predict_with_link("cyclic_mds", "constant(0.03)", 4, 1, 1, link, 10)
    rand = predict_with_link("cyclic_mds", "shifted_exp(0.03, 0.005)", 4, 1, 1, link, 10)
    # the 3rd of 4 exponentials (scale 4 x 0.005 / 2 for load 1/2): 1/4 + 1/3 + 1/2
    assert rand - fixed == pytest.approx(0.5 * 0.02 * (1 / 4 + 1 / 3 + 1 / 2), rel=1e-9)


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


@pytest.mark.slow
@pytest.mark.skipif(not OK, reason=WHY or "namespaces available")
def test_the_study_over_real_links():
    """Cyclic-MDS and Ye-Abbe m = 2 at 5 and 100 Mbit/s: inside the prediction, the
    crossover shown, the bytes as promised; no namespace left."""
    pytest.importorskip("distributed")
    out = network_study()
    assert len(out["rows"]) == 4
    for row in out["rows"]:
        assert row["agrees"], {k: v for k, v in row.items() if "_s" in k or k == "z"}
        assert row["no_link_rejected"] or row["bandwidth_mbit"] > 5
        assert row["message_numbers_measured"] == row["message_numbers"]
        assert row["comm_up_measured_s"] >= row["comm_up_predicted_s"] * 0.8
    assert out["crossover"][2]["shown"], out["crossover"]
    assert 5 < out["crossover"][2]["with_overheads_mbit"] < 100
    assert all(v["ok"] for v in out["bytes"].values()), out["bytes"]
    from gctheory.cluster.network import cleanup

    assert cleanup() == []


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
            "crossover": {2: {"with_overheads_mbit": 15.0}}}  # fmt: skip


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


def test_the_script_says_why_it_cannot_run(monkeypatch, capsys):
    import gctheory.cluster.network as net
    from gctheory.cluster.network_study import main

    monkeypatch.setattr(net, "network_available", lambda: (False, "run as root"))
    assert main([]) == 1
    assert "cannot run here: run as root" in capsys.readouterr().out
