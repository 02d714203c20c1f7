"""Progress of the long commands and Monte Carlo runs, drawn by tqdm.

``Progress(total, label)`` shows how far a job is, in one of three ways:

* on a terminal, a tqdm bar on stderr (``label  30.0%|######    | 3/10 [00:12 elapsed,
  00:28 left, what]``), erased when the job ends;
* in a Jupyter notebook, tqdm's widget (``tqdm.auto``);
* elsewhere (a pipe, a log file, CI), one line on stderr at most every
  :attr:`Progress.LOG_EVERY` seconds (10), with what is running and the fraction done:
  ``delays fit: 3/10 (30%) lognormal, 1 min 05s elapsed, about 2 min 31s left``. A job
  shorter than that prints nothing, so logs and pipes stay clean.

``enabled=False`` (the commands' ``--quiet``) silences it; ``enabled=True`` draws the bar
even off a terminal. While one is showing, a progress of the work inside it (a Monte Carlo
run inside ``gctheory tradeoff``) stays silent unless asked for (``enabled=True``), and so
does the work inside a silenced one. The
estimate of the time left is the elapsed time per step times the steps left, and reads
``estimating`` until one step is done (never ``inf``).
"""

from __future__ import annotations

import math
import shutil
import sys
import time
import weakref
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


#: the progress displays showing now (a nested one with enabled=None stays silent); weak,
#: so a display its caller dropped without closing it stops counting
_SHOWING: weakref.WeakSet[Progress] = weakref.WeakSet()


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (where tqdm.auto draws a widget)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


class Progress:
    """How far a job is: a tqdm bar on a terminal, a widget in a notebook, a line every
    :attr:`LOG_EVERY` seconds elsewhere.

    Parameters
    ----------
    total : int
        Number of steps (>= 1).
    label : str
        What is running (``check``, ``delays fit`` ...).
    stream : file, optional
        Where to write (default ``sys.stderr``).
    enabled : bool, optional
        ``False``: nothing; ``True``: a bar even off a terminal; default: by where it runs.
    leave : bool, optional
        Keep the finished bar on screen (default: erase it).
    """

    #: seconds between two progress lines off a terminal
    LOG_EVERY = 10.0

    def __init__(
        self,
        total: int,
        label: str,
        stream: Any = None,
        enabled: bool | None = None,
        leave: bool = False,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        if enabled is False or (enabled is None and len(_SHOWING) > 0):
            self.mode = "off"
        elif _in_notebook():
            self.mode = "widget"
        elif enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            self.mode = "bar" if isatty and isatty() else "log"
        else:
            self.mode = "bar"
        self.enabled = self.mode != "off"
        # shown, or silenced on purpose (--quiet): either way the work inside stays silent
        self._covers = self.enabled or enabled is False
        self.total = max(1, int(total))
        self.label = label
        self.leave = leave
        self.done = 0
        self.what = ""
        self.start = time.monotonic()
        self._logged = self.start
        self._bar: Any = None

    def line(self, done: int, what: str = "", width: int | None = None) -> str:
        """The text of a progress line after ``done`` steps (what is written off a terminal)."""
        width = shutil.get_terminal_size((100, 24)).columns if width is None else width
        elapsed = time.monotonic() - self.start
        frac = min(1.0, max(0.0, done / self.total))
        text = f"{self.label}: {done}/{self.total} ({100 * frac:.0f}%)"
        if what:
            text += f" {what}"
        text += f", {duration(elapsed)} elapsed, {remaining(elapsed, done, self.total)} left"
        return text[: max(10, width - 1)]

    def _tqdm(self) -> Any:
        if self._bar is None:
            if self.mode == "widget":
                from tqdm.auto import tqdm
            else:
                from tqdm import tqdm
            self._bar = tqdm(
                total=self.total,
                desc=self.label,
                file=self.stream,
                leave=self.leave,
                dynamic_ncols=True,
                mininterval=0.1,
                bar_format="{desc} {percentage:5.1f}%|{bar:20}| {n_fmt}/{total_fmt} "
                "[{elapsed} elapsed, {remaining} left{postfix}]",
            )
            self._bar.start_t = self._bar._time() - (time.monotonic() - self.start)
        return self._bar

    def update(self, done: int | None = None, what: str = "", total: int | None = None) -> None:
        """Set the steps done (default: one more), what is running, and redraw."""
        if total is not None:
            self.total = max(1, int(total))
        self.done = self.done + 1 if done is None else int(done)
        self.what = what or self.what
        if self._covers:
            _SHOWING.add(self)
        if self.mode in ("bar", "widget"):
            bar = self._tqdm()
            bar.total = self.total
            if what:
                bar.set_postfix_str(what, refresh=False)
            bar.update(self.done - bar.n)
            if self.done >= self.total:  # the last step is drawn, however fast it came
                bar.refresh()
        elif self.mode == "log":
            now = time.monotonic()
            if now - self._logged >= self.LOG_EVERY and self.done < self.total:
                self._logged = now
                self.stream.write(self.line(self.done, what) + "\n")
                self.stream.flush()

    def __call__(self, done: int, total: int, what: str = "") -> None:
        """``progress(done, total, label)``: the callback form the library functions call."""
        self.update(done, what, total=total)

    def close(self) -> None:
        """End the bar (erased unless ``leave``); a later update starts a new one."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        _SHOWING.discard(self)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Ticker:
    """For a step the command cannot divide (one library call): ``label: 12s elapsed``
    redrawn twice a second on a terminal (erased at exit), and a line every
    :attr:`Progress.LOG_EVERY` seconds elsewhere. ``hint`` (e.g. ``--bootstrap 99
    refits``) says what the time is spent on."""

    def __init__(self, label: str, hint: str = "", stream: Any = None) -> None:
        self.bar = Progress(1, label, stream)
        self.hint = hint
        self._stop: Any = None
        self._thread: Any = None

    def text(self) -> str:
        elapsed = time.monotonic() - self.bar.start
        out = f"{self.bar.label}: {duration(elapsed)} elapsed"
        return out + (f" ({self.hint})" if self.hint else "")

    def _run(self) -> None:
        every = 0.5 if self.bar.mode in ("bar", "widget") else self.bar.LOG_EVERY
        while not self._stop.wait(every):
            if self.bar.mode == "log":
                self.bar.stream.write(self.text() + "\n")
                self.bar.stream.flush()
            else:
                self.bar._tqdm().set_description_str(self.text())

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
