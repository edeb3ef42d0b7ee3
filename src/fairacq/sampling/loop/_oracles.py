"""Group oracles: "draw n labelled samples from group z" (Shekhar et al., §2)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, InvalidDataError, InvalidParameterError

__all__ = ["CallbackOracle", "DatasetOracle", "GeneratorOracle", "GroupOracle"]

Draw = tuple[NDArray[np.float64], NDArray[np.int64]]


@runtime_checkable
class GroupOracle(Protocol):
    """What a group sampler needs: draw ``n`` labelled rows of one group.

    Attributes
    ----------
    n_groups : int
        Number of groups ``|Z|``.
    group_names : list of str
        Name of each group code ``0 .. n_groups - 1``.
    proportions : ndarray of shape (n_groups,)
        The natural share of each group (used by the Uncurated baseline).
    """

    n_groups: int
    group_names: list[str]
    proportions: NDArray[np.float64]

    def draw(self, group: int, n: int, rng: np.random.Generator) -> Draw:
        """Return ``(X, y)``: ``n`` rows of group code ``group`` (X 2-D float, y in {0, 1})."""


class _GroupGenerator(Protocol):
    """A generator of rows by group, as :mod:`fairacq.data.synthetic`'s models are."""

    @property
    def groups(self) -> Sequence[Hashable]:
        """The group names, in code order."""

    def sample(
        self, group: int, n: int, *, random_state: np.random.Generator
    ) -> tuple[ArrayLike, ArrayLike]:
        """``n`` rows ``(X, y)`` of ``group``."""


def _check_group(where: str, group: int, n_groups: int) -> int:
    if isinstance(group, bool) or not isinstance(group, (int, np.integer)):
        raise InvalidParameterError(f"{where}: group must be an int code, got {group!r}.")
    if not 0 <= int(group) < n_groups:
        raise InvalidParameterError(
            f"{where}: group code {group} is out of range; use 0..{n_groups - 1}."
        )
    return int(group)


def _check_proportions(where: str, proportions: Any, n_groups: int) -> NDArray[np.float64]:
    if proportions is None:
        return np.full(n_groups, 1.0 / n_groups)
    p = np.asarray(proportions, dtype=np.float64)
    if p.shape != (n_groups,) or not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        raise InvalidParameterError(
            f"{where}: proportions must be {n_groups} non-negative numbers with a positive sum, "
            f"got {proportions!r}."
        )
    out: NDArray[np.float64] = p / p.sum()
    return out


class DatasetOracle:
    """Draw rows of a finite :class:`~fairacq.data.FairDataset`, without replacement.

    Implements the sampling model of Shekhar et al. (§2) over a finite pool: each call removes the
    drawn rows, so a row is never used twice (training, validation or test).

    Parameters
    ----------
    dataset : FairDataset
        The pool. Its groups (``dataset.group_names``) are the groups sampled.
    held_out : mapping of str to int or None, default=None
        Rows of each group kept out of the pool (a test split); only reported when a group
        runs out, so the message can name all the rows the group had.

    Attributes
    ----------
    proportions : ndarray of shape (n_groups,)
        Each group's share of the pool (the "natural" distribution of the Uncurated baseline).

    Raises
    ------
    InvalidDataError
        If a group of the dataset has no rows.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> oracle = DatasetOracle(load_toy(200, random_state=0))
    >>> X, y = oracle.draw(1, 5, np.random.default_rng(0))
    >>> len(X), oracle.remaining(1) == int(oracle.group_sizes[1]) - 5
    (5, True)
    """

    def __init__(self, dataset: FairDataset, *, held_out: Mapping[str, int] | None = None) -> None:
        if not isinstance(dataset, FairDataset):
            raise InvalidDataError(
                f"DatasetOracle: expected a FairDataset, got {type(dataset).__name__}. "
                "Wrap your data in fairacq.data.FairDataset first."
            )
        self.dataset = dataset
        self.held_out = dict(held_out or {})
        self.n_groups = int(dataset.n_groups)
        self.group_names = [str(g) for g in dataset.group_names]
        self._X = dataset.to_numpy().astype(np.float64)
        self._y = np.asarray(dataset.y, dtype=np.int64)
        s = np.asarray(dataset.s)
        self._rows = [np.flatnonzero(s == g) for g in range(self.n_groups)]
        self.group_sizes = np.array([len(r) for r in self._rows], dtype=np.int64)
        empty = [self.group_names[g] for g in range(self.n_groups) if self.group_sizes[g] == 0]
        if empty:
            raise InvalidDataError(
                f"DatasetOracle: group(s) {empty} of dataset '{dataset.name}' have no samples. "
                "Drop the empty groups (FairDataset.subset) or choose other sensitive attributes."
            )
        self.proportions = self.group_sizes / self.group_sizes.sum()
        self._used = np.zeros(self.n_groups, dtype=np.int64)
        self._free = [np.ones(len(r), dtype=bool) for r in self._rows]

    def remaining(self, group: int) -> int:
        """Return the number of rows of ``group`` not drawn yet."""
        return int(self.group_sizes[group] - self._used[group])

    def reset(self) -> None:
        """Forget every draw (the pool is full again)."""
        self._used[:] = 0
        self._free = [np.ones(len(r), dtype=bool) for r in self._rows]

    def draw(self, group: int, n: int, rng: np.random.Generator) -> Draw:
        """Draw ``n`` unused rows of ``group`` uniformly at random.

        Parameters
        ----------
        group : int
            Group code.
        n : int
            Number of rows.
        rng : numpy.random.Generator
            Picks the rows.

        Returns
        -------
        X : ndarray of shape (n, n_features)
        y : ndarray of shape (n,)

        Raises
        ------
        BudgetError
            If fewer than ``n`` rows of the group are left, naming the group.
        """
        g = _check_group("DatasetOracle", group, self.n_groups)
        left = self.remaining(g)
        if n > left:
            raise BudgetError(
                f"DatasetOracle: group '{self.group_names[g]}' has {left} unused rows left but "
                f"{n} were requested (it had {self.group_sizes[g]}). Lower the budget or use a "
                "larger dataset."
            )
        free = np.flatnonzero(self._free[g])
        pick = free[np.sort(rng.choice(len(free), size=n, replace=False))]
        self._free[g][pick] = False
        self._used[g] += n
        chosen = self._rows[g][pick]
        return self._X[chosen].copy(), self._y[chosen].copy()


class GeneratorOracle:
    """Draw fresh i.i.d. rows from a generative model with ``sample(group, n, random_state)``.

    Wraps :class:`fairacq.data.synthetic.SyntheticModel1` / ``SyntheticModel2`` (Shekhar et al.,
    §2.2 and §5), which never run out.

    Parameters
    ----------
    model : object
        Has ``groups`` (names) and ``sample(group, n, random_state) -> (X, y)``.
    proportions : array-like of shape (n_groups,) or None, default=None
        The natural share of each group; None means equal shares.

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel1
    >>> oracle = GeneratorOracle(SyntheticModel1("I"))
    >>> oracle.group_names, oracle.draw(0, 3, np.random.default_rng(0))[0].shape
    (['u', 'v'], (3, 2))
    """

    def __init__(self, model: _GroupGenerator, *, proportions: ArrayLike | None = None) -> None:
        if not callable(getattr(model, "sample", None)) or not hasattr(model, "groups"):
            raise InvalidParameterError(
                f"GeneratorOracle: {type(model).__name__} lacks 'groups' and "
                "'sample(group, n, random_state)'. Use CallbackOracle for other sources."
            )
        self.model = model
        self.group_names = [str(g) for g in model.groups]
        self.n_groups = len(self.group_names)
        self.proportions = _check_proportions("GeneratorOracle", proportions, self.n_groups)

    def draw(self, group: int, n: int, rng: np.random.Generator) -> Draw:
        """Draw ``n`` fresh rows of ``group`` (see :class:`GroupOracle`)."""
        g = _check_group("GeneratorOracle", group, self.n_groups)
        X, y = self.model.sample(g, n, random_state=rng)
        return _check_draw("GeneratorOracle", self.group_names[g], n, X, y)


class CallbackOracle:
    """Draw rows through a user function, e.g. to collect real data group by group.

    Parameters
    ----------
    fn : callable
        ``fn(group_name, n, rng) -> (X, y)`` with ``X`` of shape ``(n, n_features)`` and ``y``
        of shape ``(n,)`` in {0, 1}. It must be deterministic given ``rng`` for runs to repeat
        and to resume.
    group_names : sequence of str
        The groups, at least two.
    proportions : array-like of shape (n_groups,) or None, default=None
        Natural share of each group; None means equal shares.

    Raises
    ------
    InvalidParameterError
        If ``fn`` is not callable or fewer than two groups are given.

    Examples
    --------
    >>> def fn(group, n, rng):
    ...     return rng.normal(size=(n, 2)), rng.integers(0, 2, size=n)
    >>> oracle = CallbackOracle(fn, ["a", "b"])
    >>> oracle.draw(1, 4, np.random.default_rng(0))[1].shape
    (4,)
    """

    def __init__(
        self,
        fn: Callable[[str, int, np.random.Generator], tuple[ArrayLike, ArrayLike]],
        group_names: Sequence[str],
        *,
        proportions: ArrayLike | None = None,
    ) -> None:
        if not callable(fn):
            raise InvalidParameterError(
                f"CallbackOracle: fn must be callable, got {type(fn).__name__}."
            )
        names = [str(g) for g in group_names]
        if len(names) < 2 or len(set(names)) != len(names):
            raise InvalidParameterError(
                f"CallbackOracle: group_names must hold at least two distinct names, got {names}."
            )
        self.fn = fn
        self.group_names = names
        self.n_groups = len(names)
        self.proportions = _check_proportions("CallbackOracle", proportions, self.n_groups)
        self._n_features: int | None = None

    def draw(self, group: int, n: int, rng: np.random.Generator) -> Draw:
        """Call ``fn`` and check what it returns (see :class:`GroupOracle`).

        Raises
        ------
        InvalidDataError
            If ``fn`` returns arrays of the wrong shape, non-binary labels or NaN, naming the
            group.
        """
        g = _check_group("CallbackOracle", group, self.n_groups)
        out = self.fn(self.group_names[g], n, rng)
        if not isinstance(out, tuple) or len(out) != 2:
            raise InvalidDataError(
                f"CallbackOracle: the callback must return a tuple (X, y) for group "
                f"'{self.group_names[g]}', got {type(out).__name__}."
            )
        X, y = _check_draw("CallbackOracle", self.group_names[g], n, *out)
        if self._n_features is None:
            self._n_features = X.shape[1]
        elif X.shape[1] != self._n_features:
            raise InvalidDataError(
                f"CallbackOracle: the callback returned {X.shape[1]} features for group "
                f"'{self.group_names[g]}' but {self._n_features} before. Return the same "
                "columns on every call."
            )
        return X, y


def _check_draw(where: str, group: str, n: int, X: Any, y: Any) -> Draw:
    X_arr = np.asarray(X, dtype=np.float64)
    y_arr = np.asarray(y)
    if X_arr.ndim != 2 or X_arr.shape[0] != n or y_arr.shape != (n,):
        raise InvalidDataError(
            f"{where}: asked for {n} rows of group '{group}', got X of shape {X_arr.shape} and "
            f"y of shape {y_arr.shape}. Return X of shape ({n}, n_features) and y of shape ({n},)."
        )
    if not np.all(np.isfinite(X_arr)):
        raise InvalidDataError(f"{where}: X of group '{group}' holds NaN or infinite values.")
    if not np.all(np.isin(y_arr, (0, 1))):
        raise InvalidDataError(
            f"{where}: labels of group '{group}' must be 0/1, got {sorted(set(y_arr.tolist()))}."
        )
    return X_arr, y_arr.astype(np.int64)
