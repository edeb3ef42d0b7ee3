"""Paper 004 (Zhang & Ramesh, Fair-A3SL): the relational experiments of §5.

:mod:`.psl` runs the hand-written PSL models and the baselines (``psl-*``), :mod:`.a3sl` the
structure learning (``a3sl-*``); the numbers the paper prints, which both compare with, are
in ``_paper_numbers``.
"""

from fairacq_experiments.relational import a3sl, psl
from fairacq_experiments.relational.psl import (
    PslCompasConfig,
    PslMovieLensConfig,
    PslPaperReviewConfig,
    RelationalResult,
    run_psl_compas,
    run_psl_movielens,
    run_psl_paper_review,
)

__all__ = [
    "PslCompasConfig",
    "PslMovieLensConfig",
    "PslPaperReviewConfig",
    "RelationalResult",
    "a3sl",
    "psl",
    "run_psl_compas",
    "run_psl_movielens",
    "run_psl_paper_review",
]
