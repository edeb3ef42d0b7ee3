"""The paper-review Bayesian network of Zhang & Ramesh (§5.1, Table 2).

Papers are written by authors (students or not) from institutes (high rank or not); each paper
is of high quality or not and gets two reviews, whose chance of being positive depends on
quality, rank and student status (Table 2); a paper's summary is positive with a probability
that grows with its number of positive reviews. The bias: a high-quality paper by a student at
a non-high-rank institute is reviewed positively with probability ``theta1 = 0.5`` against
``theta2 = 0.9`` at a high-rank institute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._random import RandomState, as_generator
from fairacq._validation import Interval, Options, validate_parameter_constraints
from fairacq.data.relational._paper_review import PAPER_REVIEW_PREDICATES, _build
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidParameterError

__all__ = ["PAPER_REVIEW_PREDICATES", "make_paper_review"]

# Table 2: P(R = T | Q, H, S), keyed by (quality, high rank, student); theta1/theta2 fill the
# (T, F, T) and (T, T, T) cells.
_REVIEW_CPT: dict[tuple[bool, bool, bool], float] = {
    (False, False, False): 0.15,
    (False, False, True): 0.05,
    (False, True, False): 0.20,
    (False, True, True): 0.15,
    (True, False, False): 0.85,
    (True, True, False): 0.85,
}
_TARGETS = ("positiveReviews", "positiveSummary")


def make_paper_review(
    *,
    n_papers: int = 100,
    n_reviewers: int = 30,
    n_institutes: int = 20,
    reviewers_per_paper: int = 2,
    theta1: float | None = None,
    theta2: float = 0.9,
    p_student: float = 0.7,
    p_high_rank: float = 0.5,
    p_high_quality: tuple[float, float] = (0.4, 0.2),
    p_summary: Sequence[float] = (0.0, 0.2, 0.9),
    preset: Literal["paper", "authors"] = "paper",
    random_state: RandomState = None,
) -> RelationalData:
    """Sample the paper-review Bayesian network of Zhang & Ramesh (§5.1, Table 2).

    Zhang & Ramesh follow Farnadi et al. (2018): 100 papers, each by its own author, 30
    reviewers, 2 distinct random reviewers per paper, and Table 2's review probabilities with
    ``theta1 = 0.5`` and ``theta2 = 0.9``. What the paper leaves out comes from the authors'
    ten samples (``fair-a3sl/biasedPaperReview``) and Farnadi et al.'s generator: 20
    institutes, ``P(student) = 0.7``, ``P(high rank) = 0.5``, ``P(high quality) = 0.4`` for a
    non-student and ``0.2`` for a student, and a positive summary with probability 0, 0.2 or
    0.9 for 0, 1 or 2 positive reviews. Predicate names and arities are the authors' (the
    paper's ``highQuality`` is ``acceptable``); see ``docs/paper-notes/data.md``.

    Parameters
    ----------
    n_papers : int, default=100
        Papers (and authors: each author submits one paper). Ignored by ``preset="authors"``.
    n_reviewers : int, default=30
        Reviewers.
    n_institutes : int, default=20
        Institutes; each author belongs to one drawn uniformly.
    reviewers_per_paper : int, default=2
        Distinct reviewers per paper.
    theta1 : float or None, default=None
        ``P(R=T | Q=T, H=F, S=T)``; ``None`` means 0.5 (``preset="paper"``) or 0.6, the value
        of the authors' samples (``preset="authors"``).
    theta2 : float, default=0.9
        ``P(R=T | Q=T, H=T, S=T)``.
    p_student : float, default=0.7
        Probability that an author is a student.
    p_high_rank : float, default=0.5
        Probability that an institute is high rank.
    p_high_quality : tuple of float, default=(0.4, 0.2)
        ``P(high quality)`` of a paper by a non-student and by a student.
    p_summary : sequence of float, default=(0.0, 0.2, 0.9)
        ``P(positive summary | k positive reviews)`` for ``k = 0..reviewers_per_paper``.
    preset : {"paper", "authors"}, default="paper"
        ``"paper"``: exactly ``n_papers`` papers. ``"authors"``: as the authors' samples, each
        institute submits ``Binomial(10, 0.5)`` papers (about 100 in all) and ``theta1``
        defaults to 0.6.
    random_state : int, numpy.random.Generator or None, default=None
        Controls every draw.

    Returns
    -------
    RelationalData
        Observed: ``acceptable``, ``affiliate2HighRank``, ``affiliation``, ``author``,
        ``highRank``, ``institute``, ``paper``, ``reviewer``, ``reviews``, ``student``,
        ``submits``. Targets (with their truth): ``positiveReviews`` and ``positiveSummary``.
        Every value is 0 or 1; ids are ``a0``, ``p0``, ``r0``, ``i0``, ... as in the authors'
        files. The protected group: the ``positiveSummary`` atoms of papers by a student at a
        non-high-rank institute (the authors' code); other targets and groups through
        :func:`fairacq.data.relational.paper_review_data`, one row per paper through
        :func:`~fairacq.data.relational.paper_review_table`.

    Raises
    ------
    InvalidParameterError
        For probabilities outside [0, 1], too few reviewers, or a ``p_summary`` of the wrong
        length.

    Examples
    --------
    >>> data = make_paper_review(random_state=0)
    >>> obs = data.observations
    >>> len(obs["paper"]), len(obs["reviews"]), len(obs["reviewer"])
    (100, 200, 30)
    >>> sorted(data.targets), data.fairness_predicate
    (['positiveReviews', 'positiveSummary'], 'positiveSummary')
    """
    q, ps = _check_inputs(
        {
            "n_papers": n_papers,
            "n_reviewers": n_reviewers,
            "n_institutes": n_institutes,
            "reviewers_per_paper": reviewers_per_paper,
            "theta1": theta1,
            "theta2": theta2,
            "p_student": p_student,
            "p_high_rank": p_high_rank,
            "preset": preset,
        },
        p_high_quality,
        p_summary,
    )
    if theta1 is None:
        theta1 = 0.6 if preset == "authors" else 0.5
    rng = as_generator(random_state)
    authors = _sample_authors(rng, preset, n_papers, n_institutes, p_high_rank, p_student, q)
    n_papers = len(authors.student)
    order = np.argsort(rng.random((n_papers, n_reviewers)), axis=1)[:, :reviewers_per_paper]
    positive = _sample_reviews(rng, authors, reviewers_per_paper, float(theta1), float(theta2))
    summary = rng.random(n_papers) < ps[positive.sum(axis=1)]
    tables = _tables(authors, order, positive, summary, n_reviewers)
    metadata: dict[str, object] = {
        "source": "fairacq.data.synthetic.make_paper_review",
        "paper": "Zhang & Ramesh §5.1, Table 2; after Farnadi et al. 2018",
        "preset": preset,
        "n_papers": n_papers,
        "n_reviewers": n_reviewers,
        "n_institutes": n_institutes,
        "reviewers_per_paper": reviewers_per_paper,
        "theta1": float(theta1),
        "theta2": float(theta2),
        "p_student": float(p_student),
        "p_high_rank": float(p_high_rank),
        "p_high_quality": tuple(float(v) for v in q),
        "p_summary": tuple(float(v) for v in ps),
        "protected_group": "student author at a non-high-rank institute (authors' code)",
        "protected": "student_low_rank",
    }
    return _build(tables, _TARGETS, "student_low_rank", metadata)


def _check_inputs(
    params: dict[str, Any], p_high_quality: tuple[float, float], p_summary: Sequence[float]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Validate the parameters of :func:`make_paper_review`; return the two probability arrays."""
    prob = [Interval(float, 0, 1)]
    validate_parameter_constraints(
        {
            "n_papers": [Interval(int, 1, None, closed="left")],
            "n_reviewers": [Interval(int, 1, None, closed="left")],
            "n_institutes": [Interval(int, 1, None, closed="left")],
            "reviewers_per_paper": [Interval(int, 1, None, closed="left")],
            "theta1": [*prob, None],
            "theta2": prob,
            "p_student": prob,
            "p_high_rank": prob,
            "preset": [Options(["paper", "authors"])],
        },
        params,
        "make_paper_review",
    )
    reviewers_per_paper, n_reviewers = params["reviewers_per_paper"], params["n_reviewers"]
    if reviewers_per_paper > n_reviewers:
        raise InvalidParameterError(
            f"make_paper_review: reviewers_per_paper={reviewers_per_paper} exceeds "
            f"n_reviewers={n_reviewers}; each paper needs distinct reviewers. Add reviewers."
        )
    q = np.asarray(p_high_quality, dtype=np.float64)
    ps = np.asarray(p_summary, dtype=np.float64)
    if q.shape != (2,) or np.any((q < 0) | (q > 1)):
        raise InvalidParameterError(
            "make_paper_review: p_high_quality must be two probabilities (non-student, "
            f"student). Got {list(p_high_quality)}."
        )
    if ps.shape != (reviewers_per_paper + 1,) or np.any((ps < 0) | (ps > 1)):
        raise InvalidParameterError(
            f"make_paper_review: p_summary must hold {reviewers_per_paper + 1} probabilities "
            f"(for 0..{reviewers_per_paper} positive reviews). Got {list(p_summary)}."
        )
    return q, ps


@dataclass(frozen=True)
class _Authors:
    """Institutes and authors; author ``i`` submits paper ``i``."""

    high_rank: NDArray[np.bool_]  # per institute
    institute_of: NDArray[np.int64]  # per author
    student: NDArray[np.bool_]  # per author
    quality: NDArray[np.bool_]  # per paper

    @property
    def author_rank(self) -> NDArray[np.bool_]:
        """Whether each author's institute is high rank."""
        rank: NDArray[np.bool_] = self.high_rank[self.institute_of]
        return rank


def _sample_authors(
    rng: np.random.Generator,
    preset: str,
    n_papers: int,
    n_institutes: int,
    p_high_rank: float,
    p_student: float,
    q: NDArray[np.float64],
) -> _Authors:
    """Draw the institutes' ranks, the authors' institutes and status and the papers' quality."""
    high_rank = rng.random(n_institutes) < p_high_rank
    if preset == "authors":
        per_institute = rng.binomial(10, 0.5, size=n_institutes)
        per_institute[0] += int(per_institute.sum() == 0)  # at least one paper
        n_papers = int(per_institute.sum())
        institute_of = rng.permutation(np.repeat(np.arange(n_institutes), per_institute))
    else:
        institute_of = rng.integers(0, n_institutes, size=n_papers)
    student = rng.random(n_papers) < p_student
    quality = rng.random(n_papers) < np.where(student, q[1], q[0])
    return _Authors(high_rank, institute_of, student, quality)


def _sample_reviews(
    rng: np.random.Generator,
    authors: _Authors,
    reviewers_per_paper: int,
    theta1: float,
    theta2: float,
) -> NDArray[np.bool_]:
    """Draw whether each review is positive, by Table 2; shape (n_papers, reviewers_per_paper)."""
    cpt = np.empty((2, 2, 2))  # indexed [quality, high rank, student]
    for (qq, hh, ss), p in _REVIEW_CPT.items():
        cpt[int(qq), int(hh), int(ss)] = p
    cpt[1, 0, 1], cpt[1, 1, 1] = theta1, theta2
    p_review = cpt[
        authors.quality.astype(np.int64),
        authors.author_rank.astype(np.int64),
        authors.student.astype(np.int64),
    ]
    positive: NDArray[np.bool_] = (
        rng.random((len(p_review), reviewers_per_paper)) < p_review[:, None]
    )
    return positive


def _tables(
    authors: _Authors,
    order: NDArray[np.int64],
    positive: NDArray[np.bool_],
    summary: NDArray[np.bool_],
    n_reviewers: int,
) -> dict[str, pd.DataFrame]:
    """Return one table per predicate; ``order`` holds each paper's reviewers."""
    n_papers, n_institutes = len(authors.student), len(authors.high_rank)
    a_ids = _ids("a", n_papers)
    p_ids = _ids("p", n_papers)
    r_ids = _ids("r", n_reviewers)
    i_ids = _ids("i", n_institutes)
    rev_r = r_ids[order.reshape(-1)]
    rev_p = np.repeat(p_ids, order.shape[1])
    one = np.ones(n_papers)
    columns = {
        "acceptable": ((p_ids,), authors.quality),
        "affiliate2HighRank": ((a_ids,), authors.author_rank),
        "affiliation": ((a_ids, i_ids[authors.institute_of]), one),
        "author": ((a_ids,), one),
        "highRank": ((i_ids,), authors.high_rank),
        "institute": ((i_ids,), np.ones(n_institutes)),
        "paper": ((p_ids,), one),
        "positiveReviews": ((rev_r, rev_p), positive.reshape(-1)),
        "positiveSummary": ((p_ids,), summary),
        "reviewer": ((r_ids,), np.ones(n_reviewers)),
        "reviews": ((rev_r, rev_p), np.ones(len(rev_p))),
        "student": ((a_ids,), authors.student),
        "submits": ((a_ids, p_ids), one),
    }
    return {name: _table(name, args, values) for name, (args, values) in columns.items()}


def _ids(prefix: str, n: int) -> NDArray[np.object_]:
    return np.array([f"{prefix}{i}" for i in range(n)], dtype=object)


def _table(name: str, args: tuple[NDArray[Any], ...], values: NDArray[Any]) -> pd.DataFrame:
    data: dict[str, Any] = dict(zip(PAPER_REVIEW_PREDICATES[name], args, strict=True))
    data["value"] = np.asarray(values, dtype=np.float64)
    return pd.DataFrame(data)
