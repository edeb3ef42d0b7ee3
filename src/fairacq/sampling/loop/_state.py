"""What a group-selection rule sees at the start of a round."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["SamplerState"]


@dataclasses.dataclass
class SamplerState:
    """What a selection rule sees at the start of a round.

    Attributes
    ----------
    t : int
        Round index (0-based).
    counts : ndarray of shape (n_groups,)
        Training samples ``N_z,t`` drawn from each group so far.
    val_loss : ndarray of shape (n_groups,)
        Loss of the current model on each group's validation set.
    val_acc_history : list of list of float
        Per group, the validation accuracy after every round so far (oldest first).
    proportions : ndarray of shape (n_groups,)
        The natural share of each group (from the oracle).
    n_features : int
        Number of features.
    b0 : int
        Samples per draw.
    memory : dict
        The rule's own state between rounds, JSON types only (plain lists, floats, ints,
        strings): kept in checkpoints and restored on resume. Rules whose choice depends only
        on the fields above leave it empty.
    training : callable or None
        ``training()`` returns the training set drawn so far, ``(X, y, group codes)``, for
        rules that fit models of their own (Slice Tuner's learning curves).
    validation : list of (X, y) or None
        Each group's validation set as the round starts.
    rounds_left : int or None
        Rounds the budget still pays for, this one included.
    """

    t: int
    counts: NDArray[np.int64]
    val_loss: NDArray[np.float64]
    val_acc_history: list[list[float]]
    proportions: NDArray[np.float64]
    n_features: int
    b0: int
    memory: dict[str, Any] = dataclasses.field(default_factory=dict)
    training: (
        Callable[[], tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]] | None
    ) = None
    validation: list[tuple[NDArray[np.float64], NDArray[np.int64]]] | None = None
    rounds_left: int | None = None

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self.counts)

    @property
    def pi(self) -> NDArray[np.float64]:
        """The empirical training mixture ``pi_t``."""
        total = self.counts.sum()
        if total == 0:
            return np.full(self.n_groups, 1.0 / self.n_groups)
        out: NDArray[np.float64] = self.counts / total
        return out
