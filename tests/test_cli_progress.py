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
    assert text.endswith("\r\033[K")  # the line is erased at the end


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
    assert "gctheory run cyclic-mds [" in text and " left" in text and "4/4" in text, text
    assert "it/s" not in text  # not the engine's own bar
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv + ["--quiet"]) == 0
    assert "[" not in term.getvalue()
