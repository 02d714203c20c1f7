"""gctheory.training: mini-batch SGD (``batch_size``) and the Assumption-1 statistics
(``record_stats``) of Xu et al. 2021."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")  # the digits data, not a project module

from gctheory import training as tr  # noqa: E402

DELAY = "shifted_exp(0.05, 0.02)"


def test_full_size_batches_reproduce_full_batch_gd():
    # 1797 digits = 3 x 599: a batch of the whole partition is the partition's gradient
    a = tr.simulate("gd", n=3, iterations=15, rng=4)
    b = tr.simulate("gd", n=3, iterations=15, rng=4, batch_size=599)
    assert np.allclose(a.loss, b.loss, rtol=0, atol=1e-12)  # summation order only


def test_batches_are_seeded_and_shared_by_schemes():
    kw = dict(n=10, iterations=12, delay=DELAY, partition=3, batch_size=16)
    a = tr.simulate("ignore", K=10, rng=9, **kw)
    b = tr.simulate("gd", rng=9, **kw)
    # K = n: the same mini-batches, the same steps (summed in another order)
    assert np.allclose(a.loss, b.loss, rtol=0, atol=1e-12)
    c = tr.simulate("gd", rng=10, **kw)
    assert not np.array_equal(b.loss, c.loss)
    assert np.array_equal(tr.simulate("gd", rng=9, **kw).loss, b.loss)


def test_mini_batch_gradients_differ_from_the_full_gradient():
    run = tr.simulate("gd", n=10, iterations=40, rng=1, batch_size=8, step_size=1e-9)
    # the model barely moves, so the errors are draws of one mini-batch estimator
    assert run.grad_error.min() > 0
    full = tr.simulate("gd", n=10, iterations=1, rng=1)
    assert full.grad_error[0] < 1e-12


def test_batch_size_is_validated():
    with pytest.raises(ValueError, match="batch_size must be at most the smallest"):
        tr.simulate("gd", n=10, iterations=2, batch_size=10_000)
    with pytest.raises(ValueError, match="batch_size"):
        tr.simulate("gd", n=10, iterations=2, batch_size=0)


def test_record_stats_matches_direct_computation_and_changes_nothing():
    kw = dict(n=5, iterations=6, delay=DELAY, partition=2, rng=3)
    plain = tr.simulate("lgc", K=4, **kw)
    run = tr.simulate("lgc", K=4, record_stats=True, **kw)
    assert np.array_equal(plain.loss, run.loss)
    assert set(run.stats) == {"grad_norm2", "beta2", "sigma2"}
    assert all(len(v) == 6 for v in run.stats.values())
    # at w = 0 (the first iterate): |grad F|^2 from the model directly
    ds = tr.load_digits_dataset()
    model = tr.SoftmaxRegression(1e-3)
    w0 = np.zeros(model.dim(ds))
    _, P, _ = model.forward(w0, ds.X, ds.y)
    g = model.back(ds.X, P) / len(ds.y)
    assert run.stats["grad_norm2"][0] == pytest.approx(float(g @ g), rel=1e-10)
    # heterogeneity and per-sample variance are non-negative, and positive for non-IID data
    assert np.all(run.stats["beta2"] > 0) and np.all(run.stats["sigma2"] > 0)
