"""Fuzzing the engine's and the proposals' parameters: a value or a named ValueError."""

from __future__ import annotations

import functools
import math
import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gctheory.montecarlo import (
    GaussianSpace,
    ShiftedGaussian,
    Stop,
    UnreliableEstimateWarning,
    binomial_estimate,
    estimate_mean,
    estimate_probability,
    importance_sampling,
)
from gctheory.tails import GaussianConditionTail, TiltedErasures
from tests import _mc_events as ev

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.lists(st.integers(-3, 3), max_size=3),
    st.just(10**30),
)
SMALL_INT = st.one_of(st.integers(-3, 5_000), JUNK)
EVENT = functools.partial(ev.bernoulli, p=0.5)
SAMPLER = functools.partial(ev.exponential, mean=1.0)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _named_value_error(exc: ValueError, names: tuple[str, ...]) -> bool:
    return any(n in str(exc) for n in names)


@FUZZ
@given(
    trials=SMALL_INT,
    rng=JUNK,
    level=st.one_of(st.floats(0, 1), JUNK),
    chunk_size=SMALL_INT,
    interval=st.one_of(st.sampled_from(["wilson", "clopper-pearson"]), JUNK),
    stop=st.one_of(
        st.none(),
        st.fixed_dictionaries({"rel_half_width": st.one_of(st.floats(0, 2), JUNK)}),
        st.fixed_dictionaries({"events": SMALL_INT}),
        JUNK,
    ),
)
def test_estimate_probability_fuzz(trials, rng, level, chunk_size, interval, stop):
    try:
        est = estimate_probability(
            EVENT,
            trials,
            rng=rng,
            level=level,
            chunk_size=chunk_size,
            interval=interval,
            stop=stop,
        )
    except ValueError as exc:
        names = ("trials", "rng", "level", "chunk_size", "interval", "stop")
        assert _named_value_error(exc, names), exc
        return
    except Warning:  # a budget spent before the target: said, not silent
        return
    assert 0 <= est.low <= est.value <= est.high <= 1 and 1 <= est.trials <= trials


@FUZZ
@given(trials=SMALL_INT, level=st.one_of(st.floats(0, 1), JUNK), chunk_size=SMALL_INT)
def test_estimate_mean_fuzz(trials, level, chunk_size):
    try:
        with warnings.catch_warnings():  # few draws warn (UnreliableEstimateWarning): said
            warnings.simplefilter("ignore", UnreliableEstimateWarning)
            est = estimate_mean(SAMPLER, trials, rng=1, level=level, chunk_size=chunk_size)
    except ValueError as exc:
        assert _named_value_error(exc, ("trials", "level", "chunk_size")), exc
        return
    assert est.low <= est.value <= est.high and math.isfinite(est.value)


@FUZZ
@given(successes=SMALL_INT, trials=SMALL_INT, level=st.one_of(st.floats(0, 1), JUNK))
def test_binomial_estimate_fuzz(successes, trials, level):
    try:
        est = binomial_estimate(successes, trials, level=level)
    except ValueError as exc:
        assert _named_value_error(exc, ("successes", "trials", "level")), exc
        return
    assert 0 <= est.low <= est.value <= est.high <= 1


@FUZZ
@given(rel=JUNK, events=JUNK)
def test_stop_fuzz(rel, events):
    try:
        Stop(rel_half_width=rel, events=events)
    except ValueError as exc:
        assert "stop" in str(exc), exc


@FUZZ
@given(
    u=SMALL_INT,
    v=SMALL_INT,
    x=st.one_of(st.floats(-5, 1e15), JUNK),
    method=st.one_of(st.sampled_from(["conditional", "tilt"]), JUNK),
)
def test_gaussian_condition_tail_fuzz(u, v, x, method):
    try:
        GaussianConditionTail(u, v, x, method=method)
    except ValueError as exc:
        assert _named_value_error(exc, ("u ", "v ", "u x v", "x ", "method", "dof")), exc


@FUZZ
@given(n=SMALL_INT, eps=st.one_of(st.floats(-1, 2), JUNK), tilt=st.one_of(st.floats(-1, 2), JUNK))
def test_tilted_erasures_fuzz(n, eps, tilt):
    try:
        TiltedErasures(n, eps, tilt)
    except ValueError as exc:
        assert _named_value_error(exc, ("n ", "eps", "eps_tilt", "weights")), exc


@FUZZ
@given(trials=SMALL_INT, shift=st.one_of(st.floats(-8, 8), JUNK))
def test_importance_sampling_fuzz(trials, shift):
    try:
        proposal = ShiftedGaussian((shift,))
        importance_sampling(
            functools.partial(ev.first_coordinate_above, t=0.0), proposal, trials, rng=1
        )
    except ValueError as exc:
        assert _named_value_error(exc, ("trials", "shift", "proposal")), exc
    except Warning:
        pass


def test_space_fuzz_examples():
    for bad in (0, -1, 2.5, "3", None, True):
        try:
            GaussianSpace(bad)
        except ValueError as exc:
            assert "dim" in str(exc)
        else:
            raise AssertionError(f"GaussianSpace({bad!r}) accepted")
