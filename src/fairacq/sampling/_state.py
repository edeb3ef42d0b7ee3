"""What a group-selection rule sees at the start of a round."""

from __future__ import annotations

import dataclasses

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
    """

    t: int
    counts: NDArray[np.int64]
    val_loss: NDArray[np.float64]
    val_acc_history: list[list[float]]
    proportions: NDArray[np.float64]
    n_features: int
    b0: int

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
