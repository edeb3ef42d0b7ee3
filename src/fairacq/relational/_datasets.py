"""The paper's relational data sets for the family: by name, with the authors' settings.

:func:`load_movielens_relational` is the data layer's MovieLens loader with the matrix
factorisation behind ``ratingMF`` bound to :func:`fairacq.models.fit_biased_mf` (the data
layer cannot import a model). :func:`load_named_relational` loads a split of one of
:data:`NAMED_RELATIONAL` for ``fairacq relational learn``, and :func:`a3sl_options` gives
:class:`FairA3SL` the authors' per-dataset settings.
"""

from __future__ import annotations

import numbers
import os
from typing import Any, Literal

from fairacq._validation import did_you_mean
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidParameterError

__all__ = [
    "NAMED_RELATIONAL",
    "a3sl_options",
    "load_movielens_relational",
    "load_named_relational",
]

#: Data sets :func:`load_named_relational` knows.
NAMED_RELATIONAL = ("paper-review", "compas", "movielens")

#: Folds of each named data set: the authors' ten paper-review samples, five folds otherwise.
_N_FOLDS = {"paper-review": 10, "compas": 5, "movielens": 5}


def load_movielens_relational(
    fold: int = 0,
    *,
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

    :func:`fairacq.data.relational.load_movielens_relational` with ``ratingMF`` from
    :func:`fairacq.models.fit_biased_mf` (ALS); the predicates, the fold scheme and every
    parameter are documented there. Target: ``rating(U, I)``; protected: the female users'
    target ratings. ``metadata["favourable"] == 1``; ``metadata["mf_test_mse"]`` is the
    factorisation's MSE on the target ratings.

    Raises
    ------
    DatasetNotFoundError
        If the MovieLens files are absent.
    InvalidParameterError
        For parameters out of range.
    """
    from fairacq.data.relational._movielens import load_movielens_relational as load
    from fairacq.models._biased_mf import fit_biased_mf

    return load(
        fold,
        fit_mf=fit_biased_mf,
        split=split,
        n_folds=n_folds,
        n_neighbours=n_neighbours,
        min_overlap=min_overlap,
        mf_rank=mf_rank,
        mf_reg=mf_reg,
        mf_iter=mf_iter,
        random_state=random_state,
        data_dir=data_dir,
    )


def _check_fold(dataset: str, fold: object) -> None:
    """Refuse a fold the data set does not have (never taken modulo the number of folds)."""
    n = _N_FOLDS[dataset]
    if isinstance(fold, bool) or not isinstance(fold, numbers.Integral) or not 0 <= int(fold) < n:
        raise InvalidParameterError(
            f"The 'fold' of {dataset} must be an int from 0 to {n - 1} (it has {n} folds, "
            f"never taken modulo {n}). Got {fold!r} instead. Pass a fold from 0 to {n - 1}."
        )


def a3sl_options(dataset: str, fair: bool) -> dict[str, Any]:
    """Per-dataset settings of the authors' code for :class:`FairA3SL`.

    A fair run may not use the sensitive attribute (nor its proxies in the data); a
    sensitive run (no constraint: Sensitive-A3SL) may, as in the paper's Table 6.
    """
    if dataset == "compas":
        race = ("african_race", "other_race", "race", "raceTruth")
        return {
            "exclude": (*race, "sex") if fair else ("other_race", "race", "raceTruth", "sex"),
            "private_types": ("instance",),
            "domains": {"user": "user"},
            "max_literals": 3,
            "max_clauses": 12,
        }
    if dataset == "movielens":
        return {
            "exclude": ("female",) if fair else (),
            "domains": {"user": "user", "item": "item"},
        }
    return {}


def load_named_relational(
    dataset: str, fold: int, split: Literal["train", "test"]
) -> RelationalData:
    """Load a split of one of :data:`NAMED_RELATIONAL`.

    COMPAS and MovieLens: fold ``fold``. Paper review (the authors' samples): train on
    sample ``fold + 1``, test on the next one.

    Raises
    ------
    UnknownNameError
        For an unknown data set, with the closest name.
    InvalidParameterError
        For a fold outside ``0 .. n-1`` (ten for paper-review, five otherwise).
    """
    from fairacq.data.relational._compas import load_compas_relational
    from fairacq.data.relational._paper_review import load_paper_review

    if dataset not in NAMED_RELATIONAL:
        raise did_you_mean("dataset", dataset, NAMED_RELATIONAL, "fairacq relational learn --help")
    if split not in ("train", "test"):
        raise InvalidParameterError(f"split must be 'train' or 'test', got {split!r}.")
    _check_fold(dataset, fold)
    if dataset == "compas":
        return load_compas_relational(fold, split=split)
    if dataset == "movielens":
        return load_movielens_relational(fold, split=split)
    sample = fold % 10 + 1 if split == "train" else (fold + 1) % 10 + 1
    return load_paper_review(sample)
