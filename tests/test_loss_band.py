"""``training.loss_band`` covers at its stated level over a few seeds (Student's t)."""

from __future__ import annotations

import numpy as np
from scipy import special

from gctheory.montecarlo import binomial_estimate
from gctheory.training import loss_band


class _Run:
    def __init__(self, loss: float) -> None:
        self.loss = loss

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        return np.full(len(times), self.loss)


def _covers(seeds: int, reps: int, rng: np.random.Generator, z_band: bool) -> int:
    grid, hits = np.zeros(1), 0
    for _ in range(reps):
        runs = [_Run(x) for x in rng.normal(1.0, 0.2, seeds)]
        mean, low, high = loss_band(runs, grid, level=0.95)
        if z_band:  # the old band: the normal quantile instead of Student's t
            half = (high - mean) / (high - mean) * special.ndtri(0.975)
            sd = np.std([r.loss for r in runs], ddof=1) / np.sqrt(seeds)
            low, high = mean - half * sd, mean + half * sd
        hits += int(low[0] <= 1.0 <= high[0])
    return hits


def test_the_band_covers_at_three_seeds_and_the_normal_quantile_does_not():
    rng = np.random.default_rng(0)
    t = binomial_estimate(_covers(3, 3000, rng, False), 3000, level=0.99)
    assert t.low <= 0.95 <= t.high
    z = binomial_estimate(_covers(3, 3000, rng, True), 3000, level=0.99)  # negative control
    assert z.high < 0.9
