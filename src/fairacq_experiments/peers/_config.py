"""Configurations of the peers experiments (shared by the tasks and the summaries)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidParameterError
from fairacq.models import MITIGATIONS
from fairacq_experiments._framework.config import ExperimentConfig

__all__ = ["POST_TOLS", "GroupsConfig", "RowsConfig", "parse_method", "parse_sampler"]

#: Tolerances of fairacq's post-thresholds front (0: equal validation rates).
POST_TOLS = (0.0, 0.025, 0.05, 0.1, 0.15, 0.2)


@dataclass(frozen=True)
class RowsConfig(ExperimentConfig):
    """``peers-rows``: pool-based fair acquisition (Falcon, FAL) beside DataSift-Inf.

    Parameters
    ----------
    datasets : tuple of str
        ``compas`` (by race), ``adult`` (by sex), ``acs-income`` (by sex; needs its files,
        skipped with a note when they are absent).
    budgets, batch_sizes : tuple of int
        Rows paid for and rows per round, one per dataset (Falcon's COMPAS protocol: 200 x 1).
    max_rows : int or None
        Subsample each dataset to this many rows before splitting (quick preset).
    include_sensitive : bool
        Race and sex among the features (Falcon's setting; without them no method moved
        COMPAS's test gap, docs/paper-notes/peers-rows.md).
    methods : tuple of str
        Acquirers (:func:`parse_method`): ``random``, ``entropy``, ``datasift-inf``,
        ``falcon lam=<λ>``, ``fal``, ``post-thresholds tol=<t>`` (fairacq's random rows
        plus group thresholds within ``t``, placed at the pool's quantiles) and
        ``post-thresholds policy=entropy tol=<t>`` (the most uncertain rows instead);
        ``placement=validation`` places the thresholds on the validation rows as fairlearn
        does. Each (policy, placement) ``tol`` sweep, with Random or Entropy as its
        no-threshold end, is one of fairacq's fronts.
    mitigation : bool
        Add fairlearn's ThresholdOptimizer (demographic parity) on the initial training data.
    fal_candidates, fal_alpha : int, float
        FAL's candidate set (the most uncertain rows) and accuracy weight.
    datasift_tau : float
        DataSift-Inf's early stop (0: off, it may look at the whole pool).
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 2,
        "datasets": ("compas", "adult", "acs-income"),
        "budgets": (40, 200, 200),
        "batch_sizes": (2, 20, 20),
        "max_rows": 1500,
        "fal_candidates": 4,
    }
    FULL: ClassVar[dict[str, Any]] = {
        "n_trials": 5,
        "datasets": ("compas", "adult", "acs-income"),
        # COMPAS: Falcon's notebook, 200 rounds of 1; Adult: 20 rounds of 100; ACS: the
        # authors' 400 rounds of 10 (docs/paper-notes/peers-rows.md, Defaults).
        "budgets": (200, 2000, 4000),
        "batch_sizes": (1, 100, 10),
        "max_rows": None,
    }

    datasets: tuple[str, ...] = ("compas", "adult", "acs-income")
    budgets: tuple[int, ...] = (200, 2000, 4000)
    batch_sizes: tuple[int, ...] = (1, 100, 10)
    max_rows: int | None = None
    include_sensitive: bool = True
    methods: tuple[str, ...] = (
        "random",
        "entropy",
        "datasift-inf",
        "falcon lam=1",
        "falcon lam=0.5",
        "falcon lam=0",
        "fal",
        *(f"post-thresholds tol={t:g}" for t in POST_TOLS),
        *(f"post-thresholds policy=entropy tol={t:g}" for t in POST_TOLS),
    )
    mitigation: bool = True
    fal_candidates: int = 16
    fal_alpha: float = 0.6
    datasift_tau: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not len(self.datasets) == len(self.budgets) == len(self.batch_sizes):
            raise InvalidParameterError(
                "RowsConfig: datasets, budgets and batch_sizes need one entry each, got "
                f"{len(self.datasets)}, {len(self.budgets)} and {len(self.batch_sizes)}."
            )
        if min(self.budgets + self.batch_sizes, default=1) < 1:
            raise InvalidParameterError("RowsConfig: budgets and batch sizes must be >= 1.")
        for m in self.methods:
            parse_method(m)

    def budget_of(self, dataset: str) -> tuple[int, int]:
        """Budget and batch size of ``dataset``."""
        i = self.datasets.index(dataset)
        return self.budgets[i], self.batch_sizes[i]


#: Methods a label names, and the parameters each label may set (with their checks).
_LABEL_PARAMS: dict[str, dict[str, Callable[[str], Any]]] = {
    "random": {},
    "entropy": {},
    "datasift-inf": {"accuracy_weight": lambda v: _number(v, 0.0, None)},
    "fal": {},
    "falcon": {"lam": lambda v: _number(v, 0.0, 1.0)},
    "post-thresholds": {
        "tol": lambda v: _number(v, 0.0, None),
        "policy": lambda v: _choice(v, ("random", "entropy")),
        "placement": lambda v: _choice(v, ("auto", "pool", "validation")),
    },
    "threshold-aware": {"tol": lambda v: _number(v, 0.0, None)},
}


def parse_method(
    label: str,
    table: dict[str, dict[str, Callable[[str], Any]]] | None = None,
    where: str = "RowsConfig",
) -> tuple[str, dict[str, Any]]:
    """Split a method label into the method and the parameters it sets.

    A label is a method's name, then ``key=value`` settings separated by spaces:
    ``"falcon lam=0.5"``, ``"post-thresholds policy=entropy tol=0.05"``. ``table`` names the
    methods and the settings each takes (the acquirers of ``peers-rows`` by default).

    Examples
    --------
    >>> parse_method("post-thresholds policy=entropy tol=0.05")
    ('post-thresholds', {'policy': 'entropy', 'tol': 0.05})
    """
    table = _LABEL_PARAMS if table is None else table
    name, *settings = label.split(" ")
    if name not in table:
        raise InvalidParameterError(
            f"{where}: unknown method {label!r}; use one of {sorted(table)}, each followed "
            "by the key=value settings it takes, if any."
        )
    params: dict[str, Any] = {}
    for setting in settings:
        key, eq, value = setting.partition("=")
        check = table[name].get(key)
        parsed = check(value) if check is not None and eq else None
        if parsed is None:
            known = ", ".join(f"{k}=<value>" for k in table[name]) or "none"
            raise InvalidParameterError(
                f"{where}: method {label!r}: cannot read {setting!r}; {name} takes {known}."
            )
        params[key] = parsed
    return name, params


def parse_sampler(label: str) -> tuple[str, dict[str, Any]]:
    """Split a ``peers-groups`` label into the sampler and its run settings.

    A label is a sampler's name (:func:`~fairacq.sampling.available_samplers`), optionally
    followed by ``validation=paired`` (the default) or ``validation=cross``.

    Examples
    --------
    >>> parse_sampler("aopt validation=cross")
    ('aopt', {'validation': 'cross'})
    """
    from fairacq.sampling import available_samplers

    setting = {"validation": lambda v: _choice(v, ("paired", "cross"))}
    return parse_method(label, dict.fromkeys(available_samplers(), setting), "GroupsConfig")


def _number(text: str, low: float, high: float | None) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if low <= value and (high is None or value <= high) else None


def _choice(text: str, options: tuple[str, ...]) -> str | None:
    return text if text in options else None


@dataclass(frozen=True)
class GroupsConfig(ExperimentConfig):
    """``peers-groups``: group samplers on Adult's four race_binary x sex groups.

    Parameters
    ----------
    dataset : str
        A named data set (:func:`fairacq.data.load_dataset`); Adult by default.
    groups : tuple of str
        Its sensitive attributes whose intersections are the groups.
    budgets : tuple of int
        Draws per run (training plus paired validation draws).
    methods : tuple of str
        Registered samplers, each with its own defaults, optionally followed by
        ``validation=cross`` (:func:`parse_sampler`: no paired validation draws, group losses
        from held-out predictions on the training rows).
    mitigations : tuple of str
        Comparators of :data:`fairacq.models.MITIGATIONS`, each fitted on the training rows
        Uniform draws in the same trial at each budget ("collect uniformly, then mitigate");
        empty for none. Both presets run all six.
    """

    QUICK: ClassVar[dict[str, Any]] = {"n_trials": 2, "budgets": (200, 400)}
    # docs/paper-notes/peers-groups.md measured 500 / 1000 / 2000 (paper 001 §5: 2000).
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 5, "budgets": (500, 1000, 2000)}

    dataset: str = "adult"
    groups: tuple[str, ...] = ("race_binary", "sex")
    budgets: tuple[int, ...] = (500, 1000, 2000)
    # fairacq's samplers (paper 001's Aopt, Aopt+, ε-greedy, greedy; Uniform), then the peers
    methods: tuple[str, ...] = (
        "aopt",
        "aopt-plus",
        "epsilon-greedy",
        "greedy",
        "uniform",
        "slice-tuner",
        "minimax-fair",
        "abernethy-greedy",
        # the same rules paying for no validation draws (Slice Tuner's curves and Abernethy's
        # averaged SGD have no held-out estimate on the training rows)
        "aopt validation=cross",
        "aopt-plus validation=cross",
        "epsilon-greedy validation=cross",
        "uniform validation=cross",
        "minimax-fair validation=cross",
    )
    mitigations: tuple[str, ...] = (
        "threshold-dp",
        "threshold-eo",
        "expgrad-dp",
        "expgrad-eo",
        "expgrad-error",
        "reweighing",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.budgets or min(self.budgets) < 1:
            raise InvalidParameterError("GroupsConfig: budgets must be >= 1 (one at least).")
        from fairacq.data import dataset_info

        dataset_info(self.dataset)  # an unknown name fails here, with the closest one
        if not self.methods:
            raise InvalidParameterError("GroupsConfig: name one method at least.")
        for label in self.methods:
            parse_sampler(label)
        for name in self.mitigations:
            if name not in MITIGATIONS:
                raise did_you_mean("mitigation", name, MITIGATIONS, "fairacq.models.MITIGATIONS")
