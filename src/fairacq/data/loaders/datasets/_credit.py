"""Give Me Some Credit (Kaggle 2011), from the local data directory: DataSift's "Credit"."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fairacq.data._dataset import FairDataset
from fairacq.data.loaders._build import build_dataset
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._paths import find_local_file

__all__ = ["load_give_me_some_credit"]

RELPATH = "give-me-some-credit/cs-training.csv.gz"
AGE_THRESHOLD = 35
_LABEL = "SeriousDlqin2yrs"
_WITH_NAN = ["MonthlyIncome", "NumberOfDependents"]
KAGGLE_FIX = (
    "Give Me Some Credit is distributed only under the Kaggle competition's rules, so fairacq "
    "cannot download or bundle it: sign in at https://www.kaggle.com/c/GiveMeSomeCredit, "
    "accept the rules, download cs-training.csv and save it (gzipped or not) as "
    f"<data directory>/{RELPATH}"
)


@functools.lru_cache(maxsize=2)
def _read(path: str, mtime_ns: int, size: int) -> pd.DataFrame:
    """Parse the CSV once per file version (callers must not modify the frame)."""
    del mtime_ns, size  # part of the cache key only
    return pd.read_csv(path, index_col=0)


def load_give_me_some_credit(
    *,
    sensitive: str | Sequence[str] = "age",
    include_sensitive_features: bool = False,
    data_dir: str | os.PathLike[str] | None = None,
) -> FairDataset:
    """Load Give Me Some Credit from the local data directory: predict serious delinquency.

    DataSift's "Credit" dataset (Hasan & Pradhan, §4.1.1, Table 1: 150,000 rows, minority group
    **age < 35**, 12.8 % of rows, label "serious delay in 2 years"). The label is
    ``SeriousDlqin2yrs``: **1 = a serious delinquency within two years** (the papers'
    positive class, 10,026 rows); for the borrower the favourable outcome is 0.

    Missing values are handled explicitly: ``MonthlyIncome`` (29,731 NaN) and
    ``NumberOfDependents`` (3,924 NaN) are imputed with the median of the whole file and get
    a 0/1 ``<name>_missing`` indicator, bought together with the value (one feature group).
    ``age`` is the sensitive attribute and stays out of ``X`` unless asked.

    The file is not redistributable (Kaggle rules) and never bundled: it is read from
    ``<data directory>/give-me-some-credit/cs-training.csv.gz`` (or ``cs-training.csv``).

    Parameters
    ----------
    sensitive : {"age"}, default="age"
        ``"age < 35"`` / ``"age >= 35"``; privileged ``"age >= 35"``.
    include_sensitive_features : bool, default=False
        Whether ``X`` also holds ``age`` in years.
    data_dir : path-like or None, default=None
        Data directory; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).

    Returns
    -------
    FairDataset
        150,000 rows, 9 features plus 2 missing indicators by default.

    Raises
    ------
    DatasetNotFoundError
        If the file is absent, explaining where to put it and how to obtain it.
    UnknownNameError
        For an unknown sensitive attribute.
    """
    path = find_local_file("give-me-some-credit", RELPATH, root=data_dir, fix=KAGGLE_FIX)
    stat = Path(path).stat()
    raw = _read(str(path), stat.st_mtime_ns, stat.st_size)
    features = raw.drop(columns=[_LABEL, "age"]).copy()
    merge: dict[str, list[str]] = {}
    for col in _WITH_NAN:
        missing = features[col].isna()
        features[col] = features[col].fillna(features[col].median())
        features.insert(
            list(features.columns).index(col) + 1, f"{col}_missing", missing.astype(float)
        )
        merge[col] = [col, f"{col}_missing"]
    young = f"age < {AGE_THRESHOLD}"
    old = f"age >= {AGE_THRESHOLD}"
    sens = pd.DataFrame({"age": np.where(raw["age"] < AGE_THRESHOLD, young, old)})
    meta = CATALOGUE["give-me-some-credit"].provenance()
    meta.update(
        age_threshold=AGE_THRESHOLD,
        imputation="median of the whole file plus a <name>_missing indicator",
        path=str(path),
    )
    return build_dataset(
        name="give-me-some-credit",
        features=features,
        categorical=[],
        y=raw[_LABEL].to_numpy(dtype=np.int64),
        sensitive_frame=sens,
        sensitive=sensitive,
        privileged_values={"age": old},
        metadata=meta,
        sensitive_features=raw[["age"]],
        include_sensitive_features=include_sensitive_features,
        merge_groups=merge,
    )
