"""``allocate_budget``: how many samples of each group to collect, beside Uniform."""

from __future__ import annotations

from typing import Any

import numpy as np

from fairacq._random import RandomState, root_seed
from fairacq._typing import LearnerLike
from fairacq._warnings import warn_caller
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, ResultWarning
from fairacq.models import one_class_problem
from fairacq.sampling.allocation._allocation import AllocationResult
from fairacq.sampling.allocation._budget import resolve_budget
from fairacq.sampling.allocation._trials import TrialMapper, check_dataset, run_sampler_trials
from fairacq.sampling.samplers._registry import check_params_apply

__all__ = ["MIN_GROUP_ROWS", "allocate_budget"]

#: Below this many rows in the table, a group's counts and accuracies are flagged.
MIN_GROUP_ROWS = 30


def _warn_small_groups(dataset: FairDataset, min_rows: int) -> dict[str, int]:
    """Return the rows of each group; warn for those with fewer than ``min_rows``."""
    sizes = np.bincount(np.asarray(dataset.s), minlength=dataset.n_groups)
    available = {str(g): int(n) for g, n in zip(dataset.group_names, sizes, strict=True)}
    for group, n in available.items():
        if n < min_rows:
            warn_caller(
                f"group '{group}' has only {n} rows in the table (fewer than {min_rows}): its "
                "sample counts and accuracies rest on few rows and vary from trial to trial; "
                "collect more rows of it before trusting them.",
                ResultWarning,
            )
    return available


def _warn_one_class(method: str, traces: list[Any]) -> None:
    """Warn when the final model of some trials predicts one class for every test row."""
    classes = [t.meta["one_class"] for t in traces if "one_class" in t.meta]
    if not classes:
        return
    problem = one_class_problem(np.full(1, max(set(classes), key=classes.count)))
    warn_caller(
        f"{method}, in {len(classes)} of {len(traces)} trial(s): {problem} Its samples per "
        "group are no advice either.",
        ResultWarning,
    )


def allocate_budget(
    dataset: FairDataset,
    method: str = "aopt",
    *,
    budget: int | str,
    n_trials: int = 20,
    random_state: RandomState = 0,
    test_size: float = 0.3,
    learner: LearnerLike | None = None,
    baseline: str | None = "uniform",
    executor: TrialMapper | None = None,
    **params: Any,
) -> AllocationResult:
    """Answer "how many samples of each group should I collect?" on a table.

    Runs sampler ``method`` in ``n_trials`` trials (:func:`run_sampler_trials`: a pool/test
    split per trial, rows drawn from the pool without replacement, per group), then the
    ``baseline`` sampler on the same seeds, splits, budget and learner, and returns the samples
    each drew from each group with the worst-group test accuracy they bought.

    Parameters
    ----------
    dataset : FairDataset
        The table (its groups, possibly intersectional, are the ones sampled).
    method : str, default="aopt"
        A sampler name (:func:`available_samplers`).
    budget : int or str
        Samples per trial: a count, or a percentage of ``dataset``'s rows such as ``"20%"``.
    n_trials : int, default=20
        Independent trials. On Adult (race x sex, 500 samples) Aopt's gain of about 0.012
        over Uniform is told from noise with 20 trials, not with 10 (see the paper notes,
        ``docs/paper-notes/aopt.md``).
    random_state : int, SeedSequence or None, default=0
        Root seed; both methods get the same trial seeds.
    test_size : float, default=0.3
        Held-out fraction of each trial.
    learner : str, estimator or None, default=None
        A scikit-learn classifier (or Pipeline) refitted, cloned, on every sample each round;
        None keeps the paper's warm-started logistic regression.
    baseline : str or None, default="uniform"
        The comparison sampler; None (or ``method`` itself) runs none.
    executor : object with ``map(fn, items)`` or None, default=None
        Runs the trials.
    **params
        Further hyper-parameters of ``method`` (``c0``, ``epsilon``, ``b0`` ...); one it does
        not take is refused (the baseline gets those it takes).

    Returns
    -------
    AllocationResult

    Warns
    -----
    ResultWarning
        For each group with fewer than :data:`MIN_GROUP_ROWS` rows in ``dataset``, and when
        the final model of some trials predicts one class for every test row.

    Raises
    ------
    DegenerateModelError
        When the model's probabilities are NaN or outside [0, 1].
    BudgetError
        For a budget above the rows to draw from, or a group running out (naming it; for the
        baseline, saying so).
    InvalidParameterError, UnknownNameError
        For a bad budget, sampler name or learner, or a hyper-parameter ``method`` does not
        take.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> result = allocate_budget(load_toy(400), budget=40, n_trials=2)
    >>> table = result.to_frame()
    >>> float(table["aopt samples"].sum()), table["uniform samples"].tolist()
    (40.0, [20.0, 20.0])
    """
    check_dataset(dataset, "allocate_budget")
    hyper = {k: v for k, v in params.items() if k != "validation"}  # validation: the trials'
    check_params_apply(method, hyper, where="allocate_budget")  # none silently ignored
    available = _warn_small_groups(dataset, MIN_GROUP_ROWS)
    root = root_seed(random_state)
    common = dict(
        n_trials=n_trials,
        random_state=root,
        test_size=test_size,
        executor=executor,
        learner=learner,
        budget=resolve_budget(budget, len(dataset)),
        **params,
    )
    traces = run_sampler_trials(dataset, method, **common)
    base: list[Any] = []
    if baseline is not None and baseline != method:
        try:
            base = run_sampler_trials(dataset, baseline, **common)
        except BudgetError as exc:
            raise BudgetError(
                f"The {baseline} baseline (run beside {method}): {exc} Or skip the baseline "
                "(--no-baseline, baseline=None)."
            ) from None
    for name, run in ((method, traces), (baseline, base)):
        _warn_one_class(str(name), run)
    return AllocationResult(
        method=method,
        budget=int(common["budget"]),
        groups=[str(g) for g in dataset.group_names],
        available=available,
        traces=traces,
        baseline=baseline if base else None,
        baseline_traces=base,
    )
