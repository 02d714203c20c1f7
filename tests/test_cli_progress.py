"""Progress callbacks of the library functions behind the long CLI commands (issue 29):
each reports ``(done, total, what)`` steps up to ``done == total``, changes no number,
and the command draws a bar with a remaining-time estimate on a terminal."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from gctheory import delays as dl
from gctheory.cli import main


class _Calls:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []

    def __call__(self, done: int, total: int, what: str = "") -> None:
        self.calls.append((done, total, what))

    def check(self) -> None:
        assert self.calls, "progress was never called"
        done = [c[0] for c in self.calls]
        assert done == sorted(done)
        last_done, last_total, _ = self.calls[-1]
        assert last_done == last_total >= 1
        assert all(c[1] == last_total for c in self.calls)


def _trace(rounds: int = 20, workers: int = 8) -> dl.Trace:
    rng = np.random.default_rng(0)
    M = 0.05 + rng.exponential(0.02, size=(rounds, workers))
    r, w = np.divmod(np.arange(rounds * workers), workers)
    return dl.make_trace(r, w, np.full(rounds * workers, 0.5), M.ravel())


def _same(a, b) -> None:
    assert repr(a) == repr(b)


def test_fit_laws_progress():
    x = _trace().times(0.5)
    cb = _Calls()
    laws = ("lognormal", "gamma")
    with_cb = dl.fit_laws(x, laws, bootstrap=3, rng=1, progress=cb)
    cb.check()
    assert cb.calls[-1][:2] == (2, 2)
    _same(with_cb, dl.fit_laws(x, laws, bootstrap=3, rng=1))


def test_scheme_times_progress():
    tr = _trace()
    cb = _Calls()
    kw = dict(laws=("lognormal",), bootstrap=5, rng=2, load_model="proportional")
    res = dl.scheme_times(tr, "cyclic-mds", 8, progress=cb, **kw)
    cb.check()
    assert cb.calls[-1][1] == 1 + 5  # one load fitted, five bootstrap replicates
    ref = dl.scheme_times(tr, "cyclic-mds", 8, **kw)
    for k in ref.times:
        np.testing.assert_array_equal(res.times[k], ref.times[k])
        np.testing.assert_array_equal(res.low.get(k, []), ref.low.get(k, []))


def test_stability_progress():
    from gctheory.codes.stability import compare_generators, decoding_stability
    from gctheory.tables import generator_table

    cb = _Calls()
    pts = decoding_stability(("cyclic-mds",), (4, 8), trials=3, worst_samples=1, rng=1, progress=cb)
    cb.check()
    assert cb.calls[-1][:2] == (2, 2)
    ref = decoding_stability(("cyclic-mds",), (4, 8), trials=3, worst_samples=1, rng=1)
    assert [p.row() for p in pts] == [p.row() for p in ref]

    fams = ("gaussian", "legendre")
    cb = _Calls()
    rows = compare_generators(6, 1, 2, families=fams, time_limit=2.0, progress=cb)
    cb.check()
    assert cb.calls[-1][:2] == (4, 4)  # two schemes x two families
    ref = compare_generators(6, 1, 2, families=fams, time_limit=2.0)
    strip = [{k: v for k, v in r.row().items() if k != "seconds"} for r in rows]
    assert strip == [{k: v for k, v in r.row().items() if k != "seconds"} for r in ref]

    cb = _Calls()
    table = generator_table([(6, 1, 2), (8, 1, 2)], [1e3], families=fams, progress=cb)
    cb.check()
    assert cb.calls[-1][:2] == (8, 8)
    assert table == generator_table([(6, 1, 2), (8, 1, 2)], [1e3], families=fams)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "argv",
    [
        ["codes", "stability", "--n", "4", "8", "--families", "cyclic-mds", "--trials", "3"],
        ["stability", "compare", "--n", "6", "--s", "1", "--m", "2", "--families",
         "gaussian,legendre", "--time-limit", "1"],
    ],
)  # fmt: skip
def test_cli_draws_a_bar_with_remaining_time(argv, monkeypatch, capsys):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv) == 0
    text = term.getvalue()
    assert " left" in text and "inf" not in text, text
    assert text.rstrip(" ").endswith("\r")  # tqdm erases the bar at the end


def test_delays_fit_cli_bar(tmp_path, monkeypatch):
    path = dl.write_trace(_trace(), tmp_path / "t.csv")
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    argv = ["delays", "fit", str(path), "--load", "0.5", "--laws", "lognormal,gamma"]
    assert main(argv + ["--bootstrap", "2"]) == 0
    assert "delays fit" in term.getvalue() and " left" in term.getvalue()


def test_run_cli_bar(monkeypatch, capsys):
    # gctheory run draws the CLI's one bar (remaining time, erased) from the run's
    # per-iteration callback; --quiet draws nothing
    argv = ["run", "--scheme", "cyclic-mds", "--n", "4", "--s", "1", "--delay",
            "shifted_exp(0.005, 0.005)", "--iterations", "4", "--model", "logistic"]  # fmt: skip
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv) == 0
    text = term.getvalue()
    assert "gctheory run cyclic-mds " in text and " left" in text and "4/4" in text, text
    assert "it/s" not in text  # not the engine's own bar
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv + ["--quiet"]) == 0
    assert "[" not in term.getvalue()


# --- tqdm: a bar on a terminal, a line every LOG_EVERY seconds elsewhere, a widget in Jupyter


def test_off_a_terminal_a_line_says_what_runs_and_how_far(monkeypatch):
    from gctheory import _progress

    monkeypatch.setattr(_progress.Progress, "LOG_EVERY", 0.0)  # every step (default 10 s)
    log = io.StringIO()  # not a terminal: a log file, a pipe, CI
    monkeypatch.setattr(sys, "stderr", log)
    argv = ["codes", "stability", "--n", "4", "8", "--families", "cyclic-mds", "--trials", "3"]
    assert main(argv) == 0
    lines = log.getvalue().splitlines()
    assert lines and "\r" not in log.getvalue()
    # what runs (the family and n being computed) and the fraction done
    assert any(ln.startswith("codes stability: 1/2 (50%) cyclic-mds n=8") for ln in lines), lines
    assert all(" elapsed, " in ln and " left" in ln for ln in lines), lines
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    assert main([*argv, "--quiet"]) == 0
    assert log.getvalue() == ""


def test_the_bar_is_tqdm_and_a_notebook_gets_its_widget(monkeypatch):
    import tqdm
    import tqdm.auto

    from gctheory import _progress

    bar = _progress.Progress(3, "x", stream=_Terminal())
    bar.update(1, "first")
    assert isinstance(bar._bar, tqdm.tqdm) and bar.mode == "bar"
    bar.close()
    made = []

    class Widget(tqdm.tqdm):
        def __init__(self, *a, **k):
            made.append(k["desc"])
            super().__init__(*a, **k)

    monkeypatch.setattr(_progress, "_in_notebook", lambda: True)
    monkeypatch.setattr(tqdm.auto, "tqdm", Widget)
    with _progress.Progress(3, "in a notebook", stream=io.StringIO()) as bar:
        bar.update(3)
    assert bar.mode == "widget" and made == ["in a notebook"]
    with _progress.Progress(3, "quiet", stream=io.StringIO(), enabled=False) as bar:
        bar.update(3)
    assert bar.mode == "off" and made == ["in a notebook"]


def test_monte_carlo_progress_off_a_terminal_and_nested(monkeypatch, capsys):
    import functools

    from gctheory import _progress
    from gctheory.montecarlo import estimate_probability
    from tests import _mc_events as ev

    monkeypatch.setattr(_progress.Progress, "LOG_EVERY", 0.0)
    event = functools.partial(ev.bernoulli, p=0.5)
    a = estimate_probability(event, 4000, rng=1, chunk_size=1000)
    err = capsys.readouterr().err
    assert "1000/4000 (25%)" in err and "\r" not in err, err
    # inside a command's own bar, the run inside stays silent (unless asked for)
    with _progress.Progress(1, "outer", stream=io.StringIO(), enabled=True) as outer:
        outer.update(0, "running")
        b = estimate_probability(event, 4000, rng=1, chunk_size=1000)
    assert capsys.readouterr().err == "" and a == b
