"""Write tests/data/loop_golden.npz and loop_golden_traces/: outputs of the run loop kept fixed.

Run from the repository root: ``python tests/data/make_loop_golden.py``. The fixtures were
written by commit 73f1370 (before the run loop became one loop with a run spec); the test
``tests/test_loop_golden.py`` recomputes them with the current code and asks for equality bit
for bit: simulated histories, replayed parameter trajectories of stored real-run traces, and
the deterministic part of the ``simulate`` CLI table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the repository's gctheory

#: seeded simulator runs: name -> simulate() keywords
SIMULATIONS: dict[str, dict] = {
    "gd": dict(scheme="gd", n=6, iterations=8, rng=1),
    "ignore": dict(scheme="ignore", n=6, K=4, iterations=8, rng=2, delay="shifted_exp(1, 1)"),
    "frc": dict(scheme="frc", n=6, s=1, iterations=8, rng=3, record_draws=True),
    "cyclic_mds": dict(scheme="cyclic_mds", n=5, s=2, iterations=6, rng=4, persist=2),
    "expander": dict(scheme="expander", n=8, s=2, iterations=6, rng=5, code_options={"d": 3}),
    "bgc": dict(scheme="bgc", n=6, s=2, iterations=6, rng=6, model="logistic"),
    "lgc": dict(scheme="lgc", n=6, K=4, iterations=6, rng=7, batch_size=20),
    "lag": dict(scheme="lag", n=5, iterations=6, rng=8, record_stats=True),
    "sr_sgc": dict(scheme="sr_sgc", n=6, s=1, iterations=8, rng=9),
    "m_sgc": dict(scheme="m_sgc", n=6, s=1, iterations=8, rng=10),
    "target": dict(scheme="frc", n=4, s=1, iterations=50, rng=11, target_loss=2.0),
}
FIELDS = ("time", "loss", "accuracy", "grad_error", "wait", "comm", "comp", "loads", "w")

#: small real runs on the local engine (their traces are stored; replays are compared)
RUNS: dict[str, dict] = {
    "gd": dict(scheme="gd", n=3, iterations=4, rng=1, delay="constant(0.01)"),
    "frc": dict(scheme="frc", n=4, s=1, iterations=4, rng=2, delay="exp(0.01)"),
    "bgc": dict(
        scheme="bgc", n=4, s=1, iterations=4, rng=3, delay="exp(0.01)", workload="logistic"
    ),  # fmt: skip
    "sr_sgc": dict(scheme="sr_sgc", n=4, s=1, iterations=5, rng=4, delay="constant(0.01)"),
    "m_sgc": dict(scheme="m_sgc", n=4, s=1, iterations=5, rng=5, delay="constant(0.01)"),
}

#: ``gctheory simulate`` command lines whose stdout table is kept
CLI = {
    "frc": ["simulate", "--scheme", "frc", "--n", "6", "--s", "1", "--iterations", "5"],
    "sr_sgc": [
        "simulate",
        "--scheme",
        "sr-sgc",
        "--n",
        "6",
        "--s",
        "1",
        "--iterations",
        "6",
        "--trials",
        "2",
        "--seed",
        "3",
    ],  # fmt: skip
}


#: ``gctheory run`` command lines (uncoded GD waits for every worker: its numbers are fixed)
RUN_CLI = {
    "gd": [
        "run",
        "--scheme",
        "uncoded",
        "--n",
        "3",
        "--iterations",
        "3",
        "--delay",
        "constant(0.01)",
        "--quiet",
        "--seed",
        "2",
    ],  # fmt: skip
}
#: rows of the ``run`` table that measure no time (kept); the others are measured
RUN_ROWS = ("quantity", "scheme", "engine", "n", "need", "delay", "iterations",
            "stragglers_ignored_per_it", "bytes_down_per_it", "bytes_up_per_it",
            "message_numbers_code", "message_numbers_measured", "dead_workers",
            "final_train_loss", "final_train_accuracy", "final_test_loss",
            "final_test_accuracy", "coded_workers_per_engine_thread")  # fmt: skip


def run_cli_text(args: list[str]) -> str:
    """The ``run`` table's lines that measure no time (the title and the kept rows)."""
    cmd = [sys.executable, "-m", "gctheory", *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    return "\n".join(lines[:1] + [ln for ln in lines if ln.split(" ")[0] in RUN_ROWS])


def simulations() -> dict[str, np.ndarray]:
    from gctheory.training import simulate

    out = {}
    for name, kw in SIMULATIONS.items():
        r = simulate(**kw)
        for f in FIELDS:
            out[f"sim/{name}/{f}"] = np.asarray(getattr(r, f))
        if r.draws is not None:
            out[f"sim/{name}/draws"] = r.draws
        for key, v in (r.stats or {}).items():
            out[f"sim/{name}/stats_{key}"] = v
    return out


def replays(folder: Path) -> dict[str, np.ndarray]:
    from gctheory.cluster import replay

    out = {}
    for name in RUNS:
        rep = replay(str(folder / f"{name}.csv"))
        out[f"replay/{name}/params_history"] = rep.params_history
    return out


def cli_text(args: list[str], tmp: Path) -> str:
    cmd = [sys.executable, "-m", "gctheory", *args, "--out", str(tmp / "cli")]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main() -> None:
    import tempfile

    from gctheory.cluster import run

    folder = HERE / "loop_golden_traces"
    folder.mkdir(exist_ok=True)
    for name, kw in RUNS.items():
        kw = dict(kw)
        r = run(kw.pop("scheme"), kw.pop("n"), kw.pop("s", None), progress=False, **kw)
        r.save(folder / f"{name}.csv")
    arrays = {**simulations(), **replays(folder)}
    np.savez_compressed(HERE / "loop_golden.npz", **arrays)
    with tempfile.TemporaryDirectory() as tmp:
        text = {name: cli_text(args, Path(tmp)) for name, args in CLI.items()}
    text.update({f"run_{name}": run_cli_text(args) for name, args in RUN_CLI.items()})
    (HERE / "loop_golden_cli.json").write_text(json.dumps(text, indent=1) + "\n")


if __name__ == "__main__":
    main()
