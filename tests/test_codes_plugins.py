"""A third-party code family, installed in the test session through an entry point.

``tinycode`` is written to a temporary folder with its ``.dist-info`` (METADATA and
``entry_points.txt``), which ``importlib.metadata`` finds on ``sys.path``: an installed
package as far as gctheory can tell. Its families must appear in the four places a
family appears (``gctheory codes``, the training schemes, the tradeoff atlas,
``codes.load``) without any edit of gctheory, and broken entry points are refused
naming the problem.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from gctheory.cli import main
from gctheory.codes import plugins

TINYCODE = '''
"""A tiny third-party gradient-code family (the test of gctheory's plug-ins)."""

import numpy as np

from gctheory.codes import CodeFamily, GradientCode


class TinyRepetitionCode(GradientCode):
    """Repetition: groups of s + 1 workers each hold one block and send its sum."""

    name = "tiny repetition"

    def __init__(self, n, s):
        if s < 0 or s >= n or n % (s + 1):
            raise ValueError(f"tiny repetition needs (s + 1) | n, got n={n}, s={s}")
        self.n, self.k, self.s, self.m = n, n, s, 1
        group = np.arange(n) // (s + 1)  # worker i's group; partition j's block likewise
        self.support = group[:, None] == group[None, :]
        self.load = int(self.support.sum(axis=1).max())

    @property
    def encoding_matrix(self):
        return self.support.T.astype(float)


def _tradeoff(n, s):
    code = TinyRepetitionCode(n, s)
    return {"load": code.load, "exact": True, "failure": 0.0, "guarantee": "by hand"}


SPEC = CodeFamily(
    "tiny-spec",
    TinyRepetitionCode,
    build=lambda n, s: TinyRepetitionCode(n, s),
    tradeoff=_tradeoff,
    options=(),
    description="the same code, registered through a spec",
)
NOT_A_CODE = 42
'''


def _install(root: Path, entry_points: dict[str, str], dist: str = "tinycode") -> None:
    (root / "tinycode").mkdir(exist_ok=True)
    (root / "tinycode" / "__init__.py").write_text(textwrap.dedent(TINYCODE))
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[gctheory.codes]\n{lines}")


def _activate(root: Path):
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    plugins.clear_plugin_cache()


def _deactivate(root: Path) -> None:
    sys.path.remove(str(root))
    sys.modules.pop("tinycode", None)
    importlib.invalidate_caches()
    plugins.clear_plugin_cache()


@pytest.fixture()
def tinycode(tmp_path):
    _install(
        tmp_path,
        {"tiny-repetition": "tinycode:TinyRepetitionCode", "tiny-spec": "tinycode:SPEC"},
    )
    _activate(tmp_path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a good plug-in loads without a warning
            yield importlib.import_module("tinycode")
    finally:
        _deactivate(tmp_path)


def test_the_families_are_discovered_after_the_built_ins(tinycode):
    fams = plugins.code_families()
    assert list(fams)[-2:] == ["tiny-repetition", "tiny-spec"]
    assert {"cyclic_mds", "frc", "ye_abbe", "rs"} <= set(fams)
    fam = fams["tiny-repetition"]
    assert fam.cls is tinycode.TinyRepetitionCode and fam.plugin
    assert fam.source == "tinycode:TinyRepetitionCode"
    assert fam.description.startswith("Repetition: groups")
    code = plugins.code_family("TINY-REPETITION").make(6, 1)
    G = np.random.default_rng(0).standard_normal((6, 3))
    S = [0, 2, 3, 4, 5]
    assert np.allclose(code.decode(S, code.encode(G)[S]), G.sum(axis=0))
    with pytest.raises(ValueError, match=r"\['wide'\] are not options of code family 'tiny-spec'"):
        plugins.code_family("tiny-spec").make(6, 1, wide=2)
    assert not plugins.code_family("frc").plugin


def test_an_unknown_family_lists_the_valid_ones(tinycode):
    with pytest.raises(ValueError, match=r"unknown code family 'nope'.*frc.*tiny-repetition"):
        plugins.code_family("nope")


def test_gctheory_codes_lists_and_verifies_a_plugin_family(tinycode, capsys):
    assert main(["codes", "list", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "tiny-repetition,plug-in tinycode:TinyRepetitionCode,Repetition" in out
    assert 'tiny-spec,plug-in tinycode:SPEC,"the same code' in out
    assert "cyclic-mds,gctheory" in out
    assert main(["codes", "verify", "tiny-repetition", "--n", "6", "--s", "2"]) == 0
    out = capsys.readouterr().out
    assert "tiny repetition: n=6" in out and "ok" in out
    assert main(["codes", "verify", "tiny-spec", "--n", "6", "--s", "3"]) == 2
    assert "(s + 1) | n" in capsys.readouterr().err
    assert main(["codes", "verify", "tiny-spec", "--n", "6", "--s", "1", "--k", "3"]) == 2
    assert "--k is not used by family 'tiny-spec'" in capsys.readouterr().err
    assert main(["codes", "verify", "tiny-nope", "--n", "6", "--s", "1"]) == 2
    assert "unknown family 'tiny-nope'; did you mean tiny-" in capsys.readouterr().err


def test_a_plugin_family_is_a_training_scheme(tinycode, tmp_path, capsys):
    from gctheory.training import make_scheme

    sch = make_scheme("tiny-repetition", 6, s=1)
    assert isinstance(sch.code, tinycode.TinyRepetitionCode) and sch.f == 5
    with pytest.raises(ValueError, match=r"needs \(s \+ 1\) \| n, got n=6, s=3"):
        make_scheme("tiny-spec", 6, s=3)
    with pytest.raises(ValueError, match=r"\['wide'\] are not options of code family"):
        make_scheme("tiny-spec", 6, s=1, code_options={"wide": 2})
    assert main(["simulate", "--list", "--format", "csv"]) == 0
    listed = capsys.readouterr().out
    assert 'tiny-spec,"the same code, registered through a spec (plug-in' in listed
    argv = ["simulate", "--scheme", "tiny-repetition", "--n", "6", "--s", "1"]
    argv += ["--iterations", "3", "--out", str(tmp_path / "run"), "--format", "csv"]
    assert main(argv) == 0
    assert len((tmp_path / "run.csv").read_text().splitlines()) >= 4
    assert main(["simulate", "--scheme", "tiny-nope", "--n", "6", "--s", "1"]) == 2
    assert "unknown scheme 'tiny-nope'" in capsys.readouterr().err


def test_the_atlas_has_a_row_wherever_a_plugin_family_can_be_built(tinycode):
    from gctheory.tradeoff import tradeoff

    tab = tradeoff(6, quick=True, delay="exp(1)", schemes=["frc", "tiny-repetition", "tiny-spec"])
    for name in ("tiny-repetition", "tiny-spec"):
        rows = tab.select(scheme=name)
        assert [r["s"] for r in rows] == [0, 1, 2, 5]  # (s + 1) | 6
        assert all(r["exact"] and r["failure"] == 0.0 and r["kind"] == "exact" for r in rows)
        assert [r["load"] for r in rows] == [1, 2, 3, 6]
        assert all(r["communication"] == 1.0 and r["time"] > 0 for r in rows)
        note = next(x for x in tab.notes if x.startswith(f"{name}: left out at s = 3, 4"))
        assert "(s + 1) | n, got n=6, s=3" in note
    assert tab.select(scheme="tiny-spec")[0]["guarantee"] == "by hand"  # its own builder
    assert tab.select(scheme="tiny-repetition")[0]["source"].startswith("code plug-in tinycode")
    # the frc's layout decodes as soon as every group has one survivor; the plug-in's rows
    # are timed by what its decoder promises (any n - s), never faster
    for a, b in zip(tab.select(scheme="frc"), tab.select(scheme="tiny-repetition")):
        assert a["s"] == b["s"] and b["time"] >= a["time"] - 1e-12
    default = tradeoff(6, quick=True, s_values=[1])
    assert default.schemes()[-2:] == ["tiny-repetition", "tiny-spec"]


def test_a_saved_plugin_code_loads_while_its_plugin_is_installed(tinycode, tmp_path):
    from gctheory import codes

    code = plugins.code_family("tiny-repetition").make(8, 3)
    path = code.save(tmp_path / "tiny.npz")
    back = codes.load(path)
    assert type(back) is tinycode.TinyRepetitionCode
    assert (
        np.array_equal(back.support, code.support) and back.__dict__.keys() == code.__dict__.keys()
    )
    assert (back.n, back.k, back.s, back.load) == (8, 8, 3, 4)
    plugins.clear_plugin_cache()
    sys.path.remove(str(tmp_path))  # uninstalled: the class is not trusted any more
    try:
        with pytest.raises(ValueError, match="tinycode is not a module of gctheory or of an inst"):
            codes.load(path)
    finally:
        sys.path.insert(0, str(tmp_path))
        plugins.clear_plugin_cache()


def test_broken_entry_points_are_left_out_naming_the_problem(tmp_path):
    _install(
        tmp_path,
        {
            "tiny-missing": "tinycode:NoSuchCode",
            "tiny-nomodule": "tinycode_absent:Code",
            "tiny-int": "tinycode:NOT_A_CODE",
            "frc": "tinycode:TinyRepetitionCode",
            "tiny-good": "tinycode:TinyRepetitionCode",
        },
    )
    _activate(tmp_path)
    try:
        with pytest.warns(UserWarning) as caught:
            fams = plugins.code_families()
        text = "\n".join(str(w.message) for w in caught)
        assert list(plugins.plugin_families()) == ["tiny-good"] and "tiny-good" in fams
        assert fams["frc"].source == "gctheory"
        assert "entry point 'frc'" in text and "the name 'frc' is taken by gctheory's own" in text
        assert not plugins.code_family("frc").plugin  # the built-in stays
        for name, why in [
            ("tiny-missing", r"tinycode:NoSuchCode.*cannot be loaded: AttributeError"),
            ("tiny-nomodule", r"cannot be loaded: ModuleNotFoundError"),
            ("tiny-int", r"names a int: expected a GradientCode subclass or a CodeFamily"),
        ]:
            assert f"entry point {name!r}" in text
            with pytest.raises(ValueError, match=why):
                plugins.code_family(name)
        from gctheory.training import make_scheme

        with pytest.raises(ValueError, match="unknown scheme 'tiny-missing'.*tiny-good"):
            make_scheme("tiny-missing", 6, s=1)
    finally:
        _deactivate(tmp_path)
    assert "tiny-good" not in plugins.code_families()
