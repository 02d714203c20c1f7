"""Delay models of the training simulator: how long each worker takes in an iteration.

A :class:`DelayModel` draws i.i.d. per-unit-load times from a distribution
(``"shifted_exp(shift, mean)"``, ``"exp(mean)"``, ``"pareto(scale, shape)"``,
``"uniform(low, high)"``, ``"constant(c)"``, each also with keyword arguments such
as ``"pareto(shape=1.1, scale=0.001)"``; a positional Pareto spec is read as
``pareto(scale, shape)`` with a ``UserWarning`` saying so, since scipy's order is the
reverse and ``"pareto(1.1, 0.001)"`` then has an infinite mean), or any frozen ``scipy.stats`` law,
including the laws fitted by :mod:`gctheory.delays.fitting`), optionally
persistent (Xu et al. 2021, Section V-B) or with background-slowed workers
(Wang et al. 2019, Section 5); or it replays measured rounds
(``"trace:PATH"``, :mod:`gctheory.delays.replay`). :func:`parse_delay` turns
a spec into one. (These lived in the training simulator's models; the names
stay importable from :mod:`gctheory.training` and :mod:`gctheory.training.models`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_int, check_real
from gctheory.delays.laws import (  # noqa: F401  (old import paths)
    _DELAYS,
    _NUM,
    _PARAMETERS,
    DELAY_NAMES,
    _caller_level,
    _Constant,
    _parse_spec,
)

__all__ = ["DelayModel", "parse_delay", "DELAY_NAMES"]


@dataclass(frozen=True)
class DelayModel:
    """How long each worker takes in an iteration.

    Worker ``i`` with relative load ``l_i`` (1 = one n-th of the data) and
    message fraction ``f_i`` (1 = a full gradient) finishes at
    ``T_i = l_i X_i + comm_time f_i``, where ``X_i`` are i.i.d. draws of ``dist``
    or, for a replay, the measured time of worker ``i`` in one round divided
    by ``l_i``.

    Attributes
    ----------
    dist : frozen scipy.stats distribution (or any object with ``rvs`` and ``support``)
        Per-unit-load computing time; its support must be nonnegative.
    persist : int
        Draws are kept for ``persist`` iterations before being redrawn
        (persistent stragglers, "h" of Xu et al. 2021, Section V-B).
    n_slow : int
        If > 0, at every (re)draw ``n_slow`` workers chosen at random are slowed
        down by the factor ``slowdown`` (the background-thread stragglers of
        Wang et al. 2019, Section 5).
    slowdown : float
        Factor >= 1 applied to the slowed workers.
    comm_time : float
        Time to upload a full-length gradient (Kadhe et al. 2019 motivate the
        message-length reduction ``m`` by it).
    label : str
        Text of the spec it was parsed from, for reports.
    replay : TraceReplay or None
        Measured rounds replayed instead of draws (then ``dist`` is None and
        ``persist``, ``n_slow`` do not apply: the rounds carry their own
        structure).

    Examples
    --------
    >>> from gctheory.delays import DelayModel
    >>> import numpy as np
    >>> from scipy import stats
    >>> model = DelayModel(stats.expon(loc=0.1, scale=0.05), n_slow=1, slowdown=5.0)
    >>> model.draw(np.random.default_rng(0), 4).round(4).tolist()
    [0.67, 0.151, 0.101, 0.1001]
    """

    dist: Any
    persist: int = 1
    n_slow: int = 0
    slowdown: float = 1.0
    comm_time: float = 0.0
    label: str = ""
    replay: Any = None

    def __post_init__(self) -> None:
        if self.label is not None and not isinstance(self.label, str):
            raise ValueError(f"label must be a str, got {self.label!r}")
        comm_time = check_real(self.comm_time, "comm_time", low=0.0)
        object.__setattr__(self, "comm_time", comm_time)
        if self.replay is not None:
            if self.dist is not None:
                raise ValueError("a DelayModel replays a trace or draws from dist, not both")
            if self.persist != 1 or self.n_slow != 0 or self.slowdown != 1:
                raise ValueError(
                    "persist, n_slow and slowdown do not apply to a trace replay (its rounds "
                    f"carry their own structure), got persist={self.persist!r}, "
                    f"n_slow={self.n_slow!r}, slowdown={self.slowdown!r}"
                )
            return
        if not hasattr(self.dist, "rvs") or not hasattr(self.dist, "support"):
            raise ValueError(f"dist must be a frozen scipy.stats distribution, got {self.dist!r}")
        try:
            lo = float(self.dist.support()[0])
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ValueError(f"dist must be a frozen scipy.stats distribution ({exc})") from None
        if not lo >= 0:
            raise ValueError(f"delays must be nonnegative, but {self.dist!r} has support from {lo}")
        object.__setattr__(self, "persist", check_int(self.persist, "persist", low=1))
        object.__setattr__(self, "n_slow", check_int(self.n_slow, "n_slow", low=0))
        slowdown = check_real(self.slowdown, "slowdown", low=1.0)
        object.__setattr__(self, "slowdown", slowdown)

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """One fresh i.i.d. draw of the per-unit-load times of ``n`` workers."""
        if self.replay is not None:
            raise ValueError("a trace replay has no i.i.d. draws; use replay.per_unit_times")
        if self.n_slow > n:
            raise ValueError(f"n_slow={self.n_slow} exceeds the number of workers n={n}")
        x = np.asarray(self.dist.rvs(size=n, random_state=rng), dtype=float)
        if self.n_slow:
            x[rng.choice(n, self.n_slow, replace=False)] *= self.slowdown
        return x


def _memory_sampler(spec: Any) -> Any:
    """A fresh :class:`~gctheory.delays.markov.MarkovSampler` (its chains are its state)."""
    from gctheory.delays.markov import MarkovSampler
    from gctheory.delays.markov_times import parse_memory_delay

    return MarkovSampler(parse_memory_delay(spec) if isinstance(spec, str) else spec)


def parse_delay(spec: Any, **options: Any) -> DelayModel:
    """A :class:`DelayModel` from a spec string, a distribution, or a model.

    ``spec`` is ``"shifted_exp(shift=0.05, mean=0.02)"``, ``"exp(mean=1)"``,
    ``"pareto(scale=0.001, shape=1.1)"``, ``"uniform(low=a, high=b)"``, ``"constant(c)"``
    (arguments named, or positional in that order: ``"pareto(0.001, 1.1)"``; a
    positional Pareto spec warns (``UserWarning``) naming the reading taken,
    ``pareto(scale, shape)``, and the reverse one of scipy's order, since
    ``"pareto(1.1, 0.001)"`` is then a law with infinite mean; name the
    arguments to silence it), a straggler chain ``"markov(p=.., r=.., fast=<law>,
    slow=<law>)"``, ``"fritchman(...)"`` or ``"bursty(B=.., W=.., lam=.., rate=.., ...)"``
    (:func:`gctheory.delays.markov_times.parse_memory_delay`; a fresh
    :class:`~gctheory.delays.markov.MarkovSampler` per call, each draw one round), a
    :class:`~gctheory.delays.markov.MemoryDelay`, ``"trace:PATH"`` (measured rounds
    replayed, see :func:`gctheory.delays.parse_trace_spec`), a frozen
    scipy.stats distribution, a :class:`gctheory.delays.Trace` or
    :class:`gctheory.delays.TraceReplay`, or a :class:`DelayModel` (returned
    with ``options`` applied). ``options`` are the other fields of
    :class:`DelayModel` (``persist``, ``n_slow``, ``slowdown``, ``comm_time``).

    Parameters
    ----------
    spec : str, frozen scipy.stats distribution, or DelayModel
        What to parse.
    **options
        Fields of :class:`DelayModel` (``persist``, ``n_slow``, ``slowdown``,
        ``comm_time``) applied to the result.

    Returns
    -------
    DelayModel
        The delay model.

    Raises
    ------
    ValueError
        An unknown law or bad arguments.

    Examples
    --------
    >>> from gctheory.delays import parse_delay
    >>> m = parse_delay("shifted_exp(shift=0.05, mean=0.02)")
    >>> round(float(m.dist.mean()), 6), m.label
    (0.07, 'shifted_exp(shift=0.05, mean=0.02)')
    >>> round(float(parse_delay("exp(mean=1)").dist.mean()), 6)
    1.0
    """
    from gctheory.delays.replay import TraceReplay, parse_trace_spec
    from gctheory.delays.trace import Trace

    if isinstance(spec, str) and spec.strip().startswith("trace:"):
        return _replay_model(parse_trace_spec(spec.strip()), spec.strip(), options)
    if isinstance(spec, Trace):
        from gctheory.delays.loadscale import fit_load_scaling

        lm = fit_load_scaling(spec) if len(spec.loads) >= 2 else None
        return _replay_model(TraceReplay(spec, load_model=lm), repr(spec), options)
    if isinstance(spec, TraceReplay):
        return _replay_model(spec, repr(spec), options)
    if isinstance(spec, DelayModel):
        if not options:
            return spec
        fields = {
            f: getattr(spec, f)
            for f in ("dist", "persist", "n_slow", "slowdown", "comm_time", "label", "replay")
        }
        fields.update(options)
        return DelayModel(**fields)
    if isinstance(spec, str):
        from gctheory.delays.markov_times import is_memory_delay

        if is_memory_delay(spec):  # markov(...), fritchman(...), bursty(...): a chain per worker
            return DelayModel(_memory_sampler(spec), label=spec.strip(), **options)
        dist = _parse_spec(spec)
        return DelayModel(dist, label=spec.strip(), **options)
    from gctheory.delays.markov import MemoryDelay

    if isinstance(spec, MemoryDelay):
        return DelayModel(_memory_sampler(spec), label=spec.label or repr(spec.chain), **options)
    if hasattr(spec, "rvs"):
        return DelayModel(spec, label=repr(spec), **options)
    raise ValueError(
        f"delay must be a spec string, a scipy.stats distribution or a DelayModel, got {spec!r}"
    )


def _replay_model(replay: Any, label: str, options: dict[str, Any]) -> DelayModel:
    opts = dict(options)
    defaults = {"persist": 1, "n_slow": 0, "slowdown": 1.0}
    for k, v in defaults.items():
        if k in opts and opts[k] == v:
            del opts[k]
    return DelayModel(None, label=label, replay=replay, **opts)
