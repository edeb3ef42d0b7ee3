"""Train a DADI agent on a dataset or a raw table and score it.

:func:`train_dadi` is what ``fairacq features train`` runs: DADI's split (on a raw table the
encoder is fitted on the training rows), the fit, the test AUC, disparity and any fairness
metric, and the findings that make those numbers less than they seem, emitted as
:class:`~fairacq.exceptions.ResultWarning` and kept in :attr:`DadiRun.warnings`.
:func:`~fairacq.features.reveal_table` (``acquire``) serves the saved model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairacq._validation import check_known_params
from fairacq._warnings import warn_caller
from fairacq.data import FairDataset, PreparedTable, TableColumns, TableEncoder
from fairacq.exceptions import ResultWarning
from fairacq.features._baselines import score_predictions
from fairacq.features._model_dir import DadiModel
from fairacq.features._policy import PolicyVariety, policy_variety, policy_warnings
from fairacq.features._tables import dadi_data
from fairacq.features.dadi._diagnostics import ONE_CLASS, one_class_warning
from fairacq.metrics import compute, get_metric
from fairacq.models import check_probabilities

if TYPE_CHECKING:
    from fairacq._callbacks import Callback
    from fairacq.features.dadi._estimator import DADI

__all__ = ["DadiRun", "train_dadi"]


@dataclass(frozen=True)
class DadiRun:
    """A trained DADI agent and its scores on DADI's test split.

    Attributes
    ----------
    agent : DADI
        The fitted agent.
    n_train, n_test : int
        Rows of the training and test parts.
    test_auc, test_disparity : float
        AUC and disparity of the agent's decisions on the test part.
    share_revealed : float
        Share of the test part's columns the agent reveals.
    fairness : dict of str to float
        ``test_<metric>`` for every metric asked for.
    encoder : TableEncoder or None
        Raw columns -> the agent's columns (see :class:`~fairacq.features.DadiModel`).
    columns : TableColumns or None
        The roles of a raw table's columns.
    include_sensitive : bool
        Whether a raw table's group columns were features too.
    warnings : tuple of str
        Findings that make the numbers less than they seem (one-class classifier, exploration
        not decayed, a policy asking every test row for the same features, test categories
        the training rows lacked), each also emitted as a
        :class:`~fairacq.exceptions.ResultWarning`.
    policy : PolicyVariety or None
        The distinct feature sets the agent asks the test rows for.
    """

    agent: DADI
    n_train: int
    n_test: int
    test_auc: float
    test_disparity: float
    share_revealed: float
    fairness: dict[str, float] = field(default_factory=dict)
    encoder: TableEncoder | None = None
    columns: TableColumns | None = None
    include_sensitive: bool = False
    warnings: tuple[str, ...] = ()
    policy: PolicyVariety | None = None

    @property
    def model(self) -> DadiModel:
        """The agent with its encoder, ready to :meth:`~DadiModel.save`."""
        return DadiModel(self.agent, self.encoder, self.columns, self.include_sensitive)

    def summary(self) -> dict[str, Any]:
        """Return the run's numbers and warnings as JSON types (``summary.json``)."""
        return {
            "n_train": self.n_train,
            "n_test": self.n_test,
            "test_auc": self.test_auc,
            "test_disparity": self.test_disparity,
            "test_share_of_columns_revealed": self.share_revealed,
            **self.fairness,
            "features": list(self.agent.feature_groups_),
            **({"test_policy": self.policy.to_dict()} if self.policy is not None else {}),
            "warnings": list(self.warnings),
        }


def train_dadi(
    data: FairDataset | PreparedTable | pd.DataFrame,
    *,
    columns: TableColumns | None = None,
    include_sensitive: bool = False,
    random_state: int = 0,
    max_rows: int | None = None,
    metrics: Sequence[str] = (),
    callbacks: Sequence[Callback] = (),
    source: str = "table",
    **params: Any,
) -> DadiRun:
    """Split ``data`` as DADI does, train an agent and score it on the test part.

    Parameters
    ----------
    data : FairDataset, PreparedTable or pandas.DataFrame
        A dataset (its sensitive attribute may be among the features, as Bakker et al. does), a
        table made ready by :func:`~fairacq.data.prepare_table`, or a raw table whose
        ``columns`` name the label and groups: it is split first and its encoder fitted on
        the training and validation rows; each raw column is one action.
    columns : TableColumns or None, default=None
        The roles of a raw table's columns (required for a DataFrame only).
    include_sensitive : bool, default=False
        Offer a raw table's group columns as features too (Bakker et al. does).
    random_state : int, default=0
        Seed of the subsample, the split and training.
    max_rows : int or None, default=None
        Train on a random subsample of this many rows.
    metrics : sequence of str, default=()
        Fairness metrics (registered names) of the test decisions to report as well; an
        unknown name fails before training.
    callbacks : sequence of callables, default=()
        Passed to :meth:`DADI.fit`: called after pre-training and after every joint
        iteration with the run's recorder (progress, checkpoints); one returning ``False``
        stops training.
    source : str, default="table"
        The table's name (a file name), quoted in errors and warnings.
    **params
        Parameters of :class:`DADI` (``gamma``, ``reward``, iterations, ...).

    Returns
    -------
    DadiRun

    Raises
    ------
    UnknownNameError
        For an unknown metric.
    InvalidDataError
        For a raw table its ``columns`` do not fit (see :func:`~fairacq.data.prepare_table`).
    DegenerateModelError
        When the trained classifier's probabilities on the test part are not numbers.

    Warns
    -----
    ResultWarning
        For each of :attr:`DadiRun.warnings`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> people = pd.DataFrame({"age": rng.integers(20, 60, 200),
    ...                        "job": rng.choice(["a", "b"], 200),
    ...                        "sex": rng.choice(["F", "M"], 200),
    ...                        "hired": rng.choice(["yes", "no"], 200)})
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     run = train_dadi(people, columns=TableColumns("hired", ("sex",), positive="yes"),
    ...                      n_pretrain_iter=5, n_train_iter=2, n_parallel=4)
    >>> sorted(run.agent.feature_groups_)
    ['age', 'job']
    """
    from fairacq.features.dadi._estimator import DADI

    for name in metrics:
        get_metric(name)
    check_known_params("train_dadi: DADI", params, DADI._get_param_names())
    parts = dadi_data(
        data,
        columns=columns,
        include_sensitive=include_sensitive,
        random_state=random_state,
        max_rows=max_rows,
        source=source,
    )
    agent = DADI(random_state=random_state, **params)
    agent.fit(parts.train, validation=parts.validation, callbacks=callbacks)
    test = parts.test
    proba = check_probabilities(agent.predict_proba(test.X), where="the DADI classifier")
    auc, disparity = score_predictions(test.y, proba, test.s)
    decisions = (proba >= 0.5).astype(np.int64)
    fairness = {
        f"test_{name}": float(compute(name, test.y, decisions, test.s, scores=proba))
        for name in metrics
    }
    variety = policy_variety([a.features for a in agent.acquire_many(test.X)])
    found = _run_warnings(
        agent,
        decisions,
        disparity,
        (*policy_warnings(variety, where="test rows"), *parts.warnings),
    )
    for message in found:
        warn_caller(message, ResultWarning)
    revealed = np.asarray(agent.acquisition_mask(test.X), dtype=bool)
    return DadiRun(
        agent=agent,
        n_train=len(parts.train),
        n_test=len(test),
        test_auc=float(auc),
        test_disparity=float(disparity),
        share_revealed=float(revealed.mean()),
        fairness=fairness,
        encoder=parts.encoder,
        columns=parts.columns,
        include_sensitive=parts.include_sensitive,
        warnings=found,
        policy=variety,
    )


def _run_warnings(
    agent: DADI, decisions: Any, disparity: float, notes: Sequence[str]
) -> tuple[str, ...]:
    """Return the warnings: the test part's one-class finding replaces the validation's."""
    on_test = one_class_warning(decisions, "test", disparity=disparity)
    fit = [w for w in agent.warnings_ if on_test is None or not w.startswith(ONE_CLASS)]
    return (*([on_test] if on_test else []), *fit, *notes)
