"""Stragglers with memory in real runs: a Markov or (B, W, lambda) delay spec drives
gctheory.cluster's local engine, and the recorded trace shows the model's persistence."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from gctheory import cluster as cl  # noqa: E402
from gctheory.delays.markov import fit_gilbert_elliott, straggler_matrix  # noqa: E402

# sleep-dominated: on-time workers sleep 5 ms, stragglers 100 ms; a straggler is a delay above
# 50 ms. The fits read the run's injected delays (a function of the seed, not of the machine's
# load); the recorded responses are checked one way only, which load cannot break: every
# injected straggler responds after its 100 ms sleep, so it is above the threshold in the trace
# (a loaded machine may also push an on-time worker's response above 50 ms: not asserted)
FAST, SLOW, THRESHOLD = "constant(0.005)", "constant(0.1)", 0.05
PERSISTENT = f"markov(p=0.05, r=0.2, fast={FAST}, slow={SLOW})"  # stay bad 0.8, rate 0.2
MEMORYLESS = f"markov(p=0.2, r=0.8, fast={FAST}, slow={SLOW})"  # same rate, no memory
BURSTY = f"bursty(B=3, W=6, lam=2, rate=0.15, fast={FAST}, slow={SLOW})"


def _fit(spec: str, seed: int):
    r = cl.run("gd", 4, workload="logistic", delay=spec, iterations=60, rng=seed)
    assert r.iterations == 60 and r.delay == spec
    tr = r.trace()
    recorded, _ = straggler_matrix(tr.rounds(tr.loads[0]), threshold=THRESHOLD)
    S, rule = straggler_matrix(r.injected, threshold=THRESHOLD)
    assert S.shape == recorded.shape and S.any()
    # every injected straggler is a straggler of the recorded trace
    assert np.all(recorded[S.astype(bool)] == 1), rule
    return fit_gilbert_elliott(S, rule=rule)


def test_markov_spec_persists_in_the_recorded_trace_and_iid_is_not_flagged():
    mem = _fit(PERSISTENT, 5)
    assert mem.rejects_iid(1e-4), mem.p_value
    assert mem.contains("persistence", 0.8), mem.intervals["persistence"]
    # negative control: the memoryless chain of the same straggler rate is not flagged
    iid = _fit(MEMORYLESS, 5)
    assert not iid.rejects_iid(0.01), iid.p_value
    assert iid.contains("persistence", 0.2), iid.intervals["persistence"]


def test_bursty_spec_runs_and_its_bursts_persist():
    f = _fit(BURSTY, 6)
    assert f.rejects_iid(1e-3), f.p_value  # bursts of 1..3 rounds: memory
    assert f.params["straggler_rate"] > 0
