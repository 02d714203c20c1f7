"""Iteration times of the atlas's schemes under stragglers with memory.

A memoryful delay is a :class:`gctheory.delays.markov.MemoryDelay`: each worker's
straggler chain (:class:`GilbertElliott`, :class:`Fritchman`, or the (B, W, lambda)
constraint through :class:`BurstyChain`) picks, round by round, whether its time is
drawn from ``fast`` or from ``slow`` (the time to process the whole dataset; a worker
holding a share ``load`` takes ``load`` times it, as in :mod:`gctheory.runtime`).

* **Monte Carlo** (:func:`memory_time_mc`): independent runs of ``rounds`` rounds, the
  chains started stationary (the bursty constraint after a burn-in); a run's value is
  its average round time; the interval is :func:`gctheory.montecarlo.estimate_mean`'s
  over the runs (runs are independent, the rounds inside one are not). Also the
  standard deviation of a run's total time, which memory does change.
* **Exact** (:func:`memory_time_exact`): with ``n`` independent chains started in
  their stationary law, every worker's time in any one round has the stationary
  mixture ``(1 - b) fast + b slow`` (``b`` the chain's straggler rate), independently
  of the others. A one-round scheme's expected round time is therefore the i.i.d.
  time under that mixture (:func:`stationary_law`), computed by
  :func:`gctheory.runtime.scheme_time_moments`; memory changes the variance of a run's
  total, not the mean of a round. Not available for the bursty constraint (its
  ``lambda`` couples the workers) or for measured times given as arrays.

Spec strings (:func:`parse_memory_delay`), the laws in :func:`gctheory.delays.parse_delay`'s
syntax::

    markov(p=0.09, r=0.78, fast=shifted_exp(1, 0.5), slow=shifted_exp(2, 2))
    fritchman(stay_good=0.76/0.97, entry=0.5/0.5, stay_bad=0.22, fast=..., slow=...)
    bursty(B=2, W=4, lam=3, rate=0.05, fast=..., slow=...)

(``markov`` also takes ``h_good``, ``h_bad``; ``/`` separates a tuple's entries.)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats
from scipy.stats._distn_infrastructure import rv_continuous_frozen

from gctheory._frozen_law import FrozenParts, unpack_frozen
from gctheory._validate import as_generator, check_int
from gctheory.delays.markov import (
    BurstyModel,
    Fritchman,
    GilbertElliott,
    MarkovSampler,
    MemoryDelay,
)
from gctheory.delays.markov.chains import _prob

__all__ = [
    "ATLAS_ROUNDS",
    "BurstyChain",
    "atlas_note",
    "atlas_time_fields",
    "has_exact_time",
    "is_memory_delay",
    "memory_delay_of",
    "memory_time_exact",
    "memory_time_mc",
    "parse_memory_delay",
    "stationary_law",
]

_KINDS = ("markov", "fritchman", "bursty")


@dataclass(frozen=True)
class BurstyChain:
    """The (B, W, lambda) constraint as a straggler source for :class:`MemoryDelay`:
    :meth:`BurstyModel.sample` at ``rate``, the first ``burn_in`` rounds dropped (its
    samples start with nobody straggling); ``burn_in`` defaults to ``4 W``."""

    model: BurstyModel
    rate: float
    burn_in: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.model, BurstyModel):
            raise ValueError(f"model must be a BurstyModel, got {type(self.model).__name__}")
        object.__setattr__(self, "rate", _prob(self.rate, "rate"))
        b = 4 * self.model.W if self.burn_in is None else check_int(self.burn_in, "burn_in", low=0)
        object.__setattr__(self, "burn_in", b)

    def sample(self, rounds: int, workers: int, rng: Any = None) -> np.ndarray:
        rounds = check_int(rounds, "rounds", low=1)
        burn = self.burn_in
        assert burn is not None, "__post_init__ sets the default burn-in"
        return self.model.sample(burn + rounds, workers, self.rate, rng)[burn:]


# ----------------------------------------------------------------- the stationary law


class _TwoMixGen(stats.rv_continuous):
    """``(1 - w) fast + w slow`` of two frozen continuous laws. The laws and the weight
    are attributes of a subclass made per mixture (:func:`_two_mix`): scipy's freezing
    rebuilds the generator from its class and constructor arguments."""

    fast: Any
    slow: Any
    w: float
    parts: tuple[Any, Any]  # FrozenParts of fast and slow (None: through the frozen law)

    def _pdf(self, x):
        f, s = self.parts
        return (1 - self.w) * _part(f, self.fast, "pdf", x) + self.w * _part(s, self.slow, "pdf", x)

    def _cdf(self, x):
        f, s = self.parts
        return (1 - self.w) * _part(f, self.fast, "cdf", x) + self.w * _part(s, self.slow, "cdf", x)

    def _sf(self, x):
        f, s = self.parts
        return (1 - self.w) * _part(f, self.fast, "sf", x) + self.w * _part(s, self.slow, "sf", x)

    def _munp(self, n):  # the moments mix as the laws do (scipy's default inverts the cdf)
        return (1 - self.w) * self.fast.moment(n) + self.w * self.slow.moment(n)

    def freeze(self, *args, **kwds):
        return _FrozenMix(self, *args, **kwds)

    def _rvs(self, size=None, random_state=None):
        g = random_state
        pick = g.random(size) < self.w
        a = np.asarray(self.fast.rvs(size=size, random_state=g), float)
        b = np.asarray(self.slow.rvs(size=size, random_state=g), float)
        return np.where(pick, b, a)


def _unpack(law: Any) -> FrozenParts | None:
    """``law`` unpacked once (:func:`gctheory._frozen_law.unpack_frozen`), its shapes as
    floats: :func:`_part` calls the generator's own kernels on the standardised point, the
    values scipy's frozen call returns without its argument checks (the quadrature calls
    the mixture per point, and those checks were half its time); None: scipy's route."""
    p = unpack_frozen(law)
    return None if p is None else replace(p, shapes=tuple(float(v) for v in p.shapes))


def _part(p: FrozenParts | None, law: Any, what: str, x: Any) -> Any:
    if p is None:
        return getattr(law, what)(x)
    z = (np.asarray(x, dtype=float) - p.loc) / p.scale
    # scipy's masks: the open support for cdf and sf, the closed one for pdf
    inside = (z >= p.a) & (z <= p.b) if what == "pdf" else (z > p.a) & (z < p.b)
    if what == "sf":
        out = np.where(z <= p.a, 1.0, 0.0)
    elif what == "cdf":
        out = np.where(z >= p.b, 1.0, 0.0)
    else:
        out = np.zeros(z.shape)
    if np.any(inside):
        zi = z[inside]
        kern = getattr(p.gen, f"_{what}")
        v = kern(zi, *p.shapes)
        out[inside] = v / p.scale if what == "pdf" else v
    return out


def _straggle_rate(chain: Any) -> float | None:
    if isinstance(chain, GilbertElliott | Fritchman):
        return float(chain.straggler_rate)
    return None


def stationary_law(delay: MemoryDelay) -> Any:
    """The frozen law of one worker's time in one round of a stationary run: the mixture
    of ``fast`` and ``slow`` with the chain's straggler rate. ``ValueError`` (saying why)
    for the bursty constraint or measured times given as arrays."""
    b = _straggle_rate(delay.chain)
    if b is None:
        raise ValueError(
            f"no stationary law for {type(delay.chain).__name__}: the (B, W, lambda) "
            "constraint couples the workers (Monte Carlo only)"
        )
    for name, law in (("fast", delay.fast), ("slow", delay.slow)):
        if not isinstance(getattr(law, "dist", None), stats.rv_continuous):
            raise ValueError(
                f"{name} must be a frozen continuous law for the exact time, got "
                f"{type(law).__name__} (measured times: Monte Carlo only)"
            )
    return _two_mix(delay.fast, delay.slow, b)


def _two_mix(fast: Any, slow: Any, w: float) -> Any:
    lo = min(float(fast.support()[0]), float(slow.support()[0]))
    hi = max(float(fast.support()[1]), float(slow.support()[1]))
    attrs = {"fast": fast, "slow": slow, "w": float(w), "parts": (_unpack(fast), _unpack(slow))}
    cls = type("_StationaryMixture", (_TwoMixGen,), attrs)
    return cls(a=lo, b=hi, name="stationary_mixture")()


class _FrozenMix(rv_continuous_frozen):
    """The frozen mixture (scaled too); at a scalar point inside the open support its
    ``sf`` and ``cdf`` go straight to the kernels at ``(x - loc) / scale``, the value
    scipy's generic call returns there, without its argument handling (the quadrature
    calls one point at a time)."""

    def _point(self, x: Any) -> Any:
        if np.ndim(x) != 0:
            return None
        _, loc, scale = self.dist._parse_args(*self.args, **self.kwds)
        z = np.asarray((x - loc) / scale, dtype=float)
        return z if scale > 0 and self.dist.a < z < self.dist.b else None

    def sf(self, x: Any) -> Any:
        z = self._point(x)
        return super().sf(x) if z is None else self.dist._sf(z)[()]

    def cdf(self, x: Any) -> Any:
        z = self._point(x)
        return super().cdf(x) if z is None else self.dist._cdf(z)[()]


# ----------------------------------------------------------------- times


def _layout(scheme: str, n: int, s: int, m: int, code: Any) -> Any:
    from gctheory.runtime import scheme_layout

    return scheme_layout(scheme, n, s, m, code=code)


def memory_time_exact(
    scheme: str,
    delay: MemoryDelay,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
) -> Any:
    """Mean and variance (:class:`OrderStatMoments`) of one round's time of ``scheme``
    in a stationary run: the i.i.d. time under :func:`stationary_law` (module docstring)."""
    from gctheory.runtime import scheme_time_moments

    return scheme_time_moments(scheme, stationary_law(delay), n, s, m, tau=tau, code=code)


def _round_times(delay: MemoryDelay, lay: Any, rounds: int, g: np.random.Generator) -> np.ndarray:
    n = lay.groups * lay.group_size
    T = lay.load * delay.draw_rounds(rounds, n, g)
    T = np.sort(T.reshape(rounds, lay.groups, lay.group_size), axis=2)[:, :, lay.wait - 1]
    return T.max(axis=1)


def memory_time_mc(
    scheme: str,
    delay: MemoryDelay,
    n: int,
    s: int = 0,
    m: int = 1,
    *,
    runs: int = 200,
    rounds: int = 20,
    tau: float = 0.0,
    code: tuple[int, int, int] | None = None,
    rng: Any = None,
    level: float = 0.99,
) -> tuple[Any, float]:
    """Expected round time of ``scheme`` under ``delay`` by Monte Carlo over ``runs``
    independent runs of ``rounds`` rounds: ``(Estimate, sd of a run's total time)``."""
    from gctheory.montecarlo import Estimate, estimate_mean

    if not isinstance(delay, MemoryDelay):
        raise ValueError(f"delay must be a MemoryDelay, got {type(delay).__name__}")
    lay = _layout(scheme, n, s, m, code)
    runs = check_int(runs, "runs", low=2)
    rounds = check_int(rounds, "rounds", low=1)
    totals: list[np.ndarray] = []

    def sampler(gen: np.random.Generator, size: int) -> np.ndarray:
        out = np.array([_round_times(delay, lay, rounds, gen).sum() for _ in range(size)])
        totals.append(out)
        return out / rounds

    est = estimate_mean(sampler, runs, rng=as_generator(rng), level=level)
    c = tau * lay.comm
    tot = np.concatenate(totals)
    sd = float(tot.std(ddof=1)) if tot.size > 1 else math.nan
    method = f"{est.method}, {est.trials} runs of {rounds} rounds"
    return (
        Estimate(
            est.value + c, est.low + c, est.high + c, est.trials, est.level, None, est.std, method
        ),  # fmt: skip
        sd,
    )


# ----------------------------------------------------------------- what the atlas takes


def is_memory_delay(delay: Any) -> bool:
    """Whether ``delay`` is a memoryful model: a :class:`MemoryDelay`, a
    :class:`MarkovSampler`, or a spec string of one of ``markov``, ``fritchman``, ``bursty``."""
    if isinstance(delay, MemoryDelay | MarkovSampler):
        return True
    if isinstance(delay, str):
        m = re.fullmatch(r"\s*([a-z_]+)\s*\(.*\)\s*", delay, flags=re.S)
        return m is not None and m.group(1) in _KINDS
    return False


def memory_delay_of(delay: Any) -> tuple[MemoryDelay, str]:
    """``(MemoryDelay, label)`` of anything :func:`is_memory_delay` accepts."""
    if isinstance(delay, MarkovSampler):
        delay = delay.delay
    if isinstance(delay, MemoryDelay):
        return delay, delay.label or _label(delay)
    if isinstance(delay, str):
        return parse_memory_delay(delay), delay.strip()
    raise ValueError(f"not a delay with memory: {delay!r}")


def _label(delay: MemoryDelay) -> str:
    def law(x: Any) -> str:
        if isinstance(x, np.ndarray):
            return f"{x.size} measured times"
        name = getattr(getattr(x, "dist", None), "name", type(x).__name__)
        return f"{name}{tuple(round(float(a), 6) for a in getattr(x, 'args', ()))}"

    return f"{delay.chain!r}, fast {law(delay.fast)}, slow {law(delay.slow)}"


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


_ARGS = {
    "markov": ("p", "r", "h_good", "h_bad"),
    "fritchman": ("stay_good", "entry", "stay_bad"),
    "bursty": ("B", "W", "lam", "rate", "burn_in"),
}


def parse_memory_delay(spec: str) -> MemoryDelay:
    """A :class:`MemoryDelay` from a spec string (module docstring). Every argument is
    named; ``fast`` and ``slow`` are required; an unknown name raises with the valid ones."""
    from gctheory.delays.laws import _parse_spec

    m = re.fullmatch(r"\s*([a-z_]+)\s*\((.*)\)\s*", spec, flags=re.S)
    if not m or m.group(1) not in _KINDS:
        raise ValueError(f"a delay with memory is one of {_KINDS}(...), got {spec!r}")
    kind, kw = m.group(1), {}
    for part in _split_top(m.group(2)):
        key, eq, val = part.partition("=")
        key = key.strip()
        if not eq or key not in (*_ARGS[kind], "fast", "slow"):
            raise ValueError(
                f"{kind}: arguments are named, one of {(*_ARGS[kind], 'fast', 'slow')}; "
                f"got {part!r}"
            )
        kw[key] = val.strip()
    for need in ("fast", "slow"):
        if need not in kw:
            raise ValueError(f"{kind}: {need}=<law> is required (e.g. shifted_exp(1, 0.5))")
    fast, slow = _parse_spec(kw.pop("fast")), _parse_spec(kw.pop("slow"))

    def num(v: str) -> float:
        return float(v)

    def tup(v: str) -> tuple[float, ...]:
        return tuple(float(x) for x in v.split("/"))

    chain: Any
    if kind == "markov":
        chain = GilbertElliott(**{k: num(v) for k, v in kw.items()})
    elif kind == "fritchman":
        chain = Fritchman(tup(kw["stay_good"]), tup(kw["entry"]), num(kw["stay_bad"]))
    else:
        ints = {k: int(v) for k, v in kw.items() if k in ("B", "W", "lam", "burn_in")}
        burn = ints.pop("burn_in", None)
        chain = BurstyChain(BurstyModel(**ints), num(kw["rate"]), burn)
    return MemoryDelay(chain, fast, slow, label=spec.strip())


#: rounds per Monte Carlo run in the atlas (its ``time_trials`` rounds are cut into runs)
ATLAS_ROUNDS = 20


def has_exact_time(delay: MemoryDelay) -> bool:
    """Whether :func:`memory_time_exact` applies (a chain with a stationary law, laws)."""
    try:
        stationary_law(delay)
    except ValueError:
        return False
    return True


def atlas_note(delay: MemoryDelay, label: str) -> str:
    """The tradeoff table's note saying which memoryful model its times are under."""
    how = (
        "a round's expected time is exact: with independent stationary chains each "
        "worker's time in a round is the stationary mixture (1 - b) fast + b slow, "
        f"b = {_straggle_rate(delay.chain):.4g}, i.i.d. across workers, so it is the i.i.d. "
        "time under that mixture; the Monte Carlo points run the chains"
        if has_exact_time(delay)
        else "Monte Carlo at every point (no exact time: "
        + (
            "the (B, W, lambda) constraint couples the workers)"
            if isinstance(delay.chain, BurstyChain)
            else "measured times)"
        )
    )
    return (
        f"time: stragglers with memory, {label}; {how} (runs of {ATLAS_ROUNDS} rounds, "
        "the interval over independent runs; gctheory.delays.markov_times)"
    )


def atlas_time_fields(
    delay: MemoryDelay,
    layout: str,
    n: int,
    s: int,
    m: int,
    *,
    tau: float,
    code: Any,
    scale: float | None,
    mc: bool,
    time_trials: int,
    rng: Any,
) -> tuple[dict[str, Any], list[str]]:
    """The time fields of one atlas row (as :mod:`gctheory.tradeoff.schemes`' i.i.d. ones):
    exact ``time`` and ``time_variance`` where :func:`has_exact_time`, the Monte Carlo
    twin (``time_mc``, ``time_low``, ``time_high``, ``time_trials`` in runs) at the Monte
    Carlo points, or everywhere when there is no exact time. An approximate code of load
    ``scale`` partitions is ``ignore-s`` scaled by its load, plus ``tau``."""
    exact = has_exact_time(delay)
    out: dict[str, Any] = {}
    lay_name, mm = (layout, m) if scale is None else ("ignore-s", 1)
    a, c = (1.0, 0.0) if scale is None else (scale, tau)
    t = tau if scale is None else 0.0
    if exact:
        mom = memory_time_exact(lay_name, delay, n, s, mm, tau=t, code=code)
        out.update(time=a * mom.mean + c, time_variance=a * a * mom.variance)
        if not math.isfinite(mom.mean):
            return out, [f"expected time infinite ({mom.reason})"]
    if not (mc or not exact):
        return out, []
    runs = max(2, time_trials // ATLAS_ROUNDS)
    est, sd = memory_time_mc(
        lay_name, delay, n, s, mm, runs=runs, rounds=ATLAS_ROUNDS, tau=t, code=code, rng=rng
    )
    lo, val, hi = (a * x + c for x in (est.low, est.value, est.high))
    out.update(time_mc=float(val), time_low=float(lo), time_high=float(hi), time_trials=runs)
    if not exact:
        out["time"] = float(val)
    return out, [f"sd of a run's total time ({ATLAS_ROUNDS} rounds): {a * sd:.4g}"]
