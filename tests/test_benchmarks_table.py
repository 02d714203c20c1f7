"""The README's performance table is the newest stored benchmark history, rendered."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_all():
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_holds_the_newest_release_table():
    ra = _run_all()
    newest = ra.last_release("9999")
    assert newest is not None
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ra.markdown(newest) in readme, "run: python benchmarks/run_all.py --markdown"


def test_the_table_changes_with_the_history(tmp_path):
    # negative control: another stored value renders another table
    ra = _run_all()
    newest = ra.last_release("9999")
    doc = json.loads(newest.read_text(encoding="utf-8"))
    bench = next(iter(doc["benchmarks"]))
    name = next(iter(doc["benchmarks"][bench]))
    doc["benchmarks"][bench][name]["value"] = 12345.0
    other = tmp_path / "9.9.9.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    assert ra.markdown(other) != ra.markdown(newest)
    assert "1.23e+04x" in ra.markdown(other)
