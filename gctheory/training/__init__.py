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
by :mod:`gctheory._training_codes`; LAG, G-GD, G-LAG and LAGC [4].

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
"""

from __future__ import annotations

import collections
import functools
import inspect
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gctheory import montecarlo
from gctheory._training_codes import build_code as _code
from gctheory._training_models import (
    Dataset,
    LogisticRegression,
    SoftmaxRegression,
    load_digits_dataset,
    partition_indices,
    smoothness,
)
from gctheory._training_schemes import (
    LGC,
    AsynchronousSGD,
    Coded,
    Grouped,
    IgnoreStragglers,
    Iteration,
    Scheme,
    WaitAll,
    lag_select,
    lgc_compensation,
)
from gctheory._validate import as_generator, check_int, check_real
from gctheory.delays._threads import blas_single_thread
from gctheory.delays.models import DELAY_NAMES, DelayModel, parse_delay  # noqa: F401 (re-export)

# DELAY_NAMES, DelayModel and parse_delay live in gctheory.delays (listed in its __all__)
# and stay importable from here
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

_ALIASES = {
    "ksgd": "ignore",
    "forget-s": "ignore",
    "forget_s": "ignore",
    "full": "gd",
    "gc": "cyclic_mds",
    "graph-assignment": "graph_assignment",
    "stochastic": "sgc",
}
SCHEMES: dict[str, str] = {
    "gd": "wait for all n workers (uncoded GD, Full-SGD)",
    "ignore": "ignore stragglers: fastest K of n, uncoded (K-SGD, forget-s)",
    "lgc": "LGC-SGD: fastest K now, stragglers compensated next iteration (Xu et al. 2021)",
    "asysg": "asynchronous SGD: update after every K results, stale gradients (Wang et al. 2019)",
    "cyclic_mds": "Tandon et al. cyclic-MDS gradient code, load s+1 (alias gc)",
    "frc": "Tandon et al. fractional repetition code, (s+1) | n",
    "ye_abbe": "Ye-Abbe communication-efficient code, load s+m",
    "commfr": "CommFR-GC on an MDS code (Kadhe et al. 2019)",
    "rs": "Reed-Solomon gradient code (Halbawi et al. 2017)",
    "dfrc": "d-fractional repetition code, approximate (Wang et al. 2019)",
    "brc": "batch raptor code, approximate, peeling decoder (Wang et al. 2019)",
    "bgc": "Bernoulli gradient code, approximate (Wang et al. 2019)",
    "expander": "expander-graph code, approximate, random d-regular or Margulis graph, "
    "optimal or fixed decoder (Raviv et al. 2020)",
    "graph_assignment": "graph assignment code: workers are a d-regular graph's edges, "
    "optimal decoding (Glasgow & Wootters 2021)",
    "bibd": "BIBD code: workers are a block design's points, optimal decoding "
    "(Kadhe et al. ISIT 2019)",
    "sgc": "stochastic gradient coding: unbiased estimator, cyclic or pair-wise balanced "
    "placement (Bitar et al. 2020)",
    "isgc": "IS-GC: largest partial sum of an FR / cyclic / hybrid placement (ignore stragglers)",
    "lag": "LAG-PS: lazily selected workers, no redundancy (Zhang & Simeone 2020)",
    "ggd": "grouped GD: groups of r workers each storing the group's data",
    "glag": "grouped LAG (Zhang & Simeone 2020, Algorithm 2)",
    "lagc": "lazily aggregated gradient coding (Zhang & Simeone 2020, Algorithm 1)",
}


def _canon(scheme: str) -> str:
    name = _ALIASES.get(str(scheme).lower(), str(scheme).lower())
    if name not in SCHEMES:
        raise ValueError(
            f"unknown scheme {scheme!r}; valid schemes: {', '.join(SCHEMES)} "
            f"(aliases: {', '.join(f'{a}={b}' for a, b in _ALIASES.items())})"
        )
    return name


def make_scheme(
    scheme: str,
    n: int,
    *,
    K: int | None = None,
    s: int | None = None,
    r: int | None = None,
    groups: int | None = None,
    m: int = 1,
    xi: float = 0.1,
    D: int = 10,
    blocks: int = 4,
    partial_work: bool = False,
    linear_scaling: bool = True,
    warmup: int = 0,
    code_options: dict[str, Any] | None = None,
    rng: Any = None,
) -> Scheme:
    """Build one scheme for ``n`` workers.

    Parameters
    ----------
    scheme : str
        A name of :data:`SCHEMES` (or an alias).
    n : int
        Number of workers.
    K, s : int
        Number of workers waited for (``K``) or stragglers tolerated
        (``s = n - K``); for ``ignore``, ``lgc``, ``asysg`` (results per update)
        and the gradient codes.
    r : int
        Storage redundancy for ``ggd``, ``glag``, ``lagc`` (Zhang & Simeone 2020).
    groups : int
        Number of groups for ``lagc`` (``ggd``/``glag`` use n/r groups).
    m : int
        Communication saving of ``ye_abbe`` / ``commfr`` (Kadhe et al. 2019).
    xi, D : float, int
        LAG constants of rule (13)/(17) (weight and memory); defaults
        ``xi = 0.1 = 1/D``, ``D = 10`` as in Chen et al. 2018's experiments.
    blocks, partial_work, linear_scaling, warmup :
        LGC options (Xu et al. 2021, Algorithm 1, eq. (6)); see :class:`LGC`.
    code_options : dict
        Options of the gradient code (:data:`gctheory._training_codes.CODE_OPTIONS`
        lists each scheme's; any other key is a ``ValueError``), e.g.
        ``{"d": 4}`` (replication of ``dfrc``, degree of ``expander``,
        ``graph_assignment`` and cyclic ``sgc``), ``{"graph": "margulis"}``
        (``expander`` on the Margulis graph, ``n = m^2``), ``{"decoder":
        "fixed"}`` (``expander``), ``{"placement": "hybrid", "c1": 2,
        "groups": 5}`` (``isgc``), ``{"block_size": 3, "lam": 1}`` (``bibd``),
        ``{"p": 0.2, "placement": "pairwise-balanced"}`` (``sgc``);
        approximate codes also take ``wait_for``.

    Examples
    --------
    >>> make_scheme("expander", 16, s=3, code_options={"graph": "margulis"}).code.d
    8
    >>> make_scheme("dfrc", 20, s=4, code_options={"d": 5}).code.d
    5
    """
    name = _canon(scheme)
    n = check_int(n, "n", low=1)
    if s is not None:
        s = check_int(s, "s", low=0, high=n - 1)
    if K is not None and s is not None and K != n - s:
        raise ValueError(f"give K or s, not both inconsistent ones (K={K}, s={s}, n={n})")
    if K is None and s is not None:
        K = n - s
    if K is not None:
        if isinstance(K, (int, np.integer)) and K > n:
            raise ValueError(
                f"K must be at most n={n} (cannot wait for more workers than exist), got K={K}"
            )
        K = check_int(K, "K", low=1, high=n)
    if code_options is not None and not isinstance(code_options, Mapping):
        raise ValueError(
            f"code_options must be a dict of keyword arguments or None, got {code_options!r}"
        )
    opts = dict(code_options or {})
    if name == "gd":
        return WaitAll(n)
    if name == "asysg":
        if K is None:
            raise ValueError("scheme 'asysg' needs K (results per update) or s")
        return AsynchronousSGD(n, K)
    if name in ("ignore", "lgc"):
        if K is None:
            raise ValueError(f"scheme {name!r} needs K (workers waited for) or s")
        if name == "ignore":
            return IgnoreStragglers(n, K)
        return LGC(
            n,
            K,
            check_int(blocks, "blocks", low=1),
            bool(partial_work),
            bool(linear_scaling),
            check_int(warmup, "warmup", low=0),
        )
    if name in ("lag", "ggd", "glag", "lagc"):
        if name == "lag":
            sch = Grouped(n, n, 1, True, "lag", xi, D)
            return sch
        if r is None:
            raise ValueError(f"scheme {name!r} needs the storage redundancy r")
        r = check_int(r, "r", low=1, high=n)
        if name in ("ggd", "glag"):
            if n % r:
                raise ValueError(
                    f"r must divide n for {name!r} (groups of r workers), got n={n}, r={r}"
                )
            return Grouped(n, n // r, r, name == "glag", name, xi, D)
        if groups is None:
            raise ValueError("scheme 'lagc' needs the number of groups")
        groups = check_int(groups, "groups", low=1, high=n)
        if n % groups:
            raise ValueError(f"groups must divide n, got n={n}, groups={groups}")
        if r >= n // groups:
            raise ValueError(
                f"lagc needs r < n/groups = {n // groups} (use glag for r = n/groups), got r={r}"
            )
        return Grouped(
            n,
            groups,
            r,
            True,
            "lagc",
            xi,
            D,
            code_factory=lambda ng, ss: _code("cyclic_mds", ng, ss, rng=rng),
        )
    # gradient codes
    wait_for = opts.pop("wait_for", None)
    if K is None and wait_for is None:
        raise ValueError(f"scheme {name!r} needs K (workers waited for) or s")
    s_ = n - (K if K is not None else wait_for)
    code = _code(name, n, s_, m=check_int(m, "m", low=1), rng=rng, **opts)
    if code.s is not None:
        f = n - code.s
        if K is not None and K != f:
            raise ValueError(f"{name} with s={code.s} waits for n - s = {f} workers, got K={K}")
    else:
        f = K if K is not None else wait_for
    return Coded(code, int(f), name)


# ---------------------------------------------------------------------------
# the simulator


@dataclass(frozen=True, eq=False)
class TrainingRun:
    """One simulated training run.

    Arrays are indexed by iteration; ``time``, ``loss`` and ``accuracy`` have
    one more entry (the start, t = 0, time 0) than the per-step arrays.

    Attributes
    ----------
    scheme : str
    time : ndarray (T+1,)
        Simulated wall-clock time after each iteration.
    loss, accuracy : ndarray (T+1,)
        Training loss F(w_t) and training accuracy at the iterates.
    grad_error : ndarray (T,)
        ``|g_hat - grad F| / |grad F|`` of the gradient the server used.
    wait : ndarray (T,)
        Time the server waited each iteration (decoding time excluded).
    comm, comp : ndarray (T,)
        Communication load (downloads + uploads) and computation load
        (partial gradients computed), Zhang & Simeone 2020, eqs. (7)-(8).
    draws : ndarray (T, n) or None
        The per-unit-load times drawn (with ``record_draws=True``).
    stats : dict of ndarray (T,) or None
        With ``record_stats=True``, the quantities of Xu et al. 2021's
        Assumption 1 at each iterate x_t the server computed a gradient at
        (t = 0..T-1), over the k data partitions (worker ``j``'s objective
        ``F_j = (k N_j / N) mean_{s in D_j} l_s + (l2/2)|w|^2``, so that
        ``F = (1/k) sum_j F_j`` is the training loss): ``grad_norm2``
        ``|grad F(x_t)|^2``; ``beta2`` ``max_j |grad F_j - grad F|^2`` (eq. (11));
        ``sigma2`` ``max_j`` of the per-sample gradient variance of ``F_j``
        about ``grad F_j`` (eq. (10)).
    loads : ndarray (n,)
        Relative loads of the workers.
    w : ndarray
        The final model.
    """

    scheme: str
    time: np.ndarray
    loss: np.ndarray
    accuracy: np.ndarray
    grad_error: np.ndarray
    wait: np.ndarray
    comm: np.ndarray
    comp: np.ndarray
    loads: np.ndarray
    w: np.ndarray = field(repr=False)
    draws: np.ndarray | None = field(default=None, repr=False)
    stats: dict[str, np.ndarray] | None = field(default=None, repr=False)

    @property
    def iterations(self) -> int:
        return len(self.wait)

    def time_to_loss(self, target: float) -> float:
        """First simulated time at which the loss is <= ``target`` (inf if never)."""
        hit = np.flatnonzero(self.loss <= target)
        return float(self.time[hit[0]]) if hit.size else math.inf

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        """The loss of the latest iterate finished by each of ``times`` (a step function)."""
        idx = np.searchsorted(self.time, np.asarray(times, float), side="right") - 1
        return self.loss[np.clip(idx, 0, None)]

    def __repr__(self) -> str:
        return (
            f"TrainingRun({self.scheme!r}, iterations={self.iterations}, time={self.time[-1]:.4g}, "
            f"loss={self.loss[-1]:.4g})"
        )


class DivergenceWarning(UserWarning):
    """The training loss became non-finite or grew past ``DIVERGENCE_FACTOR`` times its
    starting value (the step size is too large); the run stopped."""


DIVERGENCE_FACTOR = 1e3
"""A loss this many times its value at the start means the run diverges (a converging
gradient method never raises the loss by three orders of magnitude)."""


def _model_and_data(model: Any, data: Any, l2: float) -> tuple[Any, Dataset]:
    if isinstance(model, str):
        if model not in ("logistic", "softmax"):
            raise ValueError(
                f"model must be 'logistic', 'softmax' or a model object, got {model!r}"
            )
        model = LogisticRegression(l2) if model == "logistic" else SoftmaxRegression(l2)
    if not isinstance(model, (LogisticRegression, SoftmaxRegression)):
        raise ValueError(f"model must be 'logistic', 'softmax' or a model object, got {model!r}")
    if data is None:
        data = "digits-binary" if model.name == "logistic" else "digits"
    if isinstance(data, str):
        if data not in ("digits", "digits-binary"):
            raise ValueError(f"data must be 'digits', 'digits-binary' or a Dataset, got {data!r}")
        data = load_digits_dataset("binary" if data == "digits-binary" else "multiclass")
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be 'digits', 'digits-binary' or a Dataset, got {data!r}")
    model.check(data)
    return model, data


def simulate(
    scheme: str,
    *,
    n: int,
    delay: Any = "exp(1)",
    iterations: int = 100,
    model: Any = "softmax",
    data: Any = None,
    partition: Any = "iid",
    step_size: float | None = None,
    l2: float = 1e-3,
    persist: int = 1,
    n_slow: int = 0,
    slowdown: float = 1.0,
    comm_time: float = 0.0,
    decode_time_per_op: float = 0.0,
    target_loss: float | None = None,
    record_draws: bool = False,
    rng: Any = None,
    batch_size: int | None = None,
    record_stats: bool = False,
    **scheme_options: Any,
) -> TrainingRun:
    """Simulate one training run of ``scheme`` with ``n`` workers.

    Parameters
    ----------
    scheme : str
        A name of :data:`SCHEMES`; ``scheme_options`` (``K``, ``s``, ``r``,
        ``groups``, ``m``, ``xi``, ``D``, ``blocks``, ``partial_work``,
        ``linear_scaling``, ``warmup``, ``code_options``) go to :func:`make_scheme`.
    n : int
        Number of workers.
    delay : str, scipy.stats distribution, DelayModel or Trace
        Per-unit-load computing time (see :func:`parse_delay`), e.g.
        ``"shifted_exp(0.05, 0.02)"`` (Xu et al. 2021, Section V-B), or
        ``"trace:PATH"``: measured rounds replayed worker by worker
        (:mod:`gctheory.delays.replay`; a worker's data share ``load_i / n``
        is matched to the trace's loads, others reached by the fitted load
        model).
    iterations : int
        Number of iterations (fewer if ``target_loss`` is reached first).
    model, data :
        ``"softmax"`` (default data: the 10 digits) or ``"logistic"`` (default
        data: digit >= 5), or model / :class:`Dataset` objects.
    partition : "iid" or int c
        IID, or non-IID(c) (each data partition holds c classes; Xu et al. 2021).
    step_size : float
        Gradient step ``alpha``; default ``1/L`` with L the smoothness constant
        of the full loss (the choice of Zhang & Simeone 2020, Section V).
    l2 : float
        Ridge penalty of the model.
    persist, n_slow, slowdown, comm_time :
        Options of :class:`DelayModel` (persistent stragglers for ``persist``
        iterations; ``n_slow`` background-slowed workers; upload time).
    decode_time_per_op : float
        Simulated time per multiply-add of the code's decoder (its
        ``decoding_cost``); 0 ignores decoding time.
    target_loss : float
        Stop as soon as the training loss is <= this (a number >= 0).
    record_draws : bool
        Keep every iteration's delay draws in the result.
    rng : seed or Generator
        All randomness of the run (partition, code construction, delays,
        mini-batches).
    batch_size : int or None
        None (default): every partial gradient is over its whole data
        partition (full-batch GD). ``m``: mini-batch SGD (Xu et al. 2021,
        eq. (2)): every iteration each data partition draws ``m`` of its
        samples without replacement (seeded, from a generator of its own, so
        every scheme with the same seed sees the same mini-batches), and its
        partial gradient is the unbiased estimate ``(N_j/m) sum_batch`` of the
        partition's; LGC's blocks (``blocks``) split the mini-batch. ``m``
        must not exceed the smallest partition.
    record_stats : bool
        Record the gradient norm, heterogeneity and per-sample variance at
        every iterate (``TrainingRun.stats``; costs about one more gradient
        per iteration).

    Returns
    -------
    TrainingRun

    Raises
    ------
    ValueError
        Before any work: an unknown option (the error lists the valid ones),
        ``n`` larger than the dataset, a NaN or negative ``target_loss``, ...

    Warns
    -----
    DivergenceWarning
        When the loss becomes non-finite or exceeds :data:`DIVERGENCE_FACTOR`
        times its starting value; the run stops there.
    """
    _check_options(scheme_options)
    # overflow of a diverging run is reported once, as a DivergenceWarning, not per product
    with blas_single_thread(), np.errstate(over="ignore", invalid="ignore"):
        return _simulate(scheme, n, delay, iterations, model, data, partition, step_size, l2,
                         persist, n_slow, slowdown, comm_time, decode_time_per_op, target_loss,
                         record_draws, rng, scheme_options, batch_size, record_stats)  # fmt: skip


def _check_options(scheme_options: dict[str, Any]) -> None:
    """Refuse an unknown keyword of :func:`simulate`, listing the valid ones."""
    valid = [
        p for p in inspect.signature(make_scheme).parameters if p not in ("scheme", "n", "rng")
    ]
    bad = sorted(k for k in scheme_options if k not in valid)
    if bad:
        own = [p for p in inspect.signature(simulate).parameters if p != "scheme_options"]
        raise ValueError(
            f"unknown option(s) {bad} of simulate; valid scheme options: {', '.join(valid)}; "
            f"simulate's own: {', '.join(own)}"
        )


def _simulate(
    scheme, n, delay, iterations, model, data, partition, step_size, l2, persist, n_slow,
    slowdown, comm_time, decode_time_per_op, target_loss, record_draws, rng, scheme_options,
    batch_size=None, record_stats=False,
) -> TrainingRun:  # fmt: skip
    rng = as_generator(rng)
    batch_rng = None
    if batch_size is not None:
        batch_size = check_int(batch_size, "batch_size", low=1)
        # a stream of its own, drawn first: the same mini-batches for every scheme of a seed
        batch_rng = np.random.default_rng(rng.integers(2**63))
    iterations = check_int(iterations, "iterations", low=1)
    n = check_int(n, "n", low=1)
    if target_loss is not None:
        target_loss = check_real(target_loss, "target_loss", low=0.0)
    if step_size is not None:
        step_size = check_real(step_size, "step_size", low=0.0, low_open=True)
    decode_time_per_op = check_real(decode_time_per_op, "decode_time_per_op", low=0.0)
    if partition in ("iid", None):
        c = None
    elif isinstance(partition, (int, np.integer)) and not isinstance(partition, bool):
        c = int(partition)
    else:
        raise ValueError(f"partition must be 'iid' or an int c (non-IID(c)), got {partition!r}")
    model, ds = _model_and_data(model, data, l2)
    n_samples = len(ds.y)
    if n > n_samples:
        raise ValueError(
            f"n={n} workers is more than the {n_samples} samples of the dataset {ds.name!r}: "
            f"every worker's data partition needs at least one sample; use n <= {n_samples}"
        )
    dm = parse_delay(delay, persist=persist, n_slow=n_slow, slowdown=slowdown, comm_time=comm_time)
    if dm.n_slow > n:
        raise ValueError(f"n_slow must be at most n={n}, got {dm.n_slow}")
    sch = make_scheme(scheme, n, rng=rng, **scheme_options)
    if sch.k > n_samples:
        raise ValueError(
            f"scheme {sch.name!r} cuts the data into k={sch.k} partitions, more than the "
            f"{n_samples} samples of {ds.name!r}; use fewer partitions"
        )
    if dm.replay is not None:
        dm.replay.check(n, sch.loads)
    k = sch.k
    parts = [
        rng.permutation(p) for p in partition_indices(ds.classes, k, classes_per_part=c, rng=rng)
    ]
    order = np.concatenate(parts)
    Xo, yo = ds.X[order], ds.y[order]
    bounds = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    sizes = np.diff(bounds)
    N = len(yo)
    if batch_size is not None and batch_size > sizes.min():
        raise ValueError(
            f"batch_size must be at most the smallest data partition ({sizes.min()} samples "
            f"of {k} partitions), got {batch_size}"
        )
    batch: list[np.ndarray] = []
    smooth = np.array(
        [smoothness(model, Xo[bounds[j] : bounds[j + 1]], N, 1 / k) for j in range(k)]
    )
    L = smoothness(model, Xo, N, 1.0)
    alpha = 1.0 / L if step_size is None else float(step_size)
    sch.prepare(smooth, alpha, dm.comm_time)
    dim = model.dim(ds)
    w = np.zeros(dim)
    l2k = model.l2 / k

    def block_grad(j: int, r: int, s: int) -> np.ndarray:
        a, b = bounds[j], bounds[j + 1]
        if batch:  # the first r of s blocks of partition j's mini-batch, scaled like G[j]
            idx = batch[j][: sum(len(c) for c in np.array_split(batch[j], s)[:r])]
            return (
                model.back(Xo[idx], resid[idx]) * (sizes[j] / len(batch[j])) / N + (r / s) * l2k * w
            )
        cut = a + sum(len(c) for c in np.array_split(np.arange(b - a), s)[:r])
        return model.back(Xo[a:cut], resid[a:cut]) / N + (r / s) * l2k * w

    times, losses, accs = [0.0], [], []
    gerr, waits, comms, comps, draws = [], [], [], [], []
    stats: dict[str, list[float]] = {"grad_norm2": [], "beta2": [], "sigma2": []}
    clock = 0.0
    X = None
    for t in range(iterations + 1):
        loss_sum, resid, correct = model.forward(w, Xo, yo)
        losses.append(loss_sum / N + 0.5 * model.l2 * float(w @ w))
        accs.append(correct / N)
        if t == iterations or (target_loss is not None and losses[-1] <= target_loss):
            break
        if not losses[-1] <= DIVERGENCE_FACTOR * max(losses[0], 1e-300):  # NaN included
            grew = (
                f"the loss is {losses[-1]}"
                if not math.isfinite(losses[-1])
                else f"the loss grew from {losses[0]:.4g} to {losses[-1]:.4g} (more than "
                f"{DIVERGENCE_FACTOR:g} times its start: the run diverges)"
            )
            warnings.warn(
                f"{sch.name}: {grew} at iteration {t} (step size {alpha:.3g}); the run stops here",
                DivergenceWarning,
                stacklevel=3,
            )
            break
        if batch_rng is None or record_stats:  # the partitions' full gradients
            G = np.stack(
                [
                    model.back(Xo[bounds[j] : bounds[j + 1]], resid[bounds[j] : bounds[j + 1]])
                    for j in range(k)
                ]
            )
            G /= N
            G += l2k * w
        if record_stats:
            _partition_stats(stats, G, Xo, resid, bounds, N, k)
        if batch_rng is not None:
            batch = [bounds[j] + batch_rng.choice(sizes[j], batch_size, replace=False)
                     for j in range(k)]  # fmt: skip
            G = np.stack([model.back(Xo[i], resid[i]) * (sizes[j] / batch_size)
                          for j, i in enumerate(batch)]) / N + l2k * w  # fmt: skip
        if dm.replay is not None:
            X = dm.replay.per_unit_times(t, sch.loads, rng)
        elif t % dm.persist == 0 or X is None:
            X = dm.draw(rng, n)
        step = sch.step(Iteration(G, X, w, t, block_grad))
        full = G.sum(axis=0) if not batch else _full_gradient(model, Xo, resid, N, w)
        nf = float(np.linalg.norm(full))
        gerr.append(float(np.linalg.norm(step.grad - full)) / nf if nf > 0 else 0.0)
        w = w - alpha * step.grad
        clock += step.wait + decode_time_per_op * step.decode_ops
        times.append(clock)
        waits.append(step.wait)
        comms.append(step.comm)
        comps.append(step.comp)
        if record_draws:
            draws.append(X.copy())
    return TrainingRun(
        scheme=sch.name,
        time=np.array(times),
        loss=np.array(losses),
        accuracy=np.array(accs),
        grad_error=np.array(gerr),
        wait=np.array(waits),
        comm=np.array(comms, float),
        comp=np.array(comps, float),
        loads=sch.loads.copy(),
        w=w,
        draws=np.array(draws) if record_draws else None,
        stats={key: np.array(v) for key, v in stats.items()} if record_stats else None,
    )


def _full_gradient(
    model: Any, X: np.ndarray, resid: np.ndarray, N: int, w: np.ndarray
) -> np.ndarray:
    return model.back(X, resid) / N + model.l2 * w


def _partition_stats(
    stats: dict[str, list[float]],
    G: np.ndarray,
    X: np.ndarray,
    resid: np.ndarray,
    bounds: np.ndarray,
    N: int,
    k: int,
) -> None:
    """Append |grad F|^2, beta^2 and sigma^2 of Xu et al. 2021, Assumption 1, at this iterate.

    ``G`` holds the full partition gradients. Worker j's objective is
    ``F_j = (k N_j/N) mean_{s in D_j} l_s + (l2/2)|w|^2`` (its gradient is
    ``k G[j]``); a sample's gradient of the loss models here is ``x_s (x) r_s``
    (the residual), with squared norm ``|x_s|^2 |r_s|^2``, so the variance is
    ``mean |g_s|^2 - |mean g_s|^2`` without forming the per-sample gradients.
    """
    full = G.sum(axis=0)
    stats["grad_norm2"].append(float(full @ full))
    dev = k * G - full
    stats["beta2"].append(float(np.max(np.einsum("ij,ij->i", dev, dev))))
    r2 = np.sum(resid**2, axis=1) if resid.ndim == 2 else resid**2
    sq = np.einsum("ij,ij->i", X, X) * r2
    worst = 0.0
    for j in range(k):
        a, b = bounds[j], bounds[j + 1]
        nj = b - a
        mean_g = (X[a:b].T @ resid[a:b]).ravel() / nj
        var = max(float(sq[a:b].mean() - mean_g @ mean_g), 0.0)
        worst = max(worst, (k * nj / N) ** 2 * var)
    stats["sigma2"].append(worst)


# ---------------------------------------------------------------------------
# repeated runs


@functools.lru_cache(maxsize=16)
def _reference_loss(model_name: str, l2: float, data_name: str) -> float:
    from scipy import optimize

    model, ds = _model_and_data(model_name, data_name, l2)
    N = ds.X.shape[0]

    def fg(w: np.ndarray) -> tuple[float, np.ndarray]:
        loss, resid, _ = model.forward(w, ds.X, ds.y)
        return loss / N + 0.5 * l2 * float(w @ w), model.back(ds.X, resid) / N + l2 * w

    res = optimize.minimize(
        fg,
        np.zeros(model.dim(ds)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 5000, "gtol": 1e-10, "ftol": 1e-15},
    )
    return float(res.fun)


def reference_loss(model: str = "softmax", l2: float = 1e-3, data: str | None = None) -> float:
    """The minimum training loss F* (L-BFGS to gradient norm ~1e-10), for optimality gaps."""
    if data is None:
        data = "digits-binary" if model == "logistic" else "digits"
    return _reference_loss(model, float(l2), data)


_MEMO: collections.OrderedDict[tuple[str, str], TrainingRun] = collections.OrderedDict()
_MEMO_SIZE = 4096


def _memo_run(kwargs: dict[str, Any], rng: np.random.Generator) -> TrainingRun:
    """:func:`simulate` memoised on (arguments, exact generator state), in this process.

    Runs are deterministic functions of both, so a claim and a figure asking
    for the same seeded runs share them. Treat the returned arrays as read-only.
    """
    ids = [id(v) for v in kwargs.values() if isinstance(v, (Dataset, DelayModel))]
    key = (repr(sorted(kwargs.items())) + repr(ids), repr(rng.bit_generator.state))
    run = _MEMO.get(key)
    if run is None:
        run = simulate(rng=rng, **kwargs)
        _MEMO[key] = run
        if len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return run


def repeat_runs(trials: int, *, rng: Any = None, **kwargs: Any) -> list[TrainingRun]:
    """``trials`` independent runs of :func:`simulate` with child seeds ``SeedSequence.spawn``.

    The seeds are those :func:`estimate_run_metric` gives its runs for the
    same ``rng`` and ``trials``, so bands and estimates describe the same runs.
    """
    trials = check_int(trials, "trials", low=1)
    children = montecarlo.seed_sequence(rng).spawn(trials)
    return [_memo_run(kwargs, np.random.default_rng(c)) for c in children]


_METRICS = (
    "final_loss",
    "total_time",
    "mean_wait",
    "time_to_target",
    "comm",
    "comp",
    "mean_grad_error",
)


def _metric(run: TrainingRun, metric: str, target: float | None) -> float:
    if metric == "final_loss":
        return float(run.loss[-1])
    if metric == "total_time":
        return float(run.time[-1])
    if metric == "mean_wait":
        return float(np.mean(np.diff(run.time)))
    if metric == "comm":
        return float(run.comm.sum())
    if metric == "comp":
        return float(run.comp.sum())
    if metric == "mean_grad_error":
        return float(np.mean(run.grad_error))
    t = run.time_to_loss(target)
    if not math.isfinite(t):
        raise ValueError(
            f"scheme {run.scheme!r} did not reach loss {target:g} in {run.iterations} iterations "
            f"(final loss {run.loss[-1]:.4g}); raise iterations or the target"
        )
    return t


def _metric_sampler(
    kwargs: dict[str, Any], metric: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Module-level sampler for :func:`gctheory.montecarlo.estimate_mean` (via partial)."""
    out = np.empty(size)
    target = kwargs.get("target_loss")
    rngs = [rng] if size == 1 else rng.spawn(size)
    for i, g in enumerate(rngs):
        out[i] = _metric(_memo_run(kwargs, g), metric, target)
    return out


def estimate_run_metric(
    metric: str,
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.95,
    executor: Any = None,
    **kwargs: Any,
) -> montecarlo.Estimate:
    """Mean of a per-run metric over ``trials`` seeded runs, with a CLT interval.

    ``metric`` is one of ``final_loss``, ``total_time``, ``mean_wait`` (mean
    simulated time per iteration), ``time_to_target`` (needs ``target_loss``;
    runs stop there), ``comm``, ``comp`` (summed loads), ``mean_grad_error``.
    Runs go through :func:`gctheory.montecarlo.estimate_mean` with one run per
    chunk, so they scale out on any executor (Dask included) and the result
    depends only on ``(rng, trials)``. ``kwargs`` go to :func:`simulate`.
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}")
    if metric == "time_to_target" and kwargs.get("target_loss") is None:
        raise ValueError("metric 'time_to_target' needs target_loss")
    sampler = functools.partial(_metric_sampler, dict(kwargs), metric)
    return montecarlo.estimate_mean(
        sampler, trials, rng=rng, level=level, chunk_size=1, executor=executor
    )


def loss_band(
    runs: list[TrainingRun], times: np.ndarray, *, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean loss on a time grid over ``runs``, with a pointwise CLT band (mean, low, high)."""
    from scipy import special

    L = np.array([r.loss_at(times) for r in runs])
    mean = L.mean(axis=0)
    if len(runs) < 2:
        return mean, mean.copy(), mean.copy()
    z = float(special.ndtri(0.5 + level / 2))
    half = z * L.std(axis=0, ddof=1) / math.sqrt(len(runs))
    return mean, mean - half, mean + half
