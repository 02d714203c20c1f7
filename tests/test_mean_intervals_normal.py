"""No mean in gctheory gets the plain normal interval unnoticed: every normal quantile in the
package is in a place named here, with the reason it stays; the measured means that used it
(a real run's mean iteration time, the memory-delay round times) now get Hall's interval."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from gctheory.delays.markov import GilbertElliott, MemoryDelay, memory_scheme_times
from gctheory.montecarlo import mean_of_samples

PACKAGE = Path(__file__).resolve().parents[1] / "gctheory"
NORMAL_QUANTILE = re.compile(r"norm\.ppf\(|ndtri\(0\.5|z_value\(|\b1\.96\b")

#: file -> (uses, why the normal quantile stays there)
ALLOWED = {
    "montecarlo/estimates.py": (4, "z_value itself, and the Wilson interval of a proportion"),
    "montecarlo/summaries.py": (1, "importance sampling: a weighted mean, warned by its ESS"),
    "sweeps/stats.py": (1, "gctheory-stats/1 rows without higher sums: warned, by name"),
    "delays/_mle/profile.py": (1, "Wald intervals of fitted parameters (the study measures them)"),
    "delays/markov/fits.py": (2, "Wald intervals of Markov-chain parameters"),
    "cluster/compare.py": (1, "the prediction's interval (its standard error sums parts)"),
    "cluster/network_study.py": (1, "z-test of two measured codes' difference (crossover shown)"),
}


def test_every_normal_quantile_is_in_a_named_place():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        uses = len(NORMAL_QUANTILE.findall(path.read_text(encoding="utf-8")))
        if uses:
            found[path.relative_to(PACKAGE).as_posix()] = uses
    assert found == {k: v[0] for k, v in ALLOWED.items()}


@pytest.mark.filterwarnings("ignore::gctheory.montecarlo.UnreliableEstimateWarning")
def test_memory_round_times_get_halls_interval():
    # (60 runs of a slow/fast mixture: the tail check may flag the clustered run times)
    d = MemoryDelay(GilbertElliott(0.1, 0.5), stats.expon(), stats.expon(loc=5.0))
    r = memory_scheme_times(d, 8, [4, 8], rounds=5, trials=60, rng=3)
    again = memory_scheme_times(d, 8, [4, 8], rounds=5, trials=60, rng=3)
    assert np.array_equal(r["low"], again["low"])
    for j in range(2):
        lo, hi, m = r["low"][j], r["high"][j], r["mean"][j]
        assert lo < m < hi
        # skewed per-run times: Hall's limits are not symmetric about the mean (the plain
        # normal interval's were)
        assert not np.isclose(hi - m, m - lo, rtol=1e-6)


def test_a_run_mean_is_the_engines_mean_of_samples():
    from gctheory.cluster.results import ClusterRun

    x = np.random.default_rng(1).exponential(1.0, 200) + 0.5
    run = ClusterRun.__new__(ClusterRun)
    object.__setattr__(run, "iteration_time", x)
    est = run.mean_iteration_time(0.9)
    want = mean_of_samples(x, level=0.9)
    assert (est.method, est.low, est.high) == ("hall", want.low, want.high)
