"""Censored fits of run traces: the cancelled stragglers' times are right-censored.

The default tests use synthetic runs (each round keeps its fastest ``n - s`` times, the
rest censored where the round ended, as ``gctheory run`` does); the slow test runs the
local engine and fits its trace with the default command.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gctheory.cli import main
from gctheory.delays import make_trace, write_trace
from gctheory.delays.censored import (
    CensoredSample,
    censored_sample,
    fit_by_worker,
    fit_law_censored,
    fit_laws_censored,
    kaplan_meier,
    run_unit_loads,
)

SHIFT, MEAN = 0.02, 0.02  # the injected shifted_exp(0.02, 0.02) per unit load


def _run_like(rounds=50, n=8, s=2, unit=3.0, gap=0.002, seed=0, law=None):
    """A synthetic run: per-unit times ``law`` x ``unit``; each round keeps its fastest
    ``n - s``, the rest censored at the ``(n - s)``-th time plus ``gap`` (the decode)."""
    rng = np.random.default_rng(seed)
    law = stats.expon(loc=SHIFT, scale=MEAN) if law is None else law
    t = law.rvs(size=(rounds, n), random_state=rng) * unit
    cut = np.sort(t, axis=1)[:, n - s - 1 : n - s] + gap
    cens = t > cut
    obs = np.where(cens, cut, t)
    status = np.where(cens, "never", "used")
    return make_trace(
        np.repeat(np.arange(rounds), n),
        np.tile(np.arange(n), rounds),
        np.full(rounds * n, unit),  # the unit load l_i, the factor of the injected sleep
        obs.ravel(),
        source="synthetic run",
        status=status.ravel(),
        load_unit=np.full(rounds * n, "unit"),
    )


def test_the_unit_load_is_read_as_is():
    tr = _run_like(rounds=3)
    assert np.allclose(run_unit_loads(tr), 3.0)


def _old_trace(tmp_path, sidecar):
    """A trace as written before the unit was stated: load = the data share, no
    ``load_unit`` column; ``sidecar`` is the JSON beside it (None: no sidecar)."""
    import json

    tr = _run_like(rounds=3)
    cols = {k: v for k, v in tr.columns.items() if k != "load_unit"}
    old = make_trace(tr.round, tr.worker, tr.load / 8, tr.time, **cols)
    path = write_trace(old, tmp_path / "old.csv")
    if sidecar is not None:
        (tmp_path / "old.csv.json").write_text(json.dumps(sidecar))
    return path


def test_old_traces_are_converted_from_shares_or_refused_by_name(tmp_path):
    from gctheory.delays import read_trace

    # the sidecar of an old run (no load_unit key, n = 8): shares x 8
    tr = read_trace(_old_trace(tmp_path, {"scheme": "cyclic_mds", "n": 8}))
    assert np.allclose(tr.load, 0.375) and np.allclose(run_unit_loads(tr), 3.0)
    assert np.allclose(censored_sample(tr).unit, 3.0)
    # a sidecar that names the new unit, or an unknown one
    tr = read_trace(_old_trace(tmp_path, {"n": 8, "load_unit": "unit"}))
    assert np.allclose(run_unit_loads(tr), 0.375)
    tr = read_trace(_old_trace(tmp_path, {"n": 8, "load_unit": "bytes"}))
    with pytest.raises(ValueError, match="'load_unit' must be one of unit, share"):
        run_unit_loads(tr)
    # no column and no sidecar: the unit is not stated
    (tmp_path / "old.csv.json").unlink()
    tr = read_trace(_old_trace(tmp_path, None))
    with pytest.raises(ValueError, match="'load' column is not stated.*load_unit"):
        censored_sample(tr)
    bad = _run_like(rounds=3)
    cols = dict(bad.columns, load_unit=np.full(len(bad), "share").astype(object))
    cols["load_unit"][0] = "unit"
    mixed = make_trace(bad.round, bad.worker, bad.load, bad.time, **cols)
    with pytest.raises(ValueError, match="column 'load_unit' must be one of unit, share"):
        run_unit_loads(mixed)


@pytest.mark.parametrize("scheme,s,unit", [("cyclic_mds", 2, 3.0), ("gd", 0, 1.0)])
def test_a_real_run_trace_carries_the_injected_multiplier_as_its_load(tmp_path, scheme, s, unit):
    """The trace's ``load`` is the factor of the injected sleep ``l_i X`` (cyclic-MDS,
    n = 8, s = 2: 3 partitions of k = 8 each, l_i = 3 x 8 / 8 = 3; gd: 1), stated in the
    trace and its sidecar; the injected times divided by it follow the injected per-unit
    law (every row, cancelled or not, records its injected sleep)."""
    import json

    from gctheory.cluster import run
    from gctheory.delays import fit_law, read_trace

    path = tmp_path / "run.csv"
    run(scheme, 8, s, delay="shifted_exp(0.002, 0.002)", iterations=12, rng=3, eval_every=0,
        trace=path, progress=False)  # fmt: skip
    tr = read_trace(path)
    assert np.allclose(tr.load, unit) and set(tr.columns["load_unit"]) == {"unit"}
    assert json.loads((tmp_path / "run.csv.json").read_text())["load_unit"] == "unit"
    assert np.allclose(run_unit_loads(tr), unit)
    x = tr.columns["injected"].astype(float) / run_unit_loads(tr)
    f = fit_law(x, "shifted_exp")
    assert f.contains("mean", 0.002) and f.contains("shift", 0.002), f
    assert not fit_law(x * 8 / unit, "shifted_exp").contains("mean", 0.002)  # shares miss
    # replayed as a delay trace (trace:RUN.csv), its loads are the layouts' data shares
    from gctheory.delays.replay import TraceReplay

    assert np.allclose(TraceReplay(tr).loads, unit / 8)


def test_censored_fit_contains_the_law_the_uncensored_one_misses():
    # the intervals covered 381/400 (mean) and 387/400 (shift) at 95% over seeds 1000-1399
    tr = _run_like(seed=1)
    s = censored_sample(tr)
    assert 90 <= s.censored.sum() <= 2 * 50  # a straggler within the decode gap is late
    f = fit_law_censored(s, "shifted_exp")
    assert f.contains("mean", MEAN) and f.contains("shift", SHIFT), f
    # negative control: the completed times alone (the fastest 6 of 8) are biased low
    used = fit_law_censored(s.observed, "shifted_exp")
    assert not used.contains("mean", MEAN), used
    assert used.params["mean"] < 0.8 * MEAN


@pytest.mark.parametrize("law", ["weibull", "gamma", "lognormal"])
def test_numerical_censored_fits_recover_their_law(law):
    truth = {
        "weibull": stats.weibull_min(1.5, loc=0.01, scale=0.02),
        "gamma": stats.gamma(2.0, loc=0.01, scale=0.01),
        "lognormal": stats.lognorm(0.5, loc=0.01, scale=0.02),
    }[law]
    s = censored_sample(_run_like(rounds=80, law=truth, seed=3))
    f = fit_law_censored(s, law)
    assert f.converged
    shape = truth.args[0]
    assert f.contains(f.params and list(f.params)[0], shape), f
    # the mean of the fitted law is near the truth; the completed times' fit is far below
    assert f.dist.mean() == pytest.approx(truth.mean(), rel=0.1)
    from gctheory.delays import fit_law

    assert fit_law(s.observed, law).dist.mean() < 0.9 * truth.mean()


def test_kaplan_meier_by_hand():
    # times 1, 2+, 3, 4: S = 3/4 after 1, then 3/4 * 1/2 after 3, 0 after 4
    t, S = kaplan_meier([1.0, 2.0, 3.0, 4.0] * 4, [False, True, False, False] * 4)
    assert np.allclose(t, [1, 3, 4]) and np.allclose(S, [0.75, 0.375, 0.0])


def test_goodness_of_fit_flips_for_a_wrong_law():
    s = censored_sample(_run_like(rounds=60, seed=5))
    right, wrong = fit_laws_censored(s, ["shifted_exp", "pareto"], bootstrap=49, rng=1)
    assert right.ks_p > 0.05, right
    assert wrong.ks_p <= 0.02, wrong  # the negative control


def test_fit_by_worker_and_bad_input():
    s = censored_sample(_run_like(rounds=40, seed=2))
    by = fit_by_worker(s, ["shifted_exp"])
    assert sorted(by) == list(range(8)) and all(f[0].converged for f in by.values())
    with pytest.raises(ValueError, match="one flag per time"):
        fit_law_censored(np.ones(20), "shifted_exp", censored=[True])
    with pytest.raises(ValueError, match="at least 10 completed"):
        fit_law_censored(np.arange(1.0, 21), "shifted_exp", censored=np.arange(20) > 5)
    with pytest.raises(ValueError, match="status"):
        censored_sample(make_trace([0, 0], [0, 1], [1, 1], [1.0, 2.0]))
    assert isinstance(s, CensoredSample)


def test_progress_names_each_law_and_per_worker_on_the_cli(tmp_path, capsys):
    s = censored_sample(_run_like(rounds=20, seed=4))
    seen = []
    fit_laws_censored(s, ["shifted_exp", "weibull"], progress=lambda *a: seen.append(a))
    assert seen == [(0, 2, "shifted_exp"), (1, 2, "weibull"), (2, 2, "")]
    p = write_trace(_run_like(rounds=30, seed=4), tmp_path / "run.csv")
    rc, out, _ = _cli(["delays", "fit", str(p), "--per-worker", "--laws", "shifted_exp",
                       "--format", "csv"], capsys)  # fmt: skip
    rows = [ln for ln in out.splitlines() if ln.split(",")[:2][-1:] == ["shifted_exp"]]
    assert rc == 0 and [r.split(",")[0] for r in rows] == [str(w) for w in range(8)]


def _cli(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_fits_a_run_trace_with_no_options_and_warns_on_status(tmp_path, capsys):
    p = write_trace(_run_like(), tmp_path / "run.csv")
    rc, out, err = _cli(["delays", "fit", str(p), "--laws", "shifted_exp", "--bootstrap",
                         "0", "--format", "json"], capsys)  # fmt: skip
    import json

    rows = json.loads(out)["rows"] if out.lstrip().startswith("{") else json.loads(out)
    assert rc == 0 and " censored" in err and "0 censored" not in err
    assert "mean=0.02" in rows[0]["params"] or "mean=0.019" in rows[0]["params"]
    with pytest.warns(UserWarning, match="biased towards fast times"):
        rc, out, err = _cli(["delays", "fit", str(p), "--where", "status=used", "--laws",
                             "shifted_exp", "--bootstrap", "0"], capsys)  # fmt: skip
    assert rc == 0 and "0 censored" in err


def test_cli_load_defaults_to_the_only_load_and_names_several(tmp_path, capsys):
    rng = np.random.default_rng(0)
    one = make_trace(np.arange(40), np.zeros(40), np.full(40, 0.5), rng.exponential(size=40) + 1)
    p = write_trace(one, tmp_path / "one.csv")
    rc, out, _ = _cli(["delays", "fit", str(p), "--laws", "shifted_exp", "--bootstrap", "0"],
                      capsys)  # fmt: skip
    assert rc == 0 and "0.5, n=40" in out
    two = make_trace(np.arange(40), np.zeros(40), np.repeat([0.5, 1.0], 20), np.ones(40) + 1)
    p2 = write_trace(two, tmp_path / "two.csv")
    rc, _, err = _cli(["delays", "fit", str(p2), "--laws", "shifted_exp"], capsys)
    assert rc != 0 and "--load is required" in err and "0.5, 1" in err


# ------------------------------------------------------------------ real runs (slow)


def _real_run(tmp_path, scheme, s):
    from gctheory.cluster import run

    path = tmp_path / f"{scheme}.csv"
    run(scheme, 8, s, delay="shifted_exp(0.02, 0.02)", iterations=40, rng=1, eval_every=0,
        trace=path, progress=False)  # fmt: skip
    return path


@pytest.mark.slow
@pytest.mark.parametrize("scheme,s", [("gd", 0), ("cyclic_mds", 2), ("frc", 1)])
def test_real_run_trace_fitted_with_the_default_command_contains_the_injected_law(
    tmp_path, capsys, scheme, s
):
    """The law of a real run's times per unit load is the injected one plus the engine's
    own overhead (computing and sending a gradient: a few ms on a quiet machine, tens
    under load), measured on the completed rows as ``time - injected``. The censored fit
    must contain the injected law moved by that overhead; the fit of the completed rows
    alone must miss it (the negative control)."""
    import json

    from gctheory.delays import fit_law, read_trace

    path = _real_run(tmp_path, scheme, s)
    rc, out, err = _cli(["delays", "fit", str(path), "--laws", "shifted_exp", "--bootstrap",
                         "0", "--format", "json"], capsys)  # fmt: skip
    assert rc == 0
    tr = read_trace(path)
    smp = censored_sample(tr)
    f = (
        fit_law_censored(smp, "shifted_exp")
        if smp.censored.any()
        else fit_law(smp.times, "shifted_exp")
    )
    assert f"mean={f.params['mean']:.5g}" in json.dumps(json.loads(out))  # the command's fit
    done = np.asarray(tr.columns["status"]) != "never"
    over = (tr.time - tr.columns["injected"].astype(float))[done] / run_unit_loads(tr)[done]
    mean = MEAN + float(over.mean() - over.min())  # the excess over the shift
    assert f.contains("mean", mean), (f, over.mean(), over.min())
    lo, hi = f.ci["shift"]  # the shift: the injected one plus the smallest overhead
    assert hi >= SHIFT and lo <= SHIFT + float(np.median(over)), (f, np.median(over))
    if scheme != "gd":  # gd waits for every worker: nothing is censored
        used = fit_law(smp.observed, "shifted_exp")
        assert not used.contains("mean", mean), used


def test_optimum_on_a_run_trace_uses_the_censored_fits(tmp_path, capsys):
    """cyclic-MDS, n = 8, s = 2 at unit load 3 waits for the 6th of 8 times: with
    shifted_exp(0.02, 0.02) per unit load its mean is 3 (0.02 + 0.02 (H_8 - H_2)) by the
    Renyi representation of exponential order statistics (0.13307). The per-law row of
    ``delays optimum`` on the run trace comes from the censored fit and lands near it; the
    same trace with no status column (the completed rows read as complete, the censored
    ones dropped) gives the biased row (negative control)."""
    import json
    from fractions import Fraction

    harm = sum(Fraction(1, j) for j in range(3, 9))  # H_8 - H_2
    truth = 3 * (SHIFT + MEAN * float(harm))
    tr = _run_like(rounds=200, seed=4)
    path = write_trace(tr, tmp_path / "run.csv")
    done = np.asarray(tr.columns["status"]) == "used"
    plain = make_trace(tr.round[done], tr.worker[done], tr.load[done] / 8, tr.time[done])
    old = write_trace(plain, tmp_path / "used.csv")
    argv = ["delays", "optimum", "--scheme", "cyclic-mds", "--n", "8", "--laws", "shifted_exp",
            "--bootstrap", "0", "--load-model", "proportional", "--curve", "--format",
            "json"]  # fmt: skip

    def at_s2(p):
        rc, out, _ = _cli([*argv[:2], str(p), *argv[2:]], capsys)
        assert rc == 0
        rows = json.loads(out)["rows"]
        return next(r["shifted_exp"] for r in rows if r["s"] == 2)

    assert abs(at_s2(path) / truth - 1) < 0.05, (at_s2(path), truth)  # s.e. about 1.7%
    assert at_s2(old) < 0.9 * truth, (at_s2(old), truth)
    rc, out, _ = _cli([*argv[:2], str(path), *argv[2:-3]], capsys)
    assert rc == 0 and "per-law rows: censored fits" in out
