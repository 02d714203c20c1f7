"""Result objects in a notebook: ``_repr_html_`` is well-formed HTML holding the values,
``to_pandas`` works where pandas is installed and says ``pip install pandas`` where not.

pandas is not a dependency of gctheory (nor installed in every test environment): the
real-pandas tests are skipped without it, and a stand-in module checks what
``to_pandas`` hands to ``pandas.DataFrame`` either way.
"""

from __future__ import annotations

import math
import sys
import types
from html.parser import HTMLParser

import pytest

from gctheory.montecarlo import Estimate
from gctheory.tradeoff import TRADEOFF_COLUMNS, TradeoffTable

_VOID = {"br", "hr", "img", "meta", "col", "wbr", "input"}


class _Checker(HTMLParser):
    """Every tag closed in order; collects the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> _Checker:
    p = _Checker()
    p.feed(html)
    p.close()
    assert p.stack == [], f"unclosed tags {p.stack}"
    return p


EST = Estimate(0.125, 0.1, 0.15, trials=4000, level=0.99, successes=500, method="wilson")
EST_STOP = Estimate(
    2.5, 2.0, 3.0, trials=100, level=0.95, std=1.25, method="clt", stopped_by="rel_half_width",
    target_met=True,
)  # fmt: skip


def _table() -> TradeoffTable:
    rows = [
        {"scheme": "frc", "n": 6, "s": 1, "load": 2.0, "exact": True, "failure": 0.0},
        {"scheme": "d-frc", "kind": "approximate", "n": 6, "s": 2, "load": 1.5,
         "failure": 0.0123456789, "note": "a <note> & more"},
    ]  # fmt: skip
    return TradeoffTable.from_rows(rows, {"n": 6, "s": 1}, ["d-frc: <left> out at s = 5"])


def test_estimate_html_is_well_formed_and_holds_the_values():
    p = _parse(EST._repr_html_())
    text = " ".join(p.text)
    assert p.tags[:2] == ["table", "caption"]
    for s in ("0.125", "[0.1, 0.15]", "99% (wilson)", "4000", "successes", "500"):
        assert s in text
    text = " ".join(_parse(EST_STOP._repr_html_()).text)
    for s in ("2.5", "[2, 3]", "95% (clt)", "std", "1.25", "rel_half_width (target met: True)"):
        assert s in text
    assert "successes" not in text


def test_tradeoff_table_html_is_well_formed_holds_values_and_escapes():
    tab = _table()
    html = tab._repr_html_()
    p = _parse(html)
    text = "\n".join(p.text)
    assert "&" in text and "a <note> & more" in p.text and "<note>" not in html
    assert "d-frc: <left> out at s = 5" in p.text
    for s in ("frc", "d-frc", "0.0123457", "2", "1.5", "True", "TradeoffTable(2 rows, n=6"):
        assert s in text
    header = [x for x in p.text if x in TRADEOFF_COLUMNS]
    assert header[:3] == ["scheme", "kind", "n"] and "time" not in header  # empty columns left out
    assert p.tags.count("tr") == 3
    many = TradeoffTable.from_rows([{"scheme": "frc", "s": i} for i in range(70)])
    p = _parse(many._repr_html_())
    assert p.tags.count("tr") == 1 + TradeoffTable.HTML_ROWS + 1
    assert f"... {70 - TradeoffTable.HTML_ROWS} more rows" in p.text


@pytest.fixture()
def fake_pandas(monkeypatch):
    """A stand-in ``pandas`` recording what DataFrame gets."""
    mod = types.ModuleType("pandas")

    class DataFrame:
        def __init__(self, data, columns=None):
            self.data, self.columns, self.attrs = data, columns, {}

    mod.DataFrame = DataFrame
    monkeypatch.setitem(sys.modules, "pandas", mod)
    return mod


def test_to_pandas_hands_the_fields_to_pandas(fake_pandas):
    df = EST.to_pandas()
    assert df.data == [
        {"value": 0.125, "low": 0.1, "high": 0.15, "trials": 4000, "level": 0.99,
         "successes": 500, "std": None, "method": "wilson", "stopped_by": "trials",
         "target_met": None}
    ]  # fmt: skip
    df = _table().to_pandas()
    assert df.columns == list(TRADEOFF_COLUMNS) and len(df.data) == 2
    assert df.data[1]["failure"] == 0.0123456789 and df.data[0]["time"] is None
    assert df.attrs == {"parameters": {"n": 6, "s": 1}, "notes": ["d-frc: <left> out at s = 5"]}


def test_to_pandas_without_pandas_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(ImportError, match="Estimate.to_pandas needs pandas.*pip install pandas"):
        EST.to_pandas()
    with pytest.raises(ImportError, match="TradeoffTable.to_pandas needs.*pip install pandas"):
        _table().to_pandas()


def test_to_pandas_with_real_pandas():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (not a dependency)")
    df = EST.to_pandas()
    assert isinstance(df, pd.DataFrame) and df.shape == (1, 10)
    assert df.loc[0, "value"] == 0.125 and df.loc[0, "method"] == "wilson"
    df = _table().to_pandas()
    assert list(df.columns) == list(TRADEOFF_COLUMNS) and len(df) == 2
    assert math.isclose(df.loc[1, "failure"], 0.0123456789)
    assert df.attrs["parameters"]["n"] == 6


def test_cluster_run_summary_as_html():
    from html.parser import HTMLParser

    from gctheory.cluster import run
    from gctheory.cluster.processes import can_start_processes

    ok, why = can_start_processes()
    if not ok:
        pytest.skip(f"this machine cannot start worker processes: {why}")
    res = run("cyclic_mds", 4, 1, iterations=3, delay="constant(0.001)", progress=False)
    text = res._repr_html_()
    cells: list[str] = []

    class Cells(HTMLParser):
        def handle_data(self, data: str) -> None:
            cells.append(data)

    Cells().feed(text)
    assert text.startswith("<table") and text.endswith("</table>")
    assert "mean iteration time (s)" in cells and "cyclic_mds (n = 4, waits for 3)" in cells
    with pytest.raises(ImportError, match="pip install pandas") if not _has_pandas() else _noop():
        frame = res.to_pandas()
        assert len(frame) == 3


def _has_pandas() -> bool:
    import importlib.util

    return importlib.util.find_spec("pandas") is not None


class _noop:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False
