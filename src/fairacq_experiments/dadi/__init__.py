"""Paper 002 (Bakker et al., DADI): Fig. 2 on Adult and on a second dataset.

:mod:`.fig2` runs and summarises the experiments (``dadi-fig2``, ``dadi-fig2-second``);
their configuration is in ``_config``, the tasks (one agent, or one fold's baselines) in
``_tasks`` — kept apart from the summaries, as the task cache keys a result on the source
of the module that runs it — the findings beyond the figure (numbers and their wording)
in ``_findings``, and the paper's claims in ``_paper_numbers``.
"""

from fairacq_experiments.dadi import fig2
from fairacq_experiments.dadi._config import DadiFig2Config, DadiFig2SecondConfig
from fairacq_experiments.dadi._findings import (
    leakage_facts,
    leakage_note,
    one_third_check,
    reward_comparison_facts,
    reward_comparison_note,
)
from fairacq_experiments.dadi._paper_numbers import PAPER_002_FIG2
from fairacq_experiments.dadi._tasks import resolve_second_dataset
from fairacq_experiments.dadi.fig2 import (
    merge_dadi_fig2,
    per_fold_table,
    run_dadi_fig2,
    summarise_dadi_fig2,
)

__all__ = [
    "PAPER_002_FIG2",
    "DadiFig2Config",
    "DadiFig2SecondConfig",
    "fig2",
    "leakage_facts",
    "leakage_note",
    "merge_dadi_fig2",
    "one_third_check",
    "per_fold_table",
    "resolve_second_dataset",
    "reward_comparison_facts",
    "reward_comparison_note",
    "run_dadi_fig2",
    "summarise_dadi_fig2",
]
