"""Jahani-Nezhad and Maddah-Ali: optimal communication-computation trade-off in
heterogeneous gradient coding (IEEE JSAIT 2021).

Searched: the pages corpus (a listing with the abstract only), the code and issues
corpora. The optimum communication cost for arbitrary data placement with s stragglers
and a adversarial nodes is stated in the abstract without its formula; the formula and
the universal construction are not in the stored text: ``not checkable``.
"""

from __future__ import annotations

from paper_checks import register_source
from paper_checks._framework.common_codes import unretrieved_claim

PAPER = "jahaninezhad2021"
register_source(
    PAPER,
    "T. Jahani-Nezhad, M. A. Maddah-Ali, 'Optimal communication-computation trade-off in "
    "heterogeneous gradient coding', IEEE J. Sel. Areas Inf. Theory 2(3), 2021",
)

unretrieved_claim(
    paper=PAPER,
    id="optimal-communication-cost",
    where="abstract and main theorem (optimum communication cost, arbitrary placement)",
    statement="for linear gradient coding with arbitrary (heterogeneous) data placement, s "
    "stragglers and a adversarial nodes, the optimum communication cost is characterised and "
    "achieved by a universal construction",
    stored_text="abstract (antares-mm.com listing)",
    internal=("internal-hetero-code-decodes",),
)
