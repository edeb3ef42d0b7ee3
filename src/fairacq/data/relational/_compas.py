"""COMPAS (ProPublica) as predicates with 5-fold cross-validation (Zhang & Ramesh, §5.2).

Two sources give the same predicates over the same 7,214 defendants (``user`` = ProPublica's
``id``): ``source="bundled"`` builds them from the bundled two-year file (all rows, no
ProPublica filter: the set-up that reproduces the paper's "COMPAS Scores" row), with seeded
folds; ``source="authors"`` reads the authors' folds from ``fair-a3sl/compas_5cv.tar.gz``
(read in memory). The definitions were read off the authors' files and agree with the bundled
build atom for atom (checked in the tests):

- ``priors(U, I)``, ``juvFelHistory(U, I)``, ``juvMisdHistory(U, I)``,
  ``juvOtherHistory(U, I)``: one atom (value 1) per prior / juvenile offence,
  ``I = 0 .. count - 1`` (``priors_count``, ``juv_*_count``).
- ``oldAge(U)``: 0 / 0.5 / 1 for ProPublica's ``age_cat`` "Less than 25" / "25 - 45" /
  "Greater than 45" (the category, not ``age``: 113 defendants aged 45 are "Greater than 45").
- ``longJailDay(U)``: 0.5 when the screening-charge jail stay ``c_jail_out - c_jail_in``
  exceeds 15 days, 1 when it reaches 180 days; listed only then (else 0, closed world).
- ``felony(U)``: 1 for a felony charge, 0.5 for a misdemeanour (``c_charge_degree``).
- ``sex(U)``: 1 male, 0 female. ``african_race(U)`` / ``other_race(U)``: 1 for
  African-American / everyone else (listed only then); ``raceTruth(U)``: 1 African-American,
  0 otherwise; ``race(U, R)``: ProPublica's race label. ``user(U)``: 1.
- ``priorChargeFelony/Misd/Other(U, I)``: one atom per prior charge of that degree. The
  two-year file has no per-charge history (the authors took it from ProPublica's
  ``compas.db``), so only ``source="authors"`` has them.
- ``compas_score(U)``: the tool's own prediction, 1 for Medium/High (observed only with
  ``include_compas_score=True``: it is the "COMPAS Scores" baseline, not a feature).
- Target ``recidivist(U)``: ``two_year_recid``. Protected: African-American defendants.
"""

from __future__ import annotations

import functools
import io
import os
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._random import as_generator
from fairacq._validation import Interval, Options, validate_parameter_constraints
from fairacq.data.loaders import bundled_file, find_local_file
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import CorruptFileError, InvalidParameterError

__all__ = ["COMPAS_PREDICATES", "LONG_JAIL_DAYS", "load_compas_relational"]

#: Predicate -> argument columns (the authors' files: ``user[,instance],value``).
COMPAS_PREDICATES: Mapping[str, tuple[str, ...]] = {
    "african_race": ("user",),
    "compas_score": ("user",),
    "felony": ("user",),
    "juvFelHistory": ("user", "instance"),
    "juvMisdHistory": ("user", "instance"),
    "juvOtherHistory": ("user", "instance"),
    "longJailDay": ("user",),
    "oldAge": ("user",),
    "other_race": ("user",),
    "priorChargeFelony": ("user", "instance"),
    "priorChargeMisd": ("user", "instance"),
    "priorChargeOther": ("user", "instance"),
    "priors": ("user", "instance"),
    "race": ("user", "race"),
    "raceTruth": ("user",),
    "recidivist": ("user",),
    "sex": ("user",),
    "user": ("user",),
}
_TARGET = "recidivist"
_AA = "African-American"
_TARBALL = "fair-a3sl/compas_5cv.tar.gz"
_FIX = (
    "Copy the authors' folds (fair-a3sl/compas_5cv.tar.gz, see the project's shared datasets "
    "folder and its PROVENANCE.md) into the data directory"
)
_OLD_AGE = {"Less than 25": 0.0, "25 - 45": 0.5, "Greater than 45": 1.0}
#: Jail-stay thresholds of ``longJailDay`` in days (read off the authors' files).
LONG_JAIL_DAYS = (15.0, 180.0)


def _instances(users: NDArray[np.int64], counts: NDArray[np.int64]) -> pd.DataFrame:
    counts = np.clip(counts, 0, None)
    rep = np.repeat(users, counts)
    start = np.repeat(np.cumsum(counts) - counts, counts)
    inst = np.arange(int(counts.sum())) - start
    return pd.DataFrame({"user": rep, "instance": inst, "value": 1.0})


@functools.lru_cache(maxsize=1)
def _bundled_tables() -> dict[str, pd.DataFrame]:
    """Every predicate over all 7,214 defendants, from the bundled file (built once)."""
    with bundled_file("compas-scores-two-years.csv.gz").open("rb") as fh:
        raw = pd.read_csv(fh, compression="gzip", keep_default_na=False, na_values=[""])
    users = raw["id"].to_numpy(dtype=np.int64)
    one = np.ones(len(raw))
    age_cat = raw["age_cat"].map(_OLD_AGE)
    if age_cat.isna().any():
        raise CorruptFileError(
            "load_compas_relational: the bundled COMPAS file has unknown age_cat values "
            f"{sorted(set(raw['age_cat']) - set(_OLD_AGE))}. Reinstall fairacq."
        )
    stay = (
        pd.to_datetime(raw["c_jail_out"]) - pd.to_datetime(raw["c_jail_in"])
    ).dt.total_seconds().to_numpy() / 86_400.0
    short, long_ = LONG_JAIL_DAYS
    jail = np.where(stay >= long_, 1.0, np.where(stay > short, 0.5, 0.0))
    jail[np.isnan(stay)] = 0.0
    is_aa = (raw["race"] == _AA).to_numpy()
    score = raw["score_text"].isin(["Medium", "High"]).to_numpy(dtype=np.float64)
    tables = {
        "user": pd.DataFrame({"user": users, "value": one}),
        "oldAge": pd.DataFrame({"user": users, "value": age_cat.to_numpy(dtype=np.float64)}),
        "longJailDay": pd.DataFrame({"user": users, "value": jail}).loc[jail > 0],
        "felony": pd.DataFrame(
            {"user": users, "value": np.where(raw["c_charge_degree"] == "F", 1.0, 0.5)}
        ),
        "sex": pd.DataFrame(
            {"user": users, "value": (raw["sex"] == "Male").to_numpy(dtype=np.float64)}
        ),
        "african_race": pd.DataFrame({"user": users[is_aa], "value": 1.0}),
        "other_race": pd.DataFrame({"user": users[~is_aa], "value": 1.0}),
        "raceTruth": pd.DataFrame({"user": users, "value": is_aa.astype(np.float64)}),
        "race": pd.DataFrame({"user": users, "race": raw["race"].astype(str), "value": one}),
        "compas_score": pd.DataFrame({"user": users, "value": score}),
        "recidivist": pd.DataFrame(
            {"user": users, "value": raw["two_year_recid"].to_numpy(dtype=np.float64)}
        ),
    }
    for pred, col in (
        ("priors", "priors_count"),
        ("juvFelHistory", "juv_fel_count"),
        ("juvMisdHistory", "juv_misd_count"),
        ("juvOtherHistory", "juv_other_count"),
    ):
        tables[pred] = _instances(users, raw[col].to_numpy(dtype=np.int64))
    return {name: _as_text(name, frame) for name, frame in tables.items()}


def _as_text(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    args = list(COMPAS_PREDICATES[name])
    out = frame[[*args, "value"]].copy()
    for col in args:
        out[col] = out[col].astype(str)
    out["value"] = out["value"].astype(np.float64)
    return out.reset_index(drop=True)


@functools.lru_cache(maxsize=2)
def _authors_tables(path: str, mtime: int) -> dict[tuple[str, str, str], pd.DataFrame]:
    """(fold, part, predicate) -> table, read from the tarball in memory (never unpacked)."""
    out: dict[tuple[str, str, str], pd.DataFrame] = {}
    try:
        with tarfile.open(path, "r:gz") as tar:
            for member in tar.getmembers():
                parts = member.name.split("/")
                if not member.isfile() or len(parts) != 4 or not parts[3].endswith(".txt"):
                    continue
                _, fold, part, fname = parts
                name = fname[: -len(".txt")]
                if name not in COMPAS_PREDICATES:
                    continue
                fh = tar.extractfile(member)
                if fh is None:  # pragma: no cover - a regular file always has a stream
                    continue
                out[fold, part, name] = _parse(fh.read().decode("utf-8"), name, member.name)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorruptFileError(
            f"load_compas_relational: cannot read {path} as a gzipped tar file ({exc}). "
            "Replace it with the authors' compas_5cv.tar.gz."
        ) from exc
    return out


def _parse(text: str, name: str, where: str) -> pd.DataFrame:
    args = list(COMPAS_PREDICATES[name])
    frame = pd.read_csv(io.StringIO(text), header=None, dtype=str)
    if frame.shape[1] == len(args):
        frame.columns = args
        frame["value"] = 1.0
    elif frame.shape[1] == len(args) + 1:
        frame.columns = [*args, "value"]
        frame["value"] = pd.to_numeric(frame["value"], errors="raise")
    else:
        raise CorruptFileError(
            f"load_compas_relational: {where} has {frame.shape[1]} columns; {name!r} has "
            f"arguments {args} and an optional value column."
        )
    return _as_text(name, frame)


def _split_tables(
    tables: Mapping[str, pd.DataFrame], users: NDArray[np.object_]
) -> dict[str, pd.DataFrame]:
    index = pd.Index(users)
    return {
        n: f.loc[index.get_indexer(pd.Index(f["user"])) >= 0].reset_index(drop=True)
        for n, f in sorted(tables.items())
    }


def _assemble(
    tables: Mapping[str, pd.DataFrame],
    include_compas_score: bool,
    metadata: dict[str, object],
) -> RelationalData:
    truth = tables[_TARGET].copy()
    obs = {
        n: f.copy()
        for n, f in tables.items()
        if n != _TARGET and (include_compas_score or n != "compas_score")
    }
    aa = set(tables["african_race"]["user"])
    users = truth[["user"]]
    mask = users["user"].isin(aa).to_numpy()
    metadata.update(
        fairness_predicate=_TARGET,
        task="classification",
        favourable=0,
        protected_group="African-American defendants (vs everyone else)",
    )
    return RelationalData(
        observations=obs,
        targets={_TARGET: users.copy()},
        truth={_TARGET: truth},
        protected=users.loc[mask].reset_index(drop=True),
        unprotected=users.loc[~mask].reset_index(drop=True),
        metadata=metadata,
    )


def load_compas_relational(
    fold: int | None = 0,
    *,
    split: Literal["train", "test"] = "test",
    source: Literal["bundled", "authors"] = "bundled",
    n_folds: int = 5,
    include_compas_score: bool = False,
    random_state: int | np.random.Generator | None = 0,
    data_dir: str | os.PathLike[str] | None = None,
) -> RelationalData:
    """Load COMPAS as predicates for one cross-validation fold (Zhang & Ramesh, §5.2).

    The target is ``recidivist(U)`` (two-year recidivism); the protected group is the
    African-American defendants' atoms against everyone else's. ``metadata["favourable"]``
    is 0: a high truth value is the harm, so RD/RR/RC compare rates of predicted
    recidivism, as the paper's Table 9 does. The predicate definitions are in the module
    docstring.

    Parameters
    ----------
    fold : int or None, default=0
        Fold ``0 .. n_folds-1``; ``split`` picks its test part or the other folds. ``None``
        gives all 7,214 defendants at once (``split`` ignored; for ``"authors"``, the union
        of the five test parts).
    split : {"train", "test"}, default="test"
        Which part of the fold. Both carry the truth of their target atoms.
    source : {"bundled", "authors"}, default="bundled"
        ``"bundled"`` builds the predicates from the bundled ProPublica file, unfiltered,
        with folds from a seeded permutation split as evenly as possible (sizes 1,443 x 4
        and 1,442, as the authors'); it lacks ``priorChargeFelony/Misd/Other``.
        ``"authors"`` reads ``<data dir>/fair-a3sl/compas_5cv.tar.gz``.
    n_folds : int, default=5
        Number of folds (``"bundled"`` only; the authors' file has 5).
    include_compas_score : bool, default=False
        Whether ``compas_score`` is an observed predicate (the tool's prediction).
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the fold assignment of ``"bundled"``; the same int gives the same folds.
    data_dir : path-like or None, default=None
        Data directory for ``"authors"``; ``None`` means ``$FAIRACQ_DATA``.

    Returns
    -------
    RelationalData
        ``protected``/``unprotected`` list ``recidivist`` atoms (column ``user``).

    Raises
    ------
    InvalidParameterError
        For a fold out of range or an unknown split or source.
    DatasetNotFoundError
        If ``source="authors"`` and the tarball is not in the data directory.
    CorruptFileError
        If the tarball cannot be read.

    Examples
    --------
    >>> test = load_compas_relational(0, split="test")
    >>> train = load_compas_relational(0, split="train")
    >>> test.n_atoms("recidivist"), train.n_atoms("recidivist")
    (1443, 5771)
    """
    validate_parameter_constraints(
        {
            "fold": [Interval(int, 0, None, closed="left"), None],
            "split": [Options(["train", "test"])],
            "source": [Options(["bundled", "authors"])],
            "n_folds": [Interval(int, 2, None, closed="left")],
            "include_compas_score": ["boolean"],
            "random_state": ["random_state"],
        },
        {
            "fold": fold,
            "split": split,
            "source": source,
            "n_folds": n_folds,
            "include_compas_score": include_compas_score,
            "random_state": random_state,
        },
        "load_compas_relational",
    )
    k = n_folds if source == "bundled" else 5
    if fold is not None and fold >= k:
        raise InvalidParameterError(
            f"The 'fold' parameter of load_compas_relational must be in [0, {k - 1}] "
            f"(there are {k} folds). Got {fold} instead."
        )
    meta: dict[str, object] = {
        "paper": "Zhang & Ramesh §5.2; ProPublica COMPAS, unfiltered 7,214 rows",
        "source": source,
        "fold": fold,
        "split": None if fold is None else split,
        "n_folds": k,
    }
    if source == "bundled":
        tables = _bundled_fold(fold, split, n_folds, random_state)
        meta["random_state"] = random_state if isinstance(random_state, int) else None
        meta["missing_predicates"] = ["priorChargeFelony", "priorChargeMisd", "priorChargeOther"]
        return _assemble(tables, include_compas_score, meta)
    tables = _authors_fold(fold, split, data_dir)
    return _assemble(dict(sorted(tables.items())), include_compas_score, meta)


def _bundled_fold(
    fold: int | None, split: str, n_folds: int, random_state: int | np.random.Generator | None
) -> dict[str, pd.DataFrame]:
    """Return the bundled tables, restricted to the users of one seeded fold and split."""
    tables = _bundled_tables()
    if fold is not None:
        users = tables["user"]["user"].to_numpy()
        perm = as_generator(random_state).permutation(len(users))
        test_pos = np.array_split(perm, n_folds)[fold]
        in_test = np.zeros(len(users), dtype=bool)
        in_test[test_pos] = True
        keep = in_test if split == "test" else ~in_test
        tables = _split_tables(tables, users[keep].astype(object))
    return dict(tables)


def _authors_fold(
    fold: int | None, split: str, data_dir: str | os.PathLike[str] | None
) -> dict[str, pd.DataFrame]:
    """Return the authors' tables of one fold and split, or their five test folds together."""
    path = find_local_file("fair-a3sl", _TARBALL, root=data_dir, fix=_FIX)
    every = _authors_tables(str(path), Path(path).stat().st_mtime_ns)
    if fold is not None:
        part = "training" if split == "train" else "test"
        return {name: f for (fo, pa, name), f in every.items() if fo == str(fold) and pa == part}
    names = sorted({name for (_, part, name) in every if part == "test"})
    return {
        n: pd.concat(
            [every[str(f), "test", n] for f in range(5) if (str(f), "test", n) in every],
            ignore_index=True,
        )
        for n in names
    }
