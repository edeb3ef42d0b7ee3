"""UCI Adult (Census Income), bundled: the dataset four of the five papers use."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from fairacq.data._dataset import FairDataset
from fairacq.data.loaders._build import build_dataset, check_option
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._paths import bundled_file

__all__ = ["load_adult"]

_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
_CATEGORICAL = [
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "native-country",
]
_SENSITIVE = ["sex", "race"]
_PRIVILEGED = {"sex": "Male", "race": "White", "race_binary": "White"}
_ENCODINGS = ["one-hot", "datasift-authors"]

# The integer codes of the DataSift authors' public code (Hasan & Pradhan;
# docs/paper-notes/datasift.md).
_WORKCLASS_CODE = {
    "Never-worked": 0,
    "Without-pay": 1,
    "State-gov": 2,
    "Local-gov": 3,
    "Federal-gov": 4,
    "Self-emp-inc": 5,
    "Self-emp-not-inc": 6,
    "Private": 7,
}
_EDUCATION_CODE = {
    level: code
    for code, level in enumerate(
        [
            *("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th"),
            *("HS-grad", "Some-college", "Bachelors", "Prof-school", "Assoc-acdm", "Assoc-voc"),
            *("Masters", "Doctorate"),
        ]
    )
}
_MARITAL_CODE = {
    "Never-married": 0,
    "Divorced": 1,
    "Separated": 1,
    "Widowed": 1,
    "Married-civ-spouse": 2,
    "Married-spouse-absent": 2,
    "Married-AF-spouse": 2,
}


@functools.lru_cache(maxsize=1)
def _raw_adult() -> pd.DataFrame:
    """Parse both bundled files once per process (callers must not modify the frame)."""
    frames = []
    for split, name, skip in (("train", "adult.data.gz", 0), ("test", "adult.test.gz", 1)):
        with bundled_file(name).open("rb") as fh:
            frame = pd.read_csv(
                fh,
                compression="gzip",
                header=None,
                names=_COLUMNS,
                skiprows=skip,
                skipinitialspace=True,
                na_filter=False,
                skip_blank_lines=True,
            )
        frame["split"] = split
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def load_adult(
    *,
    sensitive: str | Sequence[str] = "sex",
    split: Literal["all", "train", "test"] = "all",
    drop_missing: bool = True,
    include_sensitive_features: bool | None = None,
    encoding: Literal["one-hot", "datasift-authors"] = "one-hot",
) -> FairDataset:
    """Load UCI Adult (bundled): predict whether income exceeds $50K.

    The dataset of DataSift (Hasan & Pradhan, §4.1.1, Table 1: sex, minority Female), Aopt
    (Shekhar et al., §5 and Appendix E: four race x sex groups), DADI (Bakker et al., §4:
    gender, 45,222 rows) and Balanced filtering (Deng et al., §5: race). The label is 1 for
    ``>50K`` (the favourable outcome); the test file's labels carry a trailing ``.``, which
    is removed. Categorical features are one-hot encoded; ``feature_groups`` maps each of the
    12 non-sensitive attributes to its columns, so one acquisition buys a whole attribute.
    ``encoding="datasift-authors"`` gives instead the eight integer-coded features of the
    DataSift authors' code (Hasan & Pradhan, Table 1: "8 features").

    Parameters
    ----------
    sensitive : {"sex", "race", "race_binary"} or tuple of them, default="sex"
        Attribute(s) defining the groups. ``"race"`` keeps the five raw values;
        ``"race_binary"`` is White vs non-White. A tuple gives intersectional groups, e.g.
        ``("race_binary", "sex")`` for the four groups of Shekhar et al.
    split : {"all", "train", "test"}, default="all"
        ``"train"`` is ``adult.data`` (32,561 rows before dropping), ``"test"`` is
        ``adult.test`` (16,281 rows); columns are the same for all three.
    drop_missing : bool, default=True
        Drop rows with a missing value (``?``), giving 45,222 rows for ``"all"``. When false,
        ``?`` becomes its own category ``"unknown"`` (48,842 rows).
    include_sensitive_features : bool or None, default=None
        Whether ``X`` also holds ``sex`` and ``race`` columns (one-hot, or the 0/1 codes of
        ``"datasift-authors"``). ``None`` means no for ``"one-hot"`` and yes for
        ``"datasift-authors"``, whose model sees both, as in the authors' code.
    encoding : {"one-hot", "datasift-authors"}, default="one-hot"
        ``"datasift-authors"``: age >= 45, workclass and education as integer codes, marital
        status in three levels (never married, formerly married, married), relationship
        husband-or-wife, race White, sex Male (each 0/1) and hours-per-week > 40; occupation,
        native country, capital gain and loss, fnlwgt and education-num are dropped. Every
        column is its own feature group.

    Returns
    -------
    FairDataset
        ``sensitive`` holds ``sex``, ``race`` and ``race_binary``; the privileged group is
        Male / White (joined with ``" & "`` for a tuple, e.g. ``"White & Male"``).

    Raises
    ------
    InvalidParameterError
        For an unknown ``split``.
    UnknownNameError
        For an unknown sensitive attribute.
    """
    check_option("load_adult", "split", split, ["all", "train", "test"])
    check_option("load_adult", "encoding", encoding, _ENCODINGS)
    raw = _raw_adult()
    if drop_missing:
        raw = raw[~(raw[_COLUMNS] == "?").any(axis=1)]
    else:
        raw = raw.replace({c: {"?": "unknown"} for c in _CATEGORICAL})
    # Levels come from both files, so train and test get the same columns.
    levels = {c: sorted(raw[c].unique()) for c in [*_CATEGORICAL, *_SENSITIVE]}
    if split != "all":
        raw = raw[raw["split"] == split]
    raw = raw.reset_index(drop=True)
    features = raw.drop(columns=[*_SENSITIVE, "income", "split"])
    y = raw["income"].str.rstrip(".").eq(">50K").to_numpy(dtype=np.int64)
    sens = pd.DataFrame(
        {
            "sex": raw["sex"].astype(object),
            "race": raw["race"].astype(object),
            "race_binary": np.where(raw["race"] == "White", "White", "non-White").astype(object),
        }
    )
    meta = CATALOGUE["adult"].provenance()
    meta.update(split=split, drop_missing=drop_missing, n_rows_file=48_842, encoding=encoding)
    if encoding == "datasift-authors":
        with_sens = include_sensitive_features is not False
        return build_dataset(
            name="adult",
            features=_datasift_authors_features(raw, with_sens),
            categorical=[],
            y=y,
            sensitive_frame=sens,
            sensitive=sensitive,
            privileged_values=_PRIVILEGED,
            metadata=meta,
            include_sensitive_features=with_sens,
        )
    return build_dataset(
        name="adult",
        features=features,
        categorical=_CATEGORICAL,
        y=y,
        sensitive_frame=sens,
        sensitive=sensitive,
        privileged_values=_PRIVILEGED,
        metadata=meta,
        sensitive_features=raw[_SENSITIVE],
        sensitive_categorical=_SENSITIVE,
        include_sensitive_features=bool(include_sensitive_features),
        categories=levels,
    )


def _datasift_authors_features(raw: pd.DataFrame, with_sensitive: bool) -> pd.DataFrame:
    """Build the eight integer-coded columns of the DataSift authors' Adult (``load_adult``)."""

    def coded(column: str, codes: dict[str, int]) -> pd.Series:
        # Unknown levels (only "?" with drop_missing=False) get -1.
        return raw[column].map(codes).fillna(-1).astype(np.int64)

    frame = pd.DataFrame(
        {
            "age": (raw["age"] >= 45).astype(np.int64),
            "workclass": coded("workclass", _WORKCLASS_CODE),
            "education": coded("education", _EDUCATION_CODE),
            "marital-status": coded("marital-status", _MARITAL_CODE),
            "relationship": raw["relationship"].isin(["Husband", "Wife"]).astype(np.int64),
            "race": (raw["race"] == "White").astype(np.int64),
            "sex": (raw["sex"] == "Male").astype(np.int64),
            "hours-per-week": (raw["hours-per-week"] > 40).astype(np.int64),
        }
    )
    return frame if with_sensitive else frame.drop(columns=["race", "sex"])
