"""The CLI's output helpers (issue 29): the table renderer, JSON and CSV shapes, the
progress line's estimate, the console script's warnings, and real signatures."""

from __future__ import annotations

import importlib
import inspect
import io
import json
import math
import pkgutil

import pytest

from gctheory import _output
from gctheory._output import Interval, format_table
from gctheory._progress import Progress, remaining

LONG = 0.000177206
ROWS = [
    {"n": 1000, "P(fail)": 1.9873e-14, "value": LONG, "campaign": "region=Canada/2048",
     "note": "a long note " * 12, "speedup_vs_wait_all": 1.25},
    {"n": 4000, "P(fail)": math.inf, "value": 0.5, "campaign": "ye-abbe-vandermonde",
     "note": "", "speedup_vs_wait_all": 0.5},
]  # fmt: skip


@pytest.mark.parametrize("width", [40, 60, 80, 100])
def test_text_never_splits_a_number_and_fits(width):
    text = format_table(ROWS, "text", title="t " * 60, width=width)
    assert max(map(len, text.splitlines())) <= width
    words = set(text.split())
    for cell in ("1.9873e-14", "0.000177206", "region=Canada/2048", "ye-abbe-vandermonde"):
        assert cell in words, (width, cell, text)


def test_the_layout_steps_in_order():
    rows = [{"a_long_header_name": 1, "b": "x"}]
    assert "columns:" not in format_table(rows, width=100)  # fits: nothing abbreviated
    wide = [{f"column_number_{i}": 1.5 for i in range(6)}]
    text = format_table(wide, width=60)
    assert "columns: " in text and "cn5=column_number_5" in text  # abbreviated, with a legend
    opt = format_table(ROWS, width=60, optional=("note",))
    assert "not shown here (--format csv or json has them): note" in opt
    blocks = format_table(ROWS, width=40)
    assert "campaign" in blocks and "--" not in blocks.splitlines()[1]  # one block per row


def test_json_object_nulls_intervals_and_booleans():
    rows = [{"x": math.nan, "ci": Interval(0.1, math.inf), "ok": True, "f": 1}]
    data = json.loads(format_table(rows, "json", title="T", parameters={"n": 3}))
    assert data["title"] == "T" and data["parameters"] == {"n": 3}
    (row,) = data["rows"]
    assert row["x"] is None and row["ci"] == [0.1, None] and row["ok"] is True
    assert row["reason"] == "x: nan; ci: inf"
    assert json.loads(format_table(rows, "json-rows"))[0]["f"] == 1
    assert "[0.1, inf]" in format_table(rows, "text") and " yes" in format_table(rows)


def test_csv_keeps_the_parameters_as_comment_lines():
    out = format_table([{"a": 1}], "csv", title="T", parameters={"n": 3, "kappa": None})
    assert out.splitlines() == ["# T", "# n = 3", "# kappa = null", "a", "1"]


def test_progress_estimate_is_never_inf():
    assert remaining(5.0, 0, 10) == "estimating" and remaining(5.0, 5, 10) == "5s"
    assert remaining(math.inf, 1, 10) == "estimating" and remaining(1.0, 10, 10) == "0s"
    bar = Progress(4, "check", stream=io.StringIO(), enabled=True)
    assert "inf" not in bar.line(0) and "estimating" in bar.line(0)
    silent = io.StringIO()
    Progress(4, "x", stream=silent).update(1)  # a StringIO is no terminal: nothing drawn
    assert silent.getvalue() == ""


def test_console_script_warnings_are_one_line(capsys):
    from gctheory import cli

    cli._show_warning(UserWarning("heavy tail"), UserWarning, "/x/.venv/bin/gctheory", 8)
    assert capsys.readouterr().err == "gctheory: warning: heavy tail\n"


def test_every_option_default_is_in_the_help():
    from gctheory.cli import build_parser

    text = build_parser()._subparsers._group_actions[0].choices["stability"]
    compare = text._subparsers._group_actions[0].choices["compare"].format_help()
    assert "(default: ye-abbe,commfr)" in compare  # shown although its help did not say it


def _public_callables():
    import gctheory

    mods = {"gctheory": gctheory}
    for info in pkgutil.iter_modules(gctheory.__path__):
        if not info.name.startswith("_"):
            mods[f"gctheory.{info.name}"] = importlib.import_module(f"gctheory.{info.name}")
    for modname, mod in mods.items():
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            exc = isinstance(obj, type) and issubclass(obj, BaseException)
            protocol = getattr(obj, "_is_protocol", False)  # a typing.Protocol: never called
            if callable(obj) and not exc and not protocol:
                yield f"{modname}.{name}", obj


def test_every_public_callable_has_its_real_signature():
    import gctheory

    sig = inspect.signature(gctheory.tradeoff)
    assert list(sig.parameters)[:2] == ["n", "s"]  # not (*args, **kwargs)
    assert list(inspect.signature(gctheory.tradeoff_table).parameters)[:2] == ["n", "s"]
    vague = []
    for name, obj in _public_callables():
        if name.startswith("gctheory.commands") or name.startswith("gctheory.cli"):
            continue
        try:
            params = list(inspect.signature(obj).parameters.values())
        except (TypeError, ValueError) as exc:
            vague.append(f"{name}: {exc}")
            continue
        kinds = [p.kind for p in params]
        if kinds == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
            vague.append(f"{name}: (*args, **kwargs), a wrapper without functools.wraps?")
    assert not vague, vague


def test_cli_names_the_option_and_the_registry(capsys):
    from gctheory.cli import main

    assert main(["skappa", "--s", "2", "--m", "1"]) == 2
    err = capsys.readouterr().err
    assert "--m must be >= 2" in err and "K must" not in err.split(":")[1]
    # maxcond takes the registry's names; the old node names map to them, with a message
    argv = ["maxcond", "--K", "4", "--N", "8", "--format", "json"]
    assert main([*argv, "--generator", "chebyshev-vandermonde"]) == 0
    new = json.loads(capsys.readouterr().out)["rows"][0]["max_cond"]
    assert main([*argv, "--generator", "vandermonde-chebyshev"]) == 0
    vc = json.loads(capsys.readouterr().out)["rows"][0]["max_cond"]
    assert main([*argv, "--generator", "chebyshev"]) == 0
    out = capsys.readouterr()
    assert "--generator chebyshev is deprecated" in out.err
    assert json.loads(out.out)["rows"][0]["max_cond"] == vc != new


def test_tradeoff_out_is_a_stem_a_folder_or_a_named_temporary_folder(tmp_path):
    from gctheory.commands.tradeoff import _out_path

    assert _out_path(str(tmp_path)) == (tmp_path / "atlas", False)  # not tmp_path.png
    assert _out_path(str(tmp_path / "run.png")) == (tmp_path / "run", False)
    stem, temporary = _out_path(None)
    assert temporary and stem.parent.is_dir() and "gctheory-tradeoff-" in str(stem)
    stem.parent.rmdir()


def test_parameters_of_the_running_command_reach_json():
    _output.set_parameters({"n": 5, "xs": (1, 2)})
    try:
        assert json.loads(format_table([{"a": 1}], "json"))["parameters"] == {"n": 5, "xs": [1, 2]}
    finally:
        _output.set_parameters(None)
