"""The optional PyTorch adapter: a small MLP on the digits trained on real workers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip(
    "torch", reason="torch not installed (extra 'torch': pip install torch==2.13.0)"
)

from gctheory import cluster as cl  # noqa: E402
from gctheory.cluster.torch_oracle import digits_mlp  # noqa: E402


def test_partials_sum_to_the_full_gradient():
    wl = digits_mlp(4, hidden=8)
    w = wl.initial_params() + 0.01
    g = sum(wl.partial_gradient(w, j) for j in range(4))
    assert g.shape == (wl.dim,) == (64 * 8 + 8 + 8 * 10 + 10,)
    assert np.allclose(g, wl.full_gradient(w), rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError, match="partition 1 is not held here"):
        wl.restrict([0]).partial_gradient(w, 1)


def test_mlp_trains_on_real_workers_with_a_gradient_code():
    wl = digits_mlp(4, hidden=16)
    r = cl.run("cyclic_mds", 4, s=1, workload=wl, delay="constant(0)", iterations=30, rng=0,
               eval_every=10)  # fmt: skip
    assert r.iterations == 30
    loss, acc = r.metrics["train_loss"], r.metrics["test_accuracy"]
    assert loss[-1] < 0.6 * loss[0] and acc[-1] > 0.6
    for t in (0, 29):  # the decoded step is the full gradient of the model
        w = r.params_history[t]
        step = (w - r.params_history[t + 1]) / r.config["step_size"]
        assert np.allclose(step, wl.full_gradient(w), rtol=1e-7, atol=1e-12)
    assert np.array_equal(cl.replay(r, workload=wl).params, r.params)  # bit for bit
