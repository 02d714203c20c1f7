"""The paper's (1 + mu) x first waiting rule on the real master (Krishnan et al. 2023, Sec. 5)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from gctheory import cluster as cl
from gctheory.cluster.base import LATE, NEVER
from gctheory.cluster.compare import compare
from gctheory.cluster.rules import MuRule, Rule, build_scheme, make_rule, mu_round_time
from gctheory.cluster.spec import RunSpec
from gctheory.sgc import run_scheme


def _rule(n: int = 6, s: int = 2, mu: float = 1.0) -> MuRule:
    return MuRule(build_scheme("cyclic_mds", n, s=s), mu)


def test_at_most_s_late_decodes_at_the_cut():
    rule = _rule()  # n = 6, s = 2: needs 4; cut at 2 x the first answer
    t = np.array([0.1, 0.12, 0.15, 0.18, 0.3, 0.5])  # 2 answers after the cut at 0.2
    arrived = [0, 1, 2, 3]
    assert rule.decide(arrived, t, 0.19, live=2) == (None, pytest.approx(0.2))
    assert rule.decide(arrived, t, 0.2, live=2) == ((0, 1, 2, 3), None)
    assert rule.decide([], t, 0.05, live=6) == (None, None)  # nothing yet: no cut
    assert rule.wait_time(t) == pytest.approx(0.2)


def test_more_than_s_late_waits_for_all():
    rule = _rule()
    t = np.array([0.1, 0.15, 0.19, 0.3, 0.4, 0.5])  # 3 answers after the cut at 0.2
    assert rule.decide([0, 1, 2], t, 0.21, live=3) == (None, None)
    # n - s answers are in, but the decision at the cut stands: wait for every worker
    assert rule.decide([0, 1, 2, 3, 4], t, 0.45, live=1) == (None, None)
    assert rule.decide([0, 1, 2, 3, 4, 5], t, 0.5, live=0) == ((0, 1, 2, 3), None)
    assert rule.wait_time(t) == pytest.approx(0.5)
    # the code's own rule would have decoded at the 4th answer
    assert Rule(build_scheme("cyclic_mds", 6, s=2)).wait_time(t) == pytest.approx(0.3)


def test_everyone_before_the_cut_ends_the_round_at_once():
    rule = _rule()
    t = np.array([0.1, 0.11, 0.12, 0.13, 0.14, 0.15])
    assert rule.decide(list(range(6)), t, 0.15, live=0) == ((0, 1, 2, 3), None)
    assert rule.wait_time(t) == pytest.approx(0.15)
    # a lost worker leaves too few: no survivors (the master then stops the run)
    assert rule.decide([0, 1, 2], t, 0.3, live=0) == (None, None)


def test_the_event_loop_decides_when_the_round_time_says():
    """Feeding answers one by one to decide() ends the round at mu_round_time."""
    rng = np.random.default_rng(3)
    for mu in (0.0, 0.5, 1.0):
        rule = _rule(8, 3, mu)
        for _ in range(200):
            t = 0.05 + rng.exponential(0.05, 8)
            order = np.argsort(t, kind="stable").tolist()
            ends = sorted({*t.tolist(), (1 + mu) * t.min()})
            end = next(
                now for now in ends
                if rule.decide([i for i in order if t[i] <= now], t, now,
                               live=int((t > now).sum()))[0] is not None
            )  # fmt: skip
            assert end == pytest.approx(rule.wait_time(t))


def test_round_time_is_sgc_runtimes_gc():
    # the same rule as gctheory sgc runtime's GC (paper rules), computed independently
    D = 0.5 + np.random.default_rng(0).exponential(0.3, (10, 40))  # workers x rounds
    for s in (1, 3):
        ref = run_scheme(D, "GC", (s,), jobs=40, mu=1.0).durations
        assert np.allclose(mu_round_time(D.T, 1.0, s), ref)
        assert not np.allclose(mu_round_time(D.T, 1.0, s), np.sort(D, axis=0)[10 - s - 1])


@pytest.mark.parametrize("bad", [-0.5, math.nan, math.inf, "1", True])
def test_bad_wait_mu_refused(bad):
    with pytest.raises(ValueError, match="wait_mu must be a finite number >= 0"):
        RunSpec.build("cyclic_mds", 4, 1, wait_mu=bad)
    with pytest.raises(ValueError, match="wait_mu"):
        make_rule(build_scheme("cyclic_mds", 4, s=1), bad)


@pytest.mark.parametrize(
    ("scheme", "kw", "match"),
    [
        ("cyclic_mds", {"s": 0}, "s >= 1"),
        ("gd", {}, "exact code"),
        ("ignore", {"K": 3}, "exact code"),
        ("sr_sgc", {"code_options": {"B": 1, "W": 2, "lam": 1}}, "sequential codes"),
        ("cyclic_mds", {"s": 1, "deadline": 0.5}, "deadline and wait_mu"),
    ],
)
def test_wait_mu_refused_where_meaningless(scheme, kw, match):
    with pytest.raises(ValueError, match=match):  # before any worker starts
        cl.run(scheme, 4, wait_mu=1.0, workload="quadratic", iterations=2, **kw)


def test_spec_field_defaults_and_old_specs_load():
    spec = RunSpec.build("cyclic_mds", 4, 1, wait_mu=0.5)
    assert spec.wait_mu == 0.5 and RunSpec.from_json(spec.to_json()) == spec
    old = RunSpec.build("cyclic_mds", 4, 1).to_json()
    del old["wait_mu"]  # a spec written before the field existed
    assert RunSpec.from_json(old).wait_mu is None
    assert spec.differences(old) == ["wait_mu"]  # a resumed run keeps its rule


def test_compare_rule_choice_refused():
    fake = SimpleNamespace(config={"wait_mu": None})
    with pytest.raises(ValueError, match="rule must be 'code', 'mu'"):
        compare(fake, rule="fastest")
    with pytest.raises(ValueError, match="rule='mu' needs wait_mu"):
        compare(fake, rule="mu")
    with pytest.raises(ValueError, match="wait_mu must be"):
        compare(fake, rule="mu", wait_mu=-1)


def test_run_command_option(monkeypatch, capsys):
    from gctheory.cli import main

    got = []
    monkeypatch.setattr(cl, "run", lambda *a, spec=None, **k: got.append(spec) or _stop())
    argv = ["run", "--scheme", "cyclic-mds", "--n", "4", "--s", "1", "--quiet"]
    with pytest.raises(_Stop):
        main([*argv, "--wait-mu", "0.5"])
    assert got[0].wait_mu == 0.5
    capsys.readouterr()
    assert main([*argv, "--wait-mu", "-1"]) != 0
    assert "--wait-mu must be a finite number >= 0" in " ".join(capsys.readouterr().err.split())


class _Stop(Exception):
    pass


def _stop():
    raise _Stop


def test_real_run_waits_by_the_rule_and_matches_its_prediction():
    """n = 8 local workers, cyclic MDS s = 2, mu = 0.5: the measured mean iteration time
    agrees with the (1 + mu) rule's Monte Carlo prediction; the fastest n - s rule's
    prediction (about 90 ms less a round here) is rejected (negative control)."""
    mu, s, n = 0.5, 2, 8
    r = cl.run("cyclic_mds", n, s, wait_mu=mu, workload="quadratic", iterations=40,
               delay="shifted_exp(0.01, 0.02)", rng=1, eval_every=0, progress=False)  # fmt: skip
    assert r.config["wait_mu"] == mu and r.need == n - s
    c = compare(r, level=0.999)
    assert c.method.startswith("monte carlo ((1 + mu) rule)")
    assert c.agrees, c
    assert c.predicted_low <= c.predicted <= c.predicted_high
    wrong = compare(r, level=0.999, rule="code")
    assert wrong.predicted < c.predicted and not wrong.agrees, wrong
    # every round followed the rule, by the answers' own times: at the cut when at most s
    # were missing then (never before it), else only after every worker had answered
    resp, status = np.asarray(r.response), np.asarray(r.status)
    kinds = set()
    for t in range(r.iterations):
        came = ~np.isin(status[t], (LATE, NEVER))  # answered before the master decided
        cut = (1 + mu) * np.nanmin(resp[t][came])
        on_time = int((resp[t][came] <= cut).sum())
        if n - on_time <= s:
            assert r.wait_time[t] >= min(cut, np.nanmax(resp[t][came])) - 1e-9
            kinds.add("cut")
        else:
            assert came.all(), (t, resp[t], status[t])
            kinds.add("all")
    assert kinds == {"cut", "all"}  # both branches ran
    assert np.allclose(cl.replay(r).params, r.params)  # the survivors decode, bit for bit


def test_prediction_is_the_rule_on_the_law():
    """The (1 + mu) rule's prediction: the vectorised i.i.d. path, the per-draw path
    (persist = 3: the same marginal law, so the same mean) and a direct simulation agree;
    the code's own rule predicts less."""
    from gctheory.cluster.compare import _predicted
    from gctheory.delays import parse_delay

    cfg = {"scheme": "cyclic_mds", "s": 2, "K": None, "m": 1, "code_options": {}, "seed": 0,
           "delay": "shifted_exp(0.01, 0.02)", "delay_options": {}, "wait_mu": 0.5}  # fmt: skip
    a, se_a, method = _predicted(cfg, 8, None, 20_000, 1)
    assert method == "monte carlo ((1 + mu) rule)" and se_a > 0
    b, se_b, _ = _predicted({**cfg, "delay_options": {"persist": 3}}, 8, None, 6_000, 2)
    assert abs(a - b) < 4 * math.hypot(se_a, se_b)
    sch, dm = build_scheme("cyclic_mds", 8, s=2), parse_delay(cfg["delay"])
    gen = np.random.default_rng(7)
    direct = np.array([mu_round_time(sch.finish_times(dm.draw(gen, 8)), 0.5, 2)
                       for _ in range(6_000)])  # fmt: skip
    assert abs(a - direct.mean()) < 4 * math.hypot(se_a, direct.std() / math.sqrt(6_000))
    own, _, _ = _predicted({**cfg, "wait_mu": None}, 8, None, 20_000, 1)
    assert own < a - 10 * se_a


def test_queue_without_preemption_cuts_from_each_rounds_start():
    """preempt=False: the (1 + mu) cut counts from the round's start, not from time 0 (from
    time 0 every round after the first would wait for the slowest: 4 x 2.6 = 10.4 s)."""
    from gctheory.cluster.compare import _queue_durations

    cfg = {"scheme": "cyclic_mds", "s": 3, "K": None, "m": 1, "code_options": {}, "seed": 0,
           "delay": "uniform(1, 3)", "delay_options": {}, "wait_mu": 0.1}  # fmt: skip
    mu_rule = _queue_durations(cfg, 4, None, 30, 100, 0, 0.0, 0.0)
    assert mu_rule.mean() < 0.85 * 10.4  # each worker's load is 4: E[max] = 4 x 2.6
    own = _queue_durations({**cfg, "wait_mu": None}, 4, None, 30, 100, 0, 0.0, 0.0)
    assert own.mean() < mu_rule.mean()  # the fastest one of four comes no later
