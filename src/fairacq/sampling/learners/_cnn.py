"""A small torch CNN for the incremental sampling mode on images (Shekhar et al., §4-§5)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._deps import require
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.sampling.learners._torch_training import seeded_reset, sgd_epoch

__all__ = ["IncrementalCNN"]

_PURPOSE = "the incremental CNN sampling mode"


class IncrementalCNN:
    """Incremental mode on images: a small CNN trained by one SGD epoch per round.

    Shekhar et al. (§4) replaces re-training by "one gradient step over the entire accumulated
    training set" and uses CNNs for its image experiments (§5, Fashion MNIST, UTKFace,
    CIFAR10; the architecture is in the lost Appendix E). Like
    :class:`~fairacq.sampling.IncrementalMLP`, each :meth:`update` makes one shuffled pass of
    mini-batch SGD over the whole accumulated set, continuing from the previous weights.
    Rows are flattened single-channel images (row-major), reshaped to ``image_shape``.

    The network: two blocks of 3x3 convolution (padding 1), ReLU and 2x2 max-pooling, then a
    linear layer to one logit. Initial weights (PyTorch's default ranges) and the shuffling
    come from :func:`fairacq._random.torch_generator`; no global seed is touched. Callers set
    ``torch.set_num_threads``.

    Parameters
    ----------
    image_shape : tuple of int or None, default=None
        ``(height, width)`` of the images; None means square images of side
        ``sqrt(n_features)``.
    channels : tuple of int, default=(8, 16)
        Output channels of the two convolution blocks.
    lr : float, default=0.3
        SGD learning rate.
    batch_size : int, default=8
        Mini-batch size. With few images per round, small batches give more steps per
        epoch: on the digit pairs of ``aopt-digits`` (lr 0.3) batches of 8 leave chance
        accuracy after about 35 training images, batches of 32 only after about 70.
    seed : int, default=0
        Seeds the initial weights.

    Raises
    ------
    InvalidParameterError
        For a non-positive learning rate, batch size or channel count.

    Examples
    --------
    >>> import torch
    >>> torch.set_num_threads(1)
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.random((40, 64)), rng.integers(0, 2, 40)
    >>> cnn = IncrementalCNN(seed=0)
    >>> cnn.update(X, y, seed=1)
    >>> cnn.predict_proba(X[:3]).shape
    (3,)
    """

    def __init__(
        self,
        *,
        image_shape: tuple[int, int] | None = None,
        channels: tuple[int, int] = (8, 16),
        lr: float = 0.3,
        batch_size: int = 8,
        seed: int = 0,
    ) -> None:
        if lr <= 0 or batch_size < 1 or len(channels) != 2 or min(channels) < 1:
            raise InvalidParameterError(
                f"IncrementalCNN needs lr > 0, batch_size >= 1 and two positive channel counts; "
                f"got lr={lr}, batch_size={batch_size}, channels={channels}."
            )
        self.image_shape = image_shape
        self.channels = (int(channels[0]), int(channels[1]))
        self.lr, self.batch_size, self.seed = lr, batch_size, seed
        self._net: Any = None
        self._shape: tuple[int, int] | None = None

    def _resolve_shape(self, n_features: int) -> tuple[int, int]:
        if self.image_shape is not None:
            h, w = int(self.image_shape[0]), int(self.image_shape[1])
        else:
            side = math.isqrt(n_features)
            h = w = side
        if h * w != n_features or h < 4 or w < 4:
            raise InvalidDataError(
                f"IncrementalCNN: {n_features} features cannot be read as a "
                f"{'square ' if self.image_shape is None else ''}image of shape "
                f"{self.image_shape or (h, w)} of at least 4x4 pixels. Pass "
                "image_shape=(height, width) with height * width == n_features."
            )
        return h, w

    def _build(self, shape: tuple[int, int]) -> Any:
        torch = require("torch", purpose=_PURPOSE)
        c1, c2 = self.channels
        h, w = shape
        nn = torch.nn
        net = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(c2 * (h // 4) * (w // 4), 1),
        )
        seeded_reset((net[0], net[3], net[7]), self.seed)
        self._shape = shape
        return net

    def _images(self, X: NDArray[np.float64], shape: tuple[int, int]) -> Any:
        torch = require("torch", purpose=_PURPOSE)
        h, w = shape
        if X.ndim != 2 or X.shape[1] != h * w:
            raise InvalidDataError(
                f"IncrementalCNN: expected rows of {h * w} pixels ({h}x{w}), got an array of "
                f"shape {X.shape}. Pass the columns the model was first trained on."
            )
        return torch.as_tensor(np.asarray(X, dtype=np.float32)).reshape(-1, 1, h, w)

    def update(self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int) -> None:
        """Make one shuffled mini-batch SGD pass over ``(X, y)``."""
        torch = require("torch", purpose=_PURPOSE)
        if self._net is None or self._shape is None:
            self._net = self._build(self._resolve_shape(X.shape[1]))
        Xt = self._images(X, self._shape or self._resolve_shape(X.shape[1]))
        yt = torch.as_tensor(np.asarray(y), dtype=torch.float32)
        sgd_epoch(self._net, Xt, yt, lr=self.lr, batch_size=self.batch_size, seed=seed)

    def predict_proba(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``P(y = 1 | x)`` (0.5 before the first update)."""
        if self._net is None or self._shape is None:
            return np.full(len(X), 0.5, dtype=np.float64)
        torch = require("torch", purpose=_PURPOSE)
        self._net.eval()
        with torch.no_grad():
            logits = self._net(self._images(X, self._shape)).squeeze(1)
            return np.asarray(torch.sigmoid(logits).numpy(), dtype=np.float64)

    def state(self) -> dict[str, Any]:
        """Return the image shape and the weights as nested lists (JSON types, exact)."""
        if self._net is None:
            return {"weights": None}
        return {
            "image_shape": list(self._shape or ()),
            "weights": {k: v.tolist() for k, v in self._net.state_dict().items()},
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""
        weights = state.get("weights")
        if weights is None:
            self._net = None
            self._shape = None
            return
        torch = require("torch", purpose=_PURPOSE)
        h, w = (int(v) for v in state["image_shape"])
        self._net = self._build((h, w))
        self._net.load_state_dict(
            {k: torch.tensor(v, dtype=torch.float32) for k, v in weights.items()}
        )
