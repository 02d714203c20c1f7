"""Straggler simulation of distributed training in simulated wall-clock time.

A parameter server trains a regression model (logistic or softmax, real
gradients on real data: scikit-learn's bundled handwritten digits) with ``n``
simulated workers. Every iteration each worker's finishing time is drawn from a
delay model and scaled by its load; the server proceeds as the scheme
prescribes (waits for all, for the fastest K, decodes a gradient code from the
fastest survivors, selects workers lazily, compensates stragglers one step
late); the clock advances by the time the server waited, plus decoding time
from the codes' operation count times ``decode_time_per_op``. Recorded per
iteration: time, loss, accuracy, gradient error against the true full
gradient, communication and computation load.

Schemes (``SCHEMES``): wait-for-all GD; ignore-stragglers / K-SGD / forget-s;
asynchronous SGD (AsySG, updates after every K results, stale gradients) [2];
LGC-SGD with partial work and linear scaling [5]; the gradient codes of
:mod:`gctheory.codes` (cyclic MDS and FRC [6], Ye-Abbe, CommFR-GC [1],
Reed-Solomon [3], d-FRC, BRC, BGC [2], expander codes on random regular or
Margulis graphs [7], graph assignment codes with optimal decoding [8], BIBD
codes [9], stochastic gradient coding [10], IS-GC), built with their options
by :mod:`gctheory.training.codes`; LAG, G-GD, G-LAG and LAGC [4]; the
sequential codes SR-SGC and M-SGC [11] (``sr_sgc``, ``m_sgc``; code_options
``B``, ``W``, ``lam``, ``mu``): job t's exact gradient enters the optimiser at
round t + T, rounds last as in :mod:`gctheory.sgc.runtime`.

Layout (arrows one way, top to bottom): :mod:`~gctheory.training.studies`
(the papers' comparisons, imported on demand) uses
:mod:`~gctheory.training.runs` (memoised repeated runs, metric estimates,
loss bands, F*), which uses :mod:`~gctheory.training.simulator`
(:class:`TrainingRun`, :func:`simulate`), which uses
:mod:`~gctheory.training.schemes` (the schemes, :data:`SCHEMES`,
:func:`make_scheme`) over :mod:`~gctheory.training.codes` (the coded schemes'
code builders, ``CODE_OPTIONS``) and :mod:`~gctheory.training.models`
(datasets, partitions, regression models). Every name below is importable
from here.

References
----------
.. [1] Kadhe, Koyluoglu, Ramchandran, "Communication-efficient gradient coding
   for straggler mitigation in distributed learning", 2019, Section V.
.. [2] Wang, Liu, Shroff, "Fundamental limits of approximate gradient coding",
   2019, Section 5.
.. [3] Halbawi, Azizan, Salehi, Hassibi, "Improving distributed gradient
   descent using Reed-Solomon codes", 2017, Section 6.
.. [4] Zhang, Simeone, "LAGC: Lazily aggregated gradient coding for
   straggler-tolerant and communication-efficient distributed learning", 2020,
   Algorithms 1-2, eqs. (13)-(18).
.. [5] Xu, Huang, Song, Lan, "Live gradient compensation for evading stragglers
   in distributed learning", 2021, Algorithm 1, eqs. (2)-(7), Section V.
.. [6] Tandon, Lei, Dimakis, Karampatziakis, "Gradient coding", ICML 2017.
.. [7] Raviv, Tamo, Tandon, Dimakis, "Gradient coding from cyclic MDS codes and
   expander graphs", IEEE Trans. Inf. Theory 66(12), 2020, Section V.
.. [8] Glasgow, Wootters, "Approximate gradient coding with optimal decoding",
   IEEE J. Sel. Areas Inf. Theory, 2021.
.. [9] Kadhe, Koyluoglu, Ramchandran, "Gradient coding based on block designs for
   mitigating adversarial stragglers", ISIT 2019.
.. [10] Bitar, Wootters, El Rouayheb, "Stochastic gradient coding for straggler
   mitigation in distributed learning", IEEE J. Sel. Areas Inf. Theory, 2020.
.. [11] Krishnan, Ebrahimi, Khisti, "Sequential gradient coding for straggler
   mitigation", ICLR 2023.
"""

from __future__ import annotations

# DELAY_NAMES, DelayModel and parse_delay live in gctheory.delays (listed in its __all__)
# and stay importable from here, as do the private helpers other modules and tests use
from gctheory.delays.models import DELAY_NAMES, DelayModel, parse_delay  # noqa: F401
from gctheory.training.codes import build_code as _code  # noqa: F401
from gctheory.training.models import (  # noqa: F401
    Dataset,
    LogisticRegression,
    SoftmaxRegression,
    _model_and_data,
    load_digits_dataset,
    partition_indices,
    smoothness,
)
from gctheory.training.runs import (  # noqa: F401
    _MEMO,
    _MEMO_SIZE,
    _METRICS,
    _memo_run,
    _metric,
    _metric_sampler,
    _reference_loss,
    estimate_run_metric,
    loss_band,
    reference_loss,
    repeat_runs,
)
from gctheory.training.schemes import (  # noqa: F401
    _ALIASES,
    LGC,
    SCHEMES,
    AsynchronousSGD,
    Coded,
    Grouped,
    IgnoreStragglers,
    Iteration,
    Scheme,
    WaitAll,
    _canon,
    lag_select,
    lgc_compensation,
    make_scheme,
)
from gctheory.training.simulator import (  # noqa: F401
    DIVERGENCE_FACTOR,
    DivergenceWarning,
    TrainingRun,
    _check_options,
    _full_gradient,
    _partition_stats,
    _simulate,
    simulate,
)

__all__ = [
    "SCHEMES",
    "Dataset",
    "LogisticRegression",
    "SoftmaxRegression",
    "TrainingRun",
    "DivergenceWarning",
    "load_digits_dataset",
    "partition_indices",
    "make_scheme",
    "simulate",
    "repeat_runs",
    "estimate_run_metric",
    "loss_band",
    "reference_loss",
    "lgc_compensation",
    "lag_select",
]
