"""Importing the plots leaves matplotlib's global state alone; the figure commands pick Agg."""

from __future__ import annotations

import os
import subprocess
import sys

_PROBE = """
import matplotlib

def raw():  # the stored value, without resolving the automatic backend
    return dict.__getitem__(matplotlib.rcParams, "backend")

before = raw()
def rc():  # every setting, read raw (rcParams["backend"] would resolve the backend)
    return {k: dict.__getitem__(matplotlib.rcParams, k) for k in dict.keys(matplotlib.rcParams)}

rc_before = rc()
import gctheory.plots
from gctheory.plots import all_figures

all_figures()  # every topic module of gctheory.plots, gctheory.plots.tradeoff among them
assert raw() is before or raw() == before, (before, raw())
rc_after = rc()
changed = [k for k in rc_after if k != "backend" and repr(rc_after[k]) != repr(rc_before.get(k))]
assert not changed, changed
matplotlib.use("svg")
import gctheory.plots.tradeoff
assert matplotlib.get_backend().lower() == "svg", matplotlib.get_backend()
print("ok")
"""


def _fresh(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=120
    )


def test_importing_the_plots_does_not_change_the_backend():
    res = _fresh(_PROBE)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_figure_commands_choose_agg_unless_mplbackend_names_one():
    code = (
        "import matplotlib\n"
        "from gctheory.commands._common import use_file_backend\n"
        "use_file_backend()\n"
        "print(matplotlib.get_backend().lower())\n"
    )
    assert _fresh(code).stdout.strip() == "agg"
    assert _fresh(code, MPLBACKEND="svg").stdout.strip() == "svg"
