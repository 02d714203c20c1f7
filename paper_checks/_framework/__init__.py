"""The framework behind the paper checks, apart from the claims themselves.

- :mod:`~paper_checks._framework.registry`: claims, outcomes, the :func:`claim`
  decorator, :func:`close_verdict`, discovery (:func:`all_claims`) and the runner;
- :mod:`~paper_checks._framework.report`: ``REPORT.md`` and ``REPORT.json``;
- :mod:`~paper_checks._framework.ledger`: the ledger of expected verdicts;
- :mod:`~paper_checks._framework.inventory`: the claim inventory of each paper;
- :mod:`~paper_checks._framework.range_search`: theorems checked over their range;
- :mod:`~paper_checks._framework.blas`: one BLAS thread per claim;
- ``common_codes``, ``common_generators``, ``common_training``, ``common_cluster`` (the real
  runs of Tandon et al.'s and ErasureHead's claims): judges and helpers
  shared by the claim modules of several papers.
"""
