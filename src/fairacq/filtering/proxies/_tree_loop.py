"""The growth of an (alpha, beta)-proxy tree as a step-wise run (one trace row per split).

:class:`GrowthLoop` lets :func:`fairacq._loop.run_loop` drive a
:class:`~fairacq.filtering.proxies._tree_builder.TreeBuilder`: step 0 records the root
leaf, every further step applies the split that moves the hull closest to the target and
records the proxy the tree would give if it stopped there (its disclosivity, expected
imbalance and acceptance) beside what the Lagrangian game of that split did. A checkpoint
folder holds the trace and the tree so far, so a stopped growth resumes to the same tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from fairacq._loop import RunLoop
from fairacq.filtering.proxies._proxies import (
    _matrix_alpha,
    _matrix_beta,
    _Sample,
    features_read,
)
from fairacq.filtering.proxies._tree_builder import TreeBuilder
from fairacq.metrics import expected_acceptance_rate

__all__ = ["GrowthLoop"]

#: The game's columns of the root's row, which no game made.
_NO_SPLIT: dict[str, Any] = {
    "leaf": -1,
    "iterations": 0,
    "shrink": np.nan,
    "duality_gap": np.nan,
    "max_violation": np.nan,
}


class GrowthLoop(RunLoop):
    """One growth of the tree, step by step (Algorithm 4 of Deng et al.).

    Parameters
    ----------
    builder : TreeBuilder
        The tree to grow, on the labelled sample.
    sample : _Sample
        The validated labelled sample (feature names and group classes).
    """

    def __init__(self, builder: TreeBuilder, sample: _Sample) -> None:
        self.builder = builder
        self.sample = sample

    def start(self, root: np.random.SeedSequence) -> Mapping[str, Any] | None:
        """Return the root leaf's row (None when resuming: the checkpoint holds it)."""
        return None if self.resuming else self._row(_NO_SPLIT)

    def stop_reason(self) -> str | None:
        """Why growth stops before the next split (None: a split is pending)."""
        return self.builder.stop_reason()

    def step(self, index: int) -> Mapping[str, Any]:
        """Apply the pending split and return its row."""
        return self._row(self.builder.apply_pending())

    def write_state(self, folder: Path) -> None:
        """Write the tree so far (see :meth:`TreeBuilder.write_state`)."""
        self.builder.write_state(folder)

    def read_state(self, folder: Path) -> None:
        """Read the tree of a checkpoint (see :meth:`TreeBuilder.read_state`)."""
        self.builder.read_state(folder)

    def _row(self, game: Mapping[str, Any]) -> dict[str, Any]:
        """Return the row of the tree as it stands: its proxy's values, then the game's."""
        hull, classes = self.builder.hull, self.sample.classes
        n_rows = int(self.sample.X.shape[0])
        names = self.sample.feature_names
        return {
            "cost": float(n_rows),  # labelled rows used: splits label nothing more
            "n_rows": n_rows,
            "alpha": _matrix_alpha(hull.A, hull.r_hat, classes),
            "beta": _matrix_beta(hull.A, hull.r_hat, hull.rho, self.builder.target, classes),
            "n_values": len(hull.r_hat),
            "acceptance_rate": expected_acceptance_rate(hull.r_hat, hull.rho),
            "features": ",".join(features_read(self.builder.rule(), names)),
            "hull_distance": hull.distance,
            **game,
        }
