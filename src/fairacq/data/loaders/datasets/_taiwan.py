"""Default of credit card clients (Taiwan, UCI), from the local data directory."""

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
from fairacq.exceptions import CorruptFileError

__all__ = ["load_taiwan_credit"]

RELPATH = "uci-credit-card-default/raw/UCI_Credit_Card.csv.gz"
AGE_THRESHOLD = 25
# UCI's variable names X1..X23 (the first header row of the published workbook).
_NAMES = [
    "LIMIT_BAL",
    "SEX",
    "EDUCATION",
    "MARRIAGE",
    "AGE",
    "PAY_0",
    "PAY_2",
    "PAY_3",
    "PAY_4",
    "PAY_5",
    "PAY_6",
    *[f"BILL_AMT{i}" for i in range(1, 7)],
    *[f"PAY_AMT{i}" for i in range(1, 7)],
]
_SEX = {1: "male", 2: "female"}
_MARRIAGE = {1: "married", 2: "single", 3: "others"}
_EDUCATION = {1: "graduate school", 2: "university", 3: "high school", 4: "others"}
TAIWAN_FIX = (
    "UCI publishes this dataset only as an Excel workbook, so fairacq does not download it: "
    "get 'default of credit card clients.xls' from "
    "https://archive.ics.uci.edu/dataset/350/default+of+credit+card+clients, save its sheet as "
    "CSV with the header row 'ID,X1,...,X23,Y' (drop the second, descriptive header row) at "
    f"<data directory>/{RELPATH[: -len('.gz')]}"
)


@functools.lru_cache(maxsize=2)
def _read(path: str, mtime_ns: int, size: int) -> pd.DataFrame:
    """Parse and rename the CSV once per file version (callers must not modify the frame)."""
    del mtime_ns, size  # part of the cache key only
    frame = pd.read_csv(path)
    if "X1" in frame.columns:  # UCI layout: ID, X1..X23, Y
        frame = frame.rename(
            columns=dict(zip([f"X{i}" for i in range(1, 24)], _NAMES, strict=True))
        )
        frame = frame.rename(columns={"Y": "default"})
    elif "LIMIT_BAL" in frame.columns:  # Kaggle layout: named columns, label last
        frame = frame.rename(columns={frame.columns[-1]: "default"})
    missing = [c for c in [*_NAMES, "default"] if c not in frame.columns]
    if missing:
        raise CorruptFileError(
            f"{path} does not have the columns of the Taiwan credit file (missing {missing[:3]}). "
            "Replace it with UCI's file: 'ID,X1..X23,Y' or the named Kaggle layout."
        )
    return frame


def load_taiwan_credit(
    *,
    sensitive: str | Sequence[str] = "sex",
    include_sensitive_features: bool = False,
    data_dir: str | os.PathLike[str] | None = None,
) -> FairDataset:
    """Load UCI's default of credit card clients (Taiwan, 2005): predict default next month.

    None of the five papers uses it; it is a common credit benchmark with four sensitive
    attributes. The label is **1 = default payment next month** (6,636 of 30,000 rows); for
    the client the favourable outcome is 0. The 19 non-sensitive features are the credit
    limit, the six repayment statuses ``PAY_*`` (ordinal codes -2..8, kept numeric), six bill
    amounts and six payment amounts.

    Parameters
    ----------
    sensitive : {"sex", "age", "marriage", "education"} or tuple of them, default="sex"
        ``"sex"``: ``"male"``/``"female"`` (privileged male, the usual convention).
        ``"age"``: ``"age >= 25"`` (privileged) / ``"age < 25"``. ``"marriage"``: married,
        single, others, unknown (code 0). ``"education"``: graduate school, university, high
        school, others, unknown (undocumented codes 0, 5, 6). The last two have no
        privileged group.
    include_sensitive_features : bool, default=False
        Whether ``X`` also holds one-hot ``SEX``, ``MARRIAGE``, ``EDUCATION`` and numeric
        ``AGE``.
    data_dir : path-like or None, default=None
        Data directory; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).

    Returns
    -------
    FairDataset
        30,000 rows.

    Raises
    ------
    DatasetNotFoundError
        If ``uci-credit-card-default/raw/UCI_Credit_Card.csv(.gz)`` is absent.
    CorruptFileError
        If the file does not have the expected columns.
    UnknownNameError
        For an unknown sensitive attribute.
    """
    path = find_local_file("taiwan-credit", RELPATH, root=data_dir, fix=TAIWAN_FIX)
    stat = Path(path).stat()
    raw = _read(str(path), stat.st_mtime_ns, stat.st_size)
    features = raw[[c for c in _NAMES if c not in ("SEX", "EDUCATION", "MARRIAGE", "AGE")]]
    sens = pd.DataFrame(
        {
            "sex": raw["SEX"].map(_SEX).fillna("unknown"),
            "age": np.where(
                raw["AGE"] >= AGE_THRESHOLD, f"age >= {AGE_THRESHOLD}", f"age < {AGE_THRESHOLD}"
            ),
            "marriage": raw["MARRIAGE"].map(_MARRIAGE).fillna("unknown"),
            "education": raw["EDUCATION"].map(_EDUCATION).fillna("unknown"),
        }
    ).astype(object)
    extra = pd.DataFrame(
        {
            "SEX": sens["sex"],
            "EDUCATION": sens["education"],
            "MARRIAGE": sens["marriage"],
            "AGE": raw["AGE"],
        }
    )
    meta = CATALOGUE["taiwan-credit"].provenance()
    meta.update(age_threshold=AGE_THRESHOLD, path=str(path))
    return build_dataset(
        name="taiwan-credit",
        features=features,
        categorical=[],
        y=raw["default"].to_numpy(dtype=np.int64),
        sensitive_frame=sens,
        sensitive=sensitive,
        privileged_values={
            "sex": "male",
            "age": f"age >= {AGE_THRESHOLD}",
            "marriage": None,
            "education": None,
        },
        metadata=meta,
        sensitive_features=extra,
        sensitive_categorical=["SEX", "EDUCATION", "MARRIAGE"],
        include_sensitive_features=include_sensitive_features,
    )
