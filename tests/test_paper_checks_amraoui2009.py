"""The shift parameter of the LDPC scaling law against Amraoui et al. (issue 26)."""

from __future__ import annotations

import math

import pytest

from gctheory import ldpc
from paper_checks._framework.registry import all_claims
from paper_checks.amraoui2009 import shift

CLAIMS = {c.id: c for c in all_claims("amraoui2009")}


def test_closed_form_matches_gctheorys_route_in_the_papers_convention():
    out = CLAIMS["closed-form-beta-over-omega"].check(True)
    assert out.verdict == "reproduced", out.cause
    row = out.computed["per ensemble"]["(3,6)"]
    # the closed form is sigma^(4/3) c^(-1/3) / slope: beta over 2^(1/3) gctheory's Omega
    p = ldpc.regular_scaling_parameters(3, 6).points[0]
    direct = p.diffusion ** (2 / 3) * p.curvature ** (-1 / 3) / p.slope
    assert row["closed form"] == pytest.approx(direct, rel=1e-9)
    # negative control: gctheory's beta/Omega in its own convention is 2^(1/3) off
    assert out.computed["(3,6) beta / Omega (gctheory)"] == pytest.approx(
        2 ** (1 / 3) * row["closed form"], rel=1e-9
    )
    assert not math.isclose(out.computed["(3,6) beta / Omega (gctheory)"], row["closed form"],
                            rel_tol=0.1)  # fmt: skip


def test_closed_form_moves_with_the_ensemble():
    # a wrong fixed point gives another number: the comparison can fail
    p = ldpc.regular_scaling_parameters(3, 6).points[0]
    good = shift.beta_over_omega_closed_form({3: 1.0}, {6: 1.0}, p.eps, p.x, p.y)
    bad = shift.beta_over_omega_closed_form({3: 1.0}, {6: 1.0}, p.eps, p.x * 1.01, p.y)
    assert abs(bad / good - 1) > 1e-3


def test_the_table_is_not_checkable_until_it_is_supplied():
    c = CLAIMS["table-shift-3-6"]
    out = c.check(True)
    assert out.verdict == "not checkable" and "not retrievable" in out.cause
    assert c.judge({**out.computed, "printed beta/Omega": 0.7773}).verdict == "differs"


def test_shift_at_inverts_the_law():
    law = ldpc.regular_scaling_parameters(3, 6, erasures="fixed")
    n = 8000
    t = round(n * law.eps)
    p = law.block_erasure(n, t / n)
    assert shift._shift_at(n, t, p, law.eps, law.alpha) == pytest.approx(law.beta, rel=1e-9)
    # negative control: the law without its shift gives a shift of 0
    p0 = law.block_erasure(n, t / n, shift=False)
    assert shift._shift_at(n, t, p0, law.eps, law.alpha) == pytest.approx(0.0, abs=1e-9)


def test_fit_recovers_the_intercept():
    pts = {}
    for n in (2000, 8000, 32000):
        y = 0.6 + 1.5 * n ** (-1 / 3)
        pts[str(n)] = {"shift": y, "low": y - 0.05, "high": y + 0.05}
    fit = shift._fit(pts)
    assert fit["value"] == pytest.approx(0.6, abs=1e-9)
    assert fit["slope in n^(-1/3)"] == pytest.approx(1.5, abs=1e-7)
    assert fit["low"] < 0.6 < fit["high"]
