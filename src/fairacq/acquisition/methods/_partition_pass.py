"""The passes over the pool that partitioning needs, one block at a time.

Partitioning standardises the features with the pool's column means and standard deviations
(one pass, per-block moments merged in block order), fits its clusters on a seeded sample of
rows fetched by position, then labels every row and sums each partition's rows for its
centroid (a second pass). Each block's work is a module-level function, so a chunk executor
can run it on dask workers that read their own rows; the merge runs here, in block order, so
the result does not depend on the chunk size or the executor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.acquisition.pools._chunk_map import BlockFn, ChunkExecutor, map_blocks
from fairacq.acquisition.pools._pool_source import ArrayReader

__all__ = ["ArrayRows", "RowSource", "Standardiser", "fit_standardiser", "label_and_sum"]

R = TypeVar("R")


class RowSource(Protocol):
    """What partitioning reads: a pool's size, its blocks and rows by position."""

    def __len__(self) -> int:
        """Return the number of rows."""

    def map_blocks(
        self,
        fn: BlockFn[R],
        *,
        side: Mapping[str, NDArray[np.generic]] | None = None,
        executor: ChunkExecutor | None = None,
    ) -> list[R]:
        """Apply ``fn`` to every block in order."""

    def read_rows(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Return the features of the rows at ``positions``."""


class ArrayRows:
    """A feature matrix in memory seen as a :class:`RowSource`."""

    def __init__(self, X: NDArray[np.float64], *, chunk_rows: int, block_rows: int) -> None:
        self.X = X
        self.chunk_rows = chunk_rows
        self.block_rows = block_rows

    def __len__(self) -> int:
        return int(self.X.shape[0])

    def map_blocks(
        self,
        fn: BlockFn[R],
        *,
        side: Mapping[str, NDArray[np.generic]] | None = None,
        executor: ChunkExecutor | None = None,
    ) -> list[R]:
        """Apply ``fn`` to every block in order."""
        return map_blocks(
            ArrayReader(self.X, self.chunk_rows),
            fn,
            n_rows=len(self),
            chunk_rows=self.chunk_rows,
            block_rows=self.block_rows,
            side=side,
            executor=executor,
        )

    def read_rows(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Return the rows at ``positions`` (C-contiguous)."""
        return np.ascontiguousarray(self.X[np.asarray(positions, dtype=np.int64)])


@dataclass(frozen=True)
class Standardiser:
    """Z-scores with the pool's column moments, then an optional PCA projection."""

    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    pca: Any = None

    def transform(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return the rows in the clustering space."""
        Z: NDArray[np.float64] = X - self.mean
        Z /= self.scale
        if self.pca is not None:
            Z = np.asarray(self.pca.transform(Z), dtype=np.float64)
        return Z


def fit_standardiser(rows: RowSource, *, executor: ChunkExecutor | None = None) -> Standardiser:
    """Column means and standard deviations of the pool, from one pass over its blocks.

    Per-block counts, means and squared deviations are merged in block order (Chan et al.'s
    pairwise update). A column whose deviation is zero up to rounding gets scale 1.
    """
    count = 0
    mean: NDArray[np.float64] | None = None
    m2: NDArray[np.float64] | None = None
    for n_b, mean_b, m2_b in rows.map_blocks(_block_moments, executor=executor):
        if mean is None or m2 is None:
            count, mean, m2 = n_b, mean_b, m2_b
            continue
        total = count + n_b
        delta = mean_b - mean
        mean = mean + delta * (n_b / total)
        m2 = m2 + m2_b + delta**2 * (count * n_b / total)
        count = total
    assert mean is not None  # the pool is not empty
    assert m2 is not None
    scale = np.sqrt(m2 / count)
    scale[scale <= 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
    return Standardiser(mean, scale)


def _block_moments(
    X: NDArray[np.float64], side: Mapping[str, NDArray[Any]]
) -> tuple[int, NDArray[np.float64], NDArray[np.float64]]:
    m = X.shape[0]
    mean = X.sum(axis=0) / m
    dev = X - mean
    return m, mean, np.einsum("ij,ij->j", dev, dev)


def label_and_sum(
    rows: RowSource,
    standardiser: Standardiser,
    n_labels: int,
    *,
    model: Any = None,
    labels: NDArray[np.int64] | None = None,
    executor: ChunkExecutor | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Label every row (``model.predict`` or given ``labels``) and sum each label's rows.

    Returns
    -------
    labels : ndarray of int, shape (n,)
        Raw labels (``-1``: left out).
    sums : ndarray of float, shape (n_labels, d)
        Sum of each label's rows in the clustering space, merged in block order.
    """
    side = {} if labels is None else {"labels": labels}
    fn = partial(_label_block, standardiser=standardiser, model=model, n_labels=n_labels)
    parts = rows.map_blocks(fn, side=side, executor=executor)
    out = np.concatenate([p[0] for p in parts]).astype(np.int64)
    sums = parts[0][1].copy()
    for _, s in parts[1:]:
        sums += s
    return out, sums


def _label_block(
    X: NDArray[np.float64],
    side: Mapping[str, NDArray[Any]],
    *,
    standardiser: Standardiser,
    model: Any,
    n_labels: int,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    Z = standardiser.transform(X)
    lab = (
        np.asarray(model.predict(Z), dtype=np.int64)
        if model is not None
        else np.asarray(side["labels"], dtype=np.int64)
    )
    sums = np.zeros((n_labels, Z.shape[1]), dtype=np.float64)
    for j in np.unique(lab[lab >= 0]):
        sums[j] = Z[lab == j].sum(axis=0)
    return lab, sums
