"""The optional PyTorch adapter: any ``torch.nn.Module`` as a gradient oracle.

:class:`TorchOracle` answers the protocol of
:class:`~gctheory.cluster.workloads.GradientOracle` for a PyTorch model: the
parameters travel as one flat float64 vector (``parameters_to_vector``),
``partial_gradient(params, j)`` loads them into the model, runs partition
``j``'s samples forward and backward, and returns the flattened gradient of
``sum_{i in j} loss_i / N`` (the ``k`` partials sum to the gradient of the mean
loss), so every scheme of :func:`gctheory.cluster.run` trains a real
deep-learning model unchanged. :func:`digits_mlp` is a small MLP on the
digits. The model runs in float64 on one thread, so
:func:`gctheory.cluster.replay` (given the oracle) reproduces a run bit for bit.

Needs the ``torch`` extra (``pip install torch==2.13.0``, the CPU build).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

__all__ = ["TorchOracle", "digits_mlp"]


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - optional extra
        raise ImportError(
            'the PyTorch adapter needs torch: pip install "gctheory[torch]" '
            "(or pip install torch==2.13.0 for the CPU build)"
        ) from exc
    return torch


class TorchOracle:
    """A PyTorch classifier cut into ``k`` data partitions (cross-entropy loss).

    Parameters
    ----------
    model : torch.nn.Module
        Maps a batch ``(b, features)`` to logits ``(b, classes)``; converted to float64.
    X, y : array
        Training samples and integer labels.
    k : int
        Number of partitions (the scheme's ``k``); IID, seeded.
    X_test, y_test : array, optional
        Held-out samples for the test metrics.
    seed : int
        Seed of the partition.
    step : float
        The default step size (``step_size()``).

    Examples
    --------
    >>> from gctheory.cluster import TorchOracle
    >>> import torch  # doctest: +SKIP
    >>> from gctheory.training import load_digits_dataset
    >>> data = load_digits_dataset("binary")  # doctest: +SKIP
    >>> model = torch.nn.Linear(65, 2)  # doctest: +SKIP
    >>> oracle = TorchOracle(model, data.X, data.y, k=4)  # doctest: +SKIP
    """

    def __init__(
        self,
        model: Any,
        X: Any,
        y: Any,
        k: int,
        *,
        X_test: Any = None,
        y_test: Any = None,
        seed: int = 0,
        step: float = 0.5,
    ) -> None:
        torch = _torch()
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive int, got {k!r}")
        X, y = np.asarray(X, float), np.asarray(y, np.int64)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X must be (N, features) and y (N,), got {X.shape} and {y.shape}")
        if k > len(y):
            raise ValueError(f"k={k} partitions is more than the {len(y)} samples")
        self.model = model.double()
        self.k, self.N, self.seed, self.step = int(k), len(y), int(seed), float(step)
        self.dim = int(sum(p.numel() for p in self.model.parameters()))
        perm = np.random.default_rng(self.seed).permutation(len(y))
        parts = np.array_split(perm, self.k)
        self._parts = {
            j: (torch.from_numpy(X[p]), torch.from_numpy(y[p])) for j, p in enumerate(parts)
        }
        self._X, self._y = torch.from_numpy(X), torch.from_numpy(y)
        self._Xt = None if X_test is None else torch.from_numpy(np.asarray(X_test, float))
        self._yt = None if y_test is None else torch.from_numpy(np.asarray(y_test, np.int64))
        self._init = self._flat().copy()

    def __repr__(self) -> str:
        return f"TorchOracle({type(self.model).__name__}, k={self.k}, dim={self.dim}, N={self.N})"

    # -------------------------------------------------------------- protocol
    def _flat(self) -> np.ndarray:
        torch = _torch()
        return torch.nn.utils.parameters_to_vector(self.model.parameters()).detach().numpy()

    def _load(self, params: np.ndarray) -> None:
        torch = _torch()
        torch.set_num_threads(1)  # one thread: the same sums, the same bits, on every worker
        vec = torch.from_numpy(np.ascontiguousarray(params, dtype=np.float64))
        torch.nn.utils.vector_to_parameters(vec, self.model.parameters())

    def initial_params(self) -> np.ndarray:
        """The model's initial weights, flattened."""
        return self._init.copy()

    def step_size(self) -> float:
        return self.step

    def restrict(self, partitions: Any) -> TorchOracle:
        """A copy holding only ``partitions``' samples (what one worker is shipped)."""
        out = copy.copy(self)
        out.model = copy.deepcopy(self.model)
        keep = {int(j) for j in partitions}
        out._parts = {j: v for j, v in self._parts.items() if j in keep}
        out._X = out._y = out._Xt = out._yt = None
        return out

    def _grad(self, params: np.ndarray, X: Any, y: Any) -> np.ndarray:
        torch = _torch()
        self._load(params)
        self.model.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(self.model(X), y, reduction="sum") / self.N
        loss.backward()
        ps = list(self.model.parameters())
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in ps]
        return torch.cat([g.reshape(-1) for g in grads]).numpy().copy()

    def partial_gradient(self, params: np.ndarray, partition: int) -> np.ndarray:
        """Gradient of ``sum_{i in partition} loss_i / N`` at ``params``, flattened."""
        try:
            X, y = self._parts[int(partition)]
        except KeyError:
            raise ValueError(
                f"partition {partition} is not held here (held: {sorted(self._parts)})"
            ) from None
        return self._grad(params, X, y)

    def full_gradient(self, params: np.ndarray) -> np.ndarray:
        """The gradient of the mean training loss (for checks)."""
        if self._X is None:
            raise ValueError("a restricted oracle holds only some partitions")
        return self._grad(params, self._X, self._y)

    def metrics(self, params: np.ndarray) -> dict[str, float]:
        """Training and test cross-entropy and accuracy."""
        torch = _torch()
        self._load(params)
        out: dict[str, float] = {}
        with torch.no_grad():
            for name, X, y in (("train", self._X, self._y), ("test", self._Xt, self._yt)):
                if X is None:
                    continue
                logits = self.model(X)
                out[f"{name}_loss"] = float(torch.nn.functional.cross_entropy(logits, y))
                out[f"{name}_accuracy"] = float((logits.argmax(1) == y).double().mean())
        return out


def digits_mlp(k: int, *, hidden: int = 32, seed: int = 0, test_fraction: float = 0.25,
               step: float = 0.5) -> TorchOracle:  # fmt: skip
    """A one-hidden-layer MLP (64 -> ``hidden`` -> 10, ReLU) on the digits, as a TorchOracle.

    Parameters
    ----------
    k : int
        Data partitions.
    hidden : int
        Hidden units.
    seed : int
        Seed of the weights and the split.
    test_fraction : float
        Held-out share.
    step : float
        Step size.

    Returns
    -------
    TorchOracle
        The oracle (needs PyTorch).

    Examples
    --------
    >>> from gctheory.cluster import digits_mlp
    >>> oracle = digits_mlp(4, hidden=16)  # doctest: +SKIP
    """
    torch = _torch()
    from gctheory.training import load_digits_dataset

    if not 0 <= float(test_fraction) < 1:
        raise ValueError(f"test_fraction must lie in [0, 1), got {test_fraction!r}")
    ds = load_digits_dataset("multiclass")
    X = ds.X[:, ~np.all(ds.X == 1, axis=0)]  # without the linear models' intercept column
    perm = np.random.default_rng(seed).permutation(len(ds.y))
    n_test = int(round(test_fraction * len(ds.y)))
    test, train = perm[:n_test], perm[n_test:]
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(X.shape[1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10)
    )
    return TorchOracle(model, X[train], ds.y[train], k, X_test=X[test], y_test=ds.y[test],
                       seed=seed, step=step)  # fmt: skip
