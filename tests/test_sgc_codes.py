"""SR-SGC and M-SGC (gctheory.codes.sequential): exhaustive decoding, loads, bad input."""

from fractions import Fraction

import numpy as np
import pytest

from gctheory.codes.sequential import (
    MSGC,
    SRSGC,
    BurstyStragglerModel,
    find_failure,
    m_sgc_load,
    sr_sgc_load,
    verify_sequential,
)

SMALL = [(3, 1, 2, 2), (3, 2, 3, 2), (4, 1, 2, 2), (4, 1, 3, 3), (3, 1, 3, 3), (4, 1, 2, 4)]


@pytest.mark.parametrize("params", SMALL)
@pytest.mark.parametrize("cls", [SRSGC, MSGC])
def test_every_admissible_pattern_decodes_by_deadline(cls, params):
    code = cls(*params)
    res = verify_sequential(code, jobs=3)
    assert res.ok and res.patterns > 1
    assert res.max_delay <= code.T


def test_delay_is_attained():
    # some admissible pattern needs the full delay T (the paper's delay is tight)
    for code in (SRSGC(3, 1, 2, 2), MSGC(3, 2, 3, 2), SRSGC(3, 2, 3, 2)):
        assert verify_sequential(code, jobs=3).max_delay == code.T


def test_scripts_repeat_choice_also_decodes():
    for params in SMALL:
        assert verify_sequential(SRSGC(*params, prefer="index"), jobs=3).ok


@pytest.mark.parametrize("cls", [SRSGC, MSGC])
def test_negative_control_pattern_outside_model_fails(cls):
    code = cls(3, 1, 2, 2)
    pat, why = find_failure(code, jobs=3)
    assert not code.model.admissible(pat)
    assert "lambda" in why or "B =" in why


def test_loads_match_construction():
    for n in (3, 4, 6, 8):
        for W in range(2, 7):
            for B in range(1, W):
                for lam in range(1, n + 1):
                    m = MSGC(n, B, W, lam)
                    assert m.construction_load() == m.load == m_sgc_load(n, B, W, lam)
                    assert m.T == W - 2 + B
                    if (W - 1) % B == 0:
                        s = SRSGC(n, B, W, lam)
                        assert s.construction_load() == s.load == sr_sgc_load(n, B, W, lam)
                        assert s.s == -(-B * lam // (W - 1 + B)) and s.T == B
    assert m_sgc_load(256, 1, 2, 27) == Fraction(28 * 2, 256 * (1 + 28))


def _random_admissible(model, rounds, rng):
    """A random admissible pattern, drawn round by round among the straggler sets the model
    admits after the history so far (every admissible pattern has a positive chance; the
    empty set is always admitted). Enumerating all of them first cost 2.7 s of CPU."""
    rows = [np.array([(m >> i) & 1 for i in range(model.n)], bool) for m in range(2**model.n)]
    hist = np.zeros((rounds, model.n), bool)
    for r in range(rounds):
        ok = [row for row in rows if model.round_violation(hist[:r], row) is None]
        hist[r] = ok[rng.integers(len(ok))]
    assert model.admissible(hist)
    return hist


def test_numeric_decode_from_what_arrived():
    rng = np.random.default_rng(3)
    # the sampler draws only admissible patterns, each of the model's enumeration
    small = SRSGC(3, 1, 2, 2).model
    every = {p.tobytes() for p in small.patterns(4)}
    assert len(every) > 1 and all(
        _random_admissible(small, 4, rng).tobytes() in every for _ in range(20)
    )
    for code in (SRSGC(4, 1, 3, 3), MSGC(4, 1, 3, 3), MSGC(4, 1, 3, 4), SRSGC(4, 2, 5, 3)):
        jobs = 4
        for _ in range(5):
            pat = _random_admissible(code.model, jobs + code.T, rng)
            master = code.master(jobs)
            parts = {j: rng.normal(size=(code.partitions, 3)) for j in range(jobs)}
            got = []
            for t in range(jobs + code.T):
                tx = master.encode_round(master.assignment(), parts)
                master.push(pat[t])
                got += [v for (i, _), v in tx.items() if not pat[t][i]]
            for j in range(jobs):
                assert np.allclose(master.decode_job(j, got), parts[j].sum(0))


def test_model_checker():
    M = BurstyStragglerModel(3, 2, 3, 2)
    ok = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 0]], bool)
    assert M.admissible(ok)
    burst3 = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0]], bool)
    assert "B = 2" in M.violation(burst3)
    three = np.array([[1, 1, 0], [0, 0, 1]], bool)
    assert "lambda = 2" in M.violation(three)
    gap = np.array([[1, 0, 0], [0, 0, 0], [1, 0, 0]], bool)  # span 3 > B in a window of 3
    assert not M.admissible(gap)
    assert M.admissible(np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0], [1, 0, 0]], bool))


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: SRSGC(4, 1, 1, 2), "W must be an integer >= 2"),
        (lambda: MSGC(4, 1, 3, 5), "lambda <= n"),
        (lambda: SRSGC(4, 2, 4, 2), "divide W - 1"),
        (lambda: MSGC(4, 3, 3, 2), "B <= W - 1"),
        (lambda: BurstyStragglerModel(4, 3, 2, 2), "B <= W"),
        (lambda: SRSGC(4, 0, 3, 2), "B must be an integer >= 1"),
        (lambda: verify_sequential(SRSGC(9, 1, 2, 2), 2), "n must be <= 8"),
    ],
)
def test_bad_input_names_rule(call, words):
    with pytest.raises(ValueError, match=words):
        call()
