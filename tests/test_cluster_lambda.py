"""The measured AWS Lambda profile replayed on real processes vs ``gctheory sgc runtime``."""

from __future__ import annotations

import numpy as np
import pytest

from gctheory.cluster.lambda_replay import (
    LAMBDA_SCHEMES,
    SameProfileReplay,
    compare_lambda,
    lambda_profile,
    predicted_rounds,
)
from gctheory.sgc import run_scheme


def test_replay_injects_the_profile_whatever_the_load():
    M = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    r = SameProfileReplay(M)
    loads = np.array([3.0, 0.5, 1.0])
    assert np.allclose(r.per_unit_times(3, loads, None) * loads, M[1])
    with pytest.raises(ValueError, match="n=4"):
        r.check(4, np.ones(4))
    with pytest.raises(ValueError, match="matrix"):
        SameProfileReplay(np.array([[-1.0]]))


def test_master_rule_is_the_n_minus_s_th_fastest():
    D = np.array([[1.0, 5.0], [2.0, 1.0], [3.0, 2.0], [9.0, 3.0]])  # 4 workers, 2 rounds
    assert predicted_rounds(D, "GC", (1,), jobs=2, mu=1.0, rule="master").tolist() == [3.0, 3.0]
    # sgc runtime's rule: cut at 2 x the fastest = 2; two stragglers > s = 1, so wait for all
    assert predicted_rounds(D, "GC", (1,), jobs=2, mu=1.0).tolist() == [9.0, 5.0]
    with pytest.raises(ValueError, match="GC only"):
        predicted_rounds(D, "SR-SGC", (1, 2, 1), jobs=1, mu=1.0, rule="master")


@pytest.mark.slow
def test_packaged_choices_are_the_runtime_search_s():
    # the params replayed are what gctheory sgc runtime picks (20 jobs, mu = 1, paper rules)
    from gctheory.sgc import search_runtimes

    best, _ = search_runtimes(lambda_profile(), jobs=20, schemes=("GC", "SR-SGC", "M-SGC"))
    assert [(b["scheme"], tuple(b["params"])) for b in best] == [
        (sc, p) for sc, _, p in LAMBDA_SCHEMES
    ]


def test_bad_scheme_and_scale_refused():
    with pytest.raises(ValueError, match="scheme must be one of"):
        compare_lambda("no coding", ())
    with pytest.raises(ValueError, match="scale"):
        compare_lambda("GC", (58,), scale=2.0)


def _no_stragglers(D: np.ndarray) -> np.ndarray:
    """The profile with every time above 1.5 x its round's median cut down to it."""
    return np.minimum(D, 1.5 * np.median(D, axis=0))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scheme", "params", "rule"),
    [(sc, p, "paper") for sc, _, p in LAMBDA_SCHEMES] + [("GC", (58,), "master")],
)
def test_lambda_replay_matches_sgc_runtime(scheme, params, rule):
    scale = 0.5
    c = compare_lambda(scheme, params, scale=scale, n=256, rule=rule)
    D = lambda_profile() * scale
    assert c.within(D), (c.band(D), c.row())
    # the same totals from the profile directly (the prediction is sgc runtime's, scaled)
    assert c.predict(D) == pytest.approx(c.corrected)
    if rule == "paper":
        assert c.predicted == pytest.approx(run_scheme(D, scheme, params, jobs=20).runtime)
    if scheme != "GC":
        # negative control: the profile without its stragglers predicts less, and is rejected
        assert not c.within(_no_stragglers(D)), (c.band(_no_stragglers(D)), c.row())
    else:
        # negative control: the other rule's prediction (the fastest n - s predicts less, the
        # paper's more) is rejected
        other = "master" if rule == "paper" else "paper"
        assert not c.within(D, rule=other), (c.band(D, rule=other), c.row())


@pytest.mark.parametrize(
    ("scheme", "params", "rule"),
    [("GC", (1,), "paper"), ("GC", (1,), "master"), ("SR-SGC", (1, 2, 2), "paper")],
)
def test_small_replay_runs_the_predicted_rounds(scheme, params, rule):
    # 8 workers, 12 rounds of a made-up profile (0.3-0.6 s, one slow worker a round) x 0.05
    rng = np.random.default_rng(1)
    D = 0.3 + 0.3 * rng.random((8, 12))
    D[rng.integers(8, size=12), np.arange(12)] += 1.0
    c = compare_lambda(scheme, params, D=D, n=8, scale=0.05, jobs=10, rule=rule)
    pred = predicted_rounds(D * 0.05, scheme, params, jobs=10, mu=1.0, rule=rule)
    assert c.rule == rule and c.row()["rule"] == rule
    assert c.rounds == len(pred) == c.iteration_time.size
    assert c.compared == int((pred > 0).sum())
    assert c.predicted == pytest.approx(pred.sum())
    assert c.overhead_worker.shape == (c.rounds, 8)
    if rule == "master":  # every answer comes after its injected wait: so does the n - s-th
        assert c.measured >= c.predict(D * 0.05, overhead=False) * 0.999
    if scheme == "GC":  # the GC master waited by the rule asked for: the other is not used
        other = "master" if rule == "paper" else "paper"
        assert c.predict(D * 0.05, rule=other) != pytest.approx(c.corrected)


def test_master_rule_is_gc_only():
    with pytest.raises(ValueError, match="rule must be 'paper'"):
        compare_lambda("SR-SGC", (1, 2, 2), rule="master")
    with pytest.raises(ValueError, match="rule must be 'paper'"):
        compare_lambda("GC", (1,), rule="fastest")
