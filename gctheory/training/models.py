"""Data, partitions and regression models behind :mod:`gctheory.training`.

The public names are re-exported by :mod:`gctheory.training`; ``_model_and_data``
turns the simulator's ``model`` and ``data`` arguments into objects. The delay
models moved to :mod:`gctheory.delays.models`; their names stay importable from
here and from :mod:`gctheory.training`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import special

from gctheory._validate import as_generator, check_array, check_int, check_real
from gctheory.delays.models import DELAY_NAMES, DelayModel, parse_delay

__all__ = [
    "Dataset",
    "load_digits_dataset",
    "partition_indices",
    "LogisticRegression",
    "SoftmaxRegression",
    "DelayModel",
    "parse_delay",
    "DELAY_NAMES",
]

# ---------------------------------------------------------------------------
# data


@dataclass(frozen=True, eq=False)
class Dataset:
    """A supervised dataset held in memory.

    Attributes
    ----------
    name : str
        ``"digits"`` (multiclass, 10 labels) or ``"digits-binary"`` (digit >= 5).
    X : ndarray, shape (N, p)
        Features scaled to [0, 1] with a constant 1 appended (the bias).
    y : ndarray of int, shape (N,)
        Target labels (0/1 for the binary task, 0..9 for the multiclass one).
    classes : ndarray of int, shape (N,)
        The original digit of each sample (0..9); non-IID partitions follow it.
    n_labels : int
        Number of distinct target labels.

    Examples
    --------
    >>> from gctheory.training import Dataset, load_digits_dataset
    >>> data = load_digits_dataset()
    >>> data.name, data.X.shape, data.n_labels
    ('digits', (1797, 65), 10)
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    classes: np.ndarray
    n_labels: int

    def __repr__(self) -> str:
        N, p = self.X.shape
        return f"Dataset({self.name!r}, N={N}, p={p}, labels={self.n_labels})"


_SKLEARN_HINT = 'scikit-learn is needed for the digits data: pip install "gctheory[data]"'


def _require_sklearn() -> Any:
    try:
        from sklearn import datasets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_SKLEARN_HINT) from exc
    return datasets


@functools.lru_cache(maxsize=4)
def load_digits_dataset(task: str = "multiclass") -> Dataset:
    """The handwritten digits bundled with scikit-learn (1797 images of 8x8 pixels).

    Parameters
    ----------
    task : {"multiclass", "binary"}
        ``"multiclass"``: the 10 digits as labels (softmax regression, as in
        Halbawi et al. 2017, Section 6, on MNIST). ``"binary"``: label 1 iff the
        digit is >= 5 (logistic regression, as in Wang et al. 2019, Section 5,
        and Kadhe et al. 2019, Section V).

    Returns
    -------
    Dataset
        Features scaled to [0, 1] with a bias column, and the labels.

    Notes
    -----
    Offline: the data ships inside scikit-learn (``pip install "gctheory[data]"``).
    The result is cached; treat its arrays as read-only.

    Examples
    --------
    >>> from gctheory.training import load_digits_dataset
    >>> data = load_digits_dataset("binary")
    >>> data.name, data.X.shape, data.n_labels, sorted(set(data.y.tolist()))
    ('digits-binary', (1797, 65), 2, [0, 1])
    """
    if task not in ("multiclass", "binary"):
        raise ValueError(f"task must be 'multiclass' or 'binary', got {task!r}")
    datasets = _require_sklearn()
    d = datasets.load_digits()
    X = np.hstack([np.asarray(d.data, float) / 16.0, np.ones((len(d.target), 1))])
    classes = np.asarray(d.target, dtype=np.int64)
    if task == "binary":
        return Dataset("digits-binary", X, (classes >= 5).astype(np.int64), classes, 2)
    return Dataset("digits", X, classes.copy(), classes, 10)


def partition_indices(
    classes: np.ndarray, k: int, *, classes_per_part: int | None = None, rng: Any = None
) -> list[np.ndarray]:
    """Split sample indices into ``k`` parts, IID or non-IID(c).

    Parameters
    ----------
    classes : array of int, shape (N,)
        The class of each sample.
    k : int
        Number of parts (data partitions).
    classes_per_part : int or None
        None: IID (a random permutation cut into ``k`` near-equal parts).
        ``c``: non-IID(c) as in Xu et al. 2021, Section V: part ``i`` holds the
        classes ``(i c + j) mod C`` for ``j < c`` (C distinct classes), and the
        samples of each class are split evenly (at random) among the parts
        holding it.
    rng : seed or Generator
        Randomness of the split.

    Returns
    -------
    list of k sorted index arrays, disjoint, covering all samples.

    Examples
    --------
    >>> from gctheory.training import partition_indices
    >>> import numpy as np
    >>> parts = partition_indices(np.array([0, 0, 1, 1, 2, 2]), 3, rng=0)
    >>> sorted(int(i) for p in parts for i in p), [len(p) for p in parts]
    ([0, 1, 2, 3, 4, 5], [2, 2, 2])
    """
    rng = as_generator(rng)
    classes = check_array(classes, "classes", ndim=1)
    N = len(classes)
    k = check_int(k, "k", low=1, high=N)
    if classes_per_part is None:
        perm = rng.permutation(N)
        return [np.sort(p) for p in np.array_split(perm, k)]
    labels = np.unique(classes)
    C = len(labels)
    c = check_int(classes_per_part, "classes_per_part")
    if not 1 <= c <= C:
        raise ValueError(f"classes_per_part must lie in [1, {C}] (classes in the data), got {c}")
    if k * c < C:
        raise ValueError(
            f"non-IID({c}) with k={k} parts covers only k*c={k * c} < {C} classes; "
            "every class must be held by some part"
        )
    holders: dict[int, list[int]] = {j: [] for j in range(C)}
    for i in range(k):
        for j in range(c):
            holders[(i * c + j) % C].append(i)
    parts: list[list[np.ndarray]] = [[] for _ in range(k)]
    for j, lab in enumerate(labels):
        idx = rng.permutation(np.flatnonzero(classes == lab))
        hs = sorted(set(holders[j]))
        for h, chunk in zip(hs, np.array_split(idx, len(hs))):
            parts[h].append(chunk)
    out = [np.sort(np.concatenate(p)) if p else np.empty(0, np.int64) for p in parts]
    if any(len(p) == 0 for p in out):
        raise ValueError(f"non-IID({c}) with k={k} leaves a part empty; use fewer parts")
    return out


# ---------------------------------------------------------------------------
# models


@dataclass(frozen=True)
class _Model:
    l2: float = 1e-3
    name: ClassVar[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "l2", check_real(self.l2, "l2", low=0.0))

    # -- provided by each model
    def check(self, data: Dataset) -> None:
        raise NotImplementedError

    def dim(self, data: Dataset) -> int:
        raise NotImplementedError

    def forward(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, int]:
        """Return (sum of sample losses, residual d loss_i / d z_i, correct predictions)."""
        raise NotImplementedError

    def back(self, X: np.ndarray, resid: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def hessian_bound(self) -> float:
        """Bound on the second derivative of a sample loss in ``z``: smoothness is this times
        ``|X|_2^2 / N`` plus ``l2``."""
        raise NotImplementedError


@dataclass(frozen=True)
class LogisticRegression(_Model):
    """Binary logistic regression with an L2 penalty.

    Loss ``F(w) = (1/N) sum_i [log(1 + exp(x_i.w)) - y_i x_i.w] + (l2/2)|w|^2``,
    labels ``y_i in {0, 1}`` (the model of Wang et al. 2019, Section 5, and
    Kadhe et al. 2019, Section V). Smooth with constant ``|X|_2^2/(4N) + l2``.

    Parameters
    ----------
    l2 : float
        The L2 penalty.

    Examples
    --------
    >>> from gctheory.training import LogisticRegression
    >>> import numpy as np
    >>> model = LogisticRegression(l2=0.0)
    >>> X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 0])
    >>> loss, resid, correct = model.forward(np.zeros(2), X, y)
    >>> round(loss, 6), correct  # 2 log 2 summed over both samples
    (1.386294, 1)
    """

    name = "logistic"

    def check(self, data: Dataset) -> None:
        if data.n_labels != 2:
            raise ValueError(
                f"model 'logistic' needs a binary dataset (2 labels), got {data.name!r} with "
                f"{data.n_labels} labels; use SoftmaxRegression or load_digits_dataset('binary')"
            )

    def dim(self, data: Dataset) -> int:
        return data.X.shape[1]

    def forward(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, int]:
        """Return (sum of sample losses, residual d loss_i / d z_i, correct predictions)."""
        z = X @ w
        loss = float(np.sum(np.logaddexp(0.0, z) - y * z))
        resid = special.expit(z) - y
        return loss, resid, int(np.sum((z > 0) == (y == 1)))

    def back(self, X: np.ndarray, resid: np.ndarray) -> np.ndarray:
        return X.T @ resid

    def hessian_bound(self) -> float:
        return 0.25


@dataclass(frozen=True)
class SoftmaxRegression(_Model):
    """Multinomial (softmax) regression with an L2 penalty.

    Loss ``F(W) = (1/N) sum_i [logsumexp(x_i W) - x_i W_{:, y_i}] + (l2/2)|W|_F^2``
    with ``W`` of shape (p, C) flattened (the model of Halbawi et al. 2017,
    Section 6). Smooth with constant ``|X|_2^2/(2N) + l2`` (the softmax Hessian
    in the logits is at most 1/2 in norm).

    Parameters
    ----------
    l2 : float
        The L2 penalty.

    Examples
    --------
    >>> from gctheory.training import SoftmaxRegression
    >>> import numpy as np
    >>> model = SoftmaxRegression(l2=0.0)
    >>> X, y = np.eye(3), np.array([0, 1, 2])
    >>> loss, resid, correct = model.forward(np.zeros(9), X, y)
    >>> round(loss, 6)  # 3 log 3 summed over the samples
    3.295837
    """

    name = "softmax"

    def check(self, data: Dataset) -> None:
        if data.n_labels < 2:
            raise ValueError(f"model 'softmax' needs >= 2 labels, got {data.n_labels}")

    def dim(self, data: Dataset) -> int:
        return data.X.shape[1] * data.n_labels

    def forward(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, int]:
        C = w.size // X.shape[1]
        Z = X @ w.reshape(X.shape[1], C)
        zmax = Z.max(axis=1, keepdims=True)
        E = np.exp(Z - zmax)
        tot = E.sum(axis=1)
        rows = np.arange(len(y))
        loss = float(np.sum(np.log(tot) + zmax[:, 0] - Z[rows, y]))
        P = E / tot[:, None]
        P[rows, y] -= 1.0
        return loss, P, int(np.sum(np.argmax(Z, axis=1) == y))

    def back(self, X: np.ndarray, resid: np.ndarray) -> np.ndarray:
        return (X.T @ resid).ravel()

    def hessian_bound(self) -> float:
        return 0.5


def smoothness(model: _Model, X_part: np.ndarray, n_total: int, share: float) -> float:
    """Smoothness of a partition's loss ``sum_{i in part} l_i / N + share l2/2 |w|^2``."""
    if X_part.shape[0] == 0:
        return share * model.l2
    top = float(np.linalg.eigvalsh(X_part.T @ X_part)[-1])  # |X_part|_2^2
    return model.hessian_bound() * top / n_total + share * model.l2


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
