"""Hand-written PSL models of Zhang & Ramesh's experiments (Sensitive-PSL, Fair-PSL, HyPER).

The rule sets are the baselines the Fair-A3SL paper compares against (§5), written in the
rule language of :func:`~fairacq.relational.parse_rules` over the predicates of the
relational loaders (:func:`~fairacq.relational.load_paper_review`,
:func:`~fairacq.relational.load_compas_relational`,
:func:`~fairacq.relational.load_movielens_relational`). Every rule starts at weight 5.0 with a
squared hinge, as the authors' set-up (weights are then learned).

- Paper review (§5.1, after Farnadi et al. 2018): reviews follow the paper's quality
  (``acceptable``, the paper's ``highQuality``) and, with the bias the data carries, the
  author's student status; the summary follows the reviews. **Sensitive-PSL** adds the rule
  that a student at a high-rank institute gets positive reviews; **Fair-PSL** drops it and
  adds the delta-fairness constraint ``rd <= 0.1`` on ``positiveSummary`` at MAP inference.
- COMPAS (§5.2): one rule per recidivism signal of §4.4 (age, charge degree, juvenile and
  prior offences, long jail stays) in both directions where the signal is graded, plus the
  negative prior ``user(U) -> !recidivist(U)``. **Sensitive-PSL** adds
  ``african_race(U) -> recidivist(U)`` (the race rule of Table 6); **Fair-PSL** drops it and
  constrains ``rd <= 0.1``.
- MovieLens (§5.3): a HyPER-style recommender (Kouki et al. 2015) on the paper's predicates —
  the matrix-factorisation rating, user and item averages as priors in both directions, and
  user-user and item-item Pearson similarity rules; **Fair-HyPER-NP** adds the non-parity
  constraint of §4.5.2 (``nonparity <= 0.001``; the paper gives no delta).

These rule sets follow the baselines of the authors' code (``yzhan202/fairness-A3SL``:
``paperReview_baseline.groovy``, ``compasExperiment/PSLbaseline.groovy``), rewritten here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fairacq._validation import did_you_mean

if TYPE_CHECKING:
    from fairacq.relational.psl._rules import ArithmeticRule, Rule

__all__ = [
    "COMPAS_BASE_RULES",
    "MOVIELENS_HYPER_RULES",
    "PAPER_REVIEW_BASE_RULES",
    "PSL_MODELS",
    "PslModel",
    "make_psl_model",
]

#: Paper review (§5.1): the rules shared by Sensitive-PSL and Fair-PSL.
PAPER_REVIEW_BASE_RULES = """\
# Reviews follow the paper's quality (acceptable = the paper's highQuality).
5.0: acceptable(P) & reviews(R, P) -> positiveReviews(R, P) ^2
5.0: !acceptable(P) & reviews(R, P) -> !positiveReviews(R, P) ^2
# The reviewers' bias against student authors, present in the data.
5.0: student(A) & submits(A, P) & reviews(R, P) -> !positiveReviews(R, P) ^2
5.0: !student(A) & submits(A, P) & reviews(R, P) -> positiveReviews(R, P) ^2
# The summary follows the reviews (collective rule over the two reviewers).
5.0: positiveReviews(R1, P) & positiveReviews(R2, P) -> positiveSummary(P) ^2
5.0: reviews(R, P) & !positiveReviews(R, P) -> !positiveSummary(P) ^2
"""

_PAPER_REVIEW_SENSITIVE = """\
# Sensitive rule: a student at a high-rank institute gets positive reviews.
5.0: student(A) & submits(A, P) & affiliation(A, I) & highRank(I) & reviews(R, P) -> positiveReviews(R, P) ^2
"""  # noqa: E501

#: COMPAS (§5.2): the rules shared by Sensitive-PSL and Fair-PSL.
COMPAS_BASE_RULES = """\
5.0: oldAge(U) -> !recidivist(U) ^2
5.0: user(U) & !oldAge(U) -> recidivist(U) ^2
5.0: felony(U) -> recidivist(U) ^2
5.0: user(U) & !felony(U) -> !recidivist(U) ^2
5.0: juvFelHistory(U, I1) -> recidivist(U) ^2
5.0: juvMisdHistory(U, I2) -> recidivist(U) ^2
5.0: juvOtherHistory(U, I3) -> recidivist(U) ^2
5.0: priors(U, I4) -> recidivist(U) ^2
5.0: longJailDay(U) -> recidivist(U) ^2
5.0: user(U) & !longJailDay(U) -> !recidivist(U) ^2
# Negative prior.
5.0: user(U) -> !recidivist(U) ^2
"""

_COMPAS_SENSITIVE = """\
# Sensitive rule (Table 6): race as a recidivism signal.
5.0: african_race(U) -> recidivist(U) ^2
"""

#: MovieLens (§5.3): HyPER-style rules over the loader's predicates.
MOVIELENS_HYPER_RULES = """\
# Matrix factorisation prediction, both directions.
5.0: ratingMF(U, I) & reviews(U, I) -> rating(U, I) ^2
5.0: reviews(U, I) & rating(U, I) -> ratingMF(U, I) ^2
# User and item averages as priors, both directions.
5.0: avgUserRating(U) & reviews(U, I) -> rating(U, I) ^2
5.0: reviews(U, I) & rating(U, I) -> avgUserRating(U) ^2
5.0: avgItemRating(I) & reviews(U, I) -> rating(U, I) ^2
5.0: reviews(U, I) & rating(U, I) -> avgItemRating(I) ^2
# Similar users rate alike; similar items are rated alike.
5.0: userPearsonSim(U, U2) & rating(U2, I) & reviews(U, I) -> rating(U, I) ^2
5.0: userPearsonSim(U, U2) & reviews(U2, I) & !rating(U2, I) & reviews(U, I) -> !rating(U, I) ^2
5.0: itemPearsonSim(I, I2) & rating(U, I2) & reviews(U, I) -> rating(U, I) ^2
5.0: itemPearsonSim(I, I2) & reviews(U, I2) & !rating(U, I2) & reviews(U, I) -> !rating(U, I) ^2
"""


@dataclass(frozen=True)
class PslModel:
    """A named hand-written PSL model: rule text plus the fairness constraints of MAP.

    Parameters
    ----------
    name : str
        Registry name (e.g. ``"compas-fair"``).
    dataset : {"paper-review", "compas", "movielens"}
        The relational loader whose predicates the rules use.
    label : str
        The row label of the paper's tables (``"Fair-PSL"``).
    rules : str
        PSL rule text, one rule per line (see :func:`~fairacq.relational.parse_rules`).
    fairness : tuple of str, default=()
        Delta-fairness constraints imposed at MAP inference (``"rd<=0.1"``); empty for a
        model without constraints.
    description : str, default=""
        One line on what the model is.
    """

    name: str
    dataset: str
    label: str
    rules: str
    fairness: tuple[str, ...] = field(default=())
    description: str = ""

    def parse(self) -> list[Rule | ArithmeticRule]:
        """Return the parsed rules."""
        from fairacq.relational.psl._parser import parse_rules

        return parse_rules(self.rules)

    def rule_lines(self) -> list[str]:
        """Return the rules as PSL text, one per rule (comments dropped)."""
        return [rule.text for rule in self.parse()]


#: Every model :func:`make_psl_model` knows, by name.
PSL_MODELS: Mapping[str, PslModel] = {
    m.name: m
    for m in (
        PslModel(
            "paper-review-sensitive",
            "paper-review",
            "Sensitive-PSL",
            PAPER_REVIEW_BASE_RULES + _PAPER_REVIEW_SENSITIVE,
            (),
            "Paper review (§5.1): hand-written rules with the sensitive rule, no constraint.",
        ),
        PslModel(
            "paper-review-fair",
            "paper-review",
            "Fair-PSL",
            PAPER_REVIEW_BASE_RULES,
            ("rd<=0.1",),
            "Paper review (§5.1, Farnadi et al. 2018): rules with RD <= 0.1 at MAP inference.",
        ),
        PslModel(
            "compas-sensitive",
            "compas",
            "Sensitive-PSL",
            COMPAS_BASE_RULES + _COMPAS_SENSITIVE,
            (),
            "COMPAS (§5.2): recidivism signals plus the race rule, no constraint.",
        ),
        PslModel(
            "compas-fair",
            "compas",
            "Fair-PSL",
            COMPAS_BASE_RULES,
            ("rd<=0.1",),
            "COMPAS (§5.2): recidivism signals with RD <= 0.1 at MAP inference.",
        ),
        PslModel(
            "movielens-hyper",
            "movielens",
            "HyPER (PSL)",
            MOVIELENS_HYPER_RULES,
            (),
            "MovieLens (§5.3): HyPER-style hybrid recommender rules.",
        ),
        PslModel(
            "movielens-fair",
            "movielens",
            "Fair-HyPER-NP (PSL)",
            MOVIELENS_HYPER_RULES,
            ("nonparity<=0.001",),
            "MovieLens (§5.3): HyPER rules with non-parity <= 0.001 at MAP inference (§4.5.2).",
        ),
    )
}


def make_psl_model(name: str) -> PslModel:
    """Return the hand-written PSL model ``name`` of Zhang & Ramesh's experiments.

    Parameters
    ----------
    name : str
        One of :data:`PSL_MODELS`: ``"paper-review-sensitive"``, ``"paper-review-fair"``,
        ``"compas-sensitive"``, ``"compas-fair"``, ``"movielens-hyper"``,
        ``"movielens-fair"``.

    Returns
    -------
    PslModel

    Raises
    ------
    UnknownNameError
        For an unknown name (the message suggests the closest).

    Examples
    --------
    >>> model = make_psl_model("compas-fair")
    >>> model.label, model.fairness, len(model.parse())
    ('Fair-PSL', ('rd<=0.1',), 11)
    """
    if name not in PSL_MODELS:
        raise did_you_mean("PSL model", name, PSL_MODELS, "fairacq.relational.PSL_MODELS")
    return PSL_MODELS[name]
