"""One seeded step of PyTorch training, shared by the incremental learners (MLP and CNN).

Both draw their initial weights and every shuffle from :func:`fairacq._random.torch_generator`
seeded per call, so no global torch state is touched and a run replays exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairacq._deps import require
from fairacq._random import torch_generator

__all__ = ["seeded_reset", "sgd_epoch"]


def seeded_reset(layers: Any, seed: int) -> None:
    """Draw PyTorch's default ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init from ``seed``.

    Parameters
    ----------
    layers : iterable of torch modules with ``weight`` and ``bias``
        Linear or convolution layers, initialised in order from one seeded generator.
    seed : int
        Seeds :func:`fairacq._random.torch_generator`; no global state is touched.
    """
    torch = require("torch", purpose="the incremental sampling modes")
    gen = torch_generator(seed)
    with torch.no_grad():
        for layer in layers:
            bound = 1.0 / np.sqrt(layer.weight[0].numel())
            for p in (layer.weight, layer.bias):
                p.copy_((torch.rand(p.shape, generator=gen) * 2 - 1) * bound)


def sgd_epoch(net: Any, Xt: Any, yt: Any, *, lr: float, batch_size: int, seed: int) -> None:
    """Make one shuffled mini-batch SGD pass of the logistic loss over ``(Xt, yt)``.

    The incremental mode of Shekhar et al. (§4): instead of re-training, each round makes one such
    pass over the whole accumulated training set, continuing from the previous weights.
    """
    torch = require("torch", purpose="the incremental sampling modes")
    order = torch.randperm(len(Xt), generator=torch_generator(seed))
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    net.train()
    for start in range(0, len(Xt), batch_size):
        idx = order[start : start + batch_size]
        opt.zero_grad()
        loss = loss_fn(net(Xt[idx]).squeeze(1), yt[idx])
        loss.backward()
        opt.step()
