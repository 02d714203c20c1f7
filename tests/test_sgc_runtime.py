"""Trace-driven runtime of GC, SR-SGC, M-SGC, no coding, no-wait (gctheory.sgc.runtime)."""

import numpy as np
import pytest

from gctheory.codes.sequential import BurstyStragglerModel
from gctheory.sgc import param_grid, run_scheme, search_runtimes

# workers x rounds; mu = 1: the wait is twice the fastest time
#   round 0: [1, 1, 5] -> straggler {2}, fast 2, all 5
#   round 1: [1, 3, 1] -> straggler {1}, fast 2, all 3
#   round 2: [2, 2, 2] -> none, lasts 2 (= max < 4)
#   round 3: [1, 9, 9] -> stragglers {1, 2}, fast 2, all 9
D = np.array([[1, 1, 2, 1], [1, 3, 2, 9], [5, 1, 2, 9]], float)


def rt(scheme, params=(), rules="paper", **kw):
    kw.setdefault("jobs", 3)
    return run_scheme(D, scheme, params, mu=1.0, rules=rules, **kw)


def test_hand_computed_runtimes():
    assert rt("no coding").runtime == 5 + 3 + 2
    assert rt("no-wait").runtime == 2 + 2 + 4  # (1 + mu) x fastest, always
    assert rt("GC", (1,)).runtime == 2 + 2 + 2  # one straggler a round: tolerated
    assert rt("GC", (1,), "scripts").runtime == 5 + 3 + 2  # scripts: fewer than s only
    assert rt("GC", (2,), "scripts").runtime == 6
    # SR-SGC (1, 2, 1): s = 1, T = 1. Round 1 adds worker 1 to worker 2 of round 0:
    # 2 distinct stragglers in a window of 2 > lambda = 1 -> wait (3). Round 3 is
    # skipped (job 2 needs no repeat).
    r = rt("SR-SGC", (1, 2, 1))
    assert r.runtime == 2 + 3 + 2 + 0 and r.waits == 1
    # scripts: round 0 (1 <= s stragglers, no repeat) is left out of the count
    assert rt("SR-SGC", (1, 2, 1), "scripts").runtime == 2 + 2 + 2 + 0
    # M-SGC (1, 2, 1): T = 1, every round runs; rounds 1 and 3 leave the model
    r = rt("M-SGC", (1, 2, 1))
    assert r.runtime == 2 + 3 + 2 + 9 and r.waits == 2


def test_load_scaling_of_delays():
    # a scheme of load L sees d + (L - base_load) base_comp; no coding has L = 1/3
    r = rt("no coding", base_load=0.0, base_comp=1.0)
    assert r.runtime == pytest.approx(10 + 3 / 3)
    r = rt("GC", (1,), base_load=1 / 3, base_comp=3.0)  # L = 2/3: +1 s on every time
    # round 0: [2, 2, 6] wait 4 -> 4; round 1: [2, 4, 2] -> 4; round 2: [3, 3, 3] -> 3
    assert r.runtime == pytest.approx(11)


def test_decisions_follow_the_model():
    rng = np.random.default_rng(0)
    for _ in range(20):
        X = rng.choice([1.0, 1.2, 5.0], p=[0.6, 0.3, 0.1], size=(5, 12))
        for params in [(1, 2, 2), (2, 3, 3), (1, 3, 2)]:
            jobs = 12 - (params[1] - 2 + params[0])  # rounds = jobs + T
            r = run_scheme(X, "M-SGC", params, jobs=jobs, mu=1.0)
            # replay: the effective pattern is admissible, and waits happen exactly when needed
            M = BurstyStragglerModel(5, *params)
            hist = np.zeros((0, 5), bool)
            for t in range(X.shape[1]):
                if t >= len(r.durations):
                    break
                d = X[:, t]
                st = d > 2 * d.min()
                ok = M.round_violation(hist, st) is None
                assert r.durations[t] == (min(2 * d.min(), d.max()) if ok else d.max())
                hist = np.vstack([hist, st if ok else np.zeros(5, bool)])


def test_search_and_grid():
    best, rows = search_runtimes(D, jobs=3, mu=1.0, keep_all=True)
    assert [b["scheme"] for b in best] == ["GC", "SR-SGC", "M-SGC", "no coding", "no-wait"]
    for b in best:
        mine = [r["runtime"] for r in rows if r["scheme"] == b["scheme"]]
        assert b["runtime"] == min(mine)
    assert param_grid("GC", 4, 30, 20, "paper")[0] == (0,)
    assert param_grid("GC", 4, 30, 20, "scripts")[-1] == (4,)
    paper = param_grid("M-SGC", 4, 30, 20, "paper")
    scripts = param_grid("M-SGC", 4, 30, 20, "scripts")
    assert set(scripts) < set(paper) and all(
        W - 2 + B == 10 for B, W, _ in set(paper) - set(scripts)
    )


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"scheme": "M-SGC", "params": (2, 3, 2), "jobs": 2}, "rounds >= jobs \\+ T"),
        ({"scheme": "SR-SGC", "params": (2, 4, 2), "jobs": 1}, "divide W - 1"),
        ({"scheme": "SR-SGC", "params": (1, 2, 4), "jobs": 1}, "lambda <= n"),
        ({"scheme": "M-SGC", "params": (1, 1, 1), "jobs": 1}, "W must be an integer >= 2"),
        ({"scheme": "GC", "params": (1,), "jobs": 1, "mu": -1.0}, "mu must be"),
        ({"scheme": "GC", "params": (1,), "jobs": 1, "rules": "x"}, "rules must be"),
        ({"scheme": "LDPC", "params": (), "jobs": 1}, "scheme must be"),
    ],
)
def test_bad_input(kw, words):
    with pytest.raises(ValueError, match=words):
        run_scheme(D, **kw)
