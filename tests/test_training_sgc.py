"""SR-SGC and M-SGC as training schemes: delayed exact gradients, rounds as in gctheory.sgc."""

import numpy as np
import pytest

import gctheory.training as tr
from gctheory.sgc import run_scheme
from gctheory.training.schemes import Iteration, make_scheme

PARAMS = [("sr_sgc", (1, 2, 2)), ("sr_sgc", (2, 3, 2)), ("m_sgc", (1, 2, 2)), ("m_sgc", (2, 3, 3))]


def _drive(sch, rounds, seed=0, d=3):
    """Step the scheme on random partial gradients and heavy-tailed times."""
    rng = np.random.default_rng(seed)
    Gs, steps, finish = [], [], []
    sch.set_horizon(rounds)
    sch.prepare(np.ones(sch.k), 1.0, 0.0)
    for t in range(rounds):
        G = rng.standard_normal((sch.k, d))
        X = rng.choice([1.0, 1.1, 3.0], p=[0.6, 0.3, 0.1], size=sch.n)
        Gs.append(G)
        finish.append(sch.finish_times(X))
        steps.append(sch.step(Iteration(G, X, np.zeros(d), t, None)))
    return Gs, steps, np.array(finish).T


@pytest.mark.parametrize(("name", "p"), PARAMS)
def test_gradient_of_round_t_minus_T_enters_at_round_t(name, p):
    B, W, lam = p
    sch = make_scheme(name, 5, code_options={"B": B, "W": W, "lam": lam})
    assert sch.T == (B if name == "sr_sgc" else W - 2 + B)
    assert sch.loads == pytest.approx(np.full(5, float(sch.code.load) * 5))
    Gs, steps, _ = _drive(sch, 25)
    for t, st in enumerate(steps):
        want = Gs[t - sch.T].sum(axis=0) if t >= sch.T else np.zeros(3)
        np.testing.assert_allclose(st.grad, want, atol=1e-8)
    # the draws made stragglers that the rounds went on without
    assert sch.straggled > 0 and sch.waited_all < 25


@pytest.mark.parametrize(("name", "p"), PARAMS)
def test_round_durations_equal_the_runtime_module(name, p):
    sch = make_scheme(name, 5, code_options={"B": p[0], "W": p[1], "lam": p[2], "mu": 1.0})
    rounds = 20
    _, steps, D = _drive(sch, rounds, seed=3)
    jobs = rounds - sch.T
    ref = run_scheme(D, "SR-SGC" if name == "sr_sgc" else "M-SGC", p, jobs=jobs, mu=1.0)
    waits = np.array([s.wait for s in steps])
    # SR-SGC's runtime skips a round after the last job when nothing is pending
    upto = jobs if name == "sr_sgc" else rounds
    np.testing.assert_allclose(waits[:upto], ref.durations[:upto])


def test_simulate_on_the_lambda_trace():
    from gctheory.data import lambda_delays_path

    path = lambda_delays_path()  # the packaged measurements (a .csv.gz)
    spec = f"trace:{path}?profile=cnn-desktop-long&region=Canada"
    runs = {name: tr.simulate(name, n=8, iterations=12, rng=1, delay=spec,
                              code_options={"B": 1, "W": 2, "lam": 2})
            for name in ("sr_sgc", "m_sgc")}  # fmt: skip
    runs["gc"] = tr.simulate("cyclic-mds", n=8, iterations=12, rng=1, delay=spec, s=2)
    for r in runs.values():
        assert r.loss[-1] < r.loss[0] and np.all(r.wait > 0)
    # the first T = 1 rounds make no step
    assert runs["sr_sgc"].loss[1] == runs["sr_sgc"].loss[0]


@pytest.mark.parametrize(
    ("opts", "words"),
    [
        ({"B": 2, "W": 4, "lam": 2}, "divide W - 1"),
        ({"B": 1, "W": 1, "lam": 2}, "W must lie in"),
        ({"B": 1, "W": 2, "lam": 9}, "lambda <= n"),
        ({"B": 1, "W": 2, "lam": 2, "mu": -1}, "mu must lie in"),
        ({"B": 1, "W": 2, "q": 1}, "unknown"),
    ],
)
def test_bad_options(opts, words):
    with pytest.raises(ValueError, match=words):
        make_scheme("sr-sgc", 5, code_options=opts)
