"""The configurations of DataSift's acquisition experiments (paper 000, §4) and their presets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from fairacq_experiments._framework.config import ExperimentConfig

__all__ = [
    "PAPER_DATASETS",
    "DataSiftConfig",
    "Fig3Config",
    "Fig4Config",
    "Fig5Config",
    "Table2Config",
]

#: Paper 000 Table 1's sensitive attribute for each dataset (loader defaults follow it).
PAPER_DATASETS = (
    "adult",
    "give-me-some-credit",
    "acs-income",
    "acs-employment",
    "acs-public-coverage",
    "acs-mobility",
)


@dataclass(frozen=True)
class DataSiftConfig(ExperimentConfig):
    """Configuration of the DataSift experiments.

    Parameters
    ----------
    datasets : tuple of str
        Dataset names (§4.1.1).
    methods : tuple of str
        Acquisition methods compared; ``"datasift-inf-acc"`` is DataSift-Inf with
        ``accuracy_weight`` (fairacq's accuracy-aware ranking, not in the paper).
    learners : tuple of str
        Learners (§4.1.3: LR, SVM, MLP, decision tree, random forest).
    budget_fraction, batch_fraction : float
        Budget as a fraction of the pool (0.2) and batch as a fraction of the budget (0.1).
    tau, alpha : float
        Early-stop threshold (0.01) and UCB exploration weight (0.1).
    metric : str
        Steering fairness metric.
    bias : {"paper", "authors"}
        How the biased training sample is drawn (``fairacq.data.split_datasift``).
    max_rows : int or None
        Subsample each dataset to at most this many rows first (quick preset only).
    accuracy_weight : float
        Weight of the validation-loss influence in ``datasift-inf-acc``'s ranking.
    adult_encoding : {"one-hot", "datasift-authors"}
        Adult's features: one-hot (fairacq's default) or the authors' eight integer codes
        (``fairacq.data.load_adult(encoding=...)``; paper 000, Table 1: 8 features).
    refit : {"scratch", "partial"}
        Retrain after every batch (the paper's text) or update learners that have
        ``partial_fit`` (the MLP) with the batch only, as the authors' code does
        (:class:`~fairacq.acquisition.Acquirer`).
    """

    QUICK: ClassVar[dict[str, Any]] = {"datasets": ("adult",), "n_trials": 2, "max_rows": 12_000}
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 3}

    datasets: tuple[str, ...] = PAPER_DATASETS
    methods: tuple[str, ...] = ("random", "entropy", "autodata", "datasift")
    learners: tuple[str, ...] = ("lr",)
    budget_fraction: float = 0.2
    batch_fraction: float = 0.1
    tau: float = 0.01
    alpha: float = 0.1
    metric: str = "demographic_parity_diff_abs"
    bias: str = "paper"
    max_rows: int | None = None
    accuracy_weight: float = 1.0
    adult_encoding: str = "one-hot"
    refit: str = "scratch"
    title: str = "DataSift vs Random, Entropy, AutoData (Fig. 3)"
    experiment: str = "datasift-fig3"


@dataclass(frozen=True)
class Fig3Config(DataSiftConfig):
    """Fig. 3: DataSift vs Random, Entropy and AutoData, logistic regression, six datasets."""


@dataclass(frozen=True)
class Fig4Config(DataSiftConfig):
    """Fig. 4: the Fig. 3 methods on SVM, MLP, decision tree and random forest (ACSIncome)."""

    QUICK: ClassVar[dict[str, Any]] = {
        **DataSiftConfig.QUICK,
        "learners": ("linear_svm", "decision_tree"),
    }
    datasets: tuple[str, ...] = ("acs-income",)
    learners: tuple[str, ...] = ("linear_svm", "mlp", "decision_tree", "random_forest")
    title: str = "DataSift across learners on ACSIncome (Fig. 4)"
    experiment: str = "datasift-fig4"


@dataclass(frozen=True)
class Fig5Config(DataSiftConfig):
    """Fig. 5: DataSift-Inf vs DataSift vs Inf, logistic regression, six datasets."""

    methods: tuple[str, ...] = ("inf", "datasift", "datasift-inf")
    title: str = "DataSift-Inf vs DataSift vs Inf (Fig. 5)"
    experiment: str = "datasift-fig5"


@dataclass(frozen=True)
class Table2Config(DataSiftConfig):
    """Table 2: accuracy after acquisition for every method and the three parametric learners."""

    QUICK: ClassVar[dict[str, Any]] = {**DataSiftConfig.QUICK, "learners": ("lr",)}
    methods: tuple[str, ...] = ("random", "entropy", "autodata", "datasift", "inf", "datasift-inf")
    learners: tuple[str, ...] = ("lr", "linear_svm", "mlp")
    title: str = "Accuracy after acquisition (Table 2)"
    experiment: str = "datasift-table2"
