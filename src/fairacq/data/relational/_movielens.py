"""MovieLens 100K as relational data for a HyPER-style recommender (Zhang & Ramesh, §5.3).

Ratings are scaled to ``[0, 1]`` as ``rating / 5`` (Zhang & Ramesh "converts the ratings to range
between 0 and 1"; its Table 10 averages, 0.69-0.73, are on this scale) and split into
``n_folds`` seeded folds. For fold ``k``, ``split="test"`` observes the ratings of the other
folds and targets fold ``k``; ``split="train"`` (for weight learning) targets fold
``k + 1 (mod n_folds)`` and observes the remaining ``n_folds - 2`` folds, so fold ``k`` is never
seen. Every derived predicate is computed from the *observed* ratings only:

- ``rating(U, I)``: observed ratings (observations) and the ratings to predict (targets).
- ``reviews(U, I)``: 1 for every observed or target pair (which pairs exist).
- ``female(U)``: 1 for a female user, 0 for a male one (the sensitive attribute).
- ``avgUserRating(U)`` / ``avgItemRating(I)``: mean observed rating (the global mean for a
  user or item without one).
- ``userPearsonSim(U, U2)`` / ``itemPearsonSim(I, I2)``: Pearson correlation over co-rated
  items (users), kept for pairs with at least ``min_overlap`` co-ratings and a positive
  correlation, and only the ``n_neighbours`` most similar per user (item); the value is the
  correlation. Sparse by construction: at most ``n_neighbours`` atoms per user (item).
- ``ratingMF(U, I)``: the prediction of a matrix factorisation trained on the observed
  ratings (``fit_mf``: :func:`fairacq.models.fit_biased_mf`, ALS, in
  :func:`fairacq.relational.load_movielens_relational`), clipped to ``[0, 1]``, for every
  observed or target pair.
- ``user(U)``, ``item(I)``: 1.

The protected group is the female users' target ``rating`` atoms.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, as_generator, spawn_seeds
from fairacq._validation import Interval, Options, validate_parameter_constraints
from fairacq.data.loaders import load_movielens_100k
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidParameterError

__all__ = ["load_movielens_relational", "pearson_top_k"]


class RatingModel(Protocol):
    """A fitted rating model: ``predict(users, items)`` for index pairs."""

    def predict(self, users: ArrayLike, items: ArrayLike) -> NDArray[np.float64]:
        """Return the predicted ratings of the (user index, item index) pairs."""
        ...


class FitRatingModel(Protocol):
    """Fits a :class:`RatingModel` as :func:`fairacq.models.fit_biased_mf` does."""

    def __call__(
        self,
        users: ArrayLike,
        items: ArrayLike,
        ratings: ArrayLike,
        *,
        n_users: int,
        n_items: int,
        rank: int,
        reg: float,
        n_iter: int,
        random_state: RandomState,
    ) -> RatingModel:
        """Fit on the observed ``(users, items, ratings)``."""
        ...


def pearson_top_k(
    rows: ArrayLike,
    cols: ArrayLike,
    values: ArrayLike,
    *,
    n_rows: int,
    n_cols: int,
    k: int = 20,
    min_overlap: int = 5,
    block: int = 512,
) -> pd.DataFrame:
    """Return each row's ``k`` most Pearson-similar rows over their co-rated columns.

    For rows ``a`` and ``b`` the correlation uses only the columns both rated (user-user:
    items both users rated). Pairs with fewer than ``min_overlap`` common columns, zero
    variance on them or a correlation ``<= 0`` are dropped. Computed in blocks of rows with
    sparse products, so memory stays ``O(block * n_rows)``.

    Parameters
    ----------
    rows, cols : array-like of int, shape (n,)
        Row and column index of each observed value.
    values : array-like of float, shape (n,)
        The observed values.
    n_rows, n_cols : int
        Index ranges.
    k : int, default=20
        Neighbours kept per row.
    min_overlap : int, default=5
        Fewest co-rated columns for a correlation to count.
    block : int, default=512
        Rows per block.

    Returns
    -------
    pandas.DataFrame
        Columns ``row``, ``neighbour`` (indices) and ``similarity`` in ``(0, 1]``, sorted by
        row and decreasing similarity.

    Examples
    --------
    >>> out = pearson_top_k([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 2, 3, 2, 4, 6],
    ...                     n_rows=2, n_cols=3, k=1, min_overlap=3)
    >>> out["similarity"].round(6).tolist()
    [1.0, 1.0]
    """
    r_idx = np.asarray(rows, dtype=np.int64)
    c_idx = np.asarray(cols, dtype=np.int64)
    val = np.asarray(values, dtype=np.float64)
    shape = (n_rows, n_cols)
    mask_s = sp.csr_array((np.ones(len(val)), (r_idx, c_idx)), shape=shape)
    val_s = sp.csr_array((val, (r_idx, c_idx)), shape=shape)
    sq_s = sp.csr_array((val * val, (r_idx, c_idx)), shape=shape)
    mask_t = mask_s.T.toarray()
    val_t = val_s.T.toarray()
    sq_t = sq_s.T.toarray()
    out_r, out_n, out_s = [], [], []
    for start in range(0, n_rows, block):
        stop = min(start + block, n_rows)
        m_b, v_b, s_b = mask_s[start:stop], val_s[start:stop], sq_s[start:stop]
        n = np.asarray(m_b @ mask_t)
        sx = np.asarray(v_b @ mask_t)  # sum of a's values over columns b rated
        sy = np.asarray(m_b @ val_t)  # sum of b's values over columns a rated
        sxx = np.asarray(s_b @ mask_t)
        syy = np.asarray(m_b @ sq_t)
        sxy = np.asarray(v_b @ val_t)
        with np.errstate(divide="ignore", invalid="ignore"):
            cov = sxy - sx * sy / n
            var = (sxx - sx * sx / n) * (syy - sy * sy / n)
            corr = cov / np.sqrt(var)
        ok = (n >= min_overlap) & (var > 1e-12) & np.isfinite(corr) & (corr > 0)
        ok[np.arange(stop - start), np.arange(start, stop)] = False
        corr = np.where(ok, np.minimum(corr, 1.0), -np.inf)
        kk = min(k, n_rows - 1)
        if kk <= 0:
            break
        top = np.argpartition(-corr, kk - 1, axis=1)[:, :kk]
        sims = np.take_along_axis(corr, top, axis=1)
        local, j = np.nonzero(np.isfinite(sims))
        out_r.append(local + start)
        out_n.append(top[local, j])
        out_s.append(sims[local, j])
    frame = pd.DataFrame(
        {
            "row": np.concatenate(out_r) if out_r else np.zeros(0, np.int64),
            "neighbour": np.concatenate(out_n) if out_n else np.zeros(0, np.int64),
            "similarity": np.concatenate(out_s) if out_s else np.zeros(0),
        }
    )
    return frame.sort_values(["row", "similarity"], ascending=[True, False]).reset_index(drop=True)


def _fold_positions(
    n: int, n_folds: int, fold: int, split: str, seed: np.random.SeedSequence
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Positions of the observed and the target ratings of one fold and split."""
    folds = np.array_split(as_generator(seed).permutation(n), n_folds)
    target = fold if split == "test" else (fold + 1) % n_folds
    hidden = {fold, target}
    observed = np.concatenate([f for j, f in enumerate(folds) if j not in hidden])
    return np.sort(observed), np.sort(folds[target])


def load_movielens_relational(
    fold: int = 0,
    *,
    fit_mf: FitRatingModel,
    split: Literal["train", "test"] = "test",
    n_folds: int = 5,
    n_neighbours: int = 20,
    min_overlap: int = 10,
    mf_rank: int = 10,
    mf_reg: float = 0.03,
    mf_iter: int = 15,
    random_state: int | None = 0,
    data_dir: str | os.PathLike[str] | None = None,
) -> RelationalData:
    """Load one fold of MovieLens 100K as relational data (Zhang & Ramesh, §5.3).

    The predicates and the fold scheme are in the module docstring. Target: ``rating(U,
    I)``; protected: the female users' target ratings. ``metadata["favourable"] == 1``.

    Parameters
    ----------
    fold : int, default=0
        Fold ``0 .. n_folds-1`` whose ratings are the test targets.
    fit_mf : callable
        Fits the matrix factorisation behind ``ratingMF`` on the observed ratings, called as
        ``fit_mf(users, items, ratings, n_users=, n_items=, rank=mf_rank, reg=mf_reg,
        n_iter=mf_iter, random_state=)`` with index arrays; returns a model with
        ``predict(users, items)``. :func:`fairacq.relational.load_movielens_relational`
        passes :func:`fairacq.models.fit_biased_mf`.
    split : {"train", "test"}, default="test"
        ``"test"``: targets fold ``fold``, observes the others. ``"train"``: targets fold
        ``fold + 1``, observes the rest except ``fold`` (for weight learning).
    n_folds : int, default=5
        Number of folds of the ratings.
    n_neighbours : int, default=20
        Most similar users (items) kept per user (item) in the Pearson predicates.
    min_overlap : int, default=10
        Fewest co-ratings for a Pearson similarity (fewer give spurious correlations of 1).
    mf_rank, mf_reg, mf_iter : int, float, int, default=10, 0.03, 15
        Rank, penalty and sweeps of the matrix factorisation behind ``ratingMF`` (ALS: test MSE
        0.0335 on a random 80/20 split, against 0.0342 for MF in the paper's Table 12).
    random_state : int or None, default=0
        Seeds the fold assignment and the factorisation. The same int gives the same folds
        for every ``fold`` and ``split``.
    data_dir : path-like or None, default=None
        Data directory; ``None`` means ``$FAIRACQ_DATA``.

    Returns
    -------
    RelationalData
        ``protected``/``unprotected`` list target ``rating`` atoms (``user``, ``item``).
        ``metadata["mf_test_mse"]`` is the factorisation's MSE on the target ratings.

    Raises
    ------
    DatasetNotFoundError
        If the MovieLens files are absent.
    InvalidParameterError
        For parameters out of range.
    """
    params: dict[str, Any] = {
        "fold": fold,
        "split": split,
        "n_folds": n_folds,
        "n_neighbours": n_neighbours,
        "min_overlap": min_overlap,
        "mf_rank": mf_rank,
        "mf_reg": mf_reg,
        "mf_iter": mf_iter,
        "random_state": random_state,
    }
    _check_params(params)
    ratings = _read_ratings(data_dir)
    fold_seed, mf_seed = spawn_seeds(random_state, 2)
    obs, tgt = _fold_positions(len(ratings.v_all), n_folds, fold, split, fold_seed)
    u_o, i_o, v_o = ratings.u_all[obs], ratings.i_all[obs], ratings.v_all[obs]
    n_u, n_i = len(ratings.user_ids), len(ratings.item_ids)
    mf = fit_mf(
        u_o,
        i_o,
        v_o,
        n_users=n_u,
        n_items=n_i,
        rank=mf_rank,
        reg=mf_reg,
        n_iter=mf_iter,
        random_state=mf_seed,
    )
    observations = _observations(ratings, obs, tgt, mf, n_neighbours, min_overlap)
    truth = ratings.pairs(tgt, ratings.v_all[tgt])
    is_female = ratings.female[ratings.u_all[tgt]] == 1.0
    target_pairs = truth[["user", "item"]]
    mf_target = np.clip(mf.predict(ratings.u_all[tgt], ratings.i_all[tgt]), 0.0, 1.0)
    meta = _metadata(params, float(np.mean((mf_target - ratings.v_all[tgt]) ** 2)))
    return RelationalData(
        observations=observations,
        targets={"rating": target_pairs.copy()},
        truth={"rating": truth},
        protected=target_pairs.loc[is_female].reset_index(drop=True),
        unprotected=target_pairs.loc[~is_female].reset_index(drop=True),
        metadata=meta,
    )


def _check_params(params: dict[str, Any]) -> None:
    """Validate the parameters of :func:`load_movielens_relational`."""
    validate_parameter_constraints(
        {
            "fold": [Interval(int, 0, None, closed="left")],
            "split": [Options(["train", "test"])],
            "n_folds": [Interval(int, 3, None, closed="left")],
            "n_neighbours": [Interval(int, 1, None, closed="left")],
            "min_overlap": [Interval(int, 2, None, closed="left")],
            "mf_rank": [Interval(int, 1, None, closed="left")],
            "mf_reg": [Interval(float, 0, None, closed="left")],
            "mf_iter": [Interval(int, 1, None, closed="left")],
            "random_state": [Interval(int, 0, None, closed="left"), None],
        },
        params,
        "load_movielens_relational",
    )
    fold, n_folds = params["fold"], params["n_folds"]
    if fold >= n_folds:
        raise InvalidParameterError(
            f"The 'fold' parameter of load_movielens_relational must be in [0, {n_folds - 1}] "
            f"(there are {n_folds} folds). Got {fold} instead."
        )


@dataclass(frozen=True)
class _Ratings:
    """All MovieLens ratings as user and item indices, with the users' and items' names."""

    user_ids: NDArray[Any]
    item_ids: NDArray[Any]
    u_all: NDArray[np.int64]
    i_all: NDArray[np.int64]
    v_all: NDArray[np.float64]
    female: NDArray[np.float64]

    @property
    def u_name(self) -> NDArray[np.str_]:
        return self.user_ids.astype(str)

    @property
    def i_name(self) -> NDArray[np.str_]:
        return self.item_ids.astype(str)

    def pairs(self, pos: NDArray[np.int64], value: NDArray[np.float64] | None) -> pd.DataFrame:
        """Return the (user, item) names of the ratings at ``pos``, with a ``value`` column."""
        frame = pd.DataFrame(
            {"user": self.u_name[self.u_all[pos]], "item": self.i_name[self.i_all[pos]]}
        )
        if value is not None:
            frame["value"] = value
        return frame


def _read_ratings(data_dir: str | os.PathLike[str] | None) -> _Ratings:
    """Read MovieLens 100K: ratings on ``[0, 1]`` as indices into the sorted ids."""
    raw = load_movielens_100k(data_dir=data_dir)
    ratings, users = raw.ratings, raw.users
    user_ids = np.sort(users["user_id"].to_numpy())
    item_ids = np.sort(raw.items["item_id"].to_numpy())
    gender = users.set_index("user_id")["gender"].reindex(user_ids).to_numpy()
    return _Ratings(
        user_ids=user_ids,
        item_ids=item_ids,
        u_all=np.searchsorted(user_ids, ratings["user_id"].to_numpy()),
        i_all=np.searchsorted(item_ids, ratings["item_id"].to_numpy()),
        v_all=ratings["rating"].to_numpy(dtype=np.float64) / 5.0,
        female=(gender == "F").astype(np.float64),
    )


def _mean_by(index: NDArray[np.int64], values: NDArray[np.float64], n: int) -> NDArray[Any]:
    """Mean of ``values`` per index ``0 .. n-1``; the overall mean where an index has none."""
    counts = np.bincount(index, minlength=n)
    mean: NDArray[Any] = np.divide(
        np.bincount(index, weights=values, minlength=n),
        counts,
        out=np.full(n, float(values.mean())),
        where=counts > 0,
    )
    return mean


def _similarity_frame(
    sim: pd.DataFrame, names: NDArray[np.str_], first: str, second: str
) -> pd.DataFrame:
    """Name the rows and neighbours of a :func:`pearson_top_k` result."""
    return pd.DataFrame(
        {
            first: names[sim["row"].to_numpy()],
            second: names[sim["neighbour"].to_numpy()],
            "value": sim["similarity"].to_numpy(),
        }
    )


def _observations(
    ratings: _Ratings,
    obs: NDArray[np.int64],
    tgt: NDArray[np.int64],
    mf: RatingModel,
    n_neighbours: int,
    min_overlap: int,
) -> dict[str, pd.DataFrame]:
    """Return the observed predicates of one fold, derived from the observed ratings ``obs``."""
    u_o, i_o, v_o = ratings.u_all[obs], ratings.i_all[obs], ratings.v_all[obs]
    n_u, n_i = len(ratings.user_ids), len(ratings.item_ids)
    u_name, i_name = ratings.u_name, ratings.i_name
    both = np.concatenate([obs, tgt])
    mf_pred = np.clip(mf.predict(ratings.u_all[both], ratings.i_all[both]), 0.0, 1.0)
    user_sim = pearson_top_k(
        u_o, i_o, v_o, n_rows=n_u, n_cols=n_i, k=n_neighbours, min_overlap=min_overlap
    )
    item_sim = pearson_top_k(
        i_o, u_o, v_o, n_rows=n_i, n_cols=n_u, k=n_neighbours, min_overlap=min_overlap
    )
    return {
        "avgItemRating": pd.DataFrame({"item": i_name, "value": _mean_by(i_o, v_o, n_i)}),
        "avgUserRating": pd.DataFrame({"user": u_name, "value": _mean_by(u_o, v_o, n_u)}),
        "female": pd.DataFrame({"user": u_name, "value": ratings.female}),
        "item": pd.DataFrame({"item": i_name, "value": 1.0}),
        "itemPearsonSim": _similarity_frame(item_sim, i_name, "item", "item2"),
        "rating": ratings.pairs(obs, v_o),
        "ratingMF": ratings.pairs(both, mf_pred),
        "reviews": ratings.pairs(both, np.ones(len(both))),
        "user": pd.DataFrame({"user": u_name, "value": 1.0}),
        "userPearsonSim": _similarity_frame(user_sim, u_name, "user", "user2"),
    }


def _metadata(params: dict[str, Any], mf_test_mse: float) -> dict[str, object]:
    """Return the metadata of one fold: its parameters and the factorisation's test MSE."""
    return {
        "paper": "Zhang & Ramesh §5.3; MovieLens 100K (GroupLens)",
        "fold": params["fold"],
        "split": params["split"],
        "n_folds": params["n_folds"],
        "random_state": params["random_state"],
        "rating_scale": "rating / 5",
        "n_neighbours": params["n_neighbours"],
        "min_overlap": params["min_overlap"],
        "mf": {"rank": params["mf_rank"], "reg": params["mf_reg"], "n_iter": params["mf_iter"]},
        "mf_test_mse": mf_test_mse,
        "fairness_predicate": "rating",
        "task": "rating",
        "favourable": 1,
        "protected_group": "female users' ratings",
    }
