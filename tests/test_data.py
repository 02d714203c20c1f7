"""The measured AWS Lambda delays ship inside the package and are read from there only."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import gctheory
from gctheory.data import LAMBDA_DELAYS_FILE, lambda_delays, lambda_delays_path, provenance
from gctheory.delays import make_trace, read_trace, write_trace

ROOT = Path(__file__).resolve().parents[1]
CLAIM = "krishnan2023:internal-sgc-shared-profile-runtime"


def _csv_of_the_file() -> tuple[list[str], list[list[str]]]:
    """The packaged CSV read with the standard library alone: header and rows."""
    with gzip.open(lambda_delays_path(), "rt", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        return header, list(reader)


def test_importlib_resources_finds_the_packaged_file():
    ref = resources.files("gctheory.data").joinpath(LAMBDA_DELAYS_FILE)
    assert ref.is_file()
    assert resources.files("gctheory.data").joinpath("PROVENANCE.md").is_file()
    # the loader's path is that file, inside the imported package (not beside a checkout)
    path = lambda_delays_path()
    assert path.is_file() and Path(gctheory.__file__).resolve().parent in path.resolve().parents


def test_loader_reads_every_row_and_column_of_the_csv():
    header, rows = _csv_of_the_file()
    tr = lambda_delays()
    assert len(tr) == len(rows) == 64000
    time_col = "duration_s"
    kept = {"round", "worker", "load", time_col}
    assert set(tr.columns) == set(header) - kept  # every other column kept, by name
    col = {h: j for j, h in enumerate(header)}
    np.testing.assert_array_equal(tr.time, [float(r[col[time_col]]) for r in rows])
    np.testing.assert_array_equal(tr.worker, [int(r[col["worker"]]) for r in rows])
    np.testing.assert_array_equal(tr.columns["profile"], [r[col["profile"]] for r in rows])


def test_provenance_names_the_source_and_its_hash_matches_the_data():
    text = provenance()
    assert "Krishnan" in text and "ICLR" in text and "License" in text
    (digest,) = re.findall(r"`([0-9a-f]{64})`", text)
    with gzip.open(lambda_delays_path(), "rb") as fh:
        assert hashlib.sha256(fh.read()).hexdigest() == digest


def test_select_keeps_one_campaign_and_refuses_an_absent_value():
    tr = lambda_delays(profile="cnn-desktop-long", region="Canada", load=0.5)
    assert len(tr) == 30 * 256
    assert set(tr.columns["profile"]) == {"cnn-desktop-long"}
    # each call returns its own rows: changing them leaves the next call's as they were
    tr.time[:] = -1.0
    assert lambda_delays(profile="cnn-desktop-long", region="Canada", load=0.5).time.min() > 0
    with pytest.raises(ValueError, match="values present: Canada, London"):
        lambda_delays(region="Tokyo")


def test_read_trace_reads_a_gzipped_csv_as_the_csv(tmp_path):
    tr = make_trace(
        round=[0, 0, 1, 1], worker=[0, 1, 0, 1], load=[1.0] * 4, time=[1.0, 2.5, 1.5, 3.0]
    )
    plain = tmp_path / "t.csv"
    write_trace(tr, plain)
    packed = tmp_path / "t.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = read_trace(plain), read_trace(packed)
    np.testing.assert_array_equal(a.time, b.time)
    np.testing.assert_array_equal(a.worker, b.worker)
    # a truncated archive is a named error, not an EOFError from gzip
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(packed.read_bytes()[:-12])
    with pytest.raises(ValueError, match="cut.csv.gz"):
        read_trace(cut)


# --- nothing reads the data from beside the repository --------------------------------

#: how the data's old place beside the checkout was spelt (built from parts so that this
#: file does not match itself)
BESIDE = ("shared" + "/data", "/work" + "/shared")


def _mentions_beside(root: Path) -> list[str]:
    files = [p for d in ("gctheory", "paper_checks", "tests") for p in (root / d).rglob("*.py")]
    files += [root / "README.md", root / "pyproject.toml", *sorted((root / "docs").glob("*.md"))]
    hits = []
    for p in files:
        if not p.is_file():
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if any(b in line for b in BESIDE):
                hits.append(f"{p.relative_to(root)}:{i}: {line.strip()}")
    return hits


def test_nothing_reads_data_from_beside_the_repository(tmp_path):
    if not (ROOT / "gctheory").is_dir():
        pytest.skip("the tests run without the checkout's sources beside them")
    assert _mentions_beside(ROOT) == []
    # negative control: a module that reads beside the checkout is found
    (tmp_path / "gctheory").mkdir()
    line = 'P = "../shared' + '/data/delays.csv"'
    (tmp_path / "gctheory" / "x.py").write_text(line + "\n")
    assert _mentions_beside(tmp_path) == [f"gctheory/x.py:1: {line}"]


# --- the data path of `reproduce --quick`, from an installed package in an empty folder --

_RUN_CLAIM = """
import json, sys
from pathlib import Path
import gctheory, paper_checks
from gctheory.data import lambda_delays_path
from paper_checks._framework.registry import all_claims

(c,) = [c for c in all_claims("krishnan2023") if c.key == sys.argv[1]]
o = c.check(True)
ledger = json.loads((Path(paper_checks.__file__).parent / "ledger.json").read_text())
print(json.dumps({"package": str(Path(gctheory.__file__).resolve().parent),
                  "data": str(lambda_delays_path().resolve()), "verdict": o.verdict,
                  "ledger": ledger[sys.argv[1]]["verdict"], "cwd": str(Path.cwd())}))
"""


def _run_claim_in(folder: Path, pythonpath: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GCTHEORY_DELAYS_DATA")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run(
        [sys.executable, "-c", _RUN_CLAIM, CLAIM],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_the_profile_claim_reads_the_packaged_data_from_an_empty_folder(tmp_path):
    # the package as this interpreter finds it (CI: the installed wheel); the checkout's
    # copy when nothing is installed (a development run), put on the path explicitly
    installed = Path(gctheory.__file__).resolve().parents[1] != ROOT
    empty = tmp_path / "empty"
    empty.mkdir()
    got = _run_claim_in(empty, None if installed else str(ROOT))
    assert not (empty.parent / "shared").exists() and list(empty.iterdir()) == []
    assert Path(got["package"]) in Path(got["data"]).parents
    assert got["verdict"] == got["ledger"] == "reproduced"


@pytest.mark.slow
def test_a_wheel_carries_the_data_and_reproduces_the_claim_from_an_empty_folder(
    tmp_path_factory,
):
    import shutil

    src = tmp_path_factory.mktemp("src")
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
    for name in ("gctheory", "paper_checks"):
        shutil.copytree(ROOT / name, src / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    wheels = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    # offline with the interpreter's own setuptools when it can make wheels (setuptools
    # 70.1+ or the `wheel` package); else pip fetches the build requirements
    import importlib.util

    import setuptools

    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    offline = (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None
    isolation = ["--no-build-isolation"] if offline else []
    subprocess.run(
        [*pip, "wheel", "--no-deps", *isolation, "-q", "-w", str(wheels), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("gctheory-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert f"gctheory/data/{LAMBDA_DELAYS_FILE}" in names
    assert "gctheory/data/PROVENANCE.md" in names
    data = zipfile.ZipFile(wheel).read(f"gctheory/data/{LAMBDA_DELAYS_FILE}")
    assert data == lambda_delays_path().read_bytes()
    site = tmp_path_factory.mktemp("site")
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "-q", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    empty = tmp_path_factory.mktemp("run")
    got = _run_claim_in(empty, str(site))
    assert Path(got["package"]).parent == site.resolve()
    assert Path(got["data"]).parent == site.resolve() / "gctheory" / "data"
    assert got["verdict"] == got["ledger"] == "reproduced"
