"""The claims of issue 23's sources (one package each: paper_checks/wang2019icdcs,
jahaninezhad2021, johri2021, hetero_internal)."""

from __future__ import annotations

import pytest

import paper_checks.hetero_internal.derivations  # noqa: F401  (each registers its claims)
import paper_checks.jahaninezhad2021.communication_cost  # noqa: F401
import paper_checks.johri2021.straggler_model  # noqa: F401
import paper_checks.krishnan2023.sgc_model  # noqa: F401
import paper_checks.wang2019icdcs.heterogeneity_aware  # noqa: F401
from paper_checks._framework.registry import _REGISTRY

IDS = {
    ("wang2019icdcs", "optimal-heterogeneous-allocation"): "not checkable",
    ("jahaninezhad2021", "optimal-communication-cost"): "not checkable",
    ("krishnan2023", "bursty-model-rule"): "reproduced",
    ("hetero-internal", "internal-hetero-orderstat-exact"): "reproduced",
    ("hetero-internal", "internal-hetero-code-decodes"): "reproduced",
    ("hetero-internal", "internal-markov-fit-recovers"): "reproduced",
    ("johri2021", "heterogeneous-straggler-model"): "not checkable",
    ("johri2021", "internal-frc-missed-iterations"): "reproduced",
}


@pytest.mark.parametrize(("key", "verdict"), list(IDS.items()))
def test_claims(key, verdict):
    c = next(c for c in _REGISTRY.values() if (c.paper, c.id) == key)
    out = c.check(True)
    assert out.verdict == verdict, out
