"""Johri, Yardi & Bodas 2021: persistent (slow/active, Markov) stragglers and data shuffling.

Searched: the pages corpus (tomesphere.com/paper/2105.06124: title, authors, abstract), the
issues corpus (github.com/zoq/arxiv-updates issue 58: the arXiv listing with the
abstract), the docs and code corpora, and the authors' repository
(``AmoghJohri/GradientCoding``: ``Straggler_Models/markov_model.py``, a two-state node
chain; ``Expressions/FractionalRepetitionScheme/non_iid*.py``, the law of the number of
iterations a fractional-repetition group is missed, with and without shuffling). The
paper's own statements (the AWS measurements, the slow/active model, that shuffling
improves gradient coding) are not in the stored text: ``not checkable``. gctheory's own
derivation of the miss count (:mod:`gctheory.delays.markov.missed`: the same mean with and
without shuffling, an excess variance ``N (N - 1) Var(q_i)`` or ``2 sum_d (N - d) Cov_d``
without it) is checked by ``internal-frc-missed-iterations`` against its Monte Carlo twin.
"""

from __future__ import annotations

from paper_checks import Outcome, claim, register_source
from paper_checks._framework.common_codes import unretrieved_claim

PAPER = "johri2021"
register_source(
    PAPER,
    "A. Johri, A. Yardi, T. Bodas, 'Approximate gradient coding for heterogeneous nodes', "
    "arXiv:2105.06124, 2021 (abstract and the authors' code github.com/AmoghJohri/GradientCoding)",
)

unretrieved_claim(
    paper=PAPER,
    id="heterogeneous-straggler-model",
    where="abstract (AWS experiments, slow/active node classes, shuffling)",
    statement="straggler behaviour on an AWS cluster is correlated across iterations; nodes "
    "fall in two classes, slow and active; gradient coding with shuffling of the training data "
    "among workers uses the data held by slow nodes better",
    stored_text="abstract (arXiv listing, tomesphere.com) and the authors' code",
    internal=("internal-frc-missed-iterations",),
)

#: the two persistent models and the run (N iterations, T-fold groups); gctheory's choice
_N, _T = 40, 2
_CLASSES = (0.3, 0.8, 0.1)  # slow share, P(straggle | slow), P(straggle | active)
_CHAIN = (0.2, 0.4)  # Gilbert p = P(good -> bad), r = P(bad -> good)


def _judge(c: dict) -> Outcome:
    cmp = (
        "exact mean and variance of the misses inside the Monte Carlo 99% intervals (both "
        "models, with and without shuffling); equal exact means; positive exact excess variance "
        "without shuffling"
    )
    bad = [k for k, ok in c["inside"].items() if not ok]
    if c["excess"]["classes"] <= 0 or c["excess"]["markov"] <= 0:
        bad.append("no excess variance without shuffling")
    if not c["equal means"]:
        bad.append("means differ with and without shuffling")
    if bad:
        return Outcome("differs", c, cmp, cause="; ".join(bad))
    key = {f"variance {k}": (v, 1e-9) for k, v in c["variance"].items()}
    return Outcome("reproduced", c, cmp, key=key)


def _example(inside: bool, excess: float) -> dict:
    return {
        "inside": {"classes, no shuffle": inside},
        "excess": {"classes": excess, "markov": 1.0},
        "equal means": True,
        "variance": {"classes, no shuffle": 1.0},
    }


@claim(
    paper=PAPER,
    id="internal-frc-missed-iterations",
    where="gctheory.delays.markov.missed (the miss count of a T-fold group over N iterations)",
    statement="with persistent stragglers (slow/active classes or a two-state Markov chain) "
    "the number of iterations a fractional-repetition group is missed has the same mean with "
    "and without shuffling and a larger variance without it (exact, against Monte Carlo)",
    paper_value="none (gctheory's derivation)",
    judge=_judge,
    examples=[
        (_example(True, 1.0), "reproduced"),
        (_example(False, 1.0), "differs"),
        (_example(True, 0.0), "differs"),
    ],
)
def _missed(quick: bool) -> dict:
    from gctheory.delays.markov import (
        GilbertElliott,
        chain_missed_moments,
        class_missed_law,
        missed_mc,
    )

    trials = 2000 if quick else 8000
    chain = GilbertElliott(*_CHAIN)
    inside, variance, mean = {}, {}, {}
    for name, model in (("classes", _CLASSES), ("markov", chain)):
        for shuffle in (False, True):
            label = f"{name}, {'shuffle' if shuffle else 'no shuffle'}"
            if name == "classes":
                law = class_missed_law(_N, _T, *_CLASSES, shuffle=shuffle)
            else:
                law = chain_missed_moments(_N, _T, chain, shuffle=shuffle)
            m, v = missed_mc(_N, _T, model, shuffle=shuffle, trials=trials, rng=3)
            inside[f"{label}: mean"] = bool(m.low <= law.mean <= m.high)
            inside[f"{label}: variance"] = bool(v.low <= law.variance <= v.high)
            variance[label] = float(law.variance)
            mean[label] = law.mean
    return {
        "inside": inside,
        "variance": variance,
        "equal means": all(
            mean[f"{k}, no shuffle"] == mean[f"{k}, shuffle"] for k in ("classes", "markov")
        ),
        "excess": {
            k: variance[f"{k}, no shuffle"] - variance[f"{k}, shuffle"]
            for k in ("classes", "markov")
        },
    }
