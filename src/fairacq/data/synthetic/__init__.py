"""Synthetic data from the papers, generated in code (no files).

Each generator reproduces a data set a paper builds for its experiments:

- :class:`SyntheticModel1` and :class:`SyntheticModel2` (Shekhar et al., §2.2 and §5): two groups
  whose classes are Gaussian components in R^2. ``sample(group, n)`` draws one group,
  ``sample_mixture(pi, n)`` a mixture, ``linear_accuracy`` gives a linear classifier's exact
  accuracy per group; ``make_synthetic_model1`` / ``make_synthetic_model2`` return a
  :class:`~fairacq.data.FairDataset`.
- :func:`make_scaled_adult` (Hasan & Pradhan, §4.5): grows a dataset (Adult) to up to 10^6 rows.
- :func:`make_paper_review` (Zhang & Ramesh, §5.1, Table 2): the paper-review Bayesian network as
  :class:`~fairacq.data.relational.RelationalData` (observed and target predicate tables, the
  targets' truth and the authors' protected group).

Every generator takes ``random_state`` and returns identical data for the same int seed.
Construction choices the papers leave open are written down in ``docs/paper-notes/data.md``.
"""

from fairacq.data.synthetic._minimax_models import (
    GaussianComponent,
    SyntheticModel1,
    SyntheticModel2,
    make_synthetic_model1,
    make_synthetic_model2,
)
from fairacq.data.synthetic._paper_review import PAPER_REVIEW_PREDICATES, make_paper_review
from fairacq.data.synthetic._scaled_adult import make_scaled_adult

__all__ = [
    "PAPER_REVIEW_PREDICATES",
    "GaussianComponent",
    "SyntheticModel1",
    "SyntheticModel2",
    "make_paper_review",
    "make_scaled_adult",
    "make_synthetic_model1",
    "make_synthetic_model2",
]
