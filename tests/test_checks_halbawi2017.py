"""The theorem checks of halbawi2017 find counterexamples when fed a broken statement."""

from __future__ import annotations

import numpy as np

from paper_checks.halbawi2017 import theorems as th


def test_eq2_holds_and_flags_a_shifted_bound():
    assert th.verify_eq2(5)["counterexample"] is None
    # one more straggler than eq. (2): the RS code cannot decode from n - s - 1 survivors
    more = th.verify_eq2(5, bound=lambda n, k, w: w * n // k)
    assert more["counterexample"] is not None
    # one fewer: s + 1 stragglers would still be tolerated, so the bound is not the largest
    fewer = th.verify_eq2(5, bound=lambda n, k, w: max(w * n // k - 2, 0))
    assert "still leave 1" in fewer["counterexample"]


def test_cor1_printed_sets_fail_only_when_the_heavy_run_wraps():
    printed = th.verify_row_weights(8)
    assert printed["counterexample"] is not None and printed["wrapping"] > 0
    assert th.verify_row_weights(8, sets=th.cyclic_cor1_sets)["counterexample"] is None
    # swapping heavy and light is caught
    swapped = th.verify_row_weights(
        6, sets=lambda n, k, d, t: th.cyclic_cor1_sets(n, k, d, t)[::-1]
    )
    assert swapped["counterexample"] is not None


def test_prop2_holds_and_an_off_by_one_heavy_set_is_flagged():
    assert th.verify_row_weights(10, sets=th._prop2_sets, offsets=False)["counterexample"] is None

    def one_more_heavy(n, k, d, t):
        heavy, light = th._prop2_sets(n, k, d, t)
        extra = (k * d) % n  # the first light row, claimed heavy
        return heavy | {extra}, light - {extra}

    bad = th.verify_row_weights(10, sets=one_more_heavy, offsets=False)
    assert bad["counterexample"] is not None


def test_prop1_limit_holds_and_a_perturbed_limit_is_flagged():
    ok = th.verify_prop1(2, refine_evals=10)
    assert ok["counterexample"] is None and ok["smallest slack"] > 0
    bad = th.verify_prop1(
        2,
        limit=lambda t0, xi, a: 1.01 * th.paper_prop1_limit(t0, xi, a),
        refine_evals=5,
        quadrature=False,
    )
    assert bad["counterexample"] is not None


def test_eq22_minimiser_and_a_perturbed_alpha_star():
    assert th.verify_eq22(10)["counterexample"] is None
    bad = th.verify_eq22(10, alpha_star=lambda t0, xi, n: 0.9 * th.paper_alpha_star(t0, xi, n))
    assert bad["counterexample"] is not None


def test_alg4_check_flags_a_broken_mask(monkeypatch):
    assert th.verify_alg4(8, 5)["counterexample"] is None

    def broken(n, k, w):
        M = np.zeros((n, k), bool)
        M[:, :w] = True
        M[0, :] = True  # the first row too heavy
        return M

    monkeypatch.setattr(th, "mask_matrix", broken)
    assert "row weights" in th.verify_alg4(8, 0)["counterexample"]


def test_eq2_converse_finds_a_counterexample_to_a_smaller_bound():
    """The converse sweep flips on a bound one below eq. (2) (which the RS/FRC supports meet)."""
    from paper_checks.halbawi2017.converse import support_sweep

    assert support_sweep(9)["counterexample"] is None
    assert support_sweep(9, lambda n, k, w: w * n // k - 2)["counterexample"] is not None
