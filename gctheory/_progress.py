"""One progress line for the CLI's long commands, on stderr and only on a terminal.

``Progress(total, label)`` draws ``label [#####-----] 3/10  12s elapsed, about 28s left
what``; the estimate of the remaining time is the elapsed time per step times the
steps left, and reads ``estimating`` until one step is done (never ``inf``). When
stderr is not a terminal nothing is written (logs and pipes stay clean).
"""

from __future__ import annotations

import math
import shutil
import sys
import time
from typing import Any

__all__ = ["Progress", "Ticker", "duration", "remaining"]


def duration(seconds: float) -> str:
    """``'8s'``, ``'2 min 05s'``, ``'1 h 03 min'``: a duration to read at a glance."""
    if not math.isfinite(seconds) or seconds < 0:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d}s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def remaining(elapsed: float, done: float, total: float) -> str:
    """The estimate of the time left as text: never ``inf``; ``estimating`` before the
    first step is done, ``0s`` when finished."""
    if total <= 0 or done >= total:
        return "0s"
    if done <= 0 or not math.isfinite(elapsed):
        return "estimating"
    return duration(elapsed / done * (total - done))


class Progress:
    """A one-line progress bar on ``stream`` (default stderr), silent off a terminal.

    Parameters
    ----------
    total : int
        Number of steps (>= 1).
    label : str
        What is running (``check``, ``delays fit`` ...).
    stream : file, optional
        Where to draw (default ``sys.stderr``).
    enabled : bool, optional
        Force on or off (default: whether ``stream`` is a terminal).
    """

    def __init__(
        self, total: int, label: str, stream: Any = None, enabled: bool | None = None
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = bool(enabled)
        self.total = max(1, int(total))
        self.label = label
        self.done = 0
        self.start = time.monotonic()
        self._last = -1.0
        self._shown = False

    def line(self, done: int, what: str = "", width: int | None = None) -> str:
        """The text of the bar after ``done`` steps (no carriage return)."""
        width = shutil.get_terminal_size((100, 24)).columns if width is None else width
        elapsed = time.monotonic() - self.start
        frac = min(1.0, max(0.0, done / self.total))
        bar_w = 20
        fill = int(bar_w * frac)
        text = (
            f"{self.label} [{'#' * fill}{'-' * (bar_w - fill)}] {done}/{self.total}  "
            f"{duration(elapsed)} elapsed, {remaining(elapsed, done, self.total)} left"
        )
        if what:
            text += f"  {what}"
        return text[: max(10, width - 1)]

    def update(self, done: int | None = None, what: str = "", total: int | None = None) -> None:
        """Set the steps done (default: one more) and redraw (at most 10 times a second)."""
        if total is not None:
            self.total = max(1, int(total))
        self.done = self.done + 1 if done is None else int(done)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        text = self.line(self.done, what)
        self.stream.write("\r" + text + "\033[K")
        self.stream.flush()
        self._shown = True

    def __call__(self, done: int, total: int, what: str = "") -> None:
        """``progress(done, total, label)``: the callback form the library functions call."""
        self.update(done, what, total=total)

    def close(self) -> None:
        """End the line (if one was drawn)."""
        if self.enabled and self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Ticker:
    """``label: 12s elapsed`` redrawn twice a second by a thread, for a step whose length
    the command cannot divide (one library call): on a terminal only, erased at exit.
    ``hint`` (e.g. ``--bootstrap 99 refits``) says what the time is spent on."""

    def __init__(self, label: str, hint: str = "", stream: Any = None) -> None:
        self.bar = Progress(1, label, stream)
        self.hint = hint
        self._stop: Any = None
        self._thread: Any = None

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            elapsed = time.monotonic() - self.bar.start
            text = f"{self.bar.label}: {duration(elapsed)} elapsed"
            if self.hint:
                text += f" ({self.hint})"
            self.bar.stream.write("\r" + text + "\033[K")
            self.bar.stream.flush()
            self.bar._shown = True

    def __enter__(self) -> Ticker:
        if self.bar.enabled:
            import threading

            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
        self.bar.close()
