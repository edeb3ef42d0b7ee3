"""Back-test the strategies of a question on your own labelled table, and recommend one.

``fairacq compare`` in Python: :func:`compare_strategies` simulates acquisition from part of a
labelled table, over several seeds, for every strategy that answers the question and works
with the model. ``"rows"`` (which pool rows to buy): every registered acquisition method,
Random, and the "collect nothing" mitigation comparators of :mod:`fairacq.models`
(fairlearn's ThresholdOptimizer and ExponentiatedGradient, reweighing) on the rows you have
and on those plus Random's. ``"groups"`` (how many rows of each group): every registered
sampler. The :class:`CompareResult` holds every run, one row per strategy (mean and spread
over seeds) and a :class:`Recommendation`: which strategy reached the :class:`Target` at the
least cost and accuracy loss, or that none did and which came closest. It renders in Jupyter
(``_repr_html_``) and as one self-contained HTML page (:meth:`CompareResult.to_html`,
:func:`write_compare_report`). A back-test on your own rows, not a guarantee.

This layer sits between the experiments and reporting: it uses the acquisition and sampling
families, the models and reporting's plots, and nothing imports it but the command line.
"""

from fairacq.compare._compare import ROWS_FRACTIONS, compare_strategies
from fairacq.compare._plan import QUESTIONS, Plan, make_plan
from fairacq.compare._recommend import Recommendation, recommend
from fairacq.compare._report import compare_summary, write_compare_report
from fairacq.compare._result import CompareResult
from fairacq.compare._table import strategy_table
from fairacq.compare._target import METRIC_ALIASES, Target, parse_target

__all__ = [
    "METRIC_ALIASES",
    "QUESTIONS",
    "ROWS_FRACTIONS",
    "CompareResult",
    "Plan",
    "Recommendation",
    "Target",
    "compare_strategies",
    "compare_summary",
    "make_plan",
    "parse_target",
    "recommend",
    "strategy_table",
    "write_compare_report",
]
