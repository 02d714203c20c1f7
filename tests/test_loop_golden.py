"""Outputs of the run loop kept bit for bit across its refactor into one loop with a run spec.

The fixtures under ``tests/data/`` were written by ``tests/data/make_loop_golden.py`` at commit
73f1370 (the master's and the simulator's loops before they became one): seeded simulator
histories, the parameter trajectories replayed from stored real-run traces, and the
``simulate``/``run`` CLI tables (the ``run`` rows that measure no time).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parent / "data"


def _maker():
    spec = importlib.util.spec_from_file_location("make_loop_golden", DATA / "make_loop_golden.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


MAKER = _maker()


@pytest.fixture(scope="module")
def golden():
    with np.load(DATA / "loop_golden.npz") as z:
        return {k: z[k] for k in z.files}


def _equal(got: dict, golden: dict, prefix: str) -> None:
    keys = sorted(k for k in golden if k.startswith(prefix))
    assert keys and sorted(k for k in got if k.startswith(prefix)) == keys
    for k in keys:
        np.testing.assert_array_equal(got[k], golden[k], err_msg=k, strict=True)


def test_simulator_histories_are_bit_for_bit_the_golden_ones(golden):
    _equal(MAKER.simulations(), golden, "sim/")


def test_replayed_trajectories_of_stored_traces_are_bit_for_bit_the_golden_ones(golden):
    _equal(MAKER.replays(DATA / "loop_golden_traces"), golden, "replay/")


def test_the_comparison_flips_on_a_changed_number(golden):
    # negative control: one bit of one stored loss changed is caught
    got = MAKER.simulations()
    got["sim/frc/loss"] = np.nextafter(got["sim/frc/loss"], np.inf)
    with pytest.raises(AssertionError, match="sim/frc/loss"):
        _equal(got, golden, "sim/")


def _stdout(args: list[str], capsys) -> str:
    """What ``gctheory ARGS`` prints, run in this process (the maker runs ``python -m
    gctheory``: the same ``main``, and about 1.3 s of CPU more a command for the start)."""
    from gctheory.cli import main

    capsys.readouterr()
    assert main(args) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_simulate_cli_tables_are_the_golden_ones(tmp_path, capsys):
    text = json.loads((DATA / "loop_golden_cli.json").read_text())
    for name, args in MAKER.CLI.items():
        got = _stdout([*args, "--out", str(tmp_path / "cli")], capsys)  # as MAKER.cli_text
        assert got == text[name], name


@pytest.mark.skipif(sys.platform == "win32", reason="worker processes")
@pytest.mark.filterwarnings("ignore:too few draws")  # 3 iterations (stderr, not the table)
def test_run_cli_rows_that_measure_no_time_are_the_golden_ones(capsys):
    text = json.loads((DATA / "loop_golden_cli.json").read_text())
    for name, args in MAKER.RUN_CLI.items():
        lines = _stdout(args, capsys).splitlines()  # kept as MAKER.run_cli_text keeps them
        got = "\n".join(lines[:1] + [ln for ln in lines if ln.split(" ")[0] in MAKER.RUN_ROWS])
        assert got == text[f"run_{name}"], name
