"""The public plot functions of gctheory.plots: each draws on the caller's axes (or
figure), returns what it drew, makes no pyplot figure of its own when given one, and
leaves matplotlib's backend and rcParams as they were (issue 25, "Plots as a library")."""

from __future__ import annotations

import functools

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

import gctheory
import gctheory.plots as gp
from gctheory.montecarlo import Estimate

# the plot functions draw Monte Carlo points of heavy-tailed times, whose intervals the engine
# flags (UnreliableEstimateWarning); this module tests drawing, not intervals
pytestmark = pytest.mark.filterwarnings("ignore::gctheory.montecarlo.UnreliableEstimateWarning")


def _rc() -> dict:
    # read raw: rcParams["backend"] would resolve (and so change) the automatic backend
    return {k: repr(dict.__getitem__(matplotlib.rcParams, k)) for k in matplotlib.rcParams}


def _est(v: float, hw: float = 0.1) -> Estimate:
    return Estimate(value=v, low=v - hw, high=v + hw, trials=10, level=0.95)


def _curves() -> dict:
    t = np.linspace(0, 1, 5)
    c = {"time": t, "mean": 1 - t / 2, "low": 0.9 - t / 2, "high": 1.1 - t / 2, "comm": 3 * t}
    return {"A": c, "B": {k: v * 1.1 for k, v in c.items()}}


@functools.cache  # one seeded table for the two tests that draw it (drawing only reads it)
def _table():
    from gctheory.tradeoff import tradeoff

    return tradeoff(12, s=3, m=2, kappa=1000, eps=0.01, delay="exp(1)", quick=True, rng=0)


#: name -> (kind, call(target) -> Drawing or Figure); fast enough for the default run
FAST = {
    "plot_halbawi_fig3": ("ax", lambda ax: gp.plot_halbawi_fig3(ax=ax)),
    "plot_halbawi_f": ("ax", lambda ax: gp.plot_halbawi_f(ax=ax)),
    "plot_xu_order_statistics": ("ax", lambda ax: gp.plot_xu_order_statistics(ax=ax)),
    "plot_raptor_condition54": ("ax", lambda ax: gp.plot_raptor_condition54(ax=ax)),
    "plot_runtime_schemes": ("fig", lambda fig: gp.plot_runtime_schemes(fig=fig)),
    "plot_zhang_runtime": ("fig", lambda fig: gp.plot_zhang_runtime(fig=fig)),
    "plot_skappa_vs_s": ("fig", lambda fig: gp.plot_skappa_vs_s(fig=fig)),
    "plot_density_evolution": ("fig", lambda fig: gp.plot_density_evolution(fig=fig)),
    "plot_load_bounds": ("fig", lambda fig: gp.plot_load_bounds(fig=fig)),
    "plot_loss_curves": ("ax", lambda ax: gp.plot_loss_curves(_curves(), ax=ax, logx=True)),
    "plot_iteration_times": (
        "ax",
        lambda ax: gp.plot_iteration_times({"a": _est(1.0), "b": _est(2.0)}, ax=ax),
    ),
    "plot_completion_times": (
        "ax",
        lambda ax: gp.plot_completion_times({"a": {0.1: _est(1.0), 0.2: _est(2.0)}}, ax=ax),
    ),
    "plot_gap_and_communication": (
        "fig",
        lambda fig: gp.plot_gap_and_communication({"exp": _curves()}, fig=fig),
    ),
    "plot_tradeoff": ("fig", lambda fig: gp.plot_tradeoff(_table(), fig=fig)),
    "plot_binomial_coverage": ("ax", lambda ax: gp.plot_binomial_coverage(ax=ax, points=10)),
}
#: the ones that compute for seconds in quick mode (their makers run in the quality test)
SLOW = {
    "plot_approximate_codes": ("fig", lambda fig: gp.plot_approximate_codes(fig=fig)),
    "plot_codes_stability": ("fig", lambda fig: gp.plot_codes_stability(fig=fig)),
    "plot_cond_vs_n": ("ax", lambda ax: gp.plot_cond_vs_n(ax=ax)),
    "plot_condition_tail": ("ax", lambda ax: gp.plot_condition_tail(ax=ax)),
    "plot_skappa_empirical": ("fig", lambda fig: gp.plot_skappa_empirical(fig=fig)),
    "plot_skappa_vs_n": ("fig", lambda fig: gp.plot_skappa_vs_n(fig=fig)),
    "plot_ldpc_waterfall": ("fig", lambda fig: gp.plot_ldpc_waterfall(fig=fig)),
    "plot_stability_generators": ("fig", lambda fig: gp.plot_stability_generators(fig=fig)),
    "plot_delay_fits": ("fig", lambda fig: gp.plot_delay_fits(fig=fig)),
    "plot_delay_scheme_times": ("fig", lambda fig: gp.plot_delay_scheme_times(fig=fig)),
}


def test_every_public_plot_function_is_tested():
    public = {n for n in gp.__all__ if n.startswith("plot_")}
    assert public == set(FAST) | set(SLOW)
    assert "plt" not in gp.__all__
    assert all(callable(getattr(gp, n)) for n in gp.__all__)


def _draw_on_given(name: str, kind: str, call) -> None:
    if name.startswith("plot_delay_"):
        from gctheory.plots.delays import data_path

        if not data_path().is_file():
            pytest.skip(f"the measured delays are not on this machine ({data_path()})")
    figs_before = plt.get_fignums()
    backend = dict.__getitem__(matplotlib.rcParams, "backend")
    rc = _rc()
    fig = Figure(figsize=(12, 8))  # not a pyplot figure: the function must not need one
    target = fig.add_subplot() if kind == "ax" else fig
    drawn = call(target)
    assert plt.get_fignums() == figs_before  # no pyplot figure made
    assert dict.__getitem__(matplotlib.rcParams, "backend") == backend
    assert _rc() == rc
    if name == "plot_tradeoff":  # its published return value: the Figure
        assert drawn is fig and len(fig.axes) == 5
        return
    assert isinstance(drawn, gp.Drawing)
    assert drawn.figure is fig
    assert drawn.artists
    if kind == "ax":
        assert list(drawn.axes.values()) == [target]
    else:
        assert set(map(id, drawn.axes.values())) <= set(map(id, fig.axes))
    for a in drawn.artists:  # every artist is on the given figure (or one of its axes)
        assert a.figure is fig
        assert a.axes is None or a.axes in fig.axes
    if kind == "ax":
        assert all(a.axes is target for a in drawn.artists if a.axes is not None)


@pytest.mark.parametrize("name", sorted(FAST))
def test_draws_on_the_given_axes(name):
    kind, call = FAST[name]
    _draw_on_given(name, kind, call)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW))
def test_draws_on_the_given_axes_slow(name):
    kind, call = SLOW[name]
    _draw_on_given(name, kind, call)


def test_without_axes_a_function_makes_its_own_figure():
    drawn = gp.plot_xu_order_statistics()
    try:
        assert drawn.ax.figure is drawn.figure
        assert drawn.data is not None and len(drawn.data["K"]) == 10
    finally:
        plt.close(drawn.figure)


def test_two_functions_share_one_figure():
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    a = gp.plot_halbawi_fig3(ax=ax1)
    b = gp.plot_xu_order_statistics(ax=ax2)
    assert not set(map(id, a.artists)) & set(map(id, b.artists))
    assert all(x.axes is ax1 for x in a.artists if x.axes is not None)


def test_the_top_level_plot_tradeoff_takes_a_figure():
    fig = Figure(figsize=(15.5, 12.5))
    assert gctheory.plot_tradeoff(_table(), fig=fig) is fig


def test_an_atlas_without_kappa_or_delay_leaves_the_panels_out_and_says_why():
    from gctheory.tradeoff import tradeoff

    table = tradeoff(12, s=3, m=2, eps=0.01, quick=True, rng=0)
    fig = gp.plot_tradeoff(table, fig=Figure(figsize=(15.5, 12.5)))
    assert len(fig.axes) == 3  # (a), its failure strip, (b): no empty panel
    footer = " ".join(t.get_text() for t in fig.texts)
    assert "no kappa given" in footer and "no delay model given" in footer
