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


def peeling_failure_counts(H) -> list[int]:
    """Exact count, for each k, of the k-erasure patterns on which peeling fails.

    By enumeration of all 2^n patterns of a code with n <= 24 variables, and
    independent of the peeling decoder: peeling fails exactly when the erased
    set contains a nonempty stopping set (a set every check sees 0 or >= 2
    times; Di, Proietti, Telatar, Richardson, Urbanke 2002), so the failing
    patterns are the supersets of the nonempty stopping sets.
    """
    import scipy.sparse as sp

    Hd = (sp.csr_matrix(H).toarray() % 2).astype(bool)
    m, n = Hd.shape
    if n > 24:
        raise ValueError(f"enumeration of 2^n patterns needs n <= 24, got n={n}")
    masks = np.arange(1 << n, dtype=np.uint32)
    byte_pop = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def popcount(a: np.ndarray) -> np.ndarray:
        out = np.zeros(a.shape, dtype=np.uint8)
        for shift in (0, 8, 16, 24):
            out += byte_pop[(a >> np.uint32(shift)) & np.uint32(255)]
        return out

    stopping = masks != 0
    for c in range(m):
        nb = np.uint32(sum(1 << j for j in np.flatnonzero(Hd[c])))
        stopping &= popcount(masks & nb) != 1
    fail = stopping.copy()
    for b in range(n):  # close upwards: every superset of a stopping set fails
        view = fail.reshape(-1, 2, 1 << b)
        view[:, 1, :] |= view[:, 0, :]
    weights = popcount(masks)
    return np.bincount(weights[fail], minlength=n + 1).tolist()


def failure_probability_exact(counts: list[int], eps):
    """``sum_k counts[k] eps^k (1 - eps)^(n - k)`` in exact arithmetic (eps a Fraction)."""
    n = len(counts) - 1
    return sum(c * eps**k * (1 - eps) ** (n - k) for k, c in enumerate(counts))


def must_not_run(rng: np.random.Generator, size: int) -> np.ndarray:
    """An event that fails the test if the engine ever calls it (for refusals before work)."""
    raise AssertionError("the engine drew samples although the input should have been refused")


def first_coordinate_above(x: np.ndarray, t: float) -> np.ndarray:
    """Importance-sampling event on standard normal vectors: x_1 > t."""
    return x[:, 0] > t


def pareto(rng: np.random.Generator, size: int, shape: float) -> np.ndarray:
    """Pareto(shape) draws with scale 1 (infinite mean for shape <= 1)."""
    return rng.pareto(shape, size) + 1.0


def around_1e8(rng: np.random.Generator, size: int) -> np.ndarray:
    """N(1e8, 1): where E[X^2] - E[X]^2 cancels to nothing in float64."""
    return 1e8 + rng.standard_normal(size)


def write_pid_and_sleep(rng: np.random.Generator, size: int, folder: str) -> np.ndarray:
    """Record the worker's pid, then take long: for killing the parent of a pool."""
    import os

    with open(os.path.join(folder, f"{os.getpid()}.pid"), "w") as fh:
        fh.write("x")
    time.sleep(30)
    return rng.random(size) < 0.5


def checkpoint_chunks(path) -> int:
    """Chunks recorded in the complete lines of a checkpoint (a torn last line ignored)."""
    import json
    from pathlib import Path

    path = Path(path)
    if not path.exists():
        return 0
    lines = path.read_bytes().split(b"\n")[1:-1]  # after the header, before a torn tail
    return sum(len(json.loads(line)["chunks"]) for line in lines)


def bernoulli_killing_once(rng: np.random.Generator, size: int, p: float, marker: str):
    """Bernoulli(p), but the first call to find no ``marker`` file creates it and SIGKILLs its
    own process (a pool worker dying mid-chunk, once)."""
    import os
    import signal

    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return rng.random(size) < p
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def bernoulli_always_killing(rng: np.random.Generator, size: int, p: float):
    """Kills its own (worker) process on every call."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")
