"""Module-level events and samplers for the engine tests (picklable for process pools)."""

from __future__ import annotations

import time

import numpy as np


def bernoulli(rng: np.random.Generator, size: int, p: float) -> np.ndarray:
    """Outcomes of ``size`` Bernoulli(p) trials."""
    return rng.random(size) < p


def slow_bernoulli(rng: np.random.Generator, size: int, p: float, delay: float) -> np.ndarray:
    """Bernoulli(p) that sleeps ``delay`` seconds per chunk (to be interrupted)."""
    time.sleep(delay)
    return rng.random(size) < p


def exponential(rng: np.random.Generator, size: int, mean: float) -> np.ndarray:
    """``size`` Exp(mean) draws."""
    return rng.exponential(mean, size)


def wrong_shape(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.random(size + 1) < 0.5


def wrong_dtype(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.random(size)


def min_of_uniforms(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    """Is the minimum of n uniforms below 1/n? P = 1 - (1 - 1/n)^n. CPU-bound per trial."""
    return rng.random((size, n)).min(axis=1) < 1.0 / n
