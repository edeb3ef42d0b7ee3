"""The papers' train/validation/test/pool splits, stratified on label x group.

Every splitter returns frozen dataclasses of :class:`FairDataset` plus the positional indices of
each part in the input, so parts can be traced back. Parts are pairwise disjoint and, together,
cover the input. Splits are stratified on (group, label) cells with exact part sizes, which
changes no distribution the papers describe and lowers the variance between seeds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState, as_generator
from fairacq._validation import Interval, Options, validate_parameter_constraints
from fairacq.data._dataset import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "DataSiftSplit",
    "TrainTestSplit",
    "TrainValTestSplit",
    "kfold_splits",
    "split_dadi",
    "split_datasift",
    "split_filtering",
    "split_parts",
    "split_train_val_test",
]

IntArray = NDArray[np.int64]

#: Sampling weight of each (group, label) cell in DataSift's "paper" bias, see split_datasift.
_PAPER_BIAS_WEIGHTS = {"privileged": (1.0, 2.0), "protected": (0.5, 0.25)}


@dataclass(frozen=True)
class DataSiftSplit:
    """DataSift's four parts (Hasan & Pradhan, §4.1.3).

    Attributes
    ----------
    train : FairDataset
        The deliberately biased initial training set.
    validation : FairDataset
        Carved from the test part; acquisition strategies steer with it.
    test : FairDataset
        Held out for reporting only.
    pool : FairDataset
        The candidate pool to acquire from.
    indices : dict of str to ndarray
        Positional indices of each part in the input dataset.
    """

    train: FairDataset
    validation: FairDataset
    test: FairDataset
    pool: FairDataset
    indices: Mapping[str, IntArray] = field(repr=False)


@dataclass(frozen=True)
class TrainValTestSplit:
    """Training, validation and test parts.

    Attributes
    ----------
    train, validation, test : FairDataset
        The parts.
    indices : dict of str to ndarray
        Positional indices of each part in the input dataset.
    """

    train: FairDataset
    validation: FairDataset
    test: FairDataset
    indices: Mapping[str, IntArray] = field(repr=False)


@dataclass(frozen=True)
class TrainTestSplit:
    """Training and test parts.

    Attributes
    ----------
    train, test : FairDataset
        The parts.
    indices : dict of str to ndarray
        Positional indices of each part in the input dataset.
    """

    train: FairDataset
    test: FairDataset
    indices: Mapping[str, IntArray] = field(repr=False)


# ---------------------------------------------------------------------------------------------
# public splitters
# ---------------------------------------------------------------------------------------------
def split_datasift(
    dataset: FairDataset,
    *,
    ratios: Sequence[float] = (1, 4, 15),
    bias: Literal["paper", "authors"] | None = "paper",
    validation_fraction: float = 0.25,
    random_state: RandomState = None,
) -> DataSiftSplit:
    """Split into DataSift's biased train, validation, test and pool (Hasan & Pradhan, §4.1.3).

    The paper splits "the entire dataset into three parts: Training, Test and Data pool in the
    ratio of 1:4:15. While test and data pool were split randomly, the training dataset was
    sampled to obtain an initial biased model." fairacq draws the training part first (biased,
    below), then splits the remaining rows into test and pool (stratified, exact sizes), then
    carves ``validation_fraction`` of the test part off as the validation part: DataSift's
    bandit is steered with the validation part, and the test part only reports results (the
    authors' code steers with the test split, which leaks it into the decisions).

    How the training part is biased (``bias``):

    - ``"paper"``: the text only says "sampled to obtain an initial biased model"; its
      motivating Example 1 describes training data with "unequal representation of applicants
      from different genders and an even unbalanced gender representation of applicants
      offered a job". fairacq implements both: each (group, label) cell is drawn with
      probability proportional to its size times a weight: protected-group rows weigh half as
      much as privileged rows (under-representation), and positives weigh twice as much as
      negatives in the privileged group but half as much in the protected groups (weights
      privileged 1 / 2 for labels 0 / 1, protected 0.5 / 0.25). The cell counts are fixed by
      largest remainder, then rows are drawn uniformly inside each cell.
    - ``"authors"``: the authors' public code: half the training part are privileged rows
      with a 90% positive rate, half are random protected rows.
    - ``None``: a uniformly random training part (stratified).

    The privileged group is ``dataset.privileged``, or else the group with the highest base
    rate; all other groups count as protected.

    Parameters
    ----------
    dataset : FairDataset
        The whole dataset.
    ratios : sequence of three floats, default=(1, 4, 15)
        Train : test : pool; the test part includes the validation part.
    bias : {"paper", "authors"} or None, default="paper"
        How the training part is drawn (above).
    validation_fraction : float, default=0.25
        Share of the test part moved to the validation part, in (0, 1).
    random_state : int, numpy.random.Generator or None, default=None
        Controls every draw.

    Returns
    -------
    DataSiftSplit
        ``train``, ``validation``, ``test``, ``pool`` and their ``indices``.

    Raises
    ------
    InvalidParameterError
        For ratios that are not three positive numbers, an unknown bias or a validation
        fraction outside (0, 1).
    InvalidDataError
        If the dataset is too small for the ratios, if the bias needs more rows of a cell than
        exist, or if a group would be missing from train, validation or test.

    Examples
    --------
    >>> from fairacq.data._toy import load_toy
    >>> split = split_datasift(load_toy(400), random_state=0)
    >>> [len(split.train), len(split.validation), len(split.test), len(split.pool)]
    [20, 20, 60, 300]
    >>> train, pool = split.train.base_rates(), split.pool.base_rates()
    >>> bool(train[0] - train[1] > pool[0] - pool[1])  # the training part is more biased
    True
    """
    where = "split_datasift"
    validate_parameter_constraints(
        {
            "bias": [Options(["paper", "authors"]), None],
            "validation_fraction": [Interval(float, 0, 1, closed="neither")],
            "random_state": ["random_state"],
        },
        {"bias": bias, "validation_fraction": validation_fraction, "random_state": random_state},
        where,
    )
    shares = _check_ratios(where, ratios, 3)
    rng = as_generator(random_state)
    n = len(dataset)
    n_train, n_test, n_pool = _apportion(n, shares)
    n_val = round(validation_fraction * n_test)
    min_part = 2 * dataset.n_groups
    if min(n_train, n_test - n_val, n_val, n_pool) < min_part:
        raise InvalidDataError(
            f"{where}: dataset '{dataset.name}' has {n} rows, too few for ratios "
            f"{tuple(ratios)} (train {n_train}, validation {n_val}, test {n_test - n_val}, pool "
            f"{n_pool}); every part needs at least {min_part} rows. Use a larger dataset."
        )
    strata = _strata(dataset)
    if bias is None:
        train_idx = _stratified_take(strata, np.arange(n), n_train, rng)
    else:
        train_idx = _biased_train(where, dataset, n_train, bias, rng)
    rest = np.setdiff1d(np.arange(n), train_idx)
    test_all, pool_idx = _stratified_partition(strata[rest], [n_test, n_pool], rng)
    test_all, pool_idx = rest[test_all], rest[pool_idx]
    val_pos, test_pos = _stratified_partition(strata[test_all], [n_val, n_test - n_val], rng)
    parts = {
        "train": np.sort(train_idx),
        "validation": np.sort(test_all[val_pos]),
        "test": np.sort(test_all[test_pos]),
        "pool": np.sort(pool_idx),
    }
    for part in ("train", "validation", "test"):
        _require_all_groups(where, dataset, parts[part], part)
    return DataSiftSplit(
        train=dataset.subset(parts["train"]),
        validation=dataset.subset(parts["validation"]),
        test=dataset.subset(parts["test"]),
        pool=dataset.subset(parts["pool"]),
        indices=parts,
    )


def kfold_splits(
    dataset: FairDataset,
    k: int = 5,
    *,
    stratify: bool = True,
    random_state: RandomState = None,
) -> Iterator[tuple[FairDataset, FairDataset]]:
    """Yield ``k`` (train, test) pairs of a k-fold cross-validation.

    Used by the papers' k-fold protocols (Bakker et al. use 8 folds, Zhang & Ramesh 5). Folds are
    stratified on (group, label) cells by default: each cell's rows are spread over the folds
    as evenly as possible, and fold sizes differ by at most one row.

    Parameters
    ----------
    dataset : FairDataset
        The data to split.
    k : int, default=5
        Number of folds, ``2 <= k <= len(dataset)``.
    stratify : bool, default=True
        Stratify on label x group; ``False`` gives plain shuffled folds.
    random_state : int, numpy.random.Generator or None, default=None
        Controls the shuffle.

    Returns
    -------
    iterator of (FairDataset, FairDataset)
        ``k`` pairs ``(train, test)``: fold ``i`` is the test part and the other folds form
        the training part. Inputs are checked before the iterator is returned.

    Raises
    ------
    InvalidParameterError
        For ``k`` outside ``[2, len(dataset)]``.
    InvalidDataError
        If a group would be missing from some training part (a group with one row).

    Examples
    --------
    >>> from fairacq.data._toy import load_toy
    >>> [len(test) for _, test in kfold_splits(load_toy(), 4, random_state=0)]
    [50, 50, 50, 50]
    """
    where = "kfold_splits"
    validate_parameter_constraints(
        {
            "k": [Interval(int, 2, max(len(dataset), 2))],
            "stratify": ["boolean"],
            "random_state": ["random_state"],
        },
        {"k": k, "stratify": stratify, "random_state": random_state},
        where,
    )
    rng = as_generator(random_state)
    n = len(dataset)
    strata = _strata(dataset) if stratify else np.zeros(n, dtype=np.int64)
    folds = _stratified_partition(strata, _apportion(n, np.full(k, 1.0 / k)), rng)
    everything = np.arange(n)
    pairs = []
    for i, test_idx in enumerate(folds):
        train_idx = np.setdiff1d(everything, test_idx)
        _require_all_groups(where, dataset, train_idx, f"train of fold {i}")
        pairs.append((train_idx, np.sort(test_idx)))

    def _generate() -> Iterator[tuple[FairDataset, FairDataset]]:
        for train_idx, test_idx in pairs:
            yield dataset.subset(train_idx), dataset.subset(test_idx)

    return _generate()


def split_dadi(
    dataset: FairDataset,
    *,
    fold: int = 0,
    n_folds: int = 8,
    validation_fraction: float = 0.2,
    random_state: RandomState = None,
) -> TrainValTestSplit:
    """Split as DADI does (Bakker et al., §5 "Datasets"): 87.5/12.5 train-val/test, then 80/20.

    The paper: "We use 8-fold cross validation with a random 87.5%/12.5% train-val/test split.
    We further split the train-val set into training and validation data using a second random
    80%/20% split." fairacq partitions the rows into ``n_folds`` stratified folds with
    ``random_state``; fold ``fold`` is the test part (12.5% for 8 folds), and the rest is split
    80/20 into training and validation parts. Calling it with ``fold = 0..7`` and one seed gives
    the paper's 8-fold cross-validation.

    Parameters
    ----------
    dataset : FairDataset
        The whole dataset.
    fold : int, default=0
        Which fold is the test part, ``0 <= fold < n_folds``.
    n_folds : int, default=8
        Number of folds (8 in the paper).
    validation_fraction : float, default=0.2
        Share of the train-val part used for validation (0.2 in the paper).
    random_state : int, numpy.random.Generator or None, default=None
        Controls the folds and the train/validation split. Use the same int for every fold.

    Returns
    -------
    TrainValTestSplit

    Raises
    ------
    InvalidParameterError
        For ``fold`` outside ``[0, n_folds)`` or a fraction outside (0, 1).
    InvalidDataError
        If the dataset is too small, or a group would be missing from a part.

    Examples
    --------
    >>> from fairacq.data._toy import load_toy
    >>> s = split_dadi(load_toy(), random_state=0)
    >>> len(s.train), len(s.validation), len(s.test)
    (140, 35, 25)
    """
    where = "split_dadi"
    validate_parameter_constraints(
        {
            "n_folds": [Interval(int, 2, None, closed="left")],
            "validation_fraction": [Interval(float, 0, 1, closed="neither")],
            "random_state": ["random_state"],
        },
        {
            "n_folds": n_folds,
            "validation_fraction": validation_fraction,
            "random_state": random_state,
        },
        where,
    )
    validate_parameter_constraints(
        {"fold": [Interval(int, 0, n_folds - 1)]}, {"fold": fold}, where
    )
    rng = as_generator(random_state)
    n = len(dataset)
    _require_size(where, dataset, 3 * n_folds * dataset.n_groups)
    strata = _strata(dataset)
    folds = _stratified_partition(strata, _apportion(n, np.full(n_folds, 1.0 / n_folds)), rng)
    test_idx = np.sort(folds[fold])
    trainval = np.setdiff1d(np.arange(n), test_idx)
    n_val = round(validation_fraction * len(trainval))
    val_pos, train_pos = _stratified_partition(
        strata[trainval], [n_val, len(trainval) - n_val], rng
    )
    parts = {
        "train": np.sort(trainval[train_pos]),
        "validation": np.sort(trainval[val_pos]),
        "test": test_idx,
    }
    for part in ("train", "validation", "test"):
        _require_all_groups(where, dataset, parts[part], part)
    return TrainValTestSplit(
        train=dataset.subset(parts["train"]),
        validation=dataset.subset(parts["validation"]),
        test=dataset.subset(parts["test"]),
        indices=parts,
    )


def split_filtering(
    dataset: FairDataset,
    *,
    train_fraction: float = 2 / 3,
    random_state: RandomState = None,
) -> TrainTestSplit:
    """Split as balanced filtering does (Deng et al., Appendix A.1.2): 2/3 train, 1/3 test.

    The paper: "Each dataset is split into two parts, with 2/3 of the samples going into the
    training set and 1/3 going into the test set", once per seed (20 seeds). The proxy is
    learned on the training part, and disclosivity and imbalance are reported on both.

    Parameters
    ----------
    dataset : FairDataset
        The whole dataset.
    train_fraction : float, default=2/3
        Share of rows in the training part, in (0, 1).
    random_state : int, numpy.random.Generator or None, default=None
        Controls the split.

    Returns
    -------
    TrainTestSplit

    Raises
    ------
    InvalidParameterError
        For a fraction outside (0, 1).
    InvalidDataError
        If the dataset is too small or a group would be missing from a part.

    Examples
    --------
    >>> from fairacq.data._toy import load_toy
    >>> s = split_filtering(load_toy(300), random_state=0)
    >>> len(s.train), len(s.test)
    (200, 100)
    """
    where = "split_filtering"
    validate_parameter_constraints(
        {
            "train_fraction": [Interval(float, 0, 1, closed="neither")],
            "random_state": ["random_state"],
        },
        {"train_fraction": train_fraction, "random_state": random_state},
        where,
    )
    rng = as_generator(random_state)
    n = len(dataset)
    _require_size(where, dataset, 4 * dataset.n_groups)
    n_train = round(train_fraction * n)
    train_pos, test_pos = _stratified_partition(_strata(dataset), [n_train, n - n_train], rng)
    parts = {"train": np.sort(train_pos), "test": np.sort(test_pos)}
    for part in ("train", "test"):
        _require_all_groups(where, dataset, parts[part], part)
    return TrainTestSplit(
        train=dataset.subset(parts["train"]),
        test=dataset.subset(parts["test"]),
        indices=parts,
    )


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def split_train_val_test(
    dataset: FairDataset,
    *,
    fractions: Sequence[float] = (0.6, 0.2, 0.2),
    random_state: RandomState = None,
) -> TrainValTestSplit:
    """Split a user's table into training, validation and test parts, stratified.

    Every (group, label) cell is spread over the parts in proportion to ``fractions`` (exact
    part sizes, controlled rounding), so each part keeps the table's group and label mix.

    Parameters
    ----------
    dataset : FairDataset
        The whole table.
    fractions : sequence of 3 floats, default=(0.6, 0.2, 0.2)
        Shares of the training, validation and test parts; they must sum to 1.
    random_state : int, numpy.random.Generator or None, default=None
        Controls which rows go where.

    Returns
    -------
    TrainValTestSplit

    Raises
    ------
    InvalidParameterError
        On fractions that are not three positive numbers summing to 1.
    InvalidDataError
        If a part would miss a group (too few rows).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> split = split_train_val_test(load_toy(100), random_state=0)
    >>> len(split.train), len(split.validation), len(split.test)
    (60, 20, 20)
    """
    where = "split_train_val_test"
    shares = np.asarray(list(fractions), dtype=np.float64)
    if shares.shape != (3,) or (shares <= 0).any() or not np.isclose(shares.sum(), 1.0):
        raise InvalidParameterError(
            f"{where}: fractions must be three positive shares summing to 1, got "
            f"{list(fractions)}."
        )
    sizes = _apportion(len(dataset), shares)
    rng = as_generator(random_state)
    parts = _stratified_partition(_strata(dataset), sizes, rng)
    for rows, part in zip(parts, ("training", "validation", "test"), strict=True):
        _require_all_groups(where, dataset, rows, part)
    train, val, test = (dataset.subset(rows) for rows in parts)
    return TrainValTestSplit(
        train, val, test, {"train": parts[0], "validation": parts[1], "test": parts[2]}
    )


def split_parts(
    dataset: FairDataset,
    fractions: Sequence[float],
    *,
    names: Sequence[str] | None = None,
    random_state: RandomState = None,
) -> tuple[list[FairDataset], dict[str, IntArray]]:
    """Split a table into any number of parts of given shares, stratified, every group in each.

    The same stratified split as :func:`split_train_val_test` (exact part sizes, every
    (group, label) cell spread over the parts in proportion), for as many parts as
    ``fractions`` lists, e.g. the initial, pool, validation and test parts of a back-test.

    Parameters
    ----------
    dataset : FairDataset
        The whole table.
    fractions : sequence of float
        Two or more positive shares summing to 1.
    names : sequence of str or None, default=None
        The parts' names in errors and in the returned indices (default ``part0, part1...``).
    random_state : int, numpy.random.Generator or None, default=None
        Controls which rows go where.

    Returns
    -------
    (list of FairDataset, dict of str to ndarray)
        The parts, and the positional indices of each part in ``dataset`` by name.

    Raises
    ------
    InvalidParameterError
        On fewer than two shares, a share that is not positive or shares not summing to 1.
    InvalidDataError
        If a part would miss a group (too few rows).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> parts, _ = split_parts(load_toy(100), [0.2, 0.4, 0.2, 0.2], random_state=0)
    >>> [len(p) for p in parts]
    [20, 40, 20, 20]
    """
    where = "split_parts"
    shares = np.asarray(list(fractions), dtype=np.float64)
    if shares.ndim != 1 or len(shares) < 2 or (shares <= 0).any():
        raise InvalidParameterError(
            f"{where}: fractions must be two or more positive shares, got {list(fractions)}."
        )
    if not np.isclose(shares.sum(), 1.0):
        raise InvalidParameterError(f"{where}: fractions must sum to 1, got {list(fractions)}.")
    labels = list(names) if names is not None else [f"part{i}" for i in range(len(shares))]
    if len(labels) != len(shares):
        raise InvalidParameterError(f"{where}: {len(labels)} names for {len(shares)} parts.")
    rng = as_generator(random_state)
    parts = _stratified_partition(_strata(dataset), _apportion(len(dataset), shares), rng)
    for rows, part in zip(parts, labels, strict=True):
        _require_all_groups(where, dataset, rows, part)
    return [dataset.subset(rows) for rows in parts], dict(zip(labels, parts, strict=True))


def _privileged_code(dataset: FairDataset) -> int:
    code = dataset.privileged_code
    if code is not None:
        return int(code)
    return int(np.nanargmax(dataset.base_rates()))


def _strata(dataset: FairDataset) -> IntArray:
    """Cell id of each row: ``2 * group + label``."""
    return (2 * dataset.s + dataset.y).astype(np.int64)


def _check_ratios(where: str, ratios: Any, size: int) -> NDArray[np.float64]:
    try:
        arr = np.asarray(ratios, dtype=np.float64)
    except (TypeError, ValueError):
        arr = np.array([np.nan])
    if arr.shape != (size,) or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InvalidParameterError(
            f"The 'ratios' parameter of {where} must be {size} positive numbers "
            f"(train : test : pool). Got {ratios!r} instead."
        )
    shares: NDArray[np.float64] = arr / arr.sum()
    return shares


def _apportion(n: int, shares: NDArray[np.float64]) -> list[int]:
    """Split ``n`` into integer parts proportional to ``shares`` (largest remainder)."""
    raw = np.asarray(shares, dtype=np.float64) * n
    counts = np.floor(raw).astype(np.int64)
    remainder = n - int(counts.sum())
    counts[np.argsort(-(raw - counts), kind="stable")[:remainder]] += 1
    return [int(c) for c in counts]


def _stratified_partition(
    strata: IntArray, sizes: Sequence[int], rng: np.random.Generator
) -> list[IntArray]:
    """Partition positions ``0..len(strata)-1`` into parts of exactly ``sizes`` rows.

    Each stratum is spread over the parts in proportion to the part sizes: its quota in each
    part is the floor of its proportional share, and the leftover rows are dealt so that every
    part reaches its exact size (a controlled rounding).
    """
    n = len(strata)
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    labels, inverse = np.unique(strata, return_inverse=True)
    counts = np.bincount(inverse, minlength=len(labels))
    share = sizes_arr / max(n, 1)
    raw = counts[:, None] * share[None, :]
    quota = np.floor(raw).astype(np.int64)
    need_part = sizes_arr - quota.sum(axis=0)
    need_cell = counts - quota.sum(axis=1)
    frac = raw - quota
    # deal leftovers: largest fractional parts first, at most one extra per (cell, part)
    for flat in np.argsort(-frac, axis=None, kind="stable"):
        c, p = divmod(int(flat), len(sizes_arr))
        if need_cell[c] > 0 and need_part[p] > 0:
            quota[c, p] += 1
            need_cell[c] -= 1
            need_part[p] -= 1
    # anything left (rare): put each remaining row in any part that still needs rows
    for cell in np.flatnonzero(need_cell > 0):
        c = int(cell)
        while need_cell[c] > 0:
            p = int(np.flatnonzero(need_part > 0)[0])
            take = min(int(need_cell[c]), int(need_part[p]))
            quota[c, p] += take
            need_cell[c] -= take
            need_part[p] -= take
    parts: list[list[IntArray]] = [[] for _ in sizes_arr]
    for c in range(len(labels)):
        rows = rng.permutation(np.flatnonzero(inverse == c))
        bounds = np.concatenate([[0], np.cumsum(quota[c])])
        for p in range(len(sizes_arr)):
            parts[p].append(rows[bounds[p] : bounds[p + 1]])
    return [
        rng.permutation(np.concatenate(chunks)).astype(np.int64)
        if chunks
        else np.empty(0, np.int64)
        for chunks in parts
    ]


def _stratified_take(
    strata: IntArray, rows: IntArray, size: int, rng: np.random.Generator
) -> IntArray:
    first, _ = _stratified_partition(strata[rows], [size, len(rows) - size], rng)
    return rows[first]


def _allocate(total: int, weights: NDArray[np.float64], caps: IntArray) -> IntArray:
    """Integer counts proportional to ``weights``, summing to ``total``, each within its cap.

    Each round apportions what is left over the cells still under their cap (largest
    remainder); a round either finishes or closes at least one cell, so the loop ends.
    """
    counts = np.zeros(len(weights), dtype=np.int64)
    open_ = (weights > 0) & (caps > 0)
    left = total
    while left > 0 and open_.any():
        w = np.where(open_, weights, 0.0)
        raw = left * w / w.sum()
        add = np.floor(raw).astype(np.int64)
        extra = [i for i in np.argsort(-(raw - add), kind="stable") if open_[i]]
        add[extra[: left - int(add.sum())]] += 1
        add = np.minimum(add, caps - counts)
        counts += add
        left -= int(add.sum())
        open_ &= counts < caps
    return counts


def _biased_train(
    where: str,
    dataset: FairDataset,
    n_train: int,
    bias: str,
    rng: np.random.Generator,
) -> IntArray:
    priv = _privileged_code(dataset)
    s, y = dataset.s, dataset.y
    is_priv = s == priv
    cells = [
        (is_priv & (y == 0)),
        (is_priv & (y == 1)),
        (~is_priv & (y == 0)),
        (~is_priv & (y == 1)),
    ]
    caps = np.array([int(c.sum()) for c in cells], dtype=np.int64)
    if bias == "paper":
        w_priv, w_prot = _PAPER_BIAS_WEIGHTS["privileged"], _PAPER_BIAS_WEIGHTS["protected"]
        weights = caps * np.array([w_priv[0], w_priv[1], w_prot[0], w_prot[1]])
        counts = _allocate(n_train, weights.astype(np.float64), caps)
        chosen = [
            rng.choice(np.flatnonzero(c), size=int(k), replace=False)
            for c, k in zip(cells, counts, strict=True)
        ]
        return np.concatenate(chosen).astype(np.int64)
    # "authors": half privileged rows with a 90% positive rate, half random protected rows
    n_priv = n_train // 2
    n_prot = n_train - n_priv
    n_pos = round(0.9 * n_priv)
    need = {
        "privileged positive": (n_pos, caps[1]),
        "privileged negative": (n_priv - n_pos, caps[0]),
        "protected": (n_prot, caps[2] + caps[3]),
    }
    for label, (want, have) in need.items():
        if want > have:
            raise InvalidDataError(
                f"{where}: bias='authors' needs {want} {label} rows for a training part of "
                f"{n_train}, but '{dataset.name}' has {have}. Use bias='paper' or a larger "
                "dataset."
            )
    chosen = [
        rng.choice(np.flatnonzero(cells[1]), size=n_pos, replace=False),
        rng.choice(np.flatnonzero(cells[0]), size=n_priv - n_pos, replace=False),
        rng.choice(np.flatnonzero(~is_priv), size=n_prot, replace=False),
    ]
    return np.concatenate(chosen).astype(np.int64)


def _require_size(where: str, dataset: FairDataset, minimum: int) -> None:
    if len(dataset) < minimum:
        raise InvalidDataError(
            f"{where}: dataset '{dataset.name}' has {len(dataset)} rows; this split needs at "
            f"least {minimum} for {dataset.n_groups} groups. Use a larger dataset."
        )


def _require_all_groups(where: str, dataset: FairDataset, rows: IntArray, part: str) -> None:
    present = np.bincount(dataset.s[rows], minlength=dataset.n_groups)
    missing = [dataset.group_names[g] for g in np.flatnonzero(present == 0)]
    if missing:
        raise InvalidDataError(
            f"{where}: the {part} part of '{dataset.name}' has no rows of group(s) "
            f"{', '.join(map(repr, missing))}. Use a larger dataset, merge rare groups, or "
            "drop them before splitting."
        )
