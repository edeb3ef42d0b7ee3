"""ACS PUMS person records through ``folktables``: the four ACS tasks of DataSift."""

from __future__ import annotations

import gzip
import os
import random
import shutil
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from fairacq._deps import require
from fairacq._io import atomic_path
from fairacq._validation import did_you_mean
from fairacq.data._dataset import FairDataset
from fairacq.data.loaders._build import build_dataset
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._paths import cache_dir, find_local_file
from fairacq.exceptions import InvalidParameterError

__all__ = ["ACS_TASKS", "STATE_CODES", "acs_relpath", "load_acs"]

ACSTask = Literal["ACSIncome", "ACSPublicCoverage", "ACSMobility", "ACSEmployment"]

#: folktables task -> (registry name, default sensitive attribute from Hasan & Pradhan Table 1).
ACS_TASKS: dict[str, tuple[str, str]] = {
    "ACSIncome": ("acs-income", "sex"),
    "ACSPublicCoverage": ("acs-public-coverage", "sex"),
    "ACSMobility": ("acs-mobility", "race_binary"),
    "ACSEmployment": ("acs-employment", "race_binary"),
}

#: Two-letter state abbreviation -> FIPS code used in the PUMS file names.
STATE_CODES: dict[str, str] = {
    "AL": "01", "AK": "02", "AZ": "04", "AR": "05", "CA": "06", "CO": "08", "CT": "09",
    "DE": "10", "DC": "11", "FL": "12", "GA": "13", "HI": "15", "ID": "16", "IL": "17",
    "IN": "18", "IA": "19", "KS": "20", "KY": "21", "LA": "22", "ME": "23", "MD": "24",
    "MA": "25", "MI": "26", "MN": "27", "MS": "28", "MO": "29", "MT": "30", "NE": "31",
    "NV": "32", "NH": "33", "NJ": "34", "NM": "35", "NY": "36", "NC": "37", "ND": "38",
    "OH": "39", "OK": "40", "OR": "41", "PA": "42", "RI": "44", "SC": "45", "SD": "46",
    "TN": "47", "TX": "48", "UT": "49", "VT": "50", "VA": "51", "WA": "53", "WV": "54",
    "WI": "55", "WY": "56", "PR": "72",
}  # fmt: skip

# Nominal PUMS codes (one-hot encoded); AGEP, SCHL (ordinal), WKHP, PINCP, JWMNP stay numeric.
_NOMINAL = {
    "COW", "MAR", "OCCP", "POBP", "RELP", "DIS", "ESP", "CIT", "MIG", "MIL", "ANC",
    "NATIVITY", "DEAR", "DEYE", "DREM", "ESR", "ST", "FER", "GCL", "JWTR",
}  # fmt: skip
_SEX = {1: "Male", 2: "Female"}
_RACE = {
    1: "White",
    2: "Black or African American",
    3: "American Indian",
    4: "Alaska Native",
    5: "American Indian and Alaska Native",
    6: "Asian",
    7: "Native Hawaiian and Other Pacific Islander",
    8: "Some Other Race",
    9: "Two or More Races",
}
_AA = "African-American"
_NON_AA = "non-African-American"


def acs_relpath(state: str, year: int = 2018) -> str:
    """Return the data-directory path of one state's gzipped 1-Year person file.

    Examples
    --------
    >>> acs_relpath("WY")
    'acs/2018/1-Year/psam_p56.csv.gz'
    """
    return f"acs/{year}/1-Year/psam_p{STATE_CODES[state]}.csv.gz"


def _check_states(states: Sequence[str]) -> list[str]:
    if isinstance(states, str):
        states = [states]
    out = [str(s).upper() for s in states]
    if not out:
        raise InvalidParameterError(
            "The 'states' parameter of load_acs must name at least one state. Got an empty "
            "sequence instead. Pass e.g. states=('WY',)."
        )
    for state in out:
        if state not in STATE_CODES:
            raise did_you_mean("US state", state, STATE_CODES, "fairacq.data.loaders.STATE_CODES")
    return out


def _gzip_size(path: Path) -> int:
    """Uncompressed size (mod 2**32) from a gzip file's trailer."""
    with open(path, "rb") as fh:
        fh.seek(-4, os.SEEK_END)
        return int(struct.unpack("<I", fh.read(4))[0])


def _materialise(source: Path, target: Path) -> None:
    """Write ``source`` uncompressed at ``target`` unless an intact copy is already there."""
    compressed = source.suffix == ".gz"
    expected = _gzip_size(source) if compressed else source.stat().st_size
    if target.is_file() and target.stat().st_size % 2**32 == expected:
        return
    with atomic_path(target) as tmp, open(tmp, "wb") as out:
        opener = gzip.open if compressed else open
        with opener(source, "rb") as src:
            shutil.copyfileobj(src, out, length=1 << 20)


def load_acs(
    task: ACSTask = "ACSIncome",
    *,
    states: Sequence[str] = ("WY",),
    year: int = 2018,
    sensitive: str | Sequence[str] | None = None,
    include_sensitive_features: bool = False,
    one_hot: bool = True,
    data_dir: str | os.PathLike[str] | None = None,
) -> FairDataset:
    """Load one folktables ACS task from local PUMS person files.

    DataSift (Hasan & Pradhan, §4.1.1, Table 1) uses ACSIncome, ACSPublicCoverage (which it calls
    ACSPublicHealth), ACSMobility and ACSEmployment on California 2018, with minority groups
    Female, Female, African-American and African-American; those are the defaults of
    ``sensitive``. The rows, features, filters and labels are folktables' own
    (``task.df_to_pandas``; missing codes become -1 as in folktables). Labels: ACSIncome
    income > $50K; ACSPublicCoverage has public coverage; ACSMobility lived in the same house
    a year ago (``MIG == 1``, 73 % positive as in Table 1); ACSEmployment employed.

    The gzipped files ``<data directory>/acs/<year>/1-Year/psam_pNN.csv.gz`` are decompressed
    once into ``<cache>/folktables/<year>/1-Year/`` (``$FAIRACQ_CACHE``, see
    :func:`fairacq.data.cache_dir`), which folktables reads with ``download=False``; nothing
    is downloaded here. ``SEX`` and ``RAC1P`` are sensitive and stay out of ``X`` unless asked.

    Parameters
    ----------
    task : {"ACSIncome", "ACSPublicCoverage", "ACSMobility", "ACSEmployment"}, default="ACSIncome"
        The folktables prediction task.
    states : sequence of str, default=("WY",)
        Two-letter state codes whose person files are pooled. The project's data folder
        holds 14 small states (DE HI ID ME MT ND NE NH NM RI SD VT WV WY), not California.
    year : int, default=2018
        Survey year of the 1-Year files.
    sensitive : {"sex", "race", "race_binary"}, tuple of them or None, default=None
        ``None`` takes the task's attribute from Hasan & Pradhan, Table 1. ``"sex"``: Male
        (privileged) / Female. ``"race"``: the nine ``RAC1P`` categories (privileged White).
        ``"race_binary"``: ``"African-American"`` vs ``"non-African-American"`` (privileged).
    include_sensitive_features : bool, default=False
        Whether ``X`` also holds ``SEX`` and ``RAC1P``.
    one_hot : bool, default=True
        One-hot encode the nominal PUMS codes (occupation, place of birth, ...; several
        hundred columns for OCCP and POBP). ``False`` keeps folktables' integer codes, one
        column per variable.
    data_dir : path-like or None, default=None
        Data directory; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).

    Returns
    -------
    FairDataset
        Named after the registry entry (e.g. ``"acs-income"``); ``metadata`` records the
        task, states and year.

    Raises
    ------
    UnknownNameError
        For an unknown task, state or sensitive attribute.
    DatasetNotFoundError
        If a state's file is absent (``fairacq datasets fetch acs-income`` downloads it).
    MissingDependencyError
        If ``folktables`` is not installed (``pip install 'fairacq[acs]'``).
    """
    if task not in ACS_TASKS:
        raise did_you_mean("ACS task", str(task), ACS_TASKS, "fairacq.data.loaders.ACS_TASKS")
    name, default_sensitive = ACS_TASKS[task]
    state_list = _check_states(states)
    folktables = require("folktables", purpose="the ACS datasets")
    root = cache_dir() / "folktables"
    for state in state_list:
        fix = (
            f"Run `fairacq datasets fetch {name}` for state {state} "
            f"(fairacq.data.fetch_dataset({name!r}, states=[{state!r}]))"
        )
        source = find_local_file(name, acs_relpath(state, year), root=data_dir, fix=fix)
        target = root / str(year) / "1-Year" / f"psam_p{STATE_CODES[state]}.csv"
        _materialise(source, target)
    source_obj = folktables.ACSDataSource(
        survey_year=str(year), horizon="1-Year", survey="person", root_dir=str(root)
    )
    saved = random.getstate()  # folktables reseeds Python's global generator
    try:
        frame = source_obj.get_data(states=state_list, download=False)
    finally:
        random.setstate(saved)
    problem = getattr(folktables, task)
    variables, target, _ = problem.df_to_pandas(frame)
    # The state of each kept row, through the same row filter df_to_pandas applies: a grouping
    # column for partitions by state (Hasan & Pradhan, Fig. 7c), never a model feature.
    postal = {int(code): st for st, code in STATE_CODES.items()}
    state = problem._preprocess(frame)["ST"].astype(int).map(postal).to_numpy()
    variables = variables.reset_index(drop=True)
    codes_sex = variables["SEX"].astype(int)
    codes_race = variables["RAC1P"].astype(int)
    sens = pd.DataFrame(
        {
            "sex": codes_sex.map(_SEX),
            "race": codes_race.map(_RACE),
            "race_binary": np.where(codes_race == 2, _AA, _NON_AA),
            "ST": state,
        }
    ).astype(object)
    features = variables.drop(columns=["SEX", "RAC1P"])
    nominal = [c for c in features.columns if c in _NOMINAL] if one_hot else []
    for col in nominal:
        features[col] = features[col].astype(np.int64)
    extra = variables[["SEX", "RAC1P"]].astype(np.int64)
    meta = CATALOGUE[name].provenance()
    meta.update(task=task, states=state_list, year=year, one_hot=one_hot)
    return build_dataset(
        name=name,
        features=features,
        categorical=nominal,
        y=target.iloc[:, 0].to_numpy(dtype=np.int64),
        sensitive_frame=sens,
        sensitive=default_sensitive if sensitive is None else sensitive,
        privileged_values={"sex": "Male", "race": "White", "race_binary": _NON_AA},
        metadata=meta,
        sensitive_features=extra,
        sensitive_categorical=["SEX", "RAC1P"] if one_hot else [],
        include_sensitive_features=include_sensitive_features,
    )
