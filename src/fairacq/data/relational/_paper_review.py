"""The paper-review network of Zhang & Ramesh (§5.1) as relational data.

Two sources give the same predicates: the generator
:func:`fairacq.data.synthetic.make_paper_review` and :func:`load_paper_review`, which reads one
of the authors' ten samples (``fair-a3sl/biasedPaperReview/bias1..10`` in the data directory).
The targets are ``positiveReviews`` and ``positiveSummary`` (plus ``acceptable``, the paper's
``highQuality``, on request); everything else is observed. The fairness groups are the
``positiveSummary`` atoms (papers) whose author is a student at a non-high-rank institute (the
authors' code, the default) or a student (the paper's text). :func:`paper_review_data`
chooses the targets and the group anew; :func:`paper_review_table` gives one row per paper
and :func:`write_paper_review` writes the authors' file layout.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from fairacq._io import atomic_write
from fairacq._validation import Interval, Options, validate_parameter_constraints
from fairacq.data.loaders import data_dir as default_data_dir
from fairacq.data.loaders import find_local_file
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError

__all__ = [
    "PAPER_REVIEW_PREDICATES",
    "load_paper_review",
    "paper_review_data",
    "paper_review_table",
    "write_paper_review",
]

#: Predicate -> argument columns, as in the authors' files (``fair-a3sl/biasedPaperReview``).
PAPER_REVIEW_PREDICATES: Mapping[str, tuple[str, ...]] = {
    "acceptable": ("paper",),
    "affiliate2HighRank": ("author",),
    "affiliation": ("author", "institute"),
    "author": ("author",),
    "highRank": ("institute",),
    "institute": ("institute",),
    "paper": ("paper",),
    "positiveReviews": ("reviewer", "paper"),
    "positiveSummary": ("paper",),
    "reviewer": ("reviewer",),
    "reviews": ("reviewer", "paper"),
    "student": ("author",),
    "submits": ("author", "paper"),
}
_TARGET_CHOICES = ("acceptable", "positiveReviews", "positiveSummary")
_DEFAULT_TARGETS = ("positiveReviews", "positiveSummary")
_FOLDER = "fair-a3sl/biasedPaperReview"
_FIX = (
    "Copy the authors' samples (fair-a3sl/biasedPaperReview/bias1..bias10, see the "
    "project's shared datasets folder and its PROVENANCE.md) into the data directory"
)

ProtectedGroup = Literal["student_low_rank", "student"]


def _check(targets: Sequence[str], protected: str, caller: str) -> tuple[str, ...]:
    validate_parameter_constraints(
        {"protected": [Options(["student_low_rank", "student"])]},
        {"protected": protected},
        caller,
    )
    chosen = tuple(dict.fromkeys(targets))
    unknown = [t for t in chosen if t not in _TARGET_CHOICES]
    if unknown or not chosen:
        raise InvalidParameterError(
            f"The 'targets' parameter of {caller} must be a non-empty subset of "
            f"{list(_TARGET_CHOICES)}. Got {list(targets)!r} instead."
        )
    if "positiveSummary" not in chosen:
        raise InvalidParameterError(
            f"{caller}: targets must include 'positiveSummary', the predicate the fairness "
            f"groups are defined on. Got {list(targets)!r}."
        )
    return chosen


def _derive_affiliate2high_rank(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """``affiliate2HighRank(A) = highRank(institute of A)`` (as in the folders that have it)."""
    aff = tables["affiliation"][["author", "institute"]]
    rank = tables["highRank"][["institute", "value"]]
    out = aff.merge(rank, on="institute", how="left")
    out["value"] = out["value"].fillna(0.0)
    return out[["author", "value"]].reset_index(drop=True)


def _build(
    tables: dict[str, pd.DataFrame],
    targets: tuple[str, ...],
    protected: str,
    metadata: dict[str, object],
) -> RelationalData:
    missing = [p for p in PAPER_REVIEW_PREDICATES if p not in tables]
    if missing == ["affiliate2HighRank"]:
        tables["affiliate2HighRank"] = _derive_affiliate2high_rank(tables)
        metadata["derived"] = ["affiliate2HighRank"]
    elif missing:
        raise InvalidDataError(
            f"paper-review data: predicates {missing} are missing. Every sample needs "
            f"{sorted(PAPER_REVIEW_PREDICATES)}."
        )
    for name, frame in tables.items():
        args = list(PAPER_REVIEW_PREDICATES[name])
        frame = frame[[*args, "value"]].copy()
        frame[args] = frame[args].astype(str)
        frame["value"] = frame["value"].astype(np.float64)
        tables[name] = frame.reset_index(drop=True)
    obs = {n: f for n, f in sorted(tables.items()) if n not in targets}
    tgt = {n: tables[n][list(PAPER_REVIEW_PREDICATES[n])] for n in targets}
    truth = {n: tables[n] for n in targets}

    papers = tables["submits"][["author", "paper"]]
    papers = papers.merge(tables["affiliation"][["author", "institute"]], on="author", how="left")
    student = tables["student"].set_index("author")["value"]
    rank = tables["highRank"].set_index("institute")["value"]
    is_student = papers["author"].map(student).fillna(0.0).to_numpy() >= 0.5
    is_high = papers["institute"].map(rank).fillna(0.0).to_numpy() >= 0.5
    in_group = is_student & ~is_high if protected == "student_low_rank" else is_student
    group_papers = set(papers.loc[in_group, "paper"])
    summary = tgt["positiveSummary"]
    mask = summary["paper"].isin(group_papers).to_numpy()
    metadata.update(
        fairness_predicate="positiveSummary",
        task="classification",
        favourable=1,
        protected_group=(
            "papers by a student author at a non-high-rank institute (the authors' code)"
            if protected == "student_low_rank"
            else "papers by a student author (the paper's text, §5.1)"
        ),
        targets=list(targets),
    )
    return RelationalData(
        observations=obs,
        targets=tgt,
        truth=truth,
        protected=summary.loc[mask].reset_index(drop=True),
        unprotected=summary.loc[~mask].reset_index(drop=True),
        metadata=metadata,
    )


def paper_review_data(
    data: RelationalData,
    *,
    targets: Sequence[str] = _DEFAULT_TARGETS,
    protected: ProtectedGroup = "student_low_rank",
) -> RelationalData:
    """Choose the targets and the protected group of paper-review data anew.

    Zhang & Ramesh (§5.1) trains on one sample of the network and tests on another (100 papers,
    30 reviewers, 2 reviews per paper, ``theta1 = 0.5``, ``theta2 = 0.9``). Every predicate
    with known values (the observations and the targets' truth) is pooled, and the chosen
    ones become the targets.

    Parameters
    ----------
    data : RelationalData
        Output of :func:`~fairacq.data.synthetic.make_paper_review` or
        :func:`load_paper_review`.
    targets : sequence of str, default=("positiveReviews", "positiveSummary")
        Predicates to infer, among ``"acceptable"``, ``"positiveReviews"`` and
        ``"positiveSummary"`` (which is required: the groups are defined on it). The rest
        are observed.
    protected : {"student_low_rank", "student"}, default="student_low_rank"
        The protected papers: by a student author at a non-high-rank institute (the
        authors' set-up, see ``fair-a3sl/PROVENANCE.md``) or by any student author (the
        paper's text). The unprotected group is every other paper.

    Returns
    -------
    RelationalData
        ``protected``/``unprotected`` list ``positiveSummary`` atoms (column ``paper``);
        ``metadata["favourable"] == 1``.

    Raises
    ------
    InvalidParameterError
        For an unknown target or protected group.
    InvalidDataError
        If a paper-review predicate has no known values in ``data``.

    Examples
    --------
    >>> from fairacq.data.synthetic import make_paper_review
    >>> data = paper_review_data(make_paper_review(random_state=0), protected="student")
    >>> sorted(data.targets), len(data.protected) + len(data.unprotected)
    (['positiveReviews', 'positiveSummary'], 100)
    """
    chosen = _check(targets, protected, "paper_review_data")
    tables = {
        n: f.copy()
        for n, f in {**data.observations, **data.truth}.items()
        if n in PAPER_REVIEW_PREDICATES
    }
    meta: dict[str, object] = {"source": "make_paper_review", **data.metadata}
    meta["protected"] = protected
    return _build(tables, chosen, protected, meta)


def paper_review_table(data: RelationalData) -> pd.DataFrame:
    """Return one row per paper with its author's attributes and the ground truth.

    Columns: ``paper``, ``author``, ``institute``, ``student``, ``high_rank``,
    ``acceptable`` (the paper's highQuality), ``n_positive_reviews``, ``positive_summary``
    and ``protected`` (a student author at a non-high-rank institute, the authors' protected
    group).

    Parameters
    ----------
    data : RelationalData
        Paper-review data, whichever predicates are targets (their truth is read).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from fairacq.data.synthetic import make_paper_review
    >>> paper_review_table(make_paper_review(random_state=0))["protected"].dtype
    dtype('bool')
    """
    tables = {**data.observations, **data.truth}
    subs = tables["submits"][["author", "paper"]]
    aff = tables["affiliation"][["author", "institute"]]
    table = subs.merge(aff, on="author", how="left")
    student = tables["student"].rename(columns={"value": "student"})
    rank = tables["highRank"].rename(columns={"value": "high_rank"})
    quality = tables["acceptable"].rename(columns={"value": "acceptable"})
    summary = tables["positiveSummary"].rename(columns={"value": "positive_summary"})
    reviews = (
        tables["positiveReviews"]
        .groupby("paper")["value"]
        .sum()
        .rename("n_positive_reviews")
        .reset_index()
    )
    table = (
        table.merge(student, on="author", how="left")
        .merge(rank, on="institute", how="left")
        .merge(quality, on="paper", how="left")
        .merge(reviews, on="paper", how="left")
        .merge(summary, on="paper", how="left")
    )
    table["protected"] = (table["student"] == 1) & (table["high_rank"] == 0)
    return table[
        [
            "paper",
            "author",
            "institute",
            "student",
            "high_rank",
            "acceptable",
            "n_positive_reviews",
            "positive_summary",
            "protected",
        ]
    ]


def write_paper_review(data: RelationalData, directory: str | os.PathLike[str]) -> list[Path]:
    """Write one ``<predicate>.txt`` per predicate, comma-separated, no header.

    This is the authors' layout (``fair-a3sl/biasedPaperReview/bias*``, which
    :func:`load_paper_review` reads), with the truth value as the last column of every file:
    the observed tables and the targets' truth. Files are written atomically.

    Returns
    -------
    list of pathlib.Path
        The files written, sorted by name.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tables = {**data.observations, **data.truth}
    written = []
    for name in sorted(tables):
        path = out / f"{name}.txt"
        text = tables[name].to_csv(
            header=False, index=False, lineterminator="\n", float_format="%g"
        )
        with atomic_write(path, "w") as fh:
            fh.write(text)
        written.append(path)
    return written


def _read_predicate(path: Path, name: str) -> pd.DataFrame:
    args = list(PAPER_REVIEW_PREDICATES[name])
    text = path.read_text(encoding="utf-8")
    frame = pd.read_csv(io.StringIO(text), header=None, dtype=str, skipinitialspace=True)
    if frame.shape[1] == len(args):
        frame.columns = args
        frame["value"] = 1.0
    elif frame.shape[1] == len(args) + 1:
        frame.columns = [*args, "value"]
        try:
            frame["value"] = frame["value"].astype(np.float64)
        except ValueError as exc:
            raise CorruptFileError(
                f"paper-review data: the last column of {path} must be a number (the truth "
                "value). Check the file."
            ) from exc
    else:
        raise CorruptFileError(
            f"paper-review data: {path} has {frame.shape[1]} columns; predicate {name!r} "
            f"has {len(args)} arguments ({', '.join(args)}) and an optional value column."
        )
    return frame


def load_paper_review(
    sample: int = 1,
    *,
    targets: Sequence[str] = _DEFAULT_TARGETS,
    protected: ProtectedGroup = "student_low_rank",
    data_dir: str | os.PathLike[str] | None = None,
) -> RelationalData:
    """Load one of the authors' ten paper-review samples (``bias1`` ... ``bias10``).

    The files (``<data dir>/fair-a3sl/biasedPaperReview/bias<k>/<predicate>.txt``) are
    comma-separated, without header; the argument columns come first and the truth value,
    when present, last (``author.txt``, ``affiliation.txt``, ... list facts without one:
    value 1). Seven folders lack ``affiliate2HighRank.txt``; it is derived as the
    ``highRank`` value of the author's institute, which is exactly what the three folders
    that have it hold. The authors generated these samples with ``theta1 = 0.6`` (the
    paper says 0.5) and about 100 papers each (90-104).

    Parameters
    ----------
    sample : int, default=1
        Which sample, 1-10.
    targets : sequence of str, default=("positiveReviews", "positiveSummary")
        See :func:`paper_review_data`.
    protected : {"student_low_rank", "student"}, default="student_low_rank"
        See :func:`paper_review_data`.
    data_dir : path-like or None, default=None
        Data directory; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).

    Returns
    -------
    RelationalData

    Raises
    ------
    DatasetNotFoundError
        If the sample's files are not in the data directory.
    CorruptFileError
        If a file has the wrong number of columns or a non-numeric value.
    InvalidParameterError
        For a sample outside 1-10, an unknown target or protected group.
    """
    validate_parameter_constraints(
        {"sample": [Interval(int, 1, 10)]}, {"sample": sample}, "load_paper_review"
    )
    chosen = _check(targets, protected, "load_paper_review")
    tables: dict[str, pd.DataFrame] = {}
    folder = f"{_FOLDER}/bias{sample}"
    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    for name in PAPER_REVIEW_PREDICATES:
        rel = f"{folder}/{name}.txt"
        if name == "affiliate2HighRank" and not (root / rel).is_file():
            continue  # derived in _build
        path = find_local_file("fair-a3sl", rel, root=data_dir, fix=_FIX)
        tables[name] = _read_predicate(path, name)
    meta: dict[str, object] = {
        "source": f"fair-a3sl/biasedPaperReview/bias{sample}",
        "paper": "Zhang & Ramesh §5.1; authors' samples, theta1 = 0.6",
        "protected": protected,
    }
    return _build(tables, chosen, protected, meta)
