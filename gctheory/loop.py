"""The iteration, written once: broadcast, wait for a decodable set, decode, step, report.

:func:`run_loop` drives both the real run (:func:`gctheory.cluster.run`: the
workers' times come from an engine's processes) and the simulator
(:func:`gctheory.training.simulate`: they are drawn from the delay model on a
simulated clock). What differs is the ``rounds`` object, the source of the
workers' answers:

* ``begin(t, params)``: may the loop go on (the simulator stops at a target
  loss or on divergence; a real run always goes on);
* ``play(t, params)``: send the parameters, wait under the scheme's rule for a
  decodable set of answers, decode; the gradient, or None when the scheme takes
  no step this round (a sequential code's first ``T`` rounds);
* ``end(t, params)``: record the round (times, the parameters reached);
* ``close(params, done)``: the loop is over (late answers, the final loss).

Everything optional (metrics, checkpoints, progress, the user's callback)
arrives as callbacks: objects with ``on_iteration(event)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = ["IterationEvent", "Callback", "Rounds", "run_loop"]


@dataclass(frozen=True)
class IterationEvent:
    """Iteration ``t`` (0-based) has finished: ``done = t + 1`` iterations, ``params`` reached."""

    t: int
    done: int
    params: np.ndarray


class Callback(Protocol):
    def on_iteration(self, event: IterationEvent) -> None: ...


class Rounds(Protocol):
    def begin(self, t: int, params: np.ndarray) -> bool: ...

    def play(self, t: int, params: np.ndarray) -> np.ndarray | None: ...

    def end(self, t: int, params: np.ndarray) -> None: ...

    def close(self, params: np.ndarray, done: int) -> None: ...


def run_loop(
    rounds: Any,
    params: np.ndarray,
    *,
    start: int,
    stop: int,
    step_size: float,
    callbacks: Sequence[Any] = (),
) -> tuple[np.ndarray, int]:
    """Iterations ``start .. stop - 1`` of gradient descent; ``(params, iterations done)``.

    Parameters
    ----------
    rounds : object
        The source of the workers' answers: ``begin``, ``play``, ``end``, ``close`` (see
        the module docstring; :class:`Rounds`).
    params : numpy.ndarray
        The parameters at iteration ``start``.
    start, stop : int
        The iterations run (fewer when ``rounds.begin`` says stop).
    step_size : float
        The gradient step: ``params - step_size * gradient``.
    callbacks : sequence of objects with ``on_iteration(event)``
        Called in order after every iteration with an :class:`IterationEvent`.

    Returns
    -------
    tuple
        The parameters reached and the number of iterations done (counting from 0).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.loop import run_loop
    >>> class Quadratic:  # every worker answers at once; the gradient of |w|^2 / 2
    ...     def begin(self, t, w): return True
    ...     def play(self, t, w): return w
    ...     def end(self, t, w): pass
    ...     def close(self, w, done): pass
    >>> w, done = run_loop(Quadratic(), np.array([8.0]), start=0, stop=3, step_size=0.5)
    >>> w.tolist(), done
    ([1.0], 3)
    """
    done = start
    for t in range(start, stop):
        if not rounds.begin(t, params):
            break
        grad = rounds.play(t, params)
        if grad is not None:
            params = params - step_size * grad
        rounds.end(t, params)
        done = t + 1
        event = IterationEvent(t, done, params)
        for cb in callbacks:
            cb.on_iteration(event)
    rounds.close(params, done)
    return params, done
