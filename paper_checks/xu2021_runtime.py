"""Xu et al. 2021, Sections IV-C and V-B: time saving, the bounds (23), the optimum of B(K)."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from gctheory.runtime import (
    xu_feasible_interval,
    xu_feasible_k_exact,
    xu_optimal_K,
    xu_optimal_p,
    xu_time_saving,
)
from paper_checks import Outcome, claim, close_verdict


@claim(
    paper="xu2021",
    id="sec5b-time-saving-35pct",
    where="Section V-B 3), Fig. 4",
    statement="With N = 10, K = 7 and X_i ~ 0.05 + Exp(0.02), LGC-SGD/K-SGD reduce training time "
    "by up to ~35% compared with Full-SGD",
    paper_value=0.35,
)
def _saving(quick: bool) -> Outcome:
    # Exp(0.02): eq. (21) writes E[X_(K)] = Delta + mu log(N/(N-K)) for X ~ Delta + Exp(mu),
    # so mu is the MEAN of the exponential part; 0.02 is the mean (rate 50).
    as_mean = xu_time_saving(7, 10, delta=0.05, mu=0.02)
    as_rate = xu_time_saving(7, 10, delta=0.05, mu=1 / 0.02)
    out = close_verdict(
        as_mean,
        0.35,
        atol=0.025,
        cause="the exact per-iteration saving is not ~35%",
    )
    return Outcome(
        out.verdict,
        {"saving (0.02 = mean)": as_mean, "saving (0.02 = rate)": as_rate},
        f"exact 1 - E[X_(7:10)]/E[X_(10:10)] = {as_mean:.2%} with 0.02 the mean (eq. (21)'s "
        f"convention) vs '~35%' within 2.5 points; reading 0.02 as a rate gives {as_rate:.1%}. "
        "The paper's 35% is a training-time saving; per iteration, waiting for 7 of 10 saves "
        f"{as_mean:.1%}.",
        out.cause,
    )


def _log_gap(p: float, target: float) -> float:
    """log(N/(N-K)) at K = pN (eq. (21) with mu = 1), minus a target."""
    return math.log(1 / (1 - p)) - target


def _log_B(K: float, N: int, p: dict) -> float:
    """B(K) of eq. (18) with mu_K from eq. (21), K continuous, Delta = 0, no constant."""
    return 2 * p["gap"] * p["mu"] * math.log(N / (N - K)) / (p["eta"] * p["t"]) + (
        2 * p["L"] ** 2 * p["eta"] ** 2 * (N * p["beta2"] + p["sigma2"]) / K
    )


@claim(
    paper="xu2021",
    id="eq23-feasible-interval",
    where="Section IV-C, eq. (23)",
    statement="(19)-(20) with (21)-(22) give "
    "max{0.5, 1 - e^(-log N / s)} <= K/N <= 1 - e^(-(1+lambda))",
    paper_value="eq. (23)",
)
def _bounds(quick: bool) -> Outcome:
    worst = 0.0
    rows = []
    for N in (10, 50, 100, 1000):
        for s in (1.5, 2.0, 4.0):
            for lam in (0.1, 0.5, 0.9):
                lo, hi = xu_feasible_interval(N, s, lam)
                # solve (19) and (20) directly with (21)-(22), Delta = tau = 0, mu = 1
                p_hi = optimize.brentq(_log_gap, 1e-12, 1 - 1e-15, args=(1 + lam,))
                p_lo = optimize.brentq(_log_gap, 1e-12, 1 - 1e-15, args=(math.log(N) / s,))
                worst = max(worst, abs(hi - p_hi), abs(lo - max(0.5, p_lo)))
                rows.append((N, s, lam))
    exact10 = xu_feasible_k_exact(10, 2.0, 0.5)
    lo10, hi10 = xu_feasible_interval(10, 2.0, 0.5)
    computed = {
        "max |closed form - root of (19)/(20)|": worst,
        "N=10,s=2,lam=0.5: (23) K range": (math.ceil(lo10 * 10), math.floor(hi10 * 10)),
        "N=10,s=2,lam=0.5: exact (19)-(20) K set": exact10,
    }
    if worst > 1e-9:
        return Outcome(
            "differs", computed, "closed form vs root finding", "(23) is not the solution"
        )
    return Outcome(
        "reproduced",
        computed,
        f"(23) equals the roots of (19)-(20) under (21)-(22) with Delta = tau = 0 (max gap "
        f"{worst:.1e} over {len(rows)} settings). It rests on the large-N log approximation: at "
        f"N = 10, s = 2, lambda = 0.5 it allows K = 7, while the exact harmonic-number "
        f"constraints admit {('K in ' + str(exact10)) if exact10 else 'no K at all'}.",
    )


@claim(
    paper="xu2021",
    id="eq25-unique-optimum",
    where="Section IV-C, eqs. (24)-(25)",
    statement="B(K) is convex, so the optimal K is unique; it solves (1-p)/p^2 = c",
    paper_value="unique K*",
)
def _optimum(quick: bool) -> Outcome:
    rng = np.random.default_rng(2021)
    n_settings = 20 if quick else 200
    bad = 0
    gaps = []
    for _ in range(n_settings):
        N = int(rng.integers(10, 200))
        p = dict(
            mu=float(rng.uniform(0.01, 1)),
            gap=float(rng.uniform(0.1, 10)),
            L=float(rng.uniform(0.5, 5)),
            eta=float(rng.uniform(0.01, 0.5)),
            t=float(rng.uniform(10, 1000)),
            beta2=float(rng.uniform(0, 2)),
            sigma2=float(rng.uniform(0, 5)),
        )
        kstar, b = xu_optimal_K(N, **p)
        d2 = np.diff(b, 2)
        bad += int(np.any(d2 <= 0))  # strict convexity of the exact B(K) on 1..N
        # continuous minimiser of the log-approximated B vs p* of (25)
        c = (
            p["mu"]
            * p["gap"]
            / (p["L"] ** 2 * p["eta"] ** 3 * p["t"] * (p["beta2"] + p["sigma2"] / N))
        )
        res = optimize.minimize_scalar(
            _log_B,
            bounds=(1e-9, N - 1e-9),
            args=(N, p),
            method="bounded",
            options={"xatol": 1e-10 * N},
        )
        gaps.append(abs(res.x / N - xu_optimal_p(c)))
    computed = {"non-convex settings": bad, "max |p_numeric - p_(25)|": max(gaps)}
    if bad or max(gaps) > 1e-6:
        return Outcome("differs", computed, "convexity and (25)", "B(K) not convex or (25) wrong")
    return Outcome(
        "reproduced",
        computed,
        f"exact B(K) strictly convex on 1..N in all {n_settings} random settings; the closed "
        f"root of (25) matches the numerical minimiser of the log-approximated B to "
        f"{max(gaps):.1e} in p",
    )
