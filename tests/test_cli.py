"""Tests of the CLI core and the paper-check framework it runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import paper_checks
from gctheory import __version__
from gctheory._output import format_table
from gctheory.cli import build_parser, main
from paper_checks import Outcome, close_verdict
from paper_checks._framework.registry import Claim, run_claims
from paper_checks._framework.report import render_markdown, write_report
from tests._shared_runs import use_claims_once


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_console_script_is_installed():
    out = subprocess.run(
        [sys.executable, "-m", "gctheory.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.startswith("gctheory ")


def test_parser_has_core_commands():
    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices
    assert {"reproduce", "check", "figures"} <= set(choices)


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_format_table(fmt):
    rows = [
        {"n": 12, "value": 0.123456789, "name": "a"},
        {"n": 3, "value": float("inf"), "name": "b"},
    ]
    out = format_table(rows, fmt)
    if fmt == "json":
        data = json.loads(out)["rows"]  # issue 29: an object; non-finite as null + reason
        assert data[0]["n"] == 12 and data[1]["value"] is None
        assert data[1]["reason"] == "value: inf" and data[0]["reason"] is None
    elif fmt == "csv":
        assert out.splitlines()[0] == "n,value,name" and "0.123457" in out
    elif fmt == "md":
        assert out.splitlines()[1] == "|---|---|---|"
    else:
        assert "0.123457" in out and "inf" in out


def test_format_table_rejects_unknown_format():
    with pytest.raises(ValueError, match="format must be one of"):
        format_table([], "xml")


def test_outcome_requires_cause():
    with pytest.raises(ValueError, match="needs its cause"):
        Outcome("differs", 1.0)
    with pytest.raises(ValueError, match="verdict must be one of"):
        Outcome("ok", 1.0)
    assert close_verdict(0.4294, 0.4294, atol=5e-5).verdict == "reproduced"
    d = close_verdict(4294, 4249, atol=0.5, cause="transposed digits")
    assert d.verdict == "differs" and d.cause == "transposed digits"


def _fake_claims():
    def good(quick):
        return Outcome("reproduced", 2 + 2, "exact")

    def bad(quick):
        raise RuntimeError("boom")

    def slow(quick):  # pragma: no cover - skipped in quick mode
        return Outcome("reproduced", 1)

    return [
        Claim("wang2019", "a", "Sec. 1", "two and two", 4, good),
        Claim("wang2019", "b", "Sec. 2", "raises", 0, bad),
        Claim("xu2021", "c", "Sec. 3", "slow one", 1, slow, slow=True),
    ]


def test_run_claims_records_errors_and_skips(tmp_path):
    results = run_claims(_fake_claims(), quick=True)
    assert [r.verdict for r in results] == ["reproduced", "error", "skipped"]
    assert "boom" in results[1].error
    md, js = write_report(results, tmp_path, quick=True)
    text = md.read_text()
    assert "## wang2019" in text and "**reproduced**" in text and "**error**" in text
    data = json.loads(js.read_text())
    assert data["quick"] is True and data["claims"][0]["computed"] == 4
    assert "Mode: quick" in render_markdown(results, quick=True)


def test_claim_decorator_validates_paper():
    with pytest.raises(ValueError, match="paper must be one of"):
        paper_checks.claim(paper="nobody2020", id="x", where="", statement="", paper_value=0)


def test_registered_claims_have_unique_keys_and_known_papers():
    claims = paper_checks.all_claims()
    keys = [c.key for c in claims]
    assert len(keys) == len(set(keys))
    assert all(c.paper in paper_checks.all_sources() for c in claims)  # seeds + other sources


@pytest.fixture
def claims_once(monkeypatch):
    """``paper_checks.run_claims`` computing each (claim, quick) once in this process: the
    reproduce tests below are about what the command writes and which figures it asks
    for, and run the same seeded claims (results are deterministic)."""
    use_claims_once(monkeypatch)


def test_reproduce_writes_report(tmp_path, capsys, claims_once):
    # Only one small paper's claims, to keep the test short; figures are tested per module.
    code = main(
        [
            "reproduce",
            "--quick",
            "--no-figures",
            "--paper",
            "halbawi2017",
            "--outdir",
            str(tmp_path),
        ]
    )
    assert (tmp_path / "paper_checks" / "REPORT.md").exists()
    data = json.loads((tmp_path / "paper_checks" / "REPORT.json").read_text())
    assert all(c["paper"] == "halbawi2017" for c in data["claims"])
    assert code == (1 if any(c["verdict"] == "error" for c in data["claims"]) else 0)


def test_bad_figure_name_is_a_clean_error(capsys):
    assert main(["figures", "no-such-figure", "--outdir", "/tmp/none"]) == 2
    assert "unknown figure" in capsys.readouterr().err


def test_closed_pipe_is_quiet():
    # `gctheory table1 | head -1`: the reader goes away; no traceback, exit 141 (SIGPIPE)
    code = "import sys; from gctheory.cli import main; sys.exit(main(['table1']))"
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    p.stdout.close()
    with p.stderr:
        err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


# ------------------------------------------------ issue 12: reproducible committed outputs


def _draw(tmp, name):
    from gctheory.plots import plt, save_figure

    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0.1, 0.7, 0.4], label="a")
    ax.legend()
    return save_figure(fig, tmp, name, data={"x": [0.0, 1.0, 2.0], "y": [0.1, 1 / 3, 0.4]})


def test_save_figure_writes_the_same_bytes_twice_without_date_or_version(tmp_path):
    import matplotlib

    first = {p.name: p.read_bytes() for p in _draw(tmp_path / "a", "f")}
    second = {p.name: p.read_bytes() for p in _draw(tmp_path / "b", "f")}
    assert first == second
    svg = first["f.svg"].decode()
    assert "<dc:date>" not in svg and matplotlib.__version__ not in svg
    assert matplotlib.__version__.encode() not in first["f.png"]


def test_raster_only_drops_the_svg_and_only_inside(tmp_path):
    from gctheory.plots._base import raster_only

    with raster_only():
        quick = sorted(p.name for p in _draw(tmp_path / "q", "f"))
    assert quick == ["f.csv", "f.png"]
    assert not (tmp_path / "q" / "f.svg").exists()
    full = sorted(p.name for p in _draw(tmp_path / "f", "f"))  # the context was left
    assert full == ["f.csv", "f.png", "f.svg"]


def test_save_figure_writes_the_digits_asked_for(tmp_path):
    from gctheory.plots import plt, save_figure

    fig, _ = plt.subplots()
    (csv,) = [
        p
        for p in save_figure(fig, tmp_path, "g", data={"a": [1 / 3], "b": [1 / 3]}, digits={"a": 4})
        if p.suffix == ".csv"
    ]
    assert csv.read_text().splitlines()[1] == "0.3333,0.3333333333"


def test_reproduce_and_figures_pin_blas_threads_before_numpy_loads():
    # a fresh interpreter: the variables must be set before numpy (and its BLAS) loads
    code = (
        "from gctheory.cli import _pin_threads; _pin_threads(['figures', '--list']);"
        "import numpy; from threadpoolctl import threadpool_info;"
        "print(sorted({i['num_threads'] for i in threadpool_info()}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1]"


def test_other_commands_keep_the_machines_thread_count(monkeypatch):
    from gctheory.cli import _THREAD_VARIABLES, _pin_threads

    for var in _THREAD_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    _pin_threads(["load", "--n", "10", "--s", "1"])
    assert not any(var in __import__("os").environ for var in _THREAD_VARIABLES)


@pytest.mark.slow
def test_a_second_run_of_a_figure_leaves_its_files_byte_identical(tmp_path):
    # what the committed figures need: `gctheory figures NAME` twice gives the same bytes
    from gctheory.plots import all_figures

    names = ["halbawi2017_fig3", "wang2019_fig2_load_bounds"]
    assert set(names) <= {m.name for m in all_figures()}
    runs = []
    for run in ("a", "b"):
        out = tmp_path / run
        cmd = [sys.executable, "-m", "gctheory.cli", "figures", *names, "--outdir", str(out)]
        assert subprocess.run(cmd, capture_output=True).returncode == 0
        runs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert runs[0] == runs[1] and len(runs[0]) == 3 * len(names)


def test_text_tables_fit_a_100_column_terminal_and_keep_every_word(capsys):
    # `gctheory check` printed lines up to 1,266 characters, `figures --list` 387
    long = "a cause that goes on " * 40
    rows = [{"claim": "kadhe2019:remark3-threshold-3-6", "cause": long, "n": 12345}]
    text = format_table(rows, "text")
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "kadhe2019:remark3-threshold-3-6" in text  # a key is not broken mid-word
    assert text.split().count("goes") == 40  # nothing dropped
    md = format_table(rows, "md")
    assert long.strip() in md  # md/csv/json keep each cell whole
    assert main(["figures", "--list"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_gives_numbers_as_numbers():
    from fractions import Fraction

    rows = [{"a": Fraction(1, 4), "b": [1, 2.5], "c": float("nan"), "d": (3,)}]
    data = json.loads(format_table(rows, "json-rows"))[0]
    assert data == {"a": 0.25, "b": [1, 2.5], "c": None, "d": [3], "reason": "c: nan"}


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_neither_scipy_nor_matplotlib(flag):
    # building the parser must stay cheap: choices come from gctheory._names, the
    # commands import their modules when they run
    code = (
        "import sys\n"
        f"sys.argv = ['gctheory', {flag!r}]\n"
        "from gctheory.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'matplotlib'))\n"
        "print('HEAVY', heavy[:5], file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stderr, out.stderr
    assert (__version__ in out.stdout) if flag == "--version" else ("reproduce" in out.stdout)


def test_names_are_the_owners_objects():
    # each name tuple is defined once in gctheory._names and re-exported by its owner
    from gctheory import _names, codes, conditioning, delays, generators, runtime, tradeoff

    assert runtime.SCHEMES is _names.RUNTIME_SCHEMES
    assert runtime.ZHANG_SCHEMES is _names.ZHANG_SCHEMES
    assert delays.LAWS == _names.DELAY_LAWS
    assert codes.COMMFR_FAMILIES == _names.COMMFR_FAMILIES
    assert codes.STABILITY_FAMILIES == _names.STABILITY_FAMILIES
    assert conditioning.PREFACTORS is _names.PREFACTORS
    assert conditioning.C_CHEN_DONGARRA == _names.C_CHEN_DONGARRA
    assert generators.VANDERMONDE_NODES is _names.VANDERMONDE_NODES
    assert generators.GENERATOR_FAMILIES == _names.GENERATOR_FAMILIES  # built from its registry
    assert dict(tradeoff.TRADEOFF_SCHEMES) == _names.TRADEOFF_SCHEMES
    assert dict(tradeoff.TRADEOFF_AXES) == _names.TRADEOFF_AXES


def test_reproduce_for_one_paper_makes_only_its_figures(tmp_path, monkeypatch, claims_once):
    # issue 29: `reproduce --paper X` remade every figure
    import gctheory.cli as cli
    import gctheory.cli._core as core

    asked: list = []
    monkeypatch.setattr(
        core, "_run_figures", lambda outdir, quick, names=None: asked.append(names) or 0
    )
    rc = cli.main(["reproduce", "--quick", "--paper", "halbawi2017", "--outdir", str(tmp_path)])
    assert rc == 0
    from gctheory.plots import all_figures

    (names,) = asked
    assert names and set(names) == {m.name for m in all_figures() if m.paper == "halbawi2017"}
