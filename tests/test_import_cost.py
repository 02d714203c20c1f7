"""What each main subpackage imports (issue 27): no plotting, no symbolic algebra, no JIT.

``import gctheory`` is lazy (the stub ``__init__.pyi``); ``gctheory.codes``, ``.ldpc``,
``.order_stats`` and ``.load_bounds`` must not pull matplotlib, sympy or numba in (numba
loads when a compiled kernel first runs). Which SciPy submodules each one needs is stated
here: sparse matrices and dense factorisations for codes and ldpc, ``scipy.stats`` for
order_stats (its API takes frozen ``scipy.stats`` distributions); ``scipy.stats``,
``scipy.optimize`` and ``scipy.integrate`` are imported only by the functions that use them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NEVER = ("matplotlib", "sympy", "numba", "pandas", "torch")

#: the SciPy submodules a subpackage may import (None: any)
ALLOWED_SCIPY = {
    "gctheory": set(),
    "gctheory.codes": {"linalg", "sparse", "special"},
    "gctheory.ldpc": {"linalg", "sparse", "special"},
    "gctheory.load_bounds": set(),  # the group-failure core is numpy only (issue 27)
    "gctheory.montecarlo": {"special"},
    "gctheory.order_stats": None,  # scipy.stats, which imports most of SciPy
}


def _imported(module: str) -> dict[str, list[str]]:
    code = (
        "import json, sys\n"
        f"import {module}\n"
        "top = sorted({m.split('.')[0] for m in sys.modules})\n"
        "sub = sorted({m.split('.')[1] for m in sys.modules if m.startswith('scipy.')})\n"
        "print(json.dumps({'top': top, 'scipy': [s for s in sub if not s.startswith('_')]}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", sorted(ALLOWED_SCIPY))
def test_subpackage_imports_no_plotting_symbolic_or_jit(module):
    got = _imported(module)
    assert not set(NEVER) & set(got["top"]), (module, set(NEVER) & set(got["top"]))
    allowed = ALLOWED_SCIPY[module]
    if allowed is not None:
        extra = set(got["scipy"]) - allowed - {"version"}
        assert not extra, f"{module} imports scipy.{sorted(extra)} at import time"
