"""gctheory: the theory of gradient coding, turned into numbers you can check.

Every analytic quantity (a tail bound, a threshold, a lower bound, an expected
runtime) has a Monte Carlo twin, and the source papers' claims are recomputed
in ``paper_checks``. Modules:

montecarlo    seeded, chunked Monte Carlo engine; ``Estimate`` with confidence intervals;
              adaptive stopping, importance sampling, multilevel splitting
generators    every generator family of [N, K] codes (Gaussian, Vandermonde, Chebyshev,
              Legendre, rotation/circulant embeddings, RKRP) and their systematic forms
codes         gradient codes behind one interface (Tandon, Ye-Abbe, CommFR-GC,
              Reed-Solomon, d-FRC, batch raptor, Bernoulli) and their stability
conditioning  Chen-Dongarra tail bounds, s_kappa (Kadhe et al. Theorem 2), worst-case
              condition numbers of Gaussian and Vandermonde codes
tables        paper tables recomputed (Table I of Kadhe et al.)
ldpc          density-evolution (BP, MAP) thresholds, batched peeling, waterfalls, exact
              finite-length analysis, the scaling law, error floors, LT/raptor
load_bounds   lower bounds on computation load (Wang et al.) and the codes that meet them
order_stats   expected order statistics (exponential, shifted exponential, Pareto, any CDF)
delays        measured delays: traces, fitted laws and their goodness of fit, load scaling,
              the best scheme and s on a measured cluster, replay in the simulator
runtime       expected iteration times of the schemes and the parameters that minimise them
training      straggler simulation of distributed training on real data
tails         rare events: Gaussian condition-number tails, Theorem 2's union, peeling
              failures, by importance sampling with exact likelihood ratios
tradeoff      every scheme side by side for a user's cluster: one table, one atlas
              (``gctheory.tradeoff_table(n, ...)`` computes it)

Every public name of these modules is available here too (imported lazily, on
first use), except names two modules share (``SCHEMES`` of ``runtime`` and of
``training``): use the module for those. Which module defines each name is read
from the type stub ``__init__.pyi`` beside this file, the one table that both a
type checker and the interpreter follow.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

__version__ = "0.2.0"


def _read_stub() -> tuple[tuple[str, ...], dict[str, str]]:
    """Submodules and ``name -> submodule`` from ``__init__.pyi``'s import lines.

    The stub holds only ``from gctheory import (m as m, ...)`` for submodules and
    ``from gctheory.<m> import (name as name, ...)`` for re-exported names.
    """
    tree = ast.parse((Path(__file__).with_name("__init__.pyi")).read_text(encoding="utf-8"))
    submodules: list[str] = []
    lazy: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        if node.module == "gctheory":
            submodules.extend(alias.name for alias in node.names)
        else:
            owner = node.module.removeprefix("gctheory.")
            lazy.update((alias.name, owner) for alias in node.names)
    return tuple(submodules), lazy


_SUBMODULES, _LAZY = _read_stub()

__all__ = ["__version__", *_SUBMODULES, *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"gctheory.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gctheory' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"gctheory.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
