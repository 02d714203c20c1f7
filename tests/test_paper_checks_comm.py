"""The communication claims: kadhe2019's qualitative statements judged with the link model,
and the comm-internal crossover derivations; each verdict flips on its counterfactuals."""

from __future__ import annotations

import pytest

import paper_checks.comm_internal.crossover  # noqa: F401  (each registers its claims)
import paper_checks.kadhe2019.communication  # noqa: F401
from paper_checks._framework.registry import _REGISTRY

IDS = {
    ("kadhe2019", "comm-saving-costs-load"): "reproduced",
    ("kadhe2019", "comm-efficient-wins-when-comm-dominates"): "reproduced",
    ("comm-internal", "internal-comm-crossover-closed-form"): "reproduced",
    ("comm-internal", "internal-comm-crossover-mc"): "reproduced",
    ("comm-internal", "internal-comm-shared-crossover"): "reproduced",
}


def _claim(key):
    return next(c for c in _REGISTRY.values() if (c.paper, c.id) == key)


@pytest.mark.parametrize(("key", "verdict"), list(IDS.items()))
def test_claims(key, verdict):
    out = _claim(key).check(True)
    assert out.verdict == verdict, out


@pytest.mark.parametrize("key", list(IDS))
def test_verdicts_flip(key):
    c = _claim(key)
    verdicts = {c.judge(computed).verdict for computed, _ in c.examples}
    assert len(verdicts) >= 2
    for computed, want in c.examples:
        assert c.judge(computed).verdict == want


NETWORK = [
    ("comm-internal", "internal-network-measured-vs-predicted"),
    ("comm-internal", "internal-network-crossover-observed"),
]


@pytest.mark.parametrize("key", NETWORK)
def test_network_claims_flip_and_are_slow(key):
    import paper_checks.comm_internal.network  # noqa: F401  (registers them)

    c = _claim(key)
    assert c.slow  # real runs over namespaces: skipped in --quick
    verdicts = {c.judge(computed).verdict for computed, _ in c.examples}
    assert {"reproduced", "differs", "not checkable"} <= verdicts
    for computed, want in c.examples:
        assert c.judge(computed).verdict == want


def test_network_claims_not_checkable_without_namespaces(monkeypatch):
    import gctheory.cluster.network as net
    import paper_checks.comm_internal.network as mod

    monkeypatch.setattr(net, "network_available", lambda: (False, "run as root"))
    mod._study.cache_clear()
    try:
        for key in NETWORK:
            out = _claim(key).check(True)
            assert out.verdict == "not checkable" and "run as root" in out.cause
    finally:
        mod._study.cache_clear()
