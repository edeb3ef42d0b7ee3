"""Partition a candidate pool into the arms of DataSift's bandit (Hasan & Pradhan, §3.2).

DataSift splits the pool into disjoint partitions ``C_1 .. C_g`` and treats each as an arm.
The paper clusters the pool with a Gaussian mixture whose number of components is chosen by
the Bayesian information criterion (§4.1.3), and compares it with partitions by US state
(§4.4, Fig. 7c). This module builds those partitions, their centroids (for the normalised
centroid distance of eq. 1), and the intra-partition base-rate differences (also eq. 1).

Choices the paper leaves open (measured in ``docs/paper-notes/datasift-bandit.md``):

- Features are standardised (z-scores over the pool) before clustering; centroids live in
  that space (or in its PCA reduction when ``reduce_dim`` is given).
- The BIC search runs on a random subsample of at most ``bic_sample`` rows with diagonal
  covariances by default: a full-covariance search over Adult's ~100 one-hot columns is ten
  times slower for the same choice of k.
- The chosen mixture is refined by EM on at most ``fit_sample`` rows, warm-started from the
  subsample fit, and then labels every row.
- Partitions are numbered ``0 .. g-1`` by decreasing size, so results do not depend on the
  arbitrary order of mixture components.
- Every pass over the pool (moments, labels, centroids) runs block by block on a
  :class:`~fairacq.acquisition.PoolSource`, so a pool streamed from Parquet is partitioned
  exactly as the same rows in memory; the cluster fits use rows fetched by position.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, as_generator, derive_int_seed
from fairacq._validation import (
    Interval,
    Options,
    check_binary_labels,
    check_consistent_length,
    check_groups,
    check_no_nan,
    did_you_mean,
    validate_parameter_constraints,
)
from fairacq.acquisition.methods._partition_pass import (
    ArrayRows,
    RowSource,
    Standardiser,
    fit_standardiser,
    label_and_sum,
)
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import (
    DEFAULT_BLOCK_ROWS,
    DEFAULT_CHUNK_ROWS,
    PoolSource,
)
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, InvalidDataError, InvalidParameterError

__all__ = [
    "PartitionDroppedWarning",
    "Partitioning",
    "drop_small_partitions",
    "partition_base_rate_diffs",
    "partition_pool",
]

PartitionMethod = Literal["gmm", "kmeans", "column"]
_METHODS = ("column", "gmm", "kmeans")


class PartitionDroppedWarning(UserWarning):
    """Some partitions were left out of the bandit because they are smaller than a batch."""


@dataclass(frozen=True, eq=False)
class Partitioning:
    """A partition of the pool rows into the arms of DataSift's bandit.

    Built by :func:`partition_pool` (Hasan & Pradhan, §3.2: "each partition C_i is then treated as
    an arm").

    Parameters
    ----------
    labels : ndarray of int, shape (n,)
        Partition of each pool row in ``0 .. g-1``; ``-1`` marks rows left out (only for
        ``method="column"`` with ``max_partitions``).
    centroids : ndarray of float, shape (g, d)
        Mean of each partition's rows in the feature space used (standardised features, or
        their PCA reduction).
    sizes : ndarray of int, shape (g,)
        Rows in each partition, in decreasing order.
    method : str
        ``"gmm"``, ``"kmeans"`` or ``"column"``.
    n_partitions : int
        ``g``, the number of partitions (non-empty ones only).
    bic : dict of int to float
        BIC of each number of components tried (empty unless the GMM searched k).
    elapsed_s : float
        Wall time of the whole partitioning, search included.
    names : tuple of str
        A name per partition: the column value for ``method="column"``, else ``"0"``, ``"1"``.
    details : dict
        Diagnostics: rows used for the search and the final fit, convergence, and so on.
    """

    labels: NDArray[np.int64]
    centroids: NDArray[np.float64]
    sizes: NDArray[np.int64]
    method: str
    n_partitions: int
    bic: dict[int, float] = field(default_factory=dict)
    elapsed_s: float = 0.0
    names: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def normalised_distances(self) -> NDArray[np.float64]:
        """Return Euclidean distances between centroids divided by the largest one.

        This is ``dist(C_i, C_j)`` of eq. (1) of Hasan & Pradhan, "the normalized Euclidean
        distance
        between the two partitions computed over the partition centroids".

        Returns
        -------
        ndarray of float, shape (g, g)
            Symmetric, zero on the diagonal, largest entry 1; all zeros when there is a single
            partition or all centroids coincide.

        Examples
        --------
        >>> p = Partitioning(labels=np.array([0, 1, 2]), centroids=np.array([[0.0], [1.0], [4.0]]),
        ...                  sizes=np.array([1, 1, 1]), method="kmeans", n_partitions=3)
        >>> p.normalised_distances()[0].tolist()
        [0.0, 0.25, 1.0]
        """
        c = np.asarray(self.centroids, dtype=np.float64)
        diff = c[:, None, :] - c[None, :, :]
        dist: NDArray[np.float64] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        top = float(dist.max()) if dist.size else 0.0
        if top <= 0.0:
            return np.zeros_like(dist)
        return dist / top


# ---------------------------------------------------------------------------------------------
# partition_pool
# ---------------------------------------------------------------------------------------------
def partition_pool(
    X: ArrayLike | PoolSource,
    *,
    method: PartitionMethod = "gmm",
    n_partitions: int | None = None,
    k_range: tuple[int, int] = (2, 10),
    k_selection: Literal["min", "knee"] = "min",
    column: ArrayLike | None = None,
    max_partitions: int | None = None,
    covariance_type: Literal["diag", "full", "tied", "spherical"] = "diag",
    bic_sample: int = 5000,
    fit_sample: int | None = 200_000,
    reduce_dim: int | None = None,
    random_state: RandomState = None,
    executor: ChunkExecutor | None = None,
) -> Partitioning:
    """Split the pool into disjoint partitions, the arms of DataSift's bandit.

    Implements the partitioning step of Hasan & Pradhan (§3.2; settings of §4.1.3: "We partition
    the data pool using Gaussian Mixture Model (GMM) and find the optimal number of
    partitions using the Bayesian Information Criterion"), plus k-means (named in §3.2) and
    partitions by the values of a column such as the US state (§4.4, Fig. 7c).

    Parameters
    ----------
    X : array-like of shape (n, d), FairDataset or PoolSource
        Numeric pool features (a DataFrame such as ``pool.X``, an array, the pool
        :class:`~fairacq.FairDataset` itself, whose ``X`` is used, or a
        :class:`~fairacq.acquisition.PoolSource` such as a
        :class:`~fairacq.acquisition.ParquetPool`, read block by block); no NaN.
    method : {"gmm", "kmeans", "column"}, default="gmm"
        ``"gmm"``: Gaussian mixture on the standardised features, k by lowest BIC over
        ``k_range`` unless ``n_partitions`` is given. ``"kmeans"``: k-means with
        ``n_partitions`` clusters. ``"column"``: one partition per distinct value of
        ``column``.
    n_partitions : int or None, default=None
        Number of components (gmm, skips the BIC search) or clusters (kmeans, required).
    k_range : tuple of two ints, default=(2, 10)
        Inclusive range of k searched by BIC. Values of k above the number of rows in the
        search sample are skipped.
    k_selection : {"min", "knee"}, default="min"
        How the BIC curve picks k: ``"min"``, the lowest BIC (the paper's "optimal number of
        partitions using BIC"); ``"knee"``, the elbow of the curve's falling part (the point
        farthest below the chord from its first point to its minimum), as the authors'
        public code does. On
        one-hot data the BIC often keeps falling up to the end of ``k_range``; the knee then
        gives fewer, larger partitions. Falls back to ``"min"`` when the curve has no elbow.
    column : array-like of shape (n,) or None, default=None
        The value of each row that defines its partition (``method="column"`` only).
    max_partitions : int or None, default=None
        With ``method="column"``, keep only the ``max_partitions`` most frequent values as
        partitions (the paper takes the four largest states); other rows get label ``-1`` and
        are left out of the bandit.
    covariance_type : {"diag", "full", "tied", "spherical"}, default="diag"
        Covariance of the mixture components (``sklearn.mixture.GaussianMixture``).
    bic_sample : int, default=5000
        The BIC search fits each k on a random subsample of at most this many rows.
    fit_sample : int or None, default=200_000
        The final GMM or k-means fit uses at most this many random rows, then labels every
        row; ``None`` fits on all rows.
    reduce_dim : int or None, default=None
        Project the standardised features on their first ``reduce_dim`` principal components
        before clustering (and compute centroids there).
    random_state : int, numpy.random.Generator or None, default=None
        Controls the subsamples and the clustering initialisation.
    executor : ChunkExecutor or None, default=None
        Where the passes over the pool's blocks run (None: serially here).

    Returns
    -------
    Partitioning
        Labels, centroids, sizes, BIC table and timing. Partitions are numbered by
        decreasing size (ties: by first component index, or by sorted value for columns).

    Raises
    ------
    InvalidDataError
        If ``X`` is not a 2-D numeric array, holds NaN or infinite values, has fewer rows than
        partitions, or ``column`` has another length or NaN values.
    InvalidParameterError
        For an out-of-range option, ``n_partitions=None`` with k-means, or ``column=None``
        with the column method.
    UnknownNameError
        For an unknown ``method`` (suggesting the closest known one).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(c, 0.1, size=(50, 2)) for c in (0.0, 5.0)])
    >>> p = partition_pool(X, method="kmeans", n_partitions=2, random_state=0)
    >>> p.sizes.tolist(), p.n_partitions
    ([50, 50], 2)
    """
    start = time.perf_counter()
    where = "partition_pool"
    _check_partition_options(
        where,
        method,
        n_partitions=n_partitions,
        max_partitions=max_partitions,
        covariance_type=covariance_type,
        k_selection=k_selection,
        bic_sample=bic_sample,
        fit_sample=fit_sample,
        reduce_dim=reduce_dim,
        random_state=random_state,
        column=column,
    )
    k_lo, k_hi = _check_k_range(where, k_range)
    rows, n, d = _as_rows(where, X)
    _check_sizes(where, n, d, n_partitions, reduce_dim)

    rng = as_generator(random_state)
    seed = derive_int_seed(rng)
    fit_idx = _subsample(rng, n, fit_sample)
    details: dict[str, Any] = {"n_rows": n, "n_features": d, "reduce_dim": reduce_dim}
    std, Z_fit = _standardise(rows, fit_idx, reduce_dim, seed, details, executor)

    bic: dict[int, float] = {}
    names: tuple[str, ...] = ()
    model: Any = None
    given: NDArray[np.int64] | None = None
    if method == "column":
        given, names = _column_labels(where, column, n, max_partitions)
        n_raw = len(names)
    elif method == "kmeans":
        assert n_partitions is not None  # checked above
        model = _fit_kmeans(Z_fit, n_partitions, fit_idx, seed, details)
        n_raw = n_partitions
    else:
        bic_idx = _subsample(rng, n, bic_sample)
        Z_bic = Z_fit if np.array_equal(bic_idx, fit_idx) else _rows_z(rows, std, bic_idx)
        model = _fit_gmm(
            where,
            (Z_bic, Z_fit),
            n_partitions,
            (k_lo, k_hi),
            k_selection,
            covariance_type,
            (bic_idx, fit_idx),
            seed,
            bic,
            details,
        )
        n_raw = int(model.n_components)
    raw, sums = label_and_sum(rows, std, n_raw, model=model, labels=given, executor=executor)
    labels, centroids, sizes, names = _number_by_size(raw, sums, n_raw, names, method)
    return Partitioning(
        labels=labels,
        centroids=centroids,
        sizes=sizes,
        method=method,
        n_partitions=len(names),
        bic=bic,
        elapsed_s=time.perf_counter() - start,
        names=names,
        details=details,
    )


def _check_partition_options(where: str, method: str, *, column: Any, **options: Any) -> None:
    """Check the method name, each option's range and which options go together."""
    if method not in _METHODS:
        raise did_you_mean(
            "partition method", str(method), _METHODS, "fairacq.acquisition.partition_pool"
        )
    validate_parameter_constraints(
        {
            "n_partitions": [Interval(int, 1, None, closed="left"), None],
            "max_partitions": [Interval(int, 1, None, closed="left"), None],
            "covariance_type": [Options(["diag", "full", "tied", "spherical"])],
            "k_selection": [Options(["min", "knee"])],
            "bic_sample": [Interval(int, 2, None, closed="left")],
            "fit_sample": [Interval(int, 2, None, closed="left"), None],
            "reduce_dim": [Interval(int, 1, None, closed="left"), None],
            "random_state": ["random_state"],
        },
        options,
        where,
    )
    if method == "kmeans" and options["n_partitions"] is None:
        raise InvalidParameterError(
            f"{where}: method='kmeans' needs n_partitions. Got None. Pass n_partitions=k, "
            "or use method='gmm' to choose k by BIC."
        )
    if method == "column" and column is None:
        raise InvalidParameterError(
            f"{where}: method='column' needs column= (one value per pool row, e.g. the US "
            "state). Got None. Pass the column values."
        )
    if method != "column" and (column is not None or options["max_partitions"] is not None):
        raise InvalidParameterError(
            f"{where}: column= and max_partitions= only apply to method='column'. Got "
            f"method={method!r}. Drop them or set method='column'."
        )


def _check_sizes(
    where: str, n: int, d: int, n_partitions: int | None, reduce_dim: int | None
) -> None:
    """Refuse more partitions than rows, or more components than features."""
    if n_partitions is not None and n_partitions > n:
        raise InvalidDataError(
            f"{where}: the pool has {n} rows, fewer than n_partitions={n_partitions}. "
            "Lower n_partitions or pass a larger pool."
        )
    if reduce_dim is not None and reduce_dim > d:
        raise InvalidParameterError(
            f"{where}: reduce_dim={reduce_dim} exceeds the {d} features. Pass at most {d}, "
            "or None to keep all features."
        )


def _standardise(
    rows: RowSource,
    fit_idx: NDArray[np.int64],
    reduce_dim: int | None,
    seed: int,
    details: dict[str, Any],
    executor: ChunkExecutor | None,
) -> tuple[Standardiser, NDArray[np.float64]]:
    """Fit the standardiser (and PCA) and return it with the fit sample's transformed rows."""
    std = fit_standardiser(rows, executor=executor)
    Z_fit = std.transform(rows.read_rows(fit_idx))
    if reduce_dim is not None:
        from sklearn.decomposition import PCA

        pca = PCA(n_components=reduce_dim, random_state=seed).fit(Z_fit)
        std = Standardiser(std.mean, std.scale, pca)
        Z_fit = np.asarray(pca.transform(Z_fit), dtype=np.float64)
        details["explained_variance"] = float(np.sum(pca.explained_variance_ratio_))
    return std, Z_fit


def _number_by_size(
    raw: NDArray[np.int64],
    sums: NDArray[np.float64],
    n_raw: int,
    names: tuple[str, ...],
    method: str,
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64], tuple[str, ...]]:
    """Renumber clusters by decreasing size; return labels, centroids, sizes and names."""
    mapping = np.arange(n_raw, dtype=np.int64)
    if method != "column":
        mapping, names = _relabel_by_size(raw, n_raw)
    labels = np.where(raw >= 0, mapping[np.maximum(raw, 0)], -1).astype(np.int64)
    g = len(names)
    kept = labels >= 0
    sizes = np.bincount(labels[kept], minlength=g).astype(np.int64)
    centroids = np.zeros((g, sums.shape[1]), dtype=np.float64)
    for old in range(n_raw):
        new = int(mapping[old])
        if new >= 0 and sizes[new] > 0:
            centroids[new] = sums[old] / sizes[new]
    return labels, centroids, sizes, names


def _check_k_range(where: str, k_range: Any) -> tuple[int, int]:
    ok = (
        isinstance(k_range, (tuple, list))
        and len(k_range) == 2
        and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in k_range)
        and 1 <= k_range[0] <= k_range[1]
    )
    if not ok:
        raise InvalidParameterError(
            f"{where}: k_range must be two ints (lo, hi) with 1 <= lo <= hi. Got {k_range!r} "
            "instead. Pass e.g. k_range=(2, 10)."
        )
    return int(k_range[0]), int(k_range[1])


def _as_feature_matrix(where: str, X: Any) -> NDArray[np.float64]:
    if isinstance(X, FairDataset):
        X = X.X
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(
            f"{where}: X must be numeric ({exc}). Encode categorical columns (one-hot) first."
        ) from exc
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InvalidDataError(
            f"{where}: X must be a non-empty 2-D array (rows x features). Got shape "
            f"{arr.shape}. Pass pool.X or reshape a single feature with X.reshape(-1, 1)."
        )
    check_no_nan(where, "X", arr)
    if not np.isfinite(arr).all():
        rows = np.flatnonzero(~np.isfinite(arr).all(axis=1))[:5].tolist()
        raise InvalidDataError(
            f"{where}: X has infinite values (rows {rows}). Clip or drop them first."
        )
    return arr


def _as_rows(where: str, X: Any) -> tuple[RowSource, int, int]:
    """Return the rows to partition, their number and their number of features."""
    if isinstance(X, PoolSource):
        if len(X) == 0:
            raise InvalidDataError(f"{where}: the pool is empty. Pass a pool with rows.")
        return X, len(X), len(X.feature_names)
    arr = _as_feature_matrix(where, X)
    rows = ArrayRows(arr, chunk_rows=DEFAULT_CHUNK_ROWS, block_rows=DEFAULT_BLOCK_ROWS)
    return rows, int(arr.shape[0]), int(arr.shape[1])


def _rows_z(rows: RowSource, std: Standardiser, idx: NDArray[np.int64]) -> NDArray[np.float64]:
    return std.transform(rows.read_rows(idx))


def _subsample(rng: np.random.Generator, n: int, size: int | None) -> NDArray[np.int64]:
    if size is None or n <= size:
        return np.arange(n, dtype=np.int64)
    return np.sort(rng.choice(n, size=size, replace=False)).astype(np.int64)


def _relabel_by_size(
    raw: NDArray[np.int64], n_raw: int
) -> tuple[NDArray[np.int64], tuple[str, ...]]:
    """Map raw labels to 0..g-1 by decreasing size (ties: smaller old label first; -1: empty)."""
    counts = np.bincount(raw[raw >= 0], minlength=n_raw)
    present = np.flatnonzero(counts)
    order = present[np.lexsort((present, -counts[present]))]
    mapping = np.full(counts.shape[0], -1, dtype=np.int64)
    mapping[order] = np.arange(order.shape[0])
    return mapping, tuple(str(j) for j in range(order.shape[0]))


def _column_labels(
    where: str, column: Any, n: int, max_partitions: int | None
) -> tuple[NDArray[np.int64], tuple[str, ...]]:
    values = np.asarray(column)
    if values.ndim != 1:
        raise InvalidDataError(
            f"{where}: column must be 1-D (one value per pool row). Got shape {values.shape}."
        )
    check_consistent_length(where, X=range(n), column=values)
    check_no_nan(where, "column", values)
    uniq, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    order = np.lexsort((np.arange(uniq.shape[0]), -counts))  # largest first, ties by value
    if max_partitions is not None:
        order = order[:max_partitions]
    mapping = np.full(uniq.shape[0], -1, dtype=np.int64)
    mapping[order] = np.arange(order.shape[0])
    names = tuple(str(v.item() if hasattr(v, "item") else v) for v in uniq[order])
    return mapping[inverse.ravel()], names


def _fit_kmeans(
    Z_fit: NDArray[np.float64],
    k: int,
    fit_idx: NDArray[np.int64],
    seed: int,
    details: dict[str, Any],
) -> Any:
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=k, n_init=3, random_state=seed).fit(Z_fit)
    details.update(fit_rows=int(fit_idx.shape[0]), n_iter=int(km.n_iter_))
    return km


def _fit_gmm(
    where: str,
    samples: tuple[NDArray[np.float64], NDArray[np.float64]],
    n_partitions: int | None,
    k_range: tuple[int, int],
    k_selection: str,
    covariance_type: str,
    rows: tuple[NDArray[np.int64], NDArray[np.int64]],
    seed: int,
    bic: dict[int, float],
    details: dict[str, Any],
) -> Any:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import GaussianMixture

    bic_idx, fit_idx = rows

    def mixture(k: int, **init: Any) -> Any:
        return GaussianMixture(
            n_components=k, covariance_type=covariance_type, random_state=seed, **init
        )

    sample, Z_fit = samples
    with warnings.catch_warnings():
        # Non-convergence is recorded in ``details`` instead of escaping as a warning.
        warnings.simplefilter("ignore", ConvergenceWarning)
        if n_partitions is None:
            ks = [k for k in range(k_range[0], k_range[1] + 1) if k <= sample.shape[0]]
            if not ks:
                raise InvalidDataError(
                    f"{where}: the pool has {sample.shape[0]} row(s), too few to split into "
                    f"the {k_range[0]} or more partitions DataSift needs. Pass a larger pool, "
                    "or use a method without partitions (random, entropy, inf)."
                )
            fits = {}
            for k in ks:
                fits[k] = mixture(k).fit(sample)
                bic[k] = float(fits[k].bic(sample))
            k_best = min(ks, key=lambda k: (bic[k], k))
            if k_selection == "knee":
                k_best = _knee(ks, [bic[k] for k in ks], default=k_best)
            first = fits[k_best]
        else:
            k_best = n_partitions
            first = mixture(k_best).fit(sample)
        if np.array_equal(fit_idx, bic_idx):
            final = first
        else:
            final = mixture(
                k_best,
                weights_init=first.weights_,
                means_init=first.means_,
                precisions_init=first.precisions_,
            ).fit(Z_fit)
    details.update(
        k_chosen=int(k_best),
        k_selection=k_selection if n_partitions is None else "given",
        bic_rows=int(bic_idx.shape[0]),
        fit_rows=int(fit_idx.shape[0]),
        converged=bool(final.converged_),
        n_iter=int(final.n_iter_),
        covariance_type=covariance_type,
    )
    return final


def _knee(ks: Sequence[int], values: Sequence[float], *, default: int) -> int:
    """Return the elbow of the falling part of a BIC curve.

    The curve is cut at its minimum; on the part before it, both axes are scaled to [0, 1]
    and the k farthest below the chord joining the first point and the minimum is the elbow
    (the "Kneedle" construction). Without such a point (the minimum comes first or second,
    or the falling part is straight or concave) ``default`` is returned.
    """
    v_all = np.asarray(values, dtype=np.float64)
    cut = int(np.argmin(v_all)) + 1
    if cut < 3:
        return default
    x = np.asarray(ks[:cut], dtype=np.float64)
    v = v_all[:cut]
    x = (x - x[0]) / (x[-1] - x[0])
    v = (v - v[-1]) / (v[0] - v[-1])  # v[0] > v[-1]: the minimum is last
    chord = 1.0 - x
    gap = chord - v
    best = int(np.argmax(gap))
    return int(ks[best]) if gap[best] > 1e-12 else default


# ---------------------------------------------------------------------------------------------
# base rates and small partitions
# ---------------------------------------------------------------------------------------------
def partition_base_rate_diffs(
    labels: ArrayLike,
    y: ArrayLike,
    s: ArrayLike,
    *,
    n_partitions: int,
    protected: int | None = None,
    privileged: int | None = None,
) -> NDArray[np.float64]:
    """Return the intra-partition base-rate difference ``ΔBR_C`` of every partition.

    Hasan & Pradhan, §3.2: ``ΔBR_D = P(Y=1 | S=0) - P(Y=1 | S=1)`` with ``S=0`` the protected and
    ``S=1`` the privileged group, computed inside each partition for eq. (1).

    - With ``privileged`` given and a single protected group (``protected``, or the only
      other group when there are two), the signed difference
      ``P(Y=1 | protected) - P(Y=1 | privileged)``.
    - Otherwise (more than two groups, or no privileged group named), the largest pairwise
      gap ``max - min`` of the group base rates present in the partition (>= 0).
    - A partition lacking one of the two named groups falls back to the gap over the groups it
      has; a partition with fewer than two groups (or no rows) gets 0: it carries no evidence
      of a base-rate gap. Eq. (1) only uses ``|ΔBR|``, so the sign never changes a reward.

    Parameters
    ----------
    labels : array-like of int, shape (n,)
        Partition of each row (``Partitioning.labels``); rows labelled ``-1`` are ignored.
    y : array-like of {0, 1}, shape (n,)
        Labels of the pool rows.
    s : array-like of int, shape (n,)
        Group codes ``0 .. G-1`` (``FairDataset.s``).
    n_partitions : int
        ``g``; the output has one entry per partition.
    protected, privileged : int or None, default=None
        Group codes (``FairDataset.privileged_code`` for the privileged one).

    Returns
    -------
    ndarray of float, shape (g,)

    Raises
    ------
    InvalidDataError
        For inputs of different lengths, non-binary labels, a single group, or labels outside
        ``-1 .. n_partitions-1``.
    InvalidParameterError
        For group codes that are out of range or equal, or ``protected`` without
        ``privileged`` when there are more than two groups.

    Examples
    --------
    >>> labels = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> y = [1, 0, 1, 1, 1, 1, 0, 0]
    >>> s = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> partition_base_rate_diffs(labels, y, s, n_partitions=2, privileged=1).tolist()
    [-0.5, 1.0]
    """
    where = "partition_base_rate_diffs"
    validate_parameter_constraints(
        {
            "n_partitions": [Interval(int, 1, None, closed="left")],
            "protected": [Interval(int, 0, None, closed="left"), None],
            "privileged": [Interval(int, 0, None, closed="left"), None],
        },
        {"n_partitions": n_partitions, "protected": protected, "privileged": privileged},
        where,
    )
    lab, y_arr, s_arr = _checked_partition_rows(where, labels, y, s, n_partitions)
    n_groups = int(s_arr.max()) + 1
    protected, privileged = _group_pair(where, protected, privileged, n_groups)
    g = n_partitions
    keep = lab >= 0
    cell = lab[keep].astype(np.int64) * n_groups + s_arr[keep]
    counts = np.bincount(cell, minlength=g * n_groups).reshape(g, n_groups).astype(np.float64)
    positives = np.bincount(cell, weights=y_arr[keep], minlength=g * n_groups).reshape(g, n_groups)
    present = counts > 0
    rates = np.divide(positives, counts, out=np.zeros_like(positives), where=present)
    hi = np.where(present, rates, -np.inf).max(axis=1)
    lo = np.where(present, rates, np.inf).min(axis=1)
    out = np.where(present.sum(axis=1) >= 2, hi - lo, 0.0)
    if protected is not None and privileged is not None:
        both = present[:, protected] & present[:, privileged]
        signed = rates[:, protected] - rates[:, privileged]
        out = np.where(both, signed, out)
    return np.asarray(out, dtype=np.float64)


def _checked_partition_rows(
    where: str, labels: ArrayLike, y: ArrayLike, s: ArrayLike, g: int
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Return the partition labels, 0/1 labels and group codes, checked."""
    lab = np.asarray(labels)
    check_consistent_length(where, labels=lab, y=y, s=s)
    y_arr = check_binary_labels(where, y)
    s_arr = check_groups(where, s)
    if lab.dtype.kind not in "iu" or lab.ndim != 1:
        raise InvalidDataError(
            f"{where}: labels must be a 1-D int array (Partitioning.labels). Got dtype "
            f"{lab.dtype} and shape {lab.shape}."
        )
    if lab.size and (lab.min() < -1 or lab.max() >= g):
        raise InvalidDataError(
            f"{where}: labels must lie in -1 .. {g - 1} (n_partitions={g}). Found values in "
            f"{int(lab.min())} .. {int(lab.max())}. Pass the matching n_partitions."
        )
    if s_arr.min() < 0:
        raise InvalidDataError(f"{where}: group codes must be >= 0. Found {int(s_arr.min())}.")
    return lab, y_arr, s_arr


def _group_pair(
    where: str, protected: int | None, privileged: int | None, n_groups: int
) -> tuple[int | None, int | None]:
    """Check the protected and privileged codes; with two groups, one names the other."""
    for name, code in (("protected", protected), ("privileged", privileged)):
        if code is not None and code >= n_groups:
            raise InvalidParameterError(
                f"{where}: {name}={code} is not a group code (codes are 0 .. {n_groups - 1}). "
                "Pass a code from FairDataset.s."
            )
    if protected is not None and protected == privileged:
        raise InvalidParameterError(
            f"{where}: protected and privileged are the same group ({protected}). Pass two "
            "different group codes."
        )
    if privileged is None and protected is not None:
        if n_groups != 2:
            raise InvalidParameterError(
                f"{where}: protected={protected} was given without privileged and there are "
                f"{n_groups} groups. Pass privileged= as well."
            )
        privileged = 1 - protected
    if privileged is not None and protected is None and n_groups == 2:
        protected = 1 - privileged
    return protected, privileged


def drop_small_partitions(
    partitioning: Partitioning, min_size: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Split partition ids into those with at least ``min_size`` rows and the others.

    Hasan & Pradhan leaves partitions smaller than a batch out of the bandit; the acquirer passes
    the batch size as ``min_size``. Each dropped partition is named in a
    :class:`PartitionDroppedWarning`.

    Parameters
    ----------
    partitioning : Partitioning
        From :func:`partition_pool`.
    min_size : int
        Smallest partition kept (usually the batch size).

    Returns
    -------
    kept_ids, dropped_ids : ndarray of int
        Partition ids in increasing order.

    Raises
    ------
    BudgetError
        If every partition is smaller than ``min_size``.
    InvalidParameterError
        If ``min_size`` is not a positive int.

    Warns
    -----
    PartitionDroppedWarning
        Naming the dropped partitions and their sizes.

    Examples
    --------
    >>> p = Partitioning(labels=np.array([0, 0, 0, 1]), centroids=np.zeros((2, 1)),
    ...                  sizes=np.array([3, 1]), method="kmeans", n_partitions=2)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", PartitionDroppedWarning)
    ...     kept, dropped = drop_small_partitions(p, 2)
    >>> kept.tolist(), dropped.tolist()
    ([0], [1])
    """
    where = "drop_small_partitions"
    validate_parameter_constraints(
        {"min_size": [Interval(int, 1, None, closed="left")]}, {"min_size": min_size}, where
    )
    sizes = np.asarray(partitioning.sizes, dtype=np.int64)
    kept = np.flatnonzero(sizes >= min_size).astype(np.int64)
    dropped = np.flatnonzero(sizes < min_size).astype(np.int64)
    if kept.size == 0:
        raise BudgetError(
            f"{where}: every partition is smaller than min_size={min_size} (largest has "
            f"{int(sizes.max()) if sizes.size else 0} rows). Lower the batch size or use "
            "fewer partitions."
        )
    if dropped.size:
        listed = ", ".join(
            f"{_name(partitioning, int(j))} ({int(sizes[j])} rows)" for j in dropped
        )
        warnings.warn(
            f"{len(dropped)} group(s) of similar pool rows smaller than {min_size} rows "
            f"(a batch) will not be bought from: {listed}. Lower the batch size or use fewer "
            "partitions to keep them.",
            PartitionDroppedWarning,
            stacklevel=2,
        )
    return kept, dropped


def _name(partitioning: Partitioning, j: int) -> str:
    names: Sequence[str] = partitioning.names
    return f"partition {j}" + (f" '{names[j]}'" if j < len(names) and names[j] != str(j) else "")
