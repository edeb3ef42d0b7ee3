"""MovieLens 100K, from the local data directory: the recommender data of Fair-A3SL."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairacq.data._dataset import FairDataset
from fairacq.data.loaders._build import build_dataset
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._paths import find_local_file
from fairacq.exceptions import InvalidParameterError

__all__ = ["MovieLens100k", "load_movielens_100k", "load_movielens_ratings"]

FOLDER = "movielens-100k"
_ITEM_COLUMNS = ["item_id", "title", "release_date", "video_release_date", "imdb_url"]


@dataclass(frozen=True)
class MovieLens100k:
    """The raw MovieLens 100K tables, typed.

    Parameters
    ----------
    ratings : pandas.DataFrame
        100,000 rows: ``user_id``, ``item_id``, ``rating`` (1-5), ``timestamp`` (Unix
        seconds), in the order of ``u.data``.
    users : pandas.DataFrame
        943 rows: ``user_id``, ``age``, ``gender`` (``"M"``/``"F"``; the sensitive attribute
        of Zhang & Ramesh), ``occupation``, ``zip_code`` (a string).
    items : pandas.DataFrame
        1,682 rows: ``item_id``, ``title``, ``release_date`` (datetime, NaT when unknown),
        ``video_release_date``, ``imdb_url`` and one 0/1 column per genre.
    genres : tuple of str
        The 19 genre names, in the order of their columns in ``items``.
    """

    ratings: pd.DataFrame
    users: pd.DataFrame
    items: pd.DataFrame
    genres: tuple[str, ...]


def _paths(data_dir: str | os.PathLike[str] | None) -> dict[str, Path]:
    return {
        f: find_local_file("movielens-100k", f"{FOLDER}/{f}", root=data_dir)
        for f in ("u.data.gz", "u.user", "u.item", "u.genre")
    }


@functools.lru_cache(maxsize=2)
def _read(key: tuple[tuple[str, str, int], ...]) -> MovieLens100k:
    """Parse the four files once per file version (callers must not modify the frames)."""
    paths = {name: path for name, path, _ in key}
    genres = pd.read_csv(
        paths["u.genre"], sep="|", header=None, names=["genre", "code"], encoding="latin-1"
    ).dropna()
    genre_names = tuple(str(g) for g in genres.sort_values("code")["genre"])
    ratings = pd.read_csv(
        paths["u.data.gz"],
        sep="\t",
        header=None,
        names=["user_id", "item_id", "rating", "timestamp"],
        dtype="int64",
    )
    users = pd.read_csv(
        paths["u.user"],
        sep="|",
        header=None,
        names=["user_id", "age", "gender", "occupation", "zip_code"],
        dtype={"zip_code": str},
    )
    items = pd.read_csv(
        paths["u.item"],
        sep="|",
        header=None,
        names=[*_ITEM_COLUMNS, *genre_names],
        encoding="latin-1",
    )
    items["release_date"] = pd.to_datetime(items["release_date"], format="%d-%b-%Y")
    return MovieLens100k(ratings=ratings, users=users, items=items, genres=genre_names)


def _load(data_dir: str | os.PathLike[str] | None) -> MovieLens100k:
    paths = _paths(data_dir)
    key = tuple((name, str(p), p.stat().st_mtime_ns) for name, p in sorted(paths.items()))
    return _read(key)


def load_movielens_100k(*, data_dir: str | os.PathLike[str] | None = None) -> MovieLens100k:
    """Load the raw MovieLens 100K tables (ratings, users, items) from the local data directory.

    Fair-A3SL (Zhang & Ramesh, §5.3) learns fair recommender rules on these ratings with user
    gender as the sensitive attribute. MovieLens may not be redistributed (GroupLens
    licence), so it is never bundled: the files ``u.data.gz`` (or ``u.data``), ``u.user``,
    ``u.item`` (Latin-1) and ``u.genre`` are read from ``<data directory>/movielens-100k/``.

    Parameters
    ----------
    data_dir : path-like or None, default=None
        Data directory; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).

    Returns
    -------
    MovieLens100k
        Copies of the parsed tables (safe to modify).

    Raises
    ------
    DatasetNotFoundError
        If a file is absent; ``fairacq datasets fetch movielens-100k`` downloads them.
    """
    raw = _load(data_dir)
    return MovieLens100k(
        ratings=raw.ratings.copy(),
        users=raw.users.copy(),
        items=raw.items.copy(),
        genres=raw.genres,
    )


def load_movielens_ratings(
    *,
    threshold: int = 4,
    sensitive: str | Sequence[str] = "gender",
    include_sensitive_features: bool = False,
    data_dir: str | os.PathLike[str] | None = None,
) -> FairDataset:
    """Load MovieLens 100K as a classification dataset: one row per (user, film) rating.

    The label is **1 = rating >= threshold** (a "liked" film). The features are the
    user's ``age`` and one-hot ``occupation``, and the film's 19 genre flags (one feature
    group, ``"genres"``: a film's genres are acquired together) and ``release_year`` (the
    one film without a date gets the median year). Row ``i`` is row ``i`` of
    ``load_movielens_100k().ratings`` (the order of ``u.data``), which gives the user and
    film ids for relational models.

    Parameters
    ----------
    threshold : int, default=4
        Smallest rating counted as positive (1-5).
    sensitive : {"gender"}, default="gender"
        The rater's gender, ``"M"``/``"F"`` (privileged ``"M"``; Zhang & Ramesh, §5.3).
    include_sensitive_features : bool, default=False
        Whether ``X`` also holds one-hot ``gender``.
    data_dir : path-like or None, default=None
        Data directory; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).

    Returns
    -------
    FairDataset
        100,000 rows.

    Raises
    ------
    DatasetNotFoundError
        If a file is absent.
    InvalidParameterError
        If ``threshold`` is not an integer in [2, 5].
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int) or not 2 <= threshold <= 5:
        raise InvalidParameterError(
            "The 'threshold' parameter of load_movielens_ratings must be an int in [2, 5] "
            f"(ratings are 1-5). Got {threshold!r} instead."
        )
    raw = _load(data_dir)
    genre_cols = list(raw.genres)
    items = raw.items[["item_id", *genre_cols]].copy()
    year = raw.items["release_date"].dt.year.astype(float)
    items["release_year"] = year.fillna(year.median())
    table = raw.ratings.merge(raw.users, on="user_id", how="left", validate="many_to_one")
    table = table.merge(items, on="item_id", how="left", validate="many_to_one")
    features = table[["age", "occupation", *genre_cols, "release_year"]]
    meta = CATALOGUE["movielens-100k"].provenance()
    meta.update(threshold=threshold, label=f"1 = rating >= {threshold}")
    return build_dataset(
        name="movielens-100k",
        features=features,
        categorical=["occupation"],
        y=(table["rating"] >= threshold).to_numpy(dtype=np.int64),
        sensitive_frame=pd.DataFrame({"gender": table["gender"].astype(object)}),
        sensitive=sensitive,
        privileged_values={"gender": "M"},
        metadata=meta,
        sensitive_features=table[["gender"]],
        sensitive_categorical=["gender"],
        include_sensitive_features=include_sensitive_features,
        merge_groups={"genres": genre_cols},
    )
