"""No loader of gctheory runs code from a file: every loader is fed the same hostile files
and answers with a ValueError naming the file or the parameter, with no side effect."""

from __future__ import annotations

import io
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from gctheory.cluster.checkpoint import load_checkpoint, save_checkpoint
from gctheory.cluster.trace import load_run
from gctheory.codes import load_code, save_code
from gctheory.codes.tandon import CyclicMDSCode
from gctheory.delays import read_trace, safe_load
from gctheory.ldpc.alist import read_alist
from gctheory.montecarlo import estimate_probability
from gctheory.sweeps.statsfile import read_rows


class _System:
    """Unpickling this runs ``os.system(command)``."""

    def __init__(self, command: str):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class _Open:
    """Unpickling this creates the file ``path`` (``open(path, "w")``)."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _deep_pickle(depth: int = 100_000) -> bytes:
    # PROTO 2, EMPTY_LIST ``depth`` times, APPEND ``depth - 1`` times: lists nested ``depth`` deep
    return b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."


def _laughs_pickle(levels: int = 40) -> bytes:
    # every level a list of ten references to the level below: 10**40 leaves, a few hundred bytes
    x: list = ["lol"]
    for _ in range(levels):
        x = [x] * 10
    return pickle.dumps(x, protocol=2)


def _object_npz(obj) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, metadata=np.array(obj, dtype=object), a0=np.array([obj], dtype=object))
    return buf.getvalue()


def _json_npz(text: str) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **{"state.json": np.frombuffer(text.encode(), dtype=np.uint8)})
    return buf.getvalue()


@pytest.fixture
def hostile(tmp_path):
    """The hostile files (name -> bytes) and the markers their code would create."""
    marks = [tmp_path / "marker_system", tmp_path / "marker_open"]
    evil = [_System(f"touch {marks[0]}"), _Open(str(marks[1]))]
    deep_json = "[" * 100_000 + "]" * 100_000
    files = {
        "evil": pickle.dumps(evil, protocol=pickle.HIGHEST_PROTOCOL),
        "evil-in-dict": pickle.dumps({"format": "gctheory.cluster.checkpoint/1", "x": evil}),
        "evil-npz": _object_npz(evil),
        "deep-pickle": _deep_pickle(),
        "laughs-pickle": _laughs_pickle(),
        "deep-json": deep_json.encode(),
        "deep-json-npz": _json_npz(deep_json),
        "laughs-json-npz": _json_npz(
            '{"format": "gctheory.cluster.checkpoint/2", "x": ' + "[" * 60 + "1" + "]" * 60 + "}"
        ),  # fmt: skip
        "foreign-version": pickle.dumps({"format": "gctheory.cluster.checkpoint/1", "config": {}}),
        "empty": b"",
        "binary": bytes(range(256)) * 4,
    }
    return files, marks


def _cluster(p: Path) -> None:
    load_checkpoint(p)


def _montecarlo(p: Path) -> None:
    estimate_probability(_coin, 100, rng=1, checkpoint=p, progress=False)


def _coin(rng, size):
    return rng.random(size) < 0.5


def _trace_csv(p: Path) -> None:
    read_trace(p)


def _trace_pkl(p: Path) -> None:
    read_trace(p)


def _run_trace(p: Path) -> None:  # the hostile file as a run trace's sidecar
    trace = p.with_name(p.name[: -len(".csv.json")] + ".csv")
    trace.write_text("round,worker,load,time,status\n0,0,1,1.0,used\n0,1,1,2.0,used\n")
    load_run(trace)


def _ldpc_file(p: Path) -> None:
    from gctheory.commands.ldpc import _load_file

    _load_file(str(p))


#: every loader, the suffix its files carry, and whether the hostile file must be refused
#: (read_trace of a CSV may read some bytes as a trace of text columns: refused or read,
#: never code)
LOADERS = {
    "cluster.load_checkpoint": (_cluster, ".ckpt"),
    "montecarlo checkpoint": (_montecarlo, ".ckpt"),
    "codes.load_code": (load_code, ".npz"),
    "delays.read_trace (csv)": (_trace_csv, ".csv"),
    "delays.read_trace (pickle)": (_trace_pkl, ".pkl"),
    "delays.safe_load": (safe_load, ".pkl"),
    "sweeps.read_rows": (read_rows, ".csv"),
    "cluster.load_run (sidecar)": (_run_trace, ".csv.json"),
    "ldpc.read_alist": (read_alist, ".alist"),
    "gctheory ldpc --file (JSON)": (_ldpc_file, ".json"),
}


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_every_loader_refuses_every_hostile_file_by_name_without_running_it(
    loader, hostile, tmp_path
):
    files, marks = hostile
    func, suffix = LOADERS[loader]
    for name, data in files.items():
        p = tmp_path / f"{name}{suffix}"
        p.write_bytes(data)
        if name == "empty" and loader in ("montecarlo checkpoint", "sweeps.read_rows"):
            func(p)  # an empty checkpoint starts afresh; an empty stats file has no rows
            continue
        if name == "foreign-version" and loader == "delays.safe_load":
            assert func(p)["config"] == {}  # plain data: what the generic loader is for
            continue
        with pytest.raises(ValueError) as info:
            func(p)
        assert str(p) in str(info.value) or "path" in str(info.value), (name, info.value)
        assert not any(m.exists() for m in marks), f"{loader} ran the code of {name}"


def test_the_markers_would_be_written_by_plain_pickle(hostile, tmp_path):
    """Negative control: the hostile pickle does run its code under pickle.loads."""
    files, marks = hostile
    for value in pickle.loads(files["evil"]):  # noqa: S301 (the point of the control)
        if hasattr(value, "close"):
            value.close()
    assert all(m.exists() for m in marks)


def _truncations(p: Path) -> list[bytes]:
    data = p.read_bytes()
    return [data[:k] for k in (1, 4, 30, len(data) // 2, len(data) - 1)]


def test_truncated_files_of_each_format_are_refused_by_name(tmp_path):
    ckpt = save_checkpoint(tmp_path / "run.ckpt", {"config": {"n": 2}, "done": 1,
                                                   "params": np.arange(3.0)})  # fmt: skip
    code = save_code(CyclicMDSCode(5, 1, rng=1), tmp_path / "code.npz")
    for path, func in ((ckpt, load_checkpoint), (code, load_code)):
        for k, data in enumerate(_truncations(path)):
            cut = tmp_path / f"cut{k}{path.suffix}"
            cut.write_bytes(data)
            with pytest.raises(ValueError, match="cut"):
                func(cut)


def test_cluster_checkpoint_round_trips_what_the_loop_saves(tmp_path):
    state = {
        "config": {"scheme": "gd", "n": 3, "code_options": {"p": (1, 2)}, "seed": None},
        "done": 2, "params": np.arange(3.0), "history": np.ones((2, 3)),
        "survivors": [(0, 1), (1, 2)], "dead": {2: 1}, "metrics": {"loss": [1.0, float("nan")]},
        "rng_state": np.random.default_rng(3).bit_generator.state, "X": None,
        "sequential": {"stragglers": [np.array([True, False])], "received": {0: [(1, np.ones(2))]}},
        "elapsed": float("inf"),
    }  # fmt: skip
    got = load_checkpoint(save_checkpoint(tmp_path / "c.ckpt", state))
    assert got["config"] == state["config"] and got["survivors"] == state["survivors"]
    assert got["dead"] == {2: 1} and got["rng_state"] == state["rng_state"]
    assert np.isnan(got["metrics"]["loss"][1]) and got["elapsed"] == float("inf")
    assert np.array_equal(got["history"], state["history"])
    assert np.array_equal(got["sequential"]["received"][0][0][1], np.ones(2))
    with pytest.raises(ValueError, match="state\\['bad'\\] is a object"):
        save_checkpoint(tmp_path / "d.ckpt", {"bad": object()})


def test_cli_run_refuses_a_hostile_checkpoint_without_running_it(hostile, tmp_path, capsys):
    from gctheory.cli import main

    files, marks = hostile
    evil = tmp_path / "evil.pkl"
    evil.write_bytes(files["evil"])
    args = ["run", "--scheme", "gd", "--n", "2", "--iterations", "2", "--quiet",
            "--checkpoint", str(evil), "--resume"]  # fmt: skip
    assert main(args) != 0
    assert "is a pickle" in capsys.readouterr().err
    assert not any(m.exists() for m in marks)


# ---------------------------------------------------------------------------
# the package reads no data through pickle, eval or exec

_PACKAGE = Path(__file__).resolve().parents[1] / "gctheory"

#: the only places allowed to unpickle, and why: the restricted unpickler of the delay
#: profiles (admits lists, dicts and numeric scalars, nothing callable); an installed
#: plug-in's entry point (code the user installed, not data). Not matched by the pattern, and
#: in-memory transport, none of them a file: a worker process unpickles the states its own
#: master ships it once (multiprocessing's conn.recv in cluster/groups.py, after the mutual
#: key proof on the Dask engine's grouped connections; mpi4py's comm.recv of the states in
#: cluster/mpi.py), the process pools and Dask executors of montecarlo/engine.py. The tasks
#: and results of the local, grouped Dask and MPI engines cross as bytes read without
#: pickle (cluster/wire.py, cluster/shm.py, cluster/mpi.py's read_reply).
_ALLOWED = {
    ("delays/profiles.py", "_RestrictedUnpickler(io.BytesIO(data)).load()"),
    ("codes/plugins.py", "obj = ep.load()"),  # an installed plug-in's entry point: code, not data
}


def _hits(text: str) -> list[str]:
    import re

    pattern = re.compile(
        r"pickle\.loads?\(|Unpickler\([^)]*\)\.load\(|\.load\(\)|allow_pickle\s*=\s*True"
        r"|(?<![\w.])eval\(|(?<![\w.])exec\(|marshal\.loads?\(|shelve\.open\(|dill\.|"
        r"joblib\.load\(|torch\.load\(|yaml\.load\(|cloudpickle\.loads?\("
    )
    return [line.strip() for line in text.splitlines() if pattern.search(line)]


def test_no_module_reads_data_through_pickle_eval_or_exec():
    found = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        rel = path.relative_to(_PACKAGE).as_posix()
        for line in _hits(path.read_text(encoding="utf-8")):
            if line.startswith("#") or line.startswith('"') or "``" in line:
                continue  # comments and docstrings
            if not any(rel == f and snippet in line for f, snippet in _ALLOWED):
                found.append(f"{rel}: {line}")
    assert not found, "code that may read data with code in it:\n" + "\n".join(found)


def test_the_grep_sees_each_forbidden_call():
    """Negative control: every forbidden form is found by the pattern."""
    forbidden = ["x = pickle.load(fh)", "y = pickle.loads(b)", "np.load(p, allow_pickle=True)",
                 "eval(text)", "exec(code)", "marshal.loads(b)", "yaml.load(s)",
                 "torch.load(p)", "joblib.load(p)", "pickle.Unpickler(fh).load()"]  # fmt: skip
    for line in forbidden:
        assert _hits(line), line
    assert not _hits("np.load(p, allow_pickle=False)") and not _hits("ast.literal_eval(x)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_persistent_id_is_refused_by_name():
    # a pickle may ask its unpickler for an object by a persistent id (outside the bytes):
    # the delay-profile reader has none to give
    import io
    import pickle

    from gctheory.delays import safe_loads

    class _ById(pickle.Pickler):
        def persistent_id(self, obj):
            return "some-object" if obj == "by id" else None

    buf = io.BytesIO()
    _ById(buf).dump(["by id"])
    with pytest.raises(ValueError, match="refused a persistent id"):
        safe_loads(buf.getvalue(), source="p.pkl")
