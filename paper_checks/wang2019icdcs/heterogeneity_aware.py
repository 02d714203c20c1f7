"""Wang, Guo, Tang, Li, Li: heterogeneity-aware gradient coding (ICDCS 2019).

Searched: the pages corpus (deepai.org copy of the paper: abstract and introduction
only), the code and issues corpora. The construction and the optimality statement
("this scheme is optimal when the computation capabilities of workers are estimated
accurately", abstract) are not printed in the stored text in checkable form, so the
claim is ``not checkable``; gctheory's heterogeneous code on a measured split
(:mod:`gctheory.codes.heterogeneous`) is checked as ``internal-hetero-code-decodes``.
"""

from __future__ import annotations

from paper_checks import register_source
from paper_checks._framework.common_codes import unretrieved_claim

PAPER = "wang2019icdcs"
register_source(
    PAPER,
    "H. Wang, S. Guo, B. Tang, R. Li, C. Li, 'Heterogeneity-aware gradient coding for "
    "straggler tolerance', IEEE ICDCS 2019",
)

unretrieved_claim(
    paper=PAPER,
    id="optimal-heterogeneous-allocation",
    where="abstract and Section IV (the heterogeneity-aware scheme and its optimality)",
    statement="the heterogeneity-aware coding scheme tolerates a predetermined number s of "
    "stragglers, fully uses heterogeneous computation capabilities, and is optimal when the "
    "capabilities are estimated accurately",
    stored_text="abstract and the start of the introduction (deepai.org)",
    internal=("internal-hetero-code-decodes",),
)
