"""Tests of the MAP threshold by the Maxwell construction (gctheory.ldpc.density_evolution)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf, quad

from gctheory import ldpc


def _area_above(lam: dict, rho: dict, x0: float) -> float:
    """Area under the BP EXIT curve h = L(y) from the point x0 to x = 1, mpmath quadrature.

    Integrates L(y(x)) eps'(x) dx directly (no integration by parts), with
    eps(x) = x / lambda(y(x)), y = 1 - rho(1 - x): independent of the closed form used
    by map_threshold.
    """
    L = ldpc.edge_to_node(lam)
    with mp.workdps(40):

        def y(x):
            return 1 - sum(mpf(f) * (1 - x) ** (j - 1) for j, f in rho.items())

        def eps(x):
            return x / sum(mpf(f) * y(x) ** (i - 1) for i, f in lam.items())

        def integrand(x):
            return sum(mpf(f) * y(x) ** i for i, f in L.items()) * mp.diff(eps, x)

        return float(quad(integrand, [mpf(x0), 1]))


@pytest.mark.parametrize(
    "lam, rho",
    [({3: 1}, {6: 1}), ({4: 1}, {8: 1}), ({3: 1}, {5: 1}), ({2: 0.3, 3: 0.7}, {6: 1})],
)
def test_maxwell_area_equals_design_rate(lam, rho):
    th = ldpc.map_threshold(lam, rho)
    rate = float(ldpc.design_rate(lam, rho))
    assert th.bp.eps < th.eps < 1 - rate  # BP < MAP < capacity
    assert abs(_area_above(lam, rho, th.x) - rate) < 1e-10  # area theorem, mpmath quadrature
    # negative control: cutting the curve 0.01 further along leaves a different area
    assert abs(_area_above(lam, rho, th.x + 0.01) - rate) > 1e-3


def test_map_equals_bp_where_stability_binds():
    for lam, rho in (({2: 1}, {4: 1}), ({2: 0.5, 20: 0.5}, {6: 1})):
        th = ldpc.map_threshold(lam, rho)
        assert th.bp.stability
        assert th.eps == th.bp.eps and th.jump == 0.0
    th = ldpc.regular_map_threshold(2, 4)
    assert th.eps == pytest.approx(1 / 3, abs=1e-15)  # 1/(lambda'(0) rho'(1)), closed form


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.integers(2, 8), min_size=1, max_size=3, unique=True),
    st.lists(st.integers(3, 12), min_size=1, max_size=3, unique=True),
    st.integers(0, 2**31 - 1),
)
def test_map_between_bp_and_capacity_fuzz(lam_degs, rho_degs, seed):
    rng = np.random.default_rng(seed)
    w = rng.random(len(lam_degs)) + 0.05
    v = rng.random(len(rho_degs)) + 0.05
    lam = dict(zip(lam_degs, w / w.sum()))
    rho = dict(zip(rho_degs, v / v.sum()))
    if ldpc.design_rate(lam, rho) <= 0:
        with pytest.raises(ValueError, match="design rate"):
            ldpc.map_threshold(lam, rho)
        return
    th = ldpc.map_threshold(lam, rho)
    assert th.eps >= th.bp.eps - 1e-12
    assert th.eps <= 1 - th.design_rate + 1e-12  # Shannon: no rate-R code beats 1 - R


def test_map_threshold_bad_input():
    with pytest.raises(ValueError, match="sum to 1"):
        ldpc.map_threshold({3: 0.5}, {6: 1})
    with pytest.raises(ValueError, match="real numbers"):
        ldpc.map_threshold({3: "1.0"}, {6: 1.0})
    with pytest.raises(ValueError, match="dc"):
        ldpc.regular_map_threshold(3, 1)
