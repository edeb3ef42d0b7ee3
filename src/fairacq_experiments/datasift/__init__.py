"""Paper 000 (Hasan & Pradhan, DataSift): the acquisition experiments.

- :mod:`.comparison`: Figs. 3-5 and Table 2 (``datasift-fig3`` ... ``datasift-table2``), with
  their configurations in ``_config``, one acquisition run per task in ``_tasks`` (kept apart
  from the summaries: the task cache keys a result on the source of the module that runs
  it), readings of the curves and the acceptance check in ``_curves`` and the paper's Table 2
  in ``_paper_numbers``.
- :mod:`.ablation`: Fig. 7's ablations; :mod:`.scaling`: the scalability study;
  :mod:`.demo`: a seconds-long DataSift demo on Adult.
"""

from fairacq_experiments.datasift import ablation, comparison, demo, scaling
from fairacq_experiments.datasift._config import (
    PAPER_DATASETS,
    DataSiftConfig,
    Fig3Config,
    Fig4Config,
    Fig5Config,
    Table2Config,
)
from fairacq_experiments.datasift._curves import area_under_curve
from fairacq_experiments.datasift._tasks import (
    ACS_OFFLINE_STATES,
    load_for_datasift,
    split_for_experiment,
)
from fairacq_experiments.datasift.comparison import (
    accuracy_table,
    dropped_partition_notes,
    dropped_partitions,
    run_datasift,
)

__all__ = [
    "ACS_OFFLINE_STATES",
    "PAPER_DATASETS",
    "DataSiftConfig",
    "Fig3Config",
    "Fig4Config",
    "Fig5Config",
    "Table2Config",
    "ablation",
    "accuracy_table",
    "area_under_curve",
    "comparison",
    "demo",
    "dropped_partition_notes",
    "dropped_partitions",
    "load_for_datasift",
    "run_datasift",
    "scaling",
    "split_for_experiment",
]
