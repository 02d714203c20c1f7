"""The stacked straggler solves of decode_many: the compiled kernel against LAPACK."""

from __future__ import annotations

import numpy as np
import pytest

from gctheory import _compiled
from gctheory.codes import CyclicMDSCode, FractionalRepetitionCode, MatrixGradientCode
from gctheory.codes import _stacked_solve as st
from gctheory.codes._survivors import _rows_mask

BACKENDS = ["numpy"] + (["numba"] if _compiled.HAVE_NUMBA else [])
needs_numba = pytest.mark.skipif(not _compiled.HAVE_NUMBA, reason="needs the fast extra (numba)")


def _systems(rng, n, e, m, N, complex_):
    W = rng.standard_normal((n, e + m))
    if complex_:
        W = W + 1j * rng.standard_normal((n, e + m))
    SS = np.array([rng.permutation(n)[:e] for _ in range(N)])
    return W, SS


@needs_numba
@pytest.mark.parametrize("e", [2, 3, 7, 25, 26])
@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("complex_", [False, True])
def test_kernel_agrees_with_lapack_to_the_conditioning(e, m, complex_):
    rng = np.random.default_rng(e * 10 + m)
    W, SS = _systems(rng, 60, e, m, 70, complex_)  # 70 systems: two full blocks and a partial
    Y, R, nrm, ok = st.gather_solve(W, SS, e, backend="numba")
    Yn, Rn, nrmn, okn = st.gather_solve(W, SS, e, backend="numpy")
    assert ok and okn and Y.dtype == W.dtype
    A, rhs = W[SS][:, :, :e], W[SS][:, :, e:]
    cond = np.linalg.cond(A)
    rel = np.abs(Y - Yn).max(axis=(1, 2)) / np.abs(Yn).max(axis=(1, 2))
    # two backward-stable LU solves differ by at most a few cond * eps
    assert np.all(rel <= 10 * e * cond * np.finfo(float).eps)
    # the returned residual is the residual of the returned solution, from the original rows
    np.testing.assert_allclose(R, rhs - A @ Y, atol=1e-12 * max(1.0, np.abs(Y).max()))
    assert np.abs(R).max() < 1e-10 * np.abs(Y).max() * np.abs(W).max() * e
    # the kernel's per-set norms are those of its own R and Y
    np.testing.assert_allclose(nrm, st.frobenius_norms(R, Y), rtol=1e-12)
    np.testing.assert_allclose(nrmn, st.frobenius_norms(Rn, Yn), rtol=1e-12)


@needs_numba
def test_a_singular_system_spoils_only_itself_on_the_kernel():
    rng = np.random.default_rng(1)
    W, SS = _systems(rng, 40, 5, 1, 40, False)
    SS[7] = [3, 3, 4, 5, 6]  # two equal rows: singular
    Y, R, _, ok = st.gather_solve(W, SS, 5, backend="numba")
    assert ok
    assert not np.all(np.isfinite(Y[7]))
    others = np.delete(np.arange(40), 7)
    assert np.all(np.isfinite(Y[others]))
    Yn, _, _, okn = st.gather_solve(W, SS[others], 5, backend="numpy")
    np.testing.assert_allclose(Y[others], Yn, rtol=1e-9, atol=1e-9)
    # numpy's stacked solve cannot tell which system failed: the whole stack is unsolved
    assert st.gather_solve(W, SS, 5, backend="numpy")[3] is False


@pytest.mark.parametrize("backend", BACKENDS)
def test_decode_many_backends_equal_single_decodes(backend):
    rng = np.random.default_rng(2)
    for code in (CyclicMDSCode(30, 7, rng=1), CyclicMDSCode(15, 4, construction="deterministic")):
        Y = code.encode(rng.standard_normal((code.n, 4)))
        sets = np.array([rng.permutation(code.n)[: code.n - code.s] for _ in range(50)])
        single = np.array([code.decode(T, Y[T]) for T in sets])
        np.testing.assert_allclose(code.decode_many(sets, Y, backend=backend), single, atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_decode_many_refuses_an_undecodable_set_on_every_backend(backend):
    # FRC(6, s = 1) claimed to tolerate s = 2: losing a whole group is undecodable, and
    # its 2 x 2 straggler system is singular (the kernel gives inf, numpy raises)
    frc = MatrixGradientCode(FractionalRepetitionCode(6, 1).B, 2)
    Yf = frc.encode(np.ones((6, 2)))
    two = np.array([[2, 3, 4, 5], [1, 3, 4, 5]])
    with pytest.raises(ValueError, match="cannot decode"):
        frc.decode_many(two, Yf, backend=backend)
    np.testing.assert_allclose(frc.decode_many(two[1:], Yf, backend=backend), [[6.0, 6.0]])


def test_decode_many_backend_is_checked_before_any_work(monkeypatch):
    code = CyclicMDSCode(8, 2, rng=0)
    Y = code.encode(np.ones((8, 2)))
    with pytest.raises(ValueError, match=r"backend.*'auto'.*'numba'.*'numpy'"):
        code.decode_many(np.array([[0, 1]]), Y, backend="lapack")  # bad set too: backend first
    monkeypatch.setattr(_compiled, "HAVE_NUMBA", False)
    with pytest.raises(ValueError, match=r"gctheory\[fast\]"):
        code.decode_many(np.array([[0, 1, 2, 3, 4, 5]]), Y, backend="numba")
    assert st.resolve_backend("auto", 25) == "numpy"


@pytest.mark.parametrize("backend", BACKENDS)
def test_sets_the_bound_misses_are_cleared_by_their_direct_residual(backend, monkeypatch):
    # at s = n/4 some random straggler systems are ill-conditioned enough that the cheap
    # bound exceeds 1e-8; their residual computed directly (as decode does) clears them
    # inside the batch, so decode is called only for sets decode itself would send to lstsq
    code = CyclicMDSCode(40, 10, rng=4)
    rng = np.random.default_rng(3)
    sets = np.array([np.sort(rng.permutation(40)[:30]) for _ in range(400)])
    SS, Yb, _, bound = code._nullspace_batch_factors(sets, _rows_mask(sets, 40), backend)
    loose = np.flatnonzero(bound > 1e-8)
    assert loose.size  # the bound does miss some (else this test checks nothing)
    res = bound.copy()
    code._direct_residuals(SS, Yb, res, bound > 1e-8)
    direct = np.array([code._coefficients_residual(sets[i])[1] for i in loose])
    # the same residual up to the rounding of two LU solves (they are rounding-level here)
    np.testing.assert_allclose(res[loose], direct, rtol=0.5, atol=1e-15)
    assert np.all((res[loose] <= 1e-8) == (direct <= 1e-8))
    assert np.all(res[bound <= 1e-8] == bound[bound <= 1e-8])
    single_needed = int(np.sum(res > 1e-8))
    calls = []
    real = type(code).decode
    monkeypatch.setattr(
        type(code), "decode", lambda self, *a, **k: calls.append(1) or real(self, *a, **k)
    )
    Y = code.encode(rng.standard_normal((40, 3)))
    out = code.decode_many(sets, Y, backend=backend, check=False)
    assert len(calls) == single_needed < loose.size
    monkeypatch.undo()
    single = np.array([code.decode(T, Y[T], check=False) for T in sets])
    np.testing.assert_allclose(out, single, atol=1e-6 * np.abs(single).max())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("junk", [np.nan, np.inf, 1e300])
def test_decode_many_never_reads_a_stragglers_row(backend, junk):
    # stragglers' rows of the full (n, r) array hold NaN ("nothing arrived"), inf or huge
    # garbage: every set that does not use them decodes exactly as decode does; a set that
    # has such a row among its survivors gets what decode gives it
    code = CyclicMDSCode(12, 3, rng=0)
    rng = np.random.default_rng(1)
    P = rng.standard_normal((12, 4))
    Y = code.encode(P)
    Y[[0, 5]] = junk
    sets = np.array([np.setdiff1d(np.arange(12), [0, 5, k]) for k in (1, 2, 3, 4)])
    out = code.decode_many(sets, Y, backend=backend)
    np.testing.assert_allclose(out, np.tile(P.sum(0), (4, 1)), atol=1e-10)
    with_junk = np.array([np.setdiff1d(np.arange(12), [1, 2, 3])])  # 0 and 5 survive
    if np.isfinite(junk):
        got = code.decode_many(with_junk, Y, backend=backend, check=False, on_noise="ignore")
        want = code.decode(with_junk[0], Y[with_junk[0]], check=False, on_noise="ignore")
        np.testing.assert_array_equal(np.isfinite(got[0]), np.isfinite(want))
    else:  # a survivor's non-finite row is refused by both (issue 30, B14)
        for call in (
            lambda: code.decode_many(with_junk, Y, backend=backend, check=False),
            lambda: code.decode(with_junk[0], Y[with_junk[0]], check=False),
        ):
            with pytest.raises(ValueError, match="received must hold finite numbers"):
                call()


@pytest.mark.slow  # compiles in two fresh processes (about 5 s of CPU)
def test_kernel_loads_from_numba_cache_in_a_fresh_process(tmp_path):
    # issue 27: the kernel was a closure, whose cache index never matched, so every process
    # compiled it again (4.7 s) and wrote another cache file; module-level, a second
    # process loads the first one's compiled code and writes nothing
    pytest.importorskip("numba")
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np\n"
        "from gctheory.codes import CyclicMDSCode\n"
        "c = CyclicMDSCode(12, 3, rng=1)\n"
        "rng = np.random.default_rng(0)\n"
        "sets = [np.sort(rng.choice(12, 9, replace=False)) for _ in range(8)]\n"
        "c.decode_many(sets, c.encode(rng.normal(size=(12, 2))), backend='numba')\n"
        "from gctheory.codes._stacked_kernel import gather_solve_kernel as k\n"
        "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run() -> tuple[list[int], set[str]]:
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        files = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
        return [int(v) for v in out.stdout.split()], files

    (hits1, misses1), files1 = run()
    (hits2, misses2), files2 = run()
    assert (hits1, misses1) == (0, 1)  # the first process compiles and writes the cache
    assert files1
    assert (hits2, misses2) == (1, 0)  # the second loads it
    assert files2 == files1  # and writes no new cache file
