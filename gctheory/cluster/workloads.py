"""What the workers compute: the gradient-oracle protocol and the digits workloads.

A *workload* cuts a training problem into ``k`` data partitions and answers
``partial_gradient(params, j)``: the gradient of partition ``j``'s share of the
loss at ``params``, the ``k`` of them summing to the full gradient (the
convention of :mod:`gctheory.training`, where partial gradients are sums, not
means). That is the whole protocol a user's own model needs
(:class:`GradientOracle`); the optional ``restrict(partitions)`` returns a copy
holding only those partitions' data (so a worker is shipped only its own data),
and ``metrics(params)`` gives the numbers reported per iteration.

:class:`DigitsWorkload` is the simulator's logistic or softmax regression on
scikit-learn's digits (the same models and the same partial gradients as
:func:`gctheory.training.simulate`), with a held-out test split and test
metrics (loss, accuracy, and the area under the ROC curve for the binary task).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "GradientOracle",
    "DigitsWorkload",
    "QuadraticWorkload",
    "WORKLOADS",
    "make_workload",
    "roc_auc",
]

#: the built-in workloads, by name
WORKLOADS = {
    "softmax": "softmax regression on the 10 digits (Halbawi et al. 2017, Section 6)",
    "logistic": "logistic regression on digit >= 5 (Wang et al. 2019, Section 5)",
    "quadratic": "least squares on seeded synthetic data (no scikit-learn; timing studies)",
}


@runtime_checkable
class GradientOracle(Protocol):
    """The protocol a user's own model implements to run on :func:`gctheory.cluster.run`.

    Attributes
    ----------
    k : int
        Number of data partitions.
    dim : int
        Length of the parameter vector.

    Methods
    -------
    partial_gradient(params, partition) -> ndarray (dim,)
        Gradient of partition ``partition``'s share of the loss; the ``k``
        partial gradients sum to the full gradient.
    initial_params() -> ndarray (dim,)
        Where gradient descent starts.

    Optional: ``restrict(partitions)`` (a copy holding only those partitions),
    ``metrics(params) -> dict`` (numbers reported per iteration),
    ``step_size()`` (a default step), ``spec()`` (a JSON-able description that
    :func:`make_workload` rebuilds, for :func:`gctheory.cluster.replay`).

    Examples
    --------
    >>> from gctheory.cluster import GradientOracle
    >>> import numpy as np
    >>> class Quadratic:  # F(w) = sum_j |w - c_j|^2 / 2 over k = 3 partitions
    ...     k, dim = 3, 2
    ...     centres = np.arange(6.0).reshape(3, 2)
    ...     def partial_gradient(self, params, partition):
    ...         return params - self.centres[partition]
    ...     def initial_params(self):
    ...         return np.zeros(self.dim)
    >>> isinstance(Quadratic(), GradientOracle)
    True
    """

    k: int
    dim: int

    def partial_gradient(self, params: np.ndarray, partition: int) -> np.ndarray: ...

    def initial_params(self) -> np.ndarray: ...


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve of ``scores`` for binary ``labels`` (Mann-Whitney, ties halved).

    Parameters
    ----------
    scores : numpy.ndarray
        Scores.
    labels : numpy.ndarray
        Binary labels.

    Returns
    -------
    float
        The area under the ROC curve.

    Examples
    --------
    >>> from gctheory.cluster import roc_auc
    >>> import numpy as np
    >>> roc_auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    0.75
    """
    scores = np.asarray(scores, float)
    labels = np.asarray(labels).astype(bool)
    pos, neg = int(labels.sum()), int((~labels).sum())
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    s = scores[order]
    i = 0
    while i < len(s):  # average ranks over ties
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i : j + 1]] = 0.5 * (i + j) + 1.0
        i = j + 1
    return float((ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg))


class DigitsWorkload:
    """Logistic or softmax regression on the digits, cut into ``k`` partitions.

    The same model and partial gradients as :func:`gctheory.training.simulate`:
    partition ``j``'s gradient is ``X_j^T r_j / N + (l2 / k) w`` with ``N`` the
    number of training samples, so the ``k`` partials sum to the gradient of
    ``F(w) = (1/N) sum_i l_i(w) + (l2/2) |w|^2``.

    Parameters
    ----------
    model : {"softmax", "logistic"}
        Softmax regression on the 10 digits, or logistic regression on
        digit >= 5.
    k : int
        Number of data partitions (the scheme's ``k``).
    test_fraction : float
        Share of the samples held out for the test metrics (0 for none).
    partition : "iid" or int c
        IID partitions or non-IID(c) (Xu et al. 2021), as in the simulator.
    l2 : float
        Ridge penalty.
    seed : int
        Seed of the train/test split and of the partitions.

    Examples
    --------
    >>> from gctheory.cluster import DigitsWorkload
    >>> import numpy as np
    >>> w = DigitsWorkload("logistic", k=4)
    >>> w
    DigitsWorkload('logistic', k=4, train=1348, test=449, partitions held 4)
    >>> p = w.initial_params()
    >>> g = sum(w.partial_gradient(p, j) for j in range(4))
    >>> bool(np.allclose(g, w.full_gradient(p)))
    True
    """

    def __init__(
        self,
        model: str = "softmax",
        k: int = 1,
        *,
        test_fraction: float = 0.25,
        partition: Any = "iid",
        l2: float = 1e-3,
        seed: int = 0,
    ) -> None:
        from gctheory.training import (
            LogisticRegression,
            SoftmaxRegression,
            load_digits_dataset,
            partition_indices,
        )

        if model not in WORKLOADS:
            raise ValueError(f"unknown workload model {model!r}; valid: {', '.join(WORKLOADS)}")
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive int, got {k!r}")
        if not 0 <= float(test_fraction) < 1:
            raise ValueError(f"test_fraction must lie in [0, 1), got {test_fraction!r}")
        self.model_name, self.k, self.l2, self.seed = model, int(k), float(l2), int(seed)
        self.test_fraction, self.partition = float(test_fraction), partition
        self.model = LogisticRegression(l2) if model == "logistic" else SoftmaxRegression(l2)
        ds = load_digits_dataset("binary" if model == "logistic" else "multiclass")
        rng = np.random.default_rng(np.random.SeedSequence(self.seed).spawn(1)[0])
        perm = rng.permutation(len(ds.y))
        n_test = int(round(self.test_fraction * len(ds.y)))
        test, train = np.sort(perm[:n_test]), np.sort(perm[n_test:])
        if self.k > len(train):
            raise ValueError(
                f"k={self.k} partitions is more than the {len(train)} training samples of the "
                f"digits; use k <= {len(train)} (every partition needs a sample)"
            )
        c = None if partition in ("iid", None) else int(partition)
        parts = partition_indices(ds.classes[train], self.k, classes_per_part=c, rng=rng)
        self.N = len(train)
        self.dim = self.model.dim(ds)
        self.n_labels = ds.n_labels
        self._parts = {j: (ds.X[train][p], ds.y[train][p]) for j, p in enumerate(parts)}
        # the whole data set; None in a restricted copy (a worker's partitions only)
        self._X: np.ndarray | None = ds.X[train]
        self._y: np.ndarray | None = ds.y[train]
        self._Xt: np.ndarray | None = ds.X[test]
        self._yt: np.ndarray | None = ds.y[test]

    def __repr__(self) -> str:
        return (
            f"DigitsWorkload({self.model_name!r}, k={self.k}, train={self.N}, "
            f"test={0 if self._Xt is None else len(self._Xt)}, partitions held "
            f"{len(self._parts)})"
        )

    def spec(self) -> dict[str, Any]:
        """A JSON-able description :func:`make_workload` rebuilds (for replay)."""
        return {
            "workload": "digits",
            "model": self.model_name,
            "k": self.k,
            "test_fraction": self.test_fraction,
            "partition": self.partition,
            "l2": self.l2,
            "seed": self.seed,
        }

    def restrict(self, partitions: Any) -> DigitsWorkload:
        """A copy holding only ``partitions``' data (what one worker is shipped)."""
        out = object.__new__(DigitsWorkload)
        out.__dict__.update(self.__dict__)
        keep = {int(j) for j in partitions}
        out._parts = {j: v for j, v in self._parts.items() if j in keep}
        out._X = out._y = out._Xt = out._yt = None
        return out

    def initial_params(self) -> np.ndarray:
        return np.zeros(self.dim)

    def partial_gradient(self, params: np.ndarray, partition: int) -> np.ndarray:
        """``X_j^T r_j / N + (l2/k) w``: partition ``partition``'s share of the gradient."""
        try:
            X, y = self._parts[int(partition)]
        except KeyError:
            raise ValueError(
                f"partition {partition} is not held here (held: {sorted(self._parts)})"
            ) from None
        _, resid, _ = self.model.forward(params, X, y)
        return self.model.back(X, resid) / self.N + (self.l2 / self.k) * params

    def _train(self) -> tuple[np.ndarray, np.ndarray]:
        if self._X is None or self._y is None:
            raise ValueError("a restricted workload holds only some partitions")
        return self._X, self._y

    def full_gradient(self, params: np.ndarray) -> np.ndarray:
        """The gradient of the training loss (for checks)."""
        X, y = self._train()
        _, resid, _ = self.model.forward(params, X, y)
        return self.model.back(X, resid) / self.N + self.l2 * params

    def step_size(self) -> float:
        """``1/L``, L the smoothness constant of the training loss (the simulator's default)."""
        from gctheory.training import smoothness

        return 1.0 / smoothness(self.model, self._train()[0], self.N, 1.0)

    def _scores(self, params: np.ndarray, X: np.ndarray) -> np.ndarray:
        if self.model_name == "logistic":
            return X @ params
        return X @ params.reshape(X.shape[1], -1)

    def metrics(self, params: np.ndarray) -> dict[str, float]:
        """Training and test loss and accuracy (and test AUC for the binary task)."""
        out: dict[str, float] = {}
        pen = 0.5 * self.l2 * float(params @ params)
        for name, X, y in (("train", self._X, self._y), ("test", self._Xt, self._yt)):
            if X is None or y is None or len(y) == 0:
                continue
            loss, _, correct = self.model.forward(params, X, y)
            out[f"{name}_loss"] = loss / len(y) + pen
            out[f"{name}_accuracy"] = correct / len(y)
        if (
            self.model_name == "logistic"
            and self._Xt is not None
            and self._yt is not None
            and len(self._yt)
        ):
            out["test_auc"] = roc_auc(self._scores(params, self._Xt), self._yt)
        return out


class QuadraticWorkload:
    """Least squares ``F(w) = |A w - b|^2 / (2 N)`` on seeded synthetic data, cut into ``k``.

    Needs nothing beyond numpy: the workload of timing studies (the figure
    ``cluster_measured_vs_predicted``, the real-run claims of
    ``paper_checks.tandon2017`` and ``paper_checks.wang2019erasurehead``, the
    benchmark), where the injected waits dominate and the model is beside the
    point. Partition ``j`` holds ``rows`` samples of dimension ``dim``.
    """

    def __init__(self, k: int = 1, *, dim: int = 8, rows: int = 16, seed: int = 0) -> None:
        for name, v in (("k", k), ("dim", dim), ("rows", rows)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        self.k, self.dim, self.rows, self.seed = int(k), int(dim), int(rows), int(seed)
        rng = np.random.default_rng(self.seed)
        A = rng.standard_normal((self.k * self.rows, self.dim))
        b = A @ rng.standard_normal(self.dim) + 0.1 * rng.standard_normal(len(A))
        self.N = len(A)
        self._parts = {j: (A[j * rows : (j + 1) * rows], b[j * rows : (j + 1) * rows])
                       for j in range(self.k)}  # fmt: skip
        # the whole data set; None in a restricted copy (a worker's partitions only)
        self._A: np.ndarray | None = A
        self._b: np.ndarray | None = b

    def spec(self) -> dict[str, Any]:
        return {"workload": "quadratic", "k": self.k, "dim": self.dim, "rows": self.rows,
                "seed": self.seed}  # fmt: skip

    def restrict(self, partitions: Any) -> QuadraticWorkload:
        out = object.__new__(QuadraticWorkload)
        out.__dict__.update(self.__dict__)
        out._parts = {j: v for j, v in self._parts.items() if j in {int(i) for i in partitions}}
        out._A = out._b = None
        return out

    def initial_params(self) -> np.ndarray:
        return np.zeros(self.dim)

    def partial_gradient(self, params: np.ndarray, partition: int) -> np.ndarray:
        A, b = self._parts[int(partition)]
        return A.T @ (A @ params - b) / self.N

    def _whole(self) -> tuple[np.ndarray, np.ndarray]:
        if self._A is None or self._b is None:
            raise ValueError("a restricted workload holds only some partitions")
        return self._A, self._b

    def full_gradient(self, params: np.ndarray) -> np.ndarray:
        A, b = self._whole()
        return A.T @ (A @ params - b) / self.N

    def step_size(self) -> float:
        return float(self.N / np.linalg.norm(self._whole()[0], 2) ** 2)

    def metrics(self, params: np.ndarray) -> dict[str, float]:
        if self._A is None or self._b is None:
            return {}
        r = self._A @ params - self._b
        return {"train_loss": float(r @ r / (2 * self.N))}


def make_workload(spec: Any, k: int, seed: int = 0) -> Any:
    """A workload from a name (``"softmax"``, ``"logistic"``), a spec dict or an oracle.

    Raises ValueError naming the valid workloads for anything else, and when an
    oracle's ``k`` differs from the scheme's.

    Parameters
    ----------
    spec : str, dict or GradientOracle
        ``"softmax"``, ``"logistic"``, a spec dict, or an oracle.
    k : int
        Data partitions.
    seed : int
        Seed of the train/test split.

    Returns
    -------
    object
        The workload.

    Raises
    ------
    ValueError
        Unknown workload, or an oracle whose ``k`` differs.

    Examples
    --------
    >>> from gctheory.cluster import make_workload
    >>> make_workload("softmax", 4).spec()["model"]
    'softmax'
    """
    if isinstance(spec, str):
        if spec not in WORKLOADS:
            raise ValueError(
                f"unknown workload {spec!r}; valid: {', '.join(WORKLOADS)}, or an object with "
                "partial_gradient(params, partition) and initial_params() (GradientOracle)"
            )
        if spec == "quadratic":
            return QuadraticWorkload(k, seed=seed)
        return DigitsWorkload(spec, k, seed=seed)
    if isinstance(spec, dict) and spec.get("workload") == "quadratic":
        w: QuadraticWorkload | DigitsWorkload | GradientOracle = QuadraticWorkload(
            **{key: v for key, v in spec.items() if key != "workload"}
        )
    elif isinstance(spec, dict) and spec.get("workload") == "digits":
        opts = {key: v for key, v in spec.items() if key not in ("workload", "model", "k")}
        w = DigitsWorkload(spec["model"], int(spec["k"]), **opts)
    elif isinstance(spec, GradientOracle):
        w = spec
    else:
        raise ValueError(
            f"workload must be one of {', '.join(WORKLOADS)} or a GradientOracle (attributes k, "
            f"dim; methods partial_gradient(params, partition), initial_params()), got {spec!r}"
        )
    if int(w.k) != k:
        raise ValueError(
            f"the scheme's code cuts the data into k={k} partitions but the workload has "
            f"k={w.k}; build the workload with k={k}"
        )
    return w
