"""Claims of the heterogeneity and straggler-memory sources of issue 23 ("Other sources").

One module per cited paper, plus ``internal`` for checks of gctheory's own derivations
(non-identical order statistics, the heterogeneous code, the Markov fits). The papers are
not in ``../shared/papers/``: where only an abstract could be retrieved, the printed
statement is registered as ``not checkable`` and gctheory's derivation is an
``internal-`` claim, as for the expander codes (``paper_checks/raviv2020/expander.py``).
"""

from paper_checks.hetero_sources import internal, jahaninezhad2021, wang2019icdcs

__all__ = ["internal", "jahaninezhad2021", "wang2019icdcs"]
