"""Paper 001 (Shekhar et al., adaptive sampling for minimax fairness): the Aopt experiments.

:mod:`.synthetic` reproduces Figs. 1, 2 and 6 on the paper's synthetic models,
:mod:`.images` the image experiments on the bundled 8x8 digits, and :mod:`.tabular` German
credit and the Adult ceiling.
"""

from fairacq_experiments.aopt import images, synthetic, tabular
from fairacq_experiments.aopt.synthetic import (
    Fig1Config,
    Fig2Config,
    Fig6Config,
    group_accuracy_curve,
    run_fig1,
    run_fig2,
    run_fig6,
)

__all__ = [
    "Fig1Config",
    "Fig2Config",
    "Fig6Config",
    "group_accuracy_curve",
    "images",
    "run_fig1",
    "run_fig2",
    "run_fig6",
    "synthetic",
    "tabular",
]
