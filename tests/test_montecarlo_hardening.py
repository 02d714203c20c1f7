"""Issue 12 for the engine: stable means, heavy tails, scale, seeds, faults, the Dask snippet."""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from gctheory.montecarlo import (
    MAX_CHUNKS,
    Stop,
    UnreliableEstimateWarning,
    estimate_mean,
    estimate_probability,
    seed_sequence,
)
from tests import _mc_events as ev

ROOT = Path(__file__).resolve().parent.parent
EVENT = functools.partial(ev.bernoulli, p=0.3)


# --- item 1: a stable, chunk-mergeable mean ---------------------------------------------


def test_mean_around_1e8_keeps_its_unit_spread():
    # E[X^2] - E[X]^2 in float64 loses everything here: the old engine said std 0 and a
    # zero-width interval that excluded the true mean 1e8.
    est = estimate_mean(ev.around_1e8, 100_000, rng=5, chunk_size=7_000)
    assert est.std == pytest.approx(1.0, rel=0.02)  # N(1e8, 1): sd 1 (closed form)
    assert est.contains(1e8) and est.half_width > 0
    assert not est.contains(1e8 + 0.05)  # negative control: 0.05 is ~6 half-widths away


def test_chunked_mean_equals_the_two_pass_mean_of_all_samples():
    sampler = functools.partial(ev.exponential, mean=3.0)
    est = estimate_mean(sampler, 50_000, rng=8, chunk_size=3_000)
    seeds = np.random.SeedSequence(8).spawn(17)
    x = np.concatenate(
        [
            sampler(np.random.default_rng(s), min(3_000, 50_000 - 3_000 * i))
            for i, s in enumerate(seeds)
        ]
    )
    assert est.value == pytest.approx(x.mean(), rel=1e-13)
    assert est.std == pytest.approx(x.std(ddof=1), rel=1e-12)


def test_mean_is_bit_identical_on_a_pool():
    a = estimate_mean(ev.around_1e8, 40_000, rng=5, chunk_size=3_000)
    b = estimate_mean(ev.around_1e8, 40_000, rng=5, chunk_size=3_000, executor=2)
    assert a == b


# --- heavy tails warn -----------------------------------------------------------------------


def test_infinite_mean_sampler_warns():
    with pytest.warns(UnreliableEstimateWarning, match="<= 1, so the mean may be infinite"):
        est = estimate_mean(functools.partial(ev.pareto, shape=0.5), 20_000, rng=3)
    assert est.diagnostics.tail_index < 1


def test_light_tailed_samplers_do_not_warn():  # the negative control (filterwarnings=error)
    for sampler in (functools.partial(ev.exponential, mean=2.0), ev.around_1e8):
        est = estimate_mean(sampler, 20_000, rng=3)
        assert est.diagnostics.tail_index is None or est.diagnostics.tail_index > 2
        assert est.diagnostics.messages == ()


# --- scale: refused at once, with the figure ---------------------------------------------


def test_10_to_the_15_trials_is_refused_at_once():
    t0 = time.process_time()  # CPU time: a loaded machine does not move it
    with pytest.raises(ValueError, match=r"15,258,789,063 chunks, more than the 100,000,000"):
        estimate_probability(ev.must_not_run, 10**15)
    assert time.process_time() - t0 < 2.0
    assert MAX_CHUNKS == 10**8


def test_a_chunk_larger_than_memory_is_refused_with_the_figure():
    with pytest.raises(ValueError, match=r"chunk_size=10,000,000,000,000 needs at least .* GiB"):
        estimate_probability(ev.must_not_run, 10**15, chunk_size=10**13)


def test_a_huge_budget_is_fine_with_a_stop_rule():
    est = estimate_probability(
        EVENT, 10**15, rng=1, chunk_size=10_000, stop=Stop(rel_half_width=0.05)
    )
    assert est.stopped_by == "rel_half_width" and est.trials < 10**6


# --- seeds: as_generator semantics -----------------------------------------------------------


@pytest.mark.parametrize(
    ("rng", "match"),
    [
        (True, "rng must be None, a non-negative int"),
        (False, "rng must be None, a non-negative int"),
        (-3, "rng seed must be a non-negative integer, got -3"),
        ([1, -2], "rng seed must be a non-negative integer, got -2"),
        (1.5, "rng must be None"),
        ("seed", "rng must be None"),
    ],
)
def test_bad_seeds_are_refused_with_the_parameter_name(rng, match):
    with pytest.raises(ValueError, match=match):
        seed_sequence(rng)
    with pytest.raises(ValueError, match=match):
        estimate_probability(ev.must_not_run, 100, rng=rng)


def test_seed_forms_that_are_accepted():
    assert seed_sequence(np.int64(5)).entropy == 5
    assert seed_sequence([1, 2]).entropy == [1, 2]
    g = np.random.default_rng(3)
    assert seed_sequence(g).entropy != seed_sequence(g).entropy  # the generator advances


# --- faults: pool workers die with their parent ------------------------------------------

_ORPHANS = textwrap.dedent(
    """
    import functools, sys
    sys.path.insert(0, {root!r})
    from gctheory.montecarlo import estimate_probability
    from tests import _mc_events as ev
    if __name__ == "__main__":
        event = functools.partial(ev.write_pid_and_sleep, folder={folder!r})
        estimate_probability(event, 8, rng=1, chunk_size=1, executor=2)
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_pool_workers_exit_when_the_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(_ORPHANS.format(root=str(ROOT), folder=str(tmp_path)))
    proc = subprocess.Popen([sys.executable, str(script)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(list(tmp_path.glob("*.pid"))) < 2:
        time.sleep(0.1)
    pids = [int(p.stem) for p in tmp_path.glob("*.pid")]
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for p in left:  # do not leave them behind if the test fails
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"


# --- the README's Dask snippet runs as written ---------------------------------------------


def _readme_dask_block() -> str:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    local = [b for b in blocks if "LocalCluster" in b and "__main__" in b]
    assert len(local) == 1, "the README has one LocalCluster snippet with a __main__ guard"
    return local[0]


# a fresh interpreter and a LocalCluster (~2.5 s of CPU): extended; the default run keeps
# test_montecarlo's LocalCluster run and a documentation snippet run as a script
@pytest.mark.extended
def test_readme_dask_snippet_runs_as_written(tmp_path):
    pytest.importorskip("distributed")  # a third-party extra, not the project's own module
    script = tmp_path / "snippet.py"
    script.write_text(_readme_dask_block())
    out = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    # the snippet prints the estimate and whether it equals the serial run
    assert "same as serial: True" in out.stdout, out.stdout
    assert list(tmp_path.iterdir()) == [script]  # it wrote nothing
