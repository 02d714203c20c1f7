"""AsySG (Wang et al. 2019, Section 5): the asynchronous scheme of the training simulator."""

from __future__ import annotations

import numpy as np
import pytest

from gctheory.training import SCHEMES, make_scheme, simulate
from gctheory.training.schemes import AsynchronousSGD, Iteration


def _it(G, X, t):
    return Iteration(G=G, X=np.asarray(X, float), w=np.zeros(G.shape[1]), t=t, block_grad=None)


def test_registered_and_needs_k():
    assert "asysg" in SCHEMES
    assert isinstance(make_scheme("asysg", 5, s=1), AsynchronousSGD)
    with pytest.raises(ValueError, match="asysg.*K"):
        make_scheme("asysg", 5)


def test_k_equal_n_is_wait_for_all_gd():
    # every worker delivers every update: fresh gradients, the slowest one's wait
    kw = dict(n=6, model="logistic", delay="exp(1)", iterations=15, rng=3)
    a = simulate("asysg", K=6, **kw)
    b = simulate("gd", **kw)
    np.testing.assert_allclose(a.loss, b.loss, rtol=0, atol=1e-15)
    np.testing.assert_allclose(a.time, b.time, rtol=0, atol=1e-12)


def test_a_slow_worker_delivers_a_stale_gradient_later():
    sch = AsynchronousSGD(3, 2)
    sch.prepare(np.ones(3), 1.0, 0.0)
    G0 = np.array([[1.0], [2.0], [3.0]])
    # worker 2 takes 2.5 time units, the others 1: the first update uses workers 0, 1
    st = sch.step(_it(G0, [1.0, 1.0, 2.5], 0))
    assert st.wait == 1.0 and st.grad[0] == pytest.approx((1 + 2) * 3 / 2)
    # workers 0, 1 restart at the new model (gradients 10, 20) and finish at time 2;
    # worker 2 is still computing its gradient of the initial model
    G1 = np.array([[10.0], [20.0], [30.0]])
    st = sch.step(_it(G1, [1.0, 1.0, 9.0], 1))
    assert st.wait == pytest.approx(1.0) and st.grad[0] == pytest.approx((10 + 20) * 1.5)
    # next: worker 2 (done at 2.5, stale gradient 3) and worker 0 (restarted at 2, done at 2.2)
    G2 = np.array([[100.0], [200.0], [300.0]])
    st = sch.step(_it(G2, [0.2, 1.0, 1.0], 2))
    assert st.wait == pytest.approx(0.5)
    assert st.grad[0] == pytest.approx((100 + 3) * 1.5)  # worker 2's gradient is the stale 3
    assert st.comm == 4 and st.comp == 2.0
