"""Statlog German credit, bundled: the second UCI dataset of Aopt (Shekhar et al., Appendix E)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from fairacq.data._dataset import FairDataset
from fairacq.data.loaders._build import build_dataset
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._paths import bundled_file

__all__ = ["load_german"]

# Attribute names from UCI's german.doc (attributes 1-20, then the class).
_COLUMNS = [
    "checking_status",
    "duration",
    "credit_history",
    "purpose",
    "credit_amount",
    "savings",
    "employment_since",
    "installment_rate",
    "personal_status_sex",
    "other_debtors",
    "residence_since",
    "property",
    "age",
    "other_installment_plans",
    "housing",
    "existing_credits",
    "job",
    "people_liable",
    "telephone",
    "foreign_worker",
    "class",
]
_CATEGORICAL = [
    "checking_status",
    "credit_history",
    "purpose",
    "savings",
    "employment_since",
    "other_debtors",
    "property",
    "other_installment_plans",
    "housing",
    "job",
    "telephone",
    "foreign_worker",
]
# Attribute 9: A91 male divorced/separated, A92 female divorced/separated/married,
# A93 male single, A94 male married/widowed, A95 female single.
_SEX = {"A91": "male", "A92": "female", "A93": "male", "A94": "male", "A95": "female"}
AGE_THRESHOLD = 25


@functools.lru_cache(maxsize=1)
def _raw_german() -> pd.DataFrame:
    """Parse the bundled file once per process (callers must not modify the frame)."""
    with bundled_file("german.data.gz").open("rb") as fh:
        return pd.read_csv(fh, compression="gzip", sep=" ", header=None, names=_COLUMNS)


def load_german(
    *,
    sensitive: str | Sequence[str] = "sex",
    include_sensitive_features: bool = False,
) -> FairDataset:
    """Load Statlog German credit (bundled): predict good credit.

    Used by Aopt (Shekhar et al., Appendix E: "the German dataset, another UCI ML Repository
    dataset"). The label is **1 = good credit** (class 1, 700 of 1,000 rows), the favourable
    outcome; class 2 (bad) becomes 0. The 12 categorical attributes keep UCI's codes
    (``A11`` ... ``A202``, see ``german.doc``) and are one-hot encoded.

    Sex comes from attribute 9 "personal status and sex" (A91, A93, A94 male; A92, A95
    female); the age group uses the usual threshold of the fairness literature (Kamiran &
    Calders 2009, AIF360): **age >= 25 is privileged**. Both source columns (attribute 9 and
    ``age``) are sensitive, so they stay out of ``X`` unless asked.

    Parameters
    ----------
    sensitive : {"sex", "age"} or tuple of them, default="sex"
        ``"sex"``: ``"male"``/``"female"`` (privileged male). ``"age"``: ``"age >= 25"`` /
        ``"age < 25"`` (privileged ``"age >= 25"``).
    include_sensitive_features : bool, default=False
        Whether ``X`` also holds one-hot ``personal_status_sex`` and numeric ``age``.

    Returns
    -------
    FairDataset
        1,000 rows; ``sensitive`` holds the ``sex`` and ``age`` group labels (the age in
        years is a feature only with ``include_sensitive_features=True``).

    Raises
    ------
    UnknownNameError
        For an unknown sensitive attribute.
    """
    raw = _raw_german()
    features = raw.drop(columns=["personal_status_sex", "age", "class"])
    age_group = np.where(
        raw["age"] >= AGE_THRESHOLD, f"age >= {AGE_THRESHOLD}", f"age < {AGE_THRESHOLD}"
    )
    sens = pd.DataFrame(
        {"sex": raw["personal_status_sex"].map(_SEX).astype(object), "age": age_group}
    )
    meta = CATALOGUE["german"].provenance()
    meta.update(age_threshold=AGE_THRESHOLD)
    return build_dataset(
        name="german",
        features=features,
        categorical=_CATEGORICAL,
        y=(raw["class"] == 1).to_numpy(dtype=np.int64),
        sensitive_frame=sens,
        sensitive=sensitive,
        privileged_values={"sex": "male", "age": f"age >= {AGE_THRESHOLD}"},
        metadata=meta,
        sensitive_features=raw[["personal_status_sex", "age"]],
        sensitive_categorical=["personal_status_sex"],
        include_sensitive_features=include_sensitive_features,
    )
