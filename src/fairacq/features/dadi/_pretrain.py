"""Pre-training of DADI's encoder + classifier pairs (Bakker et al., Appendix B "Pretraining").

Both pairs (label classifier ``f_theta, g_psi`` and adversary ``f_chi, g_omega``) learn from
complete and randomly incomplete feature sets: for each incomplete row a drop probability
``p ~ U(0, 1)`` is drawn once and every feature group is dropped with probability ``p``, so
rows get different degrees of sparsity; half of every batch is complete. Adam, binary
cross-entropy (cross-entropy for an adversary with more than two groups), 10,000 iterations
of batches of 64. The AUC on a validation set with randomly missing features (drawn once) is
measured every ``eval_every`` iterations and at the end; the parameters with the best
validation AUC are kept.

Features are dropped per action (feature group), because the agent's states are unions of
whole groups; with one column per group this is the paper's per-feature drop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from sklearn.metrics import roc_auc_score
from torch import nn

__all__ = ["PretrainResult", "batched_logits", "pretrain", "random_action_masks"]

LogitsFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass
class PretrainResult:
    """What pre-training returns: the best validation AUC, when it was reached, the curve."""

    best_auc: float
    best_iteration: int
    history: list[dict[str, Any]] = field(default_factory=list)


def random_action_masks(
    n_rows: int, n_actions: int, generator: torch.Generator, *, complete: int = 0
) -> torch.Tensor:
    """Draw action masks: ``p ~ U(0,1)`` per row, each action kept with probability ``1 - p``.

    Parameters
    ----------
    n_rows, n_actions : int
        Shape of the mask.
    generator : torch.Generator
        The random stream.
    complete : int, default=0
        The first ``complete`` rows are fully observed.

    Returns
    -------
    torch.Tensor of bool, shape (n_rows, n_actions)
    """
    p = torch.rand(n_rows, 1, generator=generator)
    keep = torch.rand(n_rows, n_actions, generator=generator) >= p
    if complete:
        keep[:complete] = True
    return keep


def batched_logits(
    logits_fn: LogitsFn,
    X: torch.Tensor,
    column_mask: torch.Tensor,
    *,
    chunk: int = 4096,
) -> torch.Tensor:
    """Evaluate ``logits_fn`` without gradients in chunks of rows and concatenate."""
    outs = []
    with torch.no_grad():
        for start in range(0, X.shape[0], chunk):
            outs.append(logits_fn(X[start : start + chunk], column_mask[start : start + chunk]))
    return torch.cat(outs, dim=0)


def _auc(target: np.ndarray, logits: torch.Tensor) -> float:
    if logits.ndim == 1:
        return float(roc_auc_score(target, logits.numpy()))
    proba = torch.softmax(logits, dim=1).numpy()
    return float(roc_auc_score(target, proba, multi_class="ovr", labels=np.arange(proba.shape[1])))


def pretrain(
    net: nn.Module,
    logits_fn: LogitsFn,
    loss_fn: LossFn,
    X: torch.Tensor,
    target: torch.Tensor,
    X_val: torch.Tensor,
    target_val: torch.Tensor,
    column_action: torch.Tensor,
    *,
    n_iter: int,
    batch_size: int,
    learning_rate: float,
    generator: torch.Generator,
    eval_every: int = 200,
    name: str = "classifier",
    on_iteration: Callable[[int], object] | None = None,
) -> PretrainResult:
    """Pre-train one encoder + classifier pair and load its best-validation-AUC parameters.

    Parameters
    ----------
    net : torch.nn.Module
        The module whose parameters ``logits_fn`` uses (trained in place).
    logits_fn : callable
        ``(values, column_mask) -> logits``.
    loss_fn : callable
        ``(logits, target) -> per-row loss``.
    X, target : torch.Tensor
        Training features (n, d) and targets (n,).
    X_val, target_val : torch.Tensor
        Validation features and targets.
    column_action : torch.Tensor of int64, shape (d,)
        The action (feature group) of every column.
    n_iter, batch_size : int
        Iterations and batch size (10,000 and 64 in the paper).
    learning_rate : float
        Adam's step size.
    generator : torch.Generator
        Draws the batches and the missingness.
    eval_every : int, default=200
        Iterations between validation AUCs.
    name : str, default="classifier"
        Recorded in the history rows.
    on_iteration : callable or None, default=None
        Called with the iteration number after each iteration (progress reports only; it
        draws nothing from ``generator``).

    Returns
    -------
    PretrainResult
    """
    n_actions = int(column_action.max()) + 1
    optimiser = torch.optim.Adam(net.parameters(), lr=learning_rate, foreach=True)
    val_mask = random_action_masks(X_val.shape[0], n_actions, generator)[:, column_action]
    target_np = target_val.numpy()
    best_auc = -np.inf
    best_iter = 0
    best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    history: list[dict[str, Any]] = []
    half = batch_size // 2
    running = 0.0
    for it in range(1, n_iter + 1):
        net.train()
        idx = torch.randint(X.shape[0], (batch_size,), generator=generator)
        masks = random_action_masks(batch_size, n_actions, generator, complete=half)
        loss = loss_fn(logits_fn(X[idx], masks[:, column_action]), target[idx]).mean()
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()
        running += float(loss.detach())
        if it % eval_every == 0 or it == n_iter:
            net.eval()
            auc = _auc(target_np, batched_logits(logits_fn, X_val, val_mask))
            n_seen = eval_every if it % eval_every == 0 else it % eval_every
            history.append(
                {
                    "phase": f"pretrain-{name}",
                    "iteration": it,
                    "train_loss": running / n_seen,
                    "val_auc": auc,
                }
            )
            running = 0.0
            if auc > best_auc:
                best_auc, best_iter = auc, it
                best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        if on_iteration is not None:
            on_iteration(it)
    net.load_state_dict(best_state)
    net.eval()
    return PretrainResult(best_auc=float(best_auc), best_iteration=best_iter, history=history)
