"""
Rare events: a Monte Carlo tail estimate with importance sampling
=================================================================

Plain Monte Carlo of a probability ``p`` needs about ``100 / p`` trials for a 10%
interval: hopeless for :math:`p = 10^{-8}`. Importance sampling draws from a
proposal that makes the event common and weights each draw by its exact likelihood
ratio; :func:`gctheory.montecarlo.importance_sampling` returns the estimate with a
CLT interval and diagnostics (effective sample size, the largest weight's share).

Left: :math:`P(Z > t)` for a standard normal ``Z``, with the proposal shifted to
``t`` (:class:`~gctheory.montecarlo.ShiftedGaussian`), against the exact value.
Right: the probability that a 4 x 4 Gaussian matrix has condition number above
``x`` (the quantity behind every stability guarantee of Kadhe et al.), by
:func:`gctheory.tails.condition_tail_is`, beside plain Monte Carlo and the
Chen-Dongarra bound.

Size: 4000 importance samples per point, 20 000 plain ones; about two seconds of CPU.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from gctheory.conditioning import condition_tail_mc, gaussian_condition_bound
from gctheory.montecarlo import ShiftedGaussian, estimate_probability, importance_sampling
from gctheory.tails import condition_tail_is


def above(t: float):
    """The event ``Z > t`` on an array of draws of shape (size, 1)."""
    return lambda z: z[:, 0] > t


def plain_above(t: float):
    return lambda rng, size: rng.standard_normal(size) > t


ts = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
weighted = [importance_sampling(above(t), ShiftedGaussian((t,)), 4000, rng=1) for t in ts]
plain = [estimate_probability(plain_above(t), 20_000, rng=1) for t in ts]
print(weighted[-1], "exact:", stats.norm.sf(ts[-1]))


def errorbars(ax, x, estimates, fmt, label):
    v = np.array([e.value for e in estimates])
    low = np.array([e.low for e in estimates])
    high = np.array([e.high for e in estimates])
    ok = v > 0  # a plain run that saw no event has nothing to draw on a log axis
    ax.errorbar(
        np.asarray(x)[ok],
        v[ok],
        yerr=[v[ok] - low[ok], high[ok] - v[ok]],
        fmt=fmt,
        ms=5,
        capsize=3,
        label=label,
    )


# %%
# The condition-number tail of a 4 x 4 Gaussian matrix.

xs = [1e2, 1e3, 1e4, 1e6, 1e8]
cond_is = [condition_tail_is(4, 4, x, 4000, rng=1) for x in xs]
cond_mc = [condition_tail_mc(4, 4, x, 20_000, rng=1) for x in xs]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.3), layout="constrained")
fine = np.linspace(1, 6.2, 100)
left.plot(fine, stats.norm.sf(fine), "k-", lw=1, label="exact, scipy.stats.norm.sf")
errorbars(left, ts, weighted, "o", "importance sampling, 4000 draws")
errorbars(left, ts, plain, "x", "plain Monte Carlo, 20 000 draws")
left.set_yscale("log")
left.set_xlabel("threshold t")
left.set_ylabel("P(Z > t)")
left.set_title("A normal tail (99% intervals)")
left.legend(fontsize=8)

right.plot(
    xs, [gaussian_condition_bound(4, 4, x) for x in xs], "k--", lw=1, label="Chen-Dongarra bound"
)
errorbars(right, xs, cond_is, "o", "importance sampling, 4000 draws")
errorbars(right, xs, cond_mc, "x", "plain Monte Carlo, 20 000 draws")
right.set_xscale("log")
right.set_yscale("log")
right.set_xlabel("x")
right.set_ylabel("P(cond(M) > x), M a 4 x 4 Gaussian")
right.set_title("The condition-number tail (99% intervals)")
right.legend(fontsize=8)
plt.show()
