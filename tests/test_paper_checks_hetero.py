"""The claims of issue 23's sources (paper_checks/hetero_sources)."""

from __future__ import annotations

import pytest

import paper_checks.hetero_sources  # noqa: F401  (registers the claims)
from paper_checks._framework.registry import _REGISTRY

IDS = {
    ("wang2019icdcs", "optimal-heterogeneous-allocation"): "not checkable",
    ("jahaninezhad2021", "optimal-communication-cost"): "not checkable",
    ("krishnan2023", "bursty-model-rule"): "reproduced",
    ("hetero-internal", "internal-hetero-orderstat-exact"): "reproduced",
    ("hetero-internal", "internal-hetero-code-decodes"): "reproduced",
    ("hetero-internal", "internal-markov-fit-recovers"): "reproduced",
}


@pytest.mark.parametrize(("key", "verdict"), list(IDS.items()))
def test_claims(key, verdict):
    c = next(c for c in _REGISTRY.values() if (c.paper, c.id) == key)
    out = c.check(True)
    assert out.verdict == verdict, out
