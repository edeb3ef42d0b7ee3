"""The configuration of the DADI experiments (paper 002, Fig. 2) and its two presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from fairacq.exceptions import InvalidParameterError
from fairacq.features.dadi._actions import SET_ELEMENTS
from fairacq_experiments._framework.config import ExperimentConfig

__all__ = ["DadiFig2Config", "DadiFig2SecondConfig"]


@dataclass(frozen=True)
class DadiFig2Config(ExperimentConfig):
    """Fig. 2 of paper 002 on one dataset.

    Parameters
    ----------
    dataset, sensitive : str
        Dataset and sensitive attribute (Adult, ``"sex"``: §4).
    one_minus_gammas : tuple of float
        Values of ``1 - gamma`` on the horizontal axis of Figs. 2a/2b (the paper does not
        list them; 0 to 1 in steps of 0.1 covers its axis).
    rewards : tuple of str
        Adversarial rewards: ``"gnl1"`` (eq. 6) and ``"ce"`` (eq. 5).
    n_trials : int
        How many of the folds are run (folds ``0 .. n_trials - 1``; all 8 in ``full``, 2 in
        ``quick``). Every fold uses the same partition of the rows (one seed).
    folds : tuple of int or None
        Run exactly these folds instead (e.g. ``(2, 3)``), so that one experiment can be
        run in parts, on several machines or sessions, and the parts merged afterwards
        (:func:`merge_dadi_fig2`, ``fairacq reproduce dadi-fig2 --merge PART ...``).
    n_folds : int
        Cross-validation folds (8, §4).
    validation_fraction : float
        Share of the train-val part kept for validation (0.2, §4).
    max_rows : int or None
        Subsample the dataset first (``quick`` only).
    n_pretrain_iter, n_train_iter, batch_size, n_parallel : int
        DADI's pre-training and joint-training iterations, batch size and parallel
        episodes (10,000, 10,000, 64, 64: Appendix B).
    epsilon_decay_iter : int or None
        Joint iterations over which exploration decays from 1 to 0.1; None is half of
        ``n_train_iter`` (Appendix B: 5,000 of 10,000), so shortened runs keep the schedule's
        shape instead of exploring at random throughout.
    lams : tuple of float
        Disparity weights of static fair feature selection (``AUC - lam * disparity``).
    learner : str
        The learner retrained on each static subset (``fairacq.models.make_learner``).
    static_with_agent : bool
        Also score static subsets with DADI's pretrained classifier on masked inputs.
    set_elements : {"columns", "hot"}
        What DADI's set encoders read (:class:`~fairacq.features.DADI`): every observed
        column (Appendix A; the default on Adult) or one element per observed one-hot group
        (lossless and faster; the default on the second dataset, whose 776 ACS Income
        columns would make one agent about 66 CPU minutes instead of 12).
    dataset_kwargs : tuple of (str, object)
        Extra loader arguments (e.g. ACS states).
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 2,
        "max_rows": 800,
        "one_minus_gammas": (0.1, 0.9),
        "n_pretrain_iter": 20,
        "n_train_iter": 12,
        "batch_size": 32,
        "n_parallel": 8,
        "lams": (0.0, 1.0, 4.0, 64.0),
    }
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 8}

    dataset: str = "adult"
    sensitive: str = "sex"
    experiment: str = "dadi-fig2"
    title: str = "DADI on Adult (gender): disparity and AUC against 1 - gamma (Fig. 2a-c)"
    one_minus_gammas: tuple[float, ...] = tuple(round(0.1 * i, 2) for i in range(11))
    rewards: tuple[str, ...] = ("gnl1", "ce")
    n_folds: int = 8
    validation_fraction: float = 0.2
    max_rows: int | None = None
    n_pretrain_iter: int = 10_000
    n_train_iter: int = 10_000
    batch_size: int = 64
    n_parallel: int = 64
    epsilon_decay_iter: int | None = None
    lams: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
    learner: str = "lr"
    static_with_agent: bool = True
    set_elements: str = "columns"
    dataset_kwargs: tuple[tuple[str, Any], ...] = ()
    folds: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_trials > self.n_folds:
            raise InvalidParameterError(
                f"{type(self).__name__}: n_trials (folds run) must be <= n_folds "
                f"({self.n_folds}), got {self.n_trials}. Lower n_trials or raise n_folds."
            )
        if self.folds is not None:
            bad_folds = [f for f in self.folds if not 0 <= f < self.n_folds]
            if not self.folds or bad_folds or len(set(self.folds)) != len(self.folds):
                raise InvalidParameterError(
                    f"{type(self).__name__}: folds must be distinct fold numbers in 0 .. "
                    f"{self.n_folds - 1}, got {list(self.folds)}."
                )
        if self.set_elements not in SET_ELEMENTS:
            raise InvalidParameterError(
                f"{type(self).__name__}: set_elements must be 'columns' or 'hot', got "
                f"{self.set_elements!r}."
            )
        bad = [g for g in self.one_minus_gammas if not 0.0 <= g <= 1.0]
        if bad:
            raise InvalidParameterError(
                f"{type(self).__name__}: every 1 - gamma must be in [0, 1], got {bad[0]}."
            )

    def task_settings(self) -> DadiFig2Config:
        """Return this configuration without the fields that only choose which tasks run.

        The tasks get this copy, so the task cache keys an agent by what trains it: a run of
        more folds, gammas or rewards than an earlier one into the same ``--out`` reuses the
        agents that one finished.
        """
        return dataclasses.replace(
            self, n_trials=1, folds=None, one_minus_gammas=(), rewards=(), preset="custom"
        )

    @property
    def fold_indices(self) -> tuple[int, ...]:
        """The folds this configuration runs (``folds``, else ``0 .. n_trials - 1``)."""
        return tuple(sorted(self.folds)) if self.folds is not None else tuple(range(self.n_trials))


@dataclass(frozen=True)
class DadiFig2SecondConfig(DadiFig2Config):
    """Fig. 2d-f on the second dataset: ACS Income (sex) offline, else Bank Marketing (age)."""

    QUICK: ClassVar[dict[str, Any]] = {
        **DadiFig2Config.QUICK,
        "dataset_kwargs": (("states", ("WY",)),),
    }

    dataset: str = "auto"
    sensitive: str = "auto"
    set_elements: str = "hot"
    experiment: str = "dadi-fig2-second"
    title: str = "DADI on the second dataset: disparity and AUC against 1 - gamma (Fig. 2d-f)"
