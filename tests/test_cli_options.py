"""Every numeric option of every command, fed a bad value, is refused with exit status 2
and a message that names the option as typed (``--n``, not the Python name ``n``); an
option the chosen configuration does not read is refused, not ignored (issues 29, 30).

The cases are built from the parser itself, so a new option is covered by default."""

from __future__ import annotations

import argparse
import contextlib
import io

import numpy as np
import pytest

from gctheory import delays as dl
from gctheory.cli import _option_error, build_parser, main

TRACE = "TRACE"  # replaced by a small two-load trace in tmp_path

#: a quick valid configuration of each command (None: not probed here, with the reason)
BASE: dict[str, str | None] = {
    "codes verify": "codes verify cyclic-mds --n 6 --s 1",
    "codes stability": "codes stability --n 4 --families cyclic-mds --trials 3 --worst-samples 1",
    "codes approx": "codes approx bibd --v 7 --k 3 --trials 20",
    "table1": "table1",
    "skappa": "skappa --n 20 --s 4 --m 2",
    "maxcond": "maxcond --K 3 --N 5",
    "delays summary": f"delays summary {TRACE}",
    "delays fit": f"delays fit {TRACE} --load 0.5 --laws lognormal --bootstrap 0",
    "delays scaling": f"delays scaling {TRACE}",
    "delays optimum": f"delays optimum {TRACE} --scheme cyclic-mds --n 8 --laws lognormal "
    "--bootstrap 2",
    "threshold": "threshold --dv 3 --dc 6",
    "waterfall": "waterfall --n 100 --points 2 --trials 10",
    "finite-length": "finite-length --dv 3 --dc 6 --n 20",
    "load": "load --n 100 --s 10",
    "load-grid": "load-grid --n 100 --delta 0.1",
    "run": "run --scheme cyclic-mds --n 4 --s 1 --iterations 2 --model logistic --quiet",
    "carryover": "carryover --n 6 --s 2 --trials 50 --iterations 10",
    "orderstat": "orderstat --n 10 --k 8",
    "optimum halbawi": "optimum halbawi --n 20",
    "optimum scheme": "optimum scheme --n 12 --scheme cyclic-mds",
    "optimum zhang": "optimum zhang --n 12 --r 2 --groups 3",
    "optimum hetero": "optimum hetero --group 4:exp(mean=2) --group 4:exp(mean=1) --split-points 1",
    "optimum xu": "optimum xu --n 10 --c 2",
    "sgc verify": "sgc verify sr-sgc --n 4 --B 1 --W 2 --lambda 1",
    "sgc memory": "sgc memory --delay markov(p=0.1,r=0.4,fast=constant(1),slow=constant(3)) "
    "--n 3 --jobs 3 --runs 2",
    "stability compare": "stability compare --n 6 --s 1 --m 2 --families gaussian --time-limit 1",
    "stability table": "stability table --n 6 --s 1 --families gaussian --time-limit 1 "
    "--kappa 1000",
    "tradeoff": "tradeoff --n 12 --quick --schemes cyclic-mds --out OUT",
    "tradeoff-comm": "tradeoff-comm --n 12 --s 2 --d 1000 --points 3 --out OUT",
    "simulate": "simulate --scheme gd --n 4 --iterations 3 --out OUT",
    "sgc runtime": None,  # reads the shared measurements
    "collect": None,  # tests/test_sweeps.py: its values are lists of parameters
    "combine": None,
    "plot": None,
}
#: options that take no number (paths, filters, formats)
SKIP = {"format", "where", "out", "trace", "outdir", "ledger", "paper", "file", "code_option"}


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), parser
        return
    for name, sub in subs[0].choices.items():
        yield from _leaves(sub, (*path, name))


def _bad(action: argparse.Action) -> str | None:
    kind = getattr(action.type, "__name__", None)
    return {"int": "-1", "float": "nan"}.get(kind)


def _cases():
    out = []
    for name, parser in _leaves(build_parser()):
        if name not in BASE:
            if name in ("reproduce", "check", "figures", "codes list"):
                continue  # no numeric option
            raise AssertionError(f"command {name!r} has no BASE configuration here: add one")
        if BASE[name] is None:
            continue
        for a in parser._actions:
            if not a.option_strings or a.dest in SKIP or a.help == argparse.SUPPRESS:
                continue
            value = _bad(a)
            if value is not None:
                out.append(pytest.param(name, a.option_strings[0], value, id=f"{name} {a.dest}"))
    return out


@pytest.fixture(scope="module", autouse=True)
def one_parser():
    """``main`` parses every case here with one parser, built once (building the whole
    command tree is about 12 ms, a third of a case's CPU); parsing never changes it."""
    import gctheory.cli._entry as entry

    parser = build_parser()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(entry, "build_parser", lambda: parser)
        yield


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory):
    rng = np.random.default_rng(0)
    parts = []
    for load in (0.5, 1.0):
        M = load * (0.05 + rng.exponential(0.02, size=(20, 8)))
        r, w = np.divmod(np.arange(160), 8)
        parts.append(dl.make_trace(r, w, np.full(160, load), M.ravel()))
    return str(dl.write_trace(dl.concat_traces(parts), tmp_path_factory.mktemp("t") / "t.csv"))


def _argv(name: str, option: str, value: str, trace: str, out: str) -> list[str]:
    argv = [trace if t == TRACE else out if t == "OUT" else t for t in BASE[name].split()]
    if option in argv:  # replace its values
        i = argv.index(option)
        j = i + 1
        while j < len(argv) and not argv[j].startswith("--"):
            j += 1
        argv[i + 1 : j] = [value]
    else:
        argv += [option, value]
    return argv


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # refused while parsing: the subcommand's parser exits
            rc = exc.code if isinstance(exc.code, int) else 1
    return rc, err.getvalue()


@pytest.mark.parametrize("name, option, value", _cases())
def test_bad_value_names_the_option(name, option, value, trace_path, tmp_path):
    argv = _argv(name, option, value, trace_path, str(tmp_path / "out"))
    rc, err = _run(argv)
    assert rc == 2, f"{' '.join(argv)} exited {rc}: {err[-300:]}"
    line = err.strip().splitlines()[-1]
    assert option in line, f"{' '.join(argv)}: {line}"


@pytest.mark.parametrize("name", [k for k, v in BASE.items() if v and k != "run"])
def test_base_configurations_run(name, trace_path, tmp_path):
    # the cases above test the option, not a broken base
    argv = _argv(name, "--format", "csv", trace_path, str(tmp_path / "out"))
    assert _run(argv)[0] == 0, " ".join(argv)


@pytest.mark.parametrize(
    "argv, option",
    [
        ("codes verify cyclic-mds --n 6 --s 1 --jobs 2", "--jobs"),
        ("codes verify cyclic-mds --n 6 --s 1 --lambda 1", "--lambda"),
        (f"delays fit {TRACE} --load 0.5 --laws lognormal --clusters 3", "--clusters"),
        (f"delays fit {TRACE} --load 0.5 --laws lognormal --bootstrap 0 --seed 3", "--seed"),
        (f"delays summary {TRACE} --threshold 0.1 --factor 2", "--factor"),
        (f"delays optimum {TRACE} --scheme cyclic-mds --n 8 --laws lognormal --m 2", "--m"),
        ("load --n 100 --s 10 --seed 4", "--seed"),
        ("simulate --scheme gd --n 4 --iterations 2 --r 2 --out OUT", "--r"),
        ("simulate --scheme gd --n 4 --iterations 2 --partial-work --out OUT", "--partial-work"),
        ("optimum hetero --group 4:exp(mean=2) --trials 10", "--trials"),
        ("orderstat --dist pareto --mu -1 --n 10", "--mu"),
        ("orderstat --n 10 --seed 3", "--seed"),
        (
            "sgc memory --delay markov(p=0.1,r=0.4,fast=constant(1),slow=constant(3)) --n 3 "
            "--schemes GC --B 2",
            "--B",
        ),
        (
            "sgc memory --delay markov(p=0.1,r=0.4,fast=constant(1),slow=constant(3)) --n 3 "
            "--runs 0 --seed 2",
            "--seed",
        ),
    ],
)
def test_unused_option_is_refused(argv, option, trace_path, tmp_path):
    words = [trace_path if t == TRACE else str(tmp_path / "o") if t == "OUT" else t
             for t in argv.split()]  # fmt: skip
    rc, err = _run(words)
    assert rc == 2 and option in err and "not used" in err, err


def test_option_error_rewrites_the_python_name():
    parser = build_parser()
    args = parser.parse_args(["waterfall", "--eps-min", "-1"])
    args._given = {"eps_min"}
    leaf = parser._subparsers._group_actions[0].choices["waterfall"]
    assert _option_error("eps must lie in [0, 1], got -1", leaf, args).startswith("--eps-min ")
    # a message that does not begin with a parameter's name is left as it is
    assert _option_error("unknown delay 'x'", leaf, args) == "unknown delay 'x'"


def test_run_code_option_flags_are_bools(monkeypatch):
    # a CLI value that reaches a library flag arrives as a bool, never as the truthy "no"
    import gctheory.cluster as cl

    seen = {}

    def fake_run(*a, **kw):
        seen.update(kw["spec"].scheme.code_options)  # the CLI builds a run spec
        raise ValueError("stop here")

    monkeypatch.setattr(cl, "run", fake_run)
    argv = "run --scheme cyclic-mds --n 4 --s 1 --quiet --code-option flag=no "
    argv += "--code-option other=True --code-option d=2"
    assert _run(argv.split())[0] == 2
    assert seen == {"flag": False, "other": True, "d": 2}
