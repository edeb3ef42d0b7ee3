"""ProPublica COMPAS two-year recidivism, bundled: the COMPAS set-up of Fair-A3SL."""

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

__all__ = ["load_compas"]

_AA = "African-American"
_NON_AA = "non-African-American"
_NUMERIC = ["age", "priors_count", "juv_fel_count", "juv_misd_count", "juv_other_count"]
_CATEGORICAL = ["age_cat", "c_charge_degree"]


@functools.lru_cache(maxsize=1)
def _raw_compas() -> pd.DataFrame:
    """Parse the bundled file once per process (callers must not modify the frame)."""
    with bundled_file("compas-scores-two-years.csv.gz").open("rb") as fh:
        # The file repeats 'decile_score' and 'priors_count'; pandas names the copies '.1'.
        return pd.read_csv(fh, compression="gzip", keep_default_na=False, na_values=[""])


def load_compas(
    *,
    sensitive: str | Sequence[str] = "race",
    filter: Literal["propublica"] | None = "propublica",
    race_groups: Literal["aa_vs_caucasian", "aa_vs_rest"] = "aa_vs_caucasian",
    include_sensitive_features: bool = False,
    include_scores: bool = False,
) -> FairDataset:
    """Load ProPublica's COMPAS file (bundled): predict re-offending within two years.

    The label is ``two_year_recid``: **1 = re-offended** (the positive class of the papers);
    for the defendant the favourable outcome is 0 (``metadata["favourable_label"] == 0``).
    Features: ``age``, ``age_cat``, ``priors_count``, the three juvenile counts,
    ``c_charge_degree`` (F/M) and ``length_of_stay`` (days in jail for the screening charge,
    ``c_jail_out - c_jail_in``, clipped at 0; the 307 rows without dates get 0 and
    ``length_of_stay_missing = 1``, bought together with it).

    Fair-A3SL (Zhang & Ramesh, §5.2) reproduces its "COMPAS Scores" row on the **unfiltered**
    7,214 rows with African-American against everyone else:
    ``load_compas(filter=None, race_groups="aa_vs_rest")``.

    Parameters
    ----------
    sensitive : {"race", "race_detail", "sex"} or tuple of them, default="race"
        ``"race"`` is the two-group race attribute chosen by ``race_groups``;
        ``"race_detail"`` keeps ProPublica's six values; ``"sex"`` is Male/Female.
    filter : {"propublica"} or None, default="propublica"
        ``"propublica"`` applies ProPublica's filter (``abs(days_b_screening_arrest) <= 30``,
        is_recid != -1, c_charge_degree != "O", score_text != "N/A"): 6,172 of 7,214 rows.
    race_groups : {"aa_vs_caucasian", "aa_vs_rest"}, default="aa_vs_caucasian"
        ``"aa_vs_caucasian"`` keeps only African-American and Caucasian defendants (5,278
        rows after the filter; the usual two-group set-up). ``"aa_vs_rest"`` keeps every row
        and groups African-American vs ``"non-African-American"``.
    include_sensitive_features : bool, default=False
        Whether ``X`` also holds one-hot ``race`` (six values) and ``sex``.
    include_scores : bool, default=False
        Whether ``X`` also holds COMPAS's own ``decile_score`` and one-hot ``score_text``
        (the tool's prediction, Zhang & Ramesh's "COMPAS Scores" baseline: Medium/High = 1).

    Returns
    -------
    FairDataset
        Privileged groups: Caucasian (``"non-African-American"`` for ``"aa_vs_rest"``) and
        Female (the AIF360 convention for COMPAS, whose favourable label is 0).

    Raises
    ------
    InvalidParameterError
        For an unknown ``filter`` or ``race_groups``.
    UnknownNameError
        For an unknown sensitive attribute.
    """
    check_option("load_compas", "filter", filter, ["propublica", None])
    check_option("load_compas", "race_groups", race_groups, ["aa_vs_caucasian", "aa_vs_rest"])
    raw = _raw_compas()
    if filter == "propublica":
        keep = (
            raw["days_b_screening_arrest"].abs().le(30)
            & raw["is_recid"].ne(-1)
            & raw["c_charge_degree"].ne("O")
            & raw["score_text"].notna()
            & raw["score_text"].ne("N/A")
        )
        raw = raw[keep]
    if race_groups == "aa_vs_caucasian":
        raw = raw[raw["race"].isin([_AA, "Caucasian"])]
        race = raw["race"].astype(object)
        race_privileged = "Caucasian"
    else:
        race = pd.Series(np.where(raw["race"] == _AA, _AA, _NON_AA), dtype=object)
        race_privileged = _NON_AA
    raw = raw.reset_index(drop=True)
    race = race.reset_index(drop=True)

    stay = (
        pd.to_datetime(raw["c_jail_out"]) - pd.to_datetime(raw["c_jail_in"])
    ).dt.total_seconds() / 86_400.0
    features = raw[_NUMERIC[:1] + _CATEGORICAL[:1] + _NUMERIC[1:] + _CATEGORICAL[1:]].copy()
    features["length_of_stay"] = stay.clip(lower=0.0).fillna(0.0)
    features["length_of_stay_missing"] = stay.isna().astype(np.float64)
    categorical = list(_CATEGORICAL)
    if include_scores:
        features["decile_score"] = raw["decile_score"]
        features["score_text"] = raw["score_text"].fillna("N/A")
        categorical.append("score_text")
    sens = pd.DataFrame(
        {"race": race, "race_detail": raw["race"].astype(object), "sex": raw["sex"].astype(object)}
    )
    meta = CATALOGUE["compas"].provenance()
    meta.update(filter=filter, race_groups=race_groups, include_scores=include_scores)
    return build_dataset(
        name="compas",
        features=features,
        categorical=categorical,
        y=raw["two_year_recid"].to_numpy(dtype=np.int64),
        sensitive_frame=sens,
        sensitive=sensitive,
        privileged_values={"race": race_privileged, "race_detail": "Caucasian", "sex": "Female"},
        metadata=meta,
        sensitive_features=raw[["race", "sex"]],
        sensitive_categorical=["race", "sex"],
        include_sensitive_features=include_sensitive_features,
        merge_groups={"length_of_stay": ["length_of_stay", "length_of_stay_missing"]},
    )
