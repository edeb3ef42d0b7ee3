"""The DADI estimator: fit the agent, then reveal features individual by individual.

Implements DADI (Bakker et al.): a deep Q-learning agent decides, for each
individual, which feature group to reveal next and when to stop, rewarded at the end by
eq. (2), the classifier's loss traded against an adversary's loss with ``gamma``. Training
follows Appendix B: pre-training of the label classifier and the adversary on randomly
incomplete feature sets (:mod:`._pretrain`), then joint n-step double Q-learning with 64
parallel agents (:mod:`._qlearning`). Numeric (non-0/1) columns are standardised with the
training statistics (§4 "Datasets"), one-hot columns are kept as they are.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike, NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback, CheckpointCallback
from fairacq._checkpoint import (
    check_checkpoint_folder,
    is_checkpoint_folder,
    resolve_checkpoint,
)
from fairacq._io import read_json, sha256_file, write_json
from fairacq._loop import RunLoop, run_loop
from fairacq._random import RandomState, child_seeds
from fairacq._trace import Trace, TraceRecorder
from fairacq._validation import MAX_ABS_VALUE, Interval, Options, check_groups, check_no_nan
from fairacq._version import __version__
from fairacq.exceptions import (
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)
from fairacq.features.dadi._actions import SET_ELEMENTS, ActionSpace
from fairacq.features.dadi._diagnostics import exploration_warning, one_class_warning
from fairacq.features.dadi._elements import HotElements
from fairacq.features.dadi._env import DADIEnv
from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork, logits_to_group_proba
from fairacq.features.dadi._pretrain import pretrain
from fairacq.features.dadi._qlearning import (
    CHECKPOINT_META,
    JointConfig,
    JointTrainer,
    load_checkpoint,
    load_tensors,
    save_checkpoint,
)
from fairacq.features.dadi._rewards import REWARDS, group_weights, terminal_reward

__all__ = ["DADI", "Acquisition"]

_FORMAT = "fairacq.features.DADI"
# Parameters a resumed run may change: how long to train and how often to checkpoint.
_RESUMABLE = {"n_train_iter", "checkpoint_every", "checkpoint_dir"}
#: Parameters a shared pre-training (``fit(pretrained=...)``) must agree on.
_PRETRAIN_PARAMS = (
    "n_pretrain_iter",
    "batch_size",
    "learning_rate",
    "validation_fraction",
    "set_elements",
    "random_state",
)
_CHUNK = 8192


@dataclass(frozen=True)
class Acquisition:
    """What DADI reveals for one individual.

    Attributes
    ----------
    features : tuple of str
        Feature-group names, in the order the agent revealed them.
    proba : float
        The classifier's P(y=1) on the revealed set.
    """

    features: tuple[str, ...]
    proba: float


class DADI(Strategy):
    """Fair per-individual feature acquisition by adversarial deep Q-learning (Bakker et al.).

    For each individual an agent reveals feature groups one by one and stops when the
    expected reward of eq. (2), ``-(1 - gamma) L_C + gamma L_A``, is highest: a third party's
    classifier should predict the label well (low ``L_C``) while an adversary should fail to
    predict the sensitive attribute (high ``L_A``). Defaults follow Appendix B.

    Parameters
    ----------
    gamma : float, default=0.5
        Trade-off in [0, 1]; 0 rewards accuracy only, 1 fairness only.
    reward : {"gnl1", "ce"}, default="gnl1"
        The adversary loss in the reward: group-normalised L1 (eq. 6) or cross-entropy
        (eq. 5). The adversary itself always trains with cross-entropy (§3).
    n_pretrain_iter : int, default=10_000
        Pre-training iterations of each encoder + classifier pair (Appendix B).
    n_train_iter : int, default=10_000
        Joint-training iterations (Appendix B).
    batch_size : int, default=64
        Pre-training batch size (half complete, half with random missingness).
    n_parallel : int, default=64
        Agents acting in parallel during joint training, one individual each.
    n_step : int, default=4
        Steps per agent and iteration; the return is n-step, bootstrapped by double Q.
    target_update : int, default=100
        Iterations between copies of the online network into the target network.
    epsilon_start, epsilon_end : float, default=1.0, 0.1
        Exploration rate, decayed linearly ...
    epsilon_decay_iter : int, default=5_000
        ... over this many joint iterations, then kept at ``epsilon_end``.
    learning_rate : float, default=1e-3
        Adam's step size for every network (the paper does not state it; Adam's default).
    validation_fraction : float, default=0.2
        Share of ``dataset`` held out to pick the best pre-trained models when no
        ``validation`` set is given (the paper's 80/20 split).
    set_elements : {"columns", "hot"}, default="columns"
        What the set encoders read: every observed column as an element (Appendix A), or
        ``"hot"``: one element per observed one-hot group, its non-zero column (the zeros
        follow from it; see :class:`~fairacq.features.dadi._elements.HotElements`). The same
        information in far fewer elements, so much faster on tables with wide categorical
        features (ACS Income: 776 columns, 10 groups); a choice beyond the paper.
    checkpoint_dir : path-like or None, default=None
        Where to write a checkpoint folder after pre-training, every ``checkpoint_every``
        joint iterations and after the last one. If it already holds a checkpoint of the
        same data and parameters, :meth:`fit` resumes from it (only ``n_train_iter`` and
        ``checkpoint_every`` may differ), with results identical to an uninterrupted run.
        A shorthand kept for compatibility: ``fit(..., callbacks=[CheckpointCallback(path,
        every=k)])`` and ``fit(..., continue_from=path)`` are the way, shared with every
        fairacq strategy (the folders are the same).
    checkpoint_every : int, default=1000
        Joint iterations between the checkpoints of ``checkpoint_dir``.
    random_state : int, numpy.random.Generator or None, default=None
        Controls the validation split, the initial weights, the missingness, the sampled
        individuals and the exploration. An int gives identical models on CPU.

    Attributes
    ----------
    columns_ : list of str
        Feature columns, in training order.
    feature_groups_ : dict of str to list of str
        The acquisition actions (feature group -> columns), in action order.
    actions_ : ActionSpace
        The same as an :class:`ActionSpace` (STOP is action ``actions_.stop``).
    group_names_ : tuple of str
        Sensitive group names, indexed by code.
    agent_ : AgentNetwork
        Encoder, label classifier and Q-network.
    adversary_ : AdversaryNetwork
        The adversary (kept for evaluation).
    trace_ : Trace
        The run: one row per pre-training evaluation (``phase`` ``"pretrain-classifier"``
        or ``"pretrain-adversary"``, with ``train_loss`` and ``val_auc``) and per joint
        iteration (``phase`` ``"joint"``, with ``q_loss``, ``train_loss``,
        ``adversary_loss``, ``epsilon`` and episode statistics); ``cost`` counts training
        iterations (both pre-trainings, then the joint ones).
    history_ : pandas.DataFrame
        The same rows without ``step`` and ``cost`` (kept for compatibility).
    n_iter_ : int
        Joint iterations run.
    warnings_ : list of str
        What makes the result less than it seems: a classifier that predicts one class on
        the validation rows, exploration (epsilon) not yet decayed at the end of training.
        Recorded, not emitted (short fits are routine in sweeps and tests);
        :func:`~fairacq.features.train_dadi` emits them as
        :class:`~fairacq.exceptions.ResultWarning`. Saved with the model.
    saved_files_ : dict of str to str
        After :meth:`load` only: the folder's files and their sha256 checksums, as listed in
        ``config.json`` (the networks and any ``extra_files`` of :meth:`save`).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy()
    >>> model = DADI(n_pretrain_iter=20, n_train_iter=5, n_parallel=8, random_state=0).fit(ds)
    >>> out = model.acquire(ds.X.iloc[0])
    >>> isinstance(out.features, tuple), 0.0 <= out.proba <= 1.0
    (True, True)
    """

    _parameter_constraints = {  # noqa: RUF012  # sklearn's convention, read-only
        "gamma": [Interval(float, 0, 1, closed="both")],
        "reward": [Options(REWARDS)],
        "n_pretrain_iter": [Interval(int, 0, None, closed="left")],
        "n_train_iter": [Interval(int, 0, None, closed="left")],
        "batch_size": [Interval(int, 2, None, closed="left")],
        "n_parallel": [Interval(int, 1, None, closed="left")],
        "n_step": [Interval(int, 1, None, closed="left")],
        "target_update": [Interval(int, 1, None, closed="left")],
        "epsilon_start": [Interval(float, 0, 1, closed="both")],
        "epsilon_end": [Interval(float, 0, 1, closed="both")],
        "epsilon_decay_iter": [Interval(int, 0, None, closed="left")],
        "learning_rate": [Interval(float, 0, None, closed="neither")],
        "validation_fraction": [Interval(float, 0, 1, closed="neither")],
        "set_elements": [Options(SET_ELEMENTS)],
        "checkpoint_dir": [str, os.PathLike, None],
        "checkpoint_every": [Interval(int, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    # Fitted attributes (set by fit or load).
    columns_: list[str]
    actions_: ActionSpace
    feature_groups_: dict[str, list[str]]
    group_names_: tuple[str, ...]
    n_groups_: int
    scale_mean_: NDArray[np.float64]
    scale_std_: NDArray[np.float64]
    group_weights_: NDArray[np.float64]

    def __init__(
        self,
        *,
        gamma: float = 0.5,
        reward: Literal["gnl1", "ce"] = "gnl1",
        n_pretrain_iter: int = 10_000,
        n_train_iter: int = 10_000,
        batch_size: int = 64,
        n_parallel: int = 64,
        n_step: int = 4,
        target_update: int = 100,
        epsilon_start: float = 1.0,
        epsilon_end: float = 0.1,
        epsilon_decay_iter: int = 5_000,
        learning_rate: float = 1e-3,
        validation_fraction: float = 0.2,
        set_elements: Literal["columns", "hot"] = "columns",
        checkpoint_dir: str | os.PathLike[str] | None = None,
        checkpoint_every: int = 1000,
        random_state: RandomState = None,
    ) -> None:
        self.gamma = gamma
        self.reward = reward
        self.n_pretrain_iter = n_pretrain_iter
        self.n_train_iter = n_train_iter
        self.batch_size = batch_size
        self.n_parallel = n_parallel
        self.n_step = n_step
        self.target_update = target_update
        self.epsilon_start = epsilon_start
        self.epsilon_end = epsilon_end
        self.epsilon_decay_iter = epsilon_decay_iter
        self.learning_rate = learning_rate
        self.validation_fraction = validation_fraction
        self.set_elements = set_elements
        self.checkpoint_dir = checkpoint_dir
        self.checkpoint_every = checkpoint_every
        self.random_state = random_state

    # ------------------------------------------------------------------------------------
    # fitting
    # ------------------------------------------------------------------------------------
    def fit(
        self,
        dataset: Any,
        *,
        validation: Any | None = None,
        pretrained: DADI | None = None,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> DADI:
        """Pre-train the classifier and the adversary, then train the agent jointly.

        The run is recorded in :attr:`trace_`: one row per pre-training evaluation, then one
        row per joint iteration (a step of :func:`~fairacq._loop.run_loop`). A run stopped
        on the way resumes exactly, to the networks an uninterrupted run ends with::

            DADI(...).fit(ds, callbacks=[CheckpointCallback("ck", every=500)])  # interrupted
            DADI(...).fit(ds, continue_from="ck")                             # resumed

        The checkpoint is the folder ``ck/``: ``trace.parquet`` + ``trace.json`` (the rows so
        far and the root seed), ``checkpoint.pt`` (networks, target network, optimisers,
        the joint phase's random stream and agents' states, as tensors only: read back with
        ``torch.load(weights_only=True)``) and ``checkpoint.json`` (parameters, columns,
        a fingerprint of the data and the checksum of ``checkpoint.pt``). ``every`` counts
        trace rows; one more checkpoint is written right after pre-training, which a resumed
        run does not repeat (its rows are replayed from the checkpoint).

        Parameters
        ----------
        dataset : FairDataset
            Training rows; its ``feature_groups`` define the actions (every column is its
            own action when the dataset has no grouping information).
        validation : FairDataset or None, default=None
            Rows on which the pre-trained models are selected by AUC; by default a random
            ``validation_fraction`` of ``dataset`` is held out.
        pretrained : DADI or None, default=None
            A DADI fitted with ``n_train_iter=0`` on the same rows and with the same
            pre-training parameters (``n_pretrain_iter``, ``batch_size``, ``learning_rate``,
            ``validation_fraction``, ``random_state``): its pre-trained classifier and
            adversary are copied instead of pre-training again. Pre-training does not depend
            on ``gamma`` or ``reward``, so a sweep over them can pre-train once; the result
            equals a fit from scratch exactly.
        continue_from : Trace, path-like or None, default=None
            The checkpoint folder of an interrupted fit (or ``Trace.load(folder)``) with the
            same data and parameters (only ``n_train_iter``, ``checkpoint_dir`` and
            ``checkpoint_every`` may differ); training goes on to ``n_train_iter``.
        callbacks : sequence of callables, default=()
            Called after each row with the :class:`~fairacq.TraceRecorder`, e.g.
            :class:`~fairacq.CheckpointCallback`; one returning ``False`` stops training.

        Returns
        -------
        DADI
            The fitted estimator.

        Raises
        ------
        InvalidParameterError
            For a hyper-parameter out of range (e.g. ``gamma`` outside [0, 1]) or an unknown
            ``reward``, or a checkpoint written with other parameters.
        InvalidDataError
            For NaNs in the features, a single sensitive group, a validation set with other
            columns or a single class, or a checkpoint (or ``pretrained`` model) of another
            feature set or data.
        CorruptFileError
            For a checkpoint whose files are torn or do not match each other.
        """
        self._validate_params()
        where = "DADI.fit"
        for name, ds in (("dataset", dataset), ("validation", validation)):
            if ds is not None and not all(hasattr(ds, a) for a in ("X", "y", "s", "n_groups")):
                raise InvalidDataError(
                    f"{where}: {name} must be a fairacq.data.FairDataset, got "
                    f"{type(ds).__name__}. Build one with FairDataset(X, y, sensitive)."
                )
        X_all = dataset.X
        for col in X_all.columns:
            check_no_nan(where, str(col), X_all[col].to_numpy(dtype=float))
        steps = list(callbacks)
        if self.checkpoint_dir is not None:
            check_checkpoint_folder(resolve_checkpoint(self.checkpoint_dir))
            steps.append(
                _JointCheckpoint(self.checkpoint_dir, self.checkpoint_every, self.n_train_iter)
            )
            if continue_from is None and is_checkpoint_folder(
                resolve_checkpoint(self.checkpoint_dir)
            ):
                continue_from = self.checkpoint_dir
        loop = _DADILoop(self, dataset, validation, pretrained)
        result = run_loop(
            loop,
            method="dadi",
            config=self._json_params(),
            random_state=self.random_state,
            continue_from=continue_from,
            callbacks=steps,
        )
        agent, adversary = loop.trainer.agent, loop.trainer.adversary
        agent.eval()
        adversary.eval()
        self.agent_: AgentNetwork = agent
        self.adversary_: AdversaryNetwork = adversary
        self.n_iter_ = loop.trainer.iteration
        self.fingerprint_ = loop.fingerprint
        self.pretrain_history_: list[dict[str, Any]] = loop.pre_history
        self.trace_: Trace = result.trace
        # The trace's rows without step and cost, as before the trace existed.
        self.history_ = _history_frame(
            [{str(k): v for k, v in r.items()} for r in result.trace.to_frame().to_dict("records")]
        )
        self.warnings_ = self._fit_warnings(loop.validation_X)
        return self

    def _fit_warnings(self, X_val: pd.DataFrame) -> list[str]:
        """Return the findings that make this fit less than it seems (see ``warnings_``)."""
        decisions = (self.predict_proba(X_val) >= 0.5).astype(np.int64)
        found = (
            one_class_warning(decisions, "validation"),
            exploration_warning(self._joint_config(), self.n_iter_),
        )
        return [w for w in found if w is not None]

    def _joint_config(self) -> JointConfig:
        """Return the joint phase's settings of this model's parameters."""
        return JointConfig(
            gamma=float(self.gamma),
            reward=str(self.reward),
            n_parallel=self.n_parallel,
            n_step=self.n_step,
            target_update=self.target_update,
            epsilon_start=float(self.epsilon_start),
            epsilon_end=float(self.epsilon_end),
            epsilon_decay_iter=self.epsilon_decay_iter,
            learning_rate=float(self.learning_rate),
        )

    def _check_pretrained(
        self, pretrained: DADI, fingerprint: str, params: Mapping[str, Any]
    ) -> None:
        where = "DADI.fit: pretrained"
        if not isinstance(pretrained, DADI) or not hasattr(pretrained, "fingerprint_"):
            raise InvalidParameterError(
                f"{where} must be a DADI fitted in this session with n_train_iter=0, got "
                f"{type(pretrained).__name__}. Fit DADI(n_train_iter=0, ...) on the same data."
            )
        if pretrained.n_iter_ != 0:
            raise InvalidParameterError(
                f"{where} was trained jointly for {pretrained.n_iter_} iterations; only a "
                "model fitted with n_train_iter=0 holds the pre-trained networks alone."
            )
        if pretrained.columns_ != self.columns_ or pretrained.fingerprint_ != fingerprint:
            raise InvalidDataError(
                f"{where} was fitted on other rows or columns. Fit it on the same training "
                "(and validation) data with the same random_state."
            )
        theirs = pretrained._json_params()
        for key in _PRETRAIN_PARAMS:
            if theirs.get(key) != params.get(key):
                raise InvalidParameterError(
                    f"{where} was fitted with {key}={theirs.get(key)!r}, not "
                    f"{params.get(key)!r}; pre-training would differ. Use the same value."
                )

    def _check_checkpoint(
        self, meta: Mapping[str, Any], fingerprint: str, params: Mapping[str, Any], folder: Path
    ) -> None:
        where = f"DADI.fit: checkpoint in {folder}"
        try:
            columns, saved_params = list(meta["columns"]), dict(meta["params"])
            saved_fp = meta["fingerprint"]
            _ = int(meta["iteration"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptFileError(
                f"{where} is malformed (missing {exc}). Delete the directory to start afresh."
            ) from exc
        if columns != self.columns_:
            raise InvalidDataError(
                f"{where} was written for another feature set ({len(columns)} columns, e.g. "
                f"{columns[:3]}; this data has {len(self.columns_)}, e.g. "
                f"{self.columns_[:3]}). Use another checkpoint_dir or the same data."
            )
        if saved_fp != fingerprint:
            raise InvalidDataError(
                f"{where} was written for other training or validation rows. Use another "
                "checkpoint_dir, or the same data and random_state."
            )
        # A parameter added after the checkpoint was written had its default then.
        saved_params = {**DADI().get_params(deep=False), **saved_params}
        for key, value in params.items():
            if key not in _RESUMABLE and saved_params.get(key) != value:
                raise InvalidParameterError(
                    f"{where} was written with {key}={saved_params.get(key)!r}, not {value!r}. "
                    "Use the checkpoint's parameters or another checkpoint_dir."
                )

    def _networks(
        self, actions: ActionSpace, n_groups: int, generator: torch.Generator | None
    ) -> tuple[AgentNetwork, AdversaryNetwork]:
        """Build the agent and adversary networks for ``actions`` (weights from ``generator``)."""
        elements = HotElements(actions.column_action) if self.set_elements == "hot" else None
        agent = AgentNetwork(
            actions.n_columns, actions.n_actions, generator=generator, elements=elements
        )
        adversary = AdversaryNetwork(
            actions.n_columns, n_groups=n_groups, generator=generator, elements=elements
        )
        return agent, adversary

    def _json_params(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self.get_params(deep=False).items():
            if isinstance(value, os.PathLike):
                value = os.fspath(value)
            if isinstance(value, np.integer):
                value = int(value)
            if value is not None and not isinstance(value, (str, int, float, bool)):
                value = repr(value)
            out[key] = value
        return out

    # ------------------------------------------------------------------------------------
    # inference
    # ------------------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "agent_"):
            raise NotFittedError(
                "This DADI instance is not fitted yet. Call fit(dataset) or DADI.load(path) first."
            )

    def _scaled_tensor(self, X: NDArray[np.float64]) -> torch.Tensor:
        scaled = (X - self.scale_mean_) / self.scale_std_
        return torch.as_tensor(np.nan_to_num(scaled, nan=0.0), dtype=torch.float32)

    def _frame(self, X: Any, where: str) -> pd.DataFrame:
        """Return ``X`` as a DataFrame with exactly ``columns_`` in training order."""
        if isinstance(X, pd.Series):
            X = X.to_frame().T
        elif isinstance(X, Mapping):
            X = pd.DataFrame({k: [v] for k, v in X.items()})
        if not isinstance(X, pd.DataFrame):
            raise InvalidDataError(
                f"{where}: expected a pandas DataFrame (or one row as a Series or mapping), "
                f"got {type(X).__name__}."
            )
        names = [str(c) for c in X.columns]
        missing = [c for c in self.columns_ if c not in names]
        if missing:
            raise InvalidDataError(
                f"{where}: the input lacks {len(missing)} of the model's feature columns "
                f"(e.g. {missing[:3]}); the model was trained on another feature set. Encode "
                "the input like the training data."
            )
        frame = X.copy()
        frame.columns = pd.Index(names)
        return frame[self.columns_]

    def _values(
        self, X: Any, where: str, mask: NDArray[np.bool_] | None = None
    ) -> tuple[pd.DataFrame, NDArray[np.float64]]:
        frame = self._frame(X, where)
        try:
            arr = frame.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidDataError(
                f"{where}: feature values must be numeric ({exc}). Encode the input like the "
                "training data."
            ) from exc
        with np.errstate(invalid="ignore"):
            unusable = ~np.isfinite(arr) | (np.abs(arr) >= MAX_ABS_VALUE)
        if mask is not None:
            unusable &= mask
        if unusable.any():
            rows, cols = np.nonzero(unusable)
            what = "NaN" if np.isnan(arr[rows[0], cols[0]]) else "infinite or too large"
            raise InvalidDataError(
                f"{where}: column '{self.columns_[cols[0]]}' has {what} values (row {rows[0]}, "
                f"{int(unusable.sum())} unusable values in all). DADI needs every value it may "
                "reveal to be a finite number; impute or rescale them."
            )
        return frame, arr

    def _rollout(
        self, arr: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.float64]]:
        """Run the greedy policy on every row: (order, acquired actions, final P(y=1))."""
        actions = self.actions_
        n, n_act = arr.shape[0], actions.n_actions
        col_action = torch.tensor(actions.column_action)
        order = np.full((n, n_act), -1, dtype=np.int64)
        acquired_all = np.zeros((n, n_act), dtype=bool)
        proba = np.empty(n, dtype=np.float64)
        agent = self.agent_
        agent.eval()
        for start in range(0, n, _CHUNK):
            X = self._scaled_tensor(arr[start : start + _CHUNK])
            m = X.shape[0]
            acquired = torch.zeros(m, n_act, dtype=torch.bool)
            active = torch.ones(m, dtype=torch.bool)
            steps = torch.zeros(m, dtype=torch.long)
            chunk_order = torch.full((m, n_act), -1, dtype=torch.long)
            with torch.no_grad():
                for _ in range(n_act + 1):
                    rows = active.nonzero().squeeze(1)
                    if rows.numel() == 0:
                        break
                    acq = acquired[rows]
                    _, q = agent(X[rows], acq[:, col_action])
                    valid = torch.cat([~acq, torch.ones(len(rows), 1, dtype=torch.bool)], 1)
                    a = q.masked_fill(~valid, -torch.inf).argmax(dim=1)
                    stop = a == n_act
                    go, go_a = rows[~stop], a[~stop]
                    chunk_order[go, steps[go]] = go_a
                    acquired[go, go_a] = True
                    steps[go] += 1
                    active[rows[stop]] = False
                logit = agent.logit(X, acquired[:, col_action])
            order[start : start + m] = chunk_order.numpy()
            acquired_all[start : start + m] = acquired.numpy()
            proba[start : start + m] = torch.sigmoid(logit).double().numpy()
        return order, acquired_all, proba

    def acquire(self, x: pd.Series | Mapping[str, float]) -> Acquisition:
        """Reveal one individual's features with the greedy policy and predict.

        Parameters
        ----------
        x : pandas.Series or mapping of str to float
            One individual's feature values (all model columns, encoded like the training
            data; extra keys are ignored).

        Returns
        -------
        Acquisition
            The feature groups in the order revealed, and P(y=1) on them.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            For missing columns or NaN values.
        """
        self._check_fitted()
        _, arr = self._values(x, "DADI.acquire")
        if arr.shape[0] != 1:
            raise InvalidDataError(
                f"DADI.acquire: expected one individual, got {arr.shape[0]} rows. Use "
                "transform or predict_proba for a table."
            )
        order, _, proba = self._rollout(arr)
        names = tuple(self.actions_.names[a] for a in order[0] if a >= 0)
        return Acquisition(features=names, proba=float(proba[0]))

    def acquire_many(self, X: pd.DataFrame) -> list[Acquisition]:
        """Reveal every row's features with the greedy policy (one batch) and predict.

        The same as :meth:`acquire` row by row, in one batched rollout.

        Parameters
        ----------
        X : pandas.DataFrame
            Rows with the model's columns, encoded like the training data.

        Returns
        -------
        list of Acquisition
            One per row, in order.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            For missing columns or NaN values.
        """
        self._check_fitted()
        _, arr = self._values(X, "DADI.acquire_many")
        if arr.shape[0] == 0:
            return []
        order, _, proba = self._rollout(arr)
        names = self.actions_.names
        return [
            Acquisition(features=tuple(names[a] for a in row if a >= 0), proba=float(p))
            for row, p in zip(order, proba, strict=True)
        ]

    def acquisition_mask(self, X: pd.DataFrame) -> NDArray[np.bool_]:
        """Return which columns the greedy policy reveals for each row, shape (n, n_columns).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            For missing columns or NaN values.
        """
        self._check_fitted()
        _, arr = self._values(X, "DADI.acquisition_mask")
        _, acquired, _ = self._rollout(arr)
        return self.actions_.column_mask(acquired)

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """Return ``X`` (model columns, original values) with unrevealed values set to NaN.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            For missing columns or NaN values.
        """
        self._check_fitted()
        frame, arr = self._values(X, "DADI.transform")
        _, acquired, _ = self._rollout(arr)
        mask = self.actions_.column_mask(acquired)
        return frame.astype(float).where(mask)

    def predict_proba(
        self, X: pd.DataFrame, *, mask: NDArray[np.bool_] | None = None
    ) -> NDArray[np.float64]:
        """Return the classifier's P(y=1) for each row, shape (n,).

        Parameters
        ----------
        X : pandas.DataFrame
            Rows with the model's columns.
        mask : ndarray of bool, shape (n, n_columns) or (n_columns,), or None, default=None
            ``None`` runs the greedy policy per row and classifies the revealed set; a mask
            classifies exactly those columns (values elsewhere, even NaN, are ignored).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            For missing columns, NaN values that are used, or a mask of the wrong shape.
        """
        self._check_fitted()
        where = "DADI.predict_proba"
        if mask is None:
            _, arr = self._values(X, where)
            return self._rollout(arr)[2]
        frame = self._frame(X, where)
        m = np.asarray(mask, dtype=bool)
        if m.ndim == 1:
            m = np.broadcast_to(m, (len(frame), m.shape[0]))
        if m.shape != (len(frame), len(self.columns_)):
            raise InvalidDataError(
                f"{where}: mask has shape {m.shape}, expected ({len(frame)}, "
                f"{len(self.columns_)}) (rows x model columns)."
            )
        _, arr = self._values(frame, where, mask=m)
        out = np.empty(len(frame), dtype=np.float64)
        self.agent_.eval()
        with torch.no_grad():
            for start in range(0, len(frame), _CHUNK):
                X_t = self._scaled_tensor(arr[start : start + _CHUNK])
                m_t = torch.from_numpy(np.array(m[start : start + _CHUNK]))
                out[start : start + _CHUNK] = torch.sigmoid(self.agent_.logit(X_t, m_t)).numpy()
        return out

    def predict_group_proba(
        self, X: pd.DataFrame, *, mask: NDArray[np.bool_] | None = None
    ) -> NDArray[np.float64]:
        """Return the adversary's group probabilities, shape (n, n_groups).

        ``mask=None`` uses the columns the greedy policy reveals; otherwise exactly ``mask``.
        """
        self._check_fitted()
        where = "DADI.predict_group_proba"
        m = self.acquisition_mask(X) if mask is None else np.asarray(mask, dtype=bool)
        frame = self._frame(X, where)
        m = np.broadcast_to(m, (len(frame), len(self.columns_)))
        _, arr = self._values(frame, where, mask=m)
        with torch.no_grad():
            logits = self.adversary_(self._scaled_tensor(arr), torch.from_numpy(np.array(m)))
        return logits_to_group_proba(logits, self.n_groups_).double().numpy()

    def rewards(
        self,
        X: pd.DataFrame,
        y: ArrayLike,
        s: ArrayLike,
        *,
        mask: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.float64]:
        """Return eq. (2)'s terminal reward of each row under this model's networks.

        What the agent is trained to maximise, for its own policy (``mask=None``) or for any
        other feature sets, e.g. one static subset for everybody: comparing the two tells
        whether a policy falls short of its objective or the objective of a goal.

        Parameters
        ----------
        X : pandas.DataFrame
            Rows with the model's columns.
        y : array-like of shape (n,)
            True labels.
        s : array-like of shape (n,)
            Group codes, as in the training data.
        mask : ndarray of bool, shape (n, n_columns) or (n_columns,), or None, default=None
            The revealed columns; ``None`` uses the greedy policy's.

        Returns
        -------
        ndarray of shape (n,)
            ``-(1 - gamma) L_C + gamma L_A`` with the model's ``gamma`` and adversary reward.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            For missing columns, NaN values that are used, a mask of the wrong shape, or
            ``y`` / ``s`` of another length than ``X``.
        """
        self._check_fitted()
        m = self.acquisition_mask(X) if mask is None else np.asarray(mask, dtype=bool)
        y_arr, s_arr = np.asarray(y).reshape(-1), np.asarray(s).reshape(-1)
        if not len(y_arr) == len(s_arr) == len(X):
            raise InvalidDataError(
                f"DADI.rewards: X has {len(X)} rows but y has {len(y_arr)} and s "
                f"{len(s_arr)}; pass one label and one group code per row."
            )
        return terminal_reward(
            self.predict_proba(X, mask=m),
            y_arr,
            self.predict_group_proba(X, mask=m),
            s_arr,
            gamma=float(self.gamma),
            kind=self.reward,
            weights=self.group_weights_,
        )

    def make_env(self, dataset: Any) -> DADIEnv:
        """Return a :class:`DADIEnv` over ``dataset`` rewarded by this model's networks.

        The env observes standardised values (as the networks do) and uses this model's
        ``gamma``, ``reward`` and training group weights.
        """
        self._check_fitted()
        _, arr = self._values(dataset.X, "DADI.make_env")
        scaled = self._scaled_tensor(arr).double().numpy()

        def classifier(values: NDArray[np.float64], mask: NDArray[np.bool_]) -> NDArray[Any]:
            with torch.no_grad():
                logit = self.agent_.logit(
                    torch.as_tensor(values, dtype=torch.float32), torch.as_tensor(mask)
                )
            return torch.sigmoid(logit).double().numpy()

        def adversary(values: NDArray[np.float64], mask: NDArray[np.bool_]) -> NDArray[Any]:
            with torch.no_grad():
                logits = self.adversary_(
                    torch.as_tensor(values, dtype=torch.float32), torch.as_tensor(mask)
                )
            return logits_to_group_proba(logits, self.n_groups_).double().numpy()

        return DADIEnv(
            scaled,
            dataset.y,
            dataset.s,
            classifier=classifier,
            adversary=adversary,
            actions=self.actions_,
            gamma=float(self.gamma),
            reward=self.reward,
            weights=self.group_weights_,
        )

    # ------------------------------------------------------------------------------------
    # persistence
    # ------------------------------------------------------------------------------------
    def save(
        self, directory: str | os.PathLike[str], *, extra_files: Mapping[str, Any] | None = None
    ) -> None:
        """Write ``agent.pt``, ``adversary.pt`` (state dicts), ``config.json``, ``history.json``.

        The torch files hold tensors only (loadable with ``weights_only=True``); the JSON
        holds the parameters, the columns, the feature groups, the scaling, the group names,
        the fit's ``warnings_`` and the fairacq version.

        Parameters
        ----------
        directory : path-like
            The model folder (created if needed).
        extra_files : mapping of str to JSON value, or None, default=None
            Further JSON files to keep with the model (file name -> content), e.g. the
            encoder of a raw table. Their checksums join the manifest in ``config.json``
            (:attr:`saved_files_` after :meth:`load`), so a reader can refuse an edited one.
        """
        self._check_fitted()
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        from fairacq._io import atomic_path

        for name, net in (("agent.pt", self.agent_), ("adversary.pt", self.adversary_)):
            with atomic_path(path / name) as tmp:
                torch.save(net.state_dict(), tmp)
        extras = dict(extra_files or {})
        for name, content in extras.items():
            _check_file_name(name)
            write_json(path / name, content)
        config = {
            "format": _FORMAT,
            "version": __version__,
            "files": {
                name: sha256_file(path / name) for name in ("agent.pt", "adversary.pt", *extras)
            },
            "params": self._json_params(),
            "columns": self.columns_,
            "feature_groups": self.feature_groups_,
            "group_names": list(self.group_names_),
            "n_groups": self.n_groups_,
            "scale_mean": self.scale_mean_.tolist(),
            "scale_std": self.scale_std_.tolist(),
            "group_weights": self.group_weights_.tolist(),
            "n_iter": self.n_iter_,
            "warnings": list(getattr(self, "warnings_", [])),
        }
        write_json(path / "config.json", config)
        write_json(
            path / "history.json",
            _json_rows(
                [
                    {str(k): v for k, v in r.items()}
                    for r in self.history_.to_dict(orient="records")
                ]
            ),
        )

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> DADI:
        """Load a model written by :meth:`save`.

        Raises
        ------
        CorruptFileError
            If a file is missing, unreadable, or does not match the saved configuration.
        """
        path = Path(directory)
        cfg_path = path / "config.json"
        if not cfg_path.exists():
            raise CorruptFileError(
                f"{cfg_path} is missing: {path} holds no saved DADI model. Pass the directory "
                "given to DADI.save."
            )
        cfg = read_json(cfg_path)
        try:
            if cfg["format"] != _FORMAT:
                raise KeyError("format")
            params = {k: v for k, v in dict(cfg["params"]).items() if k in _init_params()}
            if isinstance(params.get("random_state"), str):
                params["random_state"] = None
            model = cls(**params)
            actions = ActionSpace.from_groups(cfg["columns"], cfg["feature_groups"])
            n_groups = int(cfg["n_groups"])
            model.columns_ = list(actions.columns)
            model.actions_ = actions
            model.feature_groups_ = {
                n: list(actions.action_columns(i)) for i, n in enumerate(actions.names)
            }
            model.group_names_ = tuple(str(g) for g in cfg["group_names"])
            model.n_groups_ = n_groups
            model.scale_mean_ = np.asarray(cfg["scale_mean"], dtype=np.float64)
            model.scale_std_ = np.asarray(cfg["scale_std"], dtype=np.float64)
            model.group_weights_ = np.asarray(cfg["group_weights"], dtype=np.float64)
            model.n_iter_ = int(cfg["n_iter"])
            model.warnings_ = [str(w) for w in cfg.get("warnings", [])]
            if model.scale_mean_.shape != (actions.n_columns,) or model.scale_std_.shape != (
                actions.n_columns,
            ):
                raise KeyError("scale_mean/scale_std")
            _check_saved_values(model)
        except (KeyError, TypeError, ValueError, InvalidDataError) as exc:
            raise CorruptFileError(
                f"{cfg_path} is not a valid DADI configuration ({type(exc).__name__}: {exc}). "
                "Re-save the model."
            ) from exc
        _check_manifest(path, cfg.get("files"))
        model.saved_files_ = dict(cfg.get("files") or {})
        agent, adversary = model._networks(actions, n_groups, None)
        for name, net in (("agent.pt", agent), ("adversary.pt", adversary)):
            state = load_tensors(path / name)
            try:
                net.load_state_dict(state)
            except RuntimeError as exc:
                raise CorruptFileError(
                    f"{path / name} does not match the network described in config.json "
                    f"({str(exc).splitlines()[0]}). Re-save the model."
                ) from exc
            net.eval()
        model.agent_ = agent
        model.adversary_ = adversary
        model.history_ = _read_history(path / "history.json")
        return model


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------
def _check_saved_values(model: DADI) -> None:
    """Refuse saved parameters or scaling that a fitted model cannot have (a tampered file).

    The parameters are checked against the constraints the constructor's users get; the
    scaling must be finite with positive spreads; the group weights finite and >= 0.
    """
    try:
        model._validate_params()
    except InvalidParameterError as exc:
        raise ValueError(str(exc)) from exc
    arrays = {
        "scale_mean": (model.scale_mean_, np.isfinite(model.scale_mean_)),
        "scale_std": (model.scale_std_, np.isfinite(model.scale_std_) & (model.scale_std_ > 0)),
        "group_weights": (model.group_weights_, np.isfinite(model.group_weights_)
                          & (model.group_weights_ >= 0)),
    }  # fmt: skip
    for name, (values, ok) in arrays.items():
        if not np.all(ok):
            bad = np.asarray(values).ravel()[~np.asarray(ok).ravel()][:3].tolist()
            raise ValueError(f"{name} holds values a fitted model cannot have: {bad}")
    if model.n_groups_ != len(model.group_names_) or model.n_groups_ < 2:
        raise ValueError(f"n_groups {model.n_groups_} does not match {model.group_names_}")


def _check_file_name(name: Any) -> None:
    """Refuse a model file name that is not a plain ``.json`` name of the model folder."""
    if (
        not isinstance(name, str)
        or Path(name).name != name
        or name.startswith(".")
        or not name.endswith(".json")
        or name in {"config.json", "history.json"}
    ):
        raise InvalidParameterError(
            f"DADI.save: extra file name {name!r} is not a plain .json file name (or is one "
            "DADI writes itself). Name a file such as 'encoder.json'."
        )


def _check_manifest(path: Path, files: Any) -> None:
    """Refuse network files that are not the ones saved with ``config.json``.

    A model saved before the manifest existed has none and is read as it is. Further files
    listed (the ``extra_files`` of :meth:`DADI.save`) are checked by whoever reads them.
    """
    if files is None:
        return
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise CorruptFileError(
            f"{path / 'config.json'} lists its files in a form DADI does not write. Re-save "
            "the model."
        )
    for name in ("agent.pt", "adversary.pt"):
        if not (path / name).is_file():
            raise CorruptFileError(
                f"{path / name} is missing: the model folder is incomplete. Copy the whole "
                "folder again, or re-save the model."
            )
        if not isinstance(files, dict) or files.get(name) != sha256_file(path / name):
            raise CorruptFileError(
                f"{path / name} is not the file saved with {path / 'config.json'} (its "
                "checksum differs): the model folder mixes two saves. Re-save the model."
            )


def _init_params() -> set[str]:
    return set(DADI._get_param_names())


def _int_seed(seq: np.random.SeedSequence) -> int:
    return int(seq.generate_state(1, dtype=np.uint64)[0] % (2**63 - 1))


def _scaling(X: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Standardise numeric columns, keep 0/1 columns: return per-column mean and scale."""
    binary = np.isin(X, (0.0, 1.0)).all(axis=0)
    mean = np.where(binary, 0.0, X.mean(axis=0))
    std = X.std(axis=0)
    std = np.where(binary | (std == 0), 1.0, std)
    return mean.astype(np.float64), std.astype(np.float64)


def _fingerprint(columns: list[str], *arrays: Any) -> str:
    h = hashlib.sha256("\x1f".join(columns).encode())
    for a in arrays:
        arr = np.ascontiguousarray(np.asarray(a))
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def _json_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        clean: dict[str, Any] = {}
        for k, v in row.items():
            if isinstance(v, (np.floating, float)):
                v = None if math.isnan(float(v)) else float(v)
            elif isinstance(v, np.integer):
                v = int(v)
            clean[str(k)] = v
        out.append(clean)
    return out


def _read_history(hist_path: Path) -> pd.DataFrame:
    """Read a saved model's ``history.json`` (none: an empty history)."""
    rows = read_json(hist_path) if hist_path.exists() else []
    try:
        return _history_frame(list(rows) if isinstance(rows, list) else [])
    except (TypeError, ValueError, KeyError) as exc:
        raise CorruptFileError(
            f"{hist_path} is not a training history DADI writes ({type(exc).__name__}). "
            "Delete it (the model loads without it) or re-save the model."
        ) from exc


def _history_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    columns = [
        "phase",
        "iteration",
        "train_loss",
        "val_auc",
        "q_loss",
        "adversary_loss",
        "epsilon",
        "episodes",
        "mean_reward",
        "mean_length",
        "mean_acquired",
    ]
    frame = pd.DataFrame.from_records(rows, columns=columns)
    for c in columns[2:]:
        frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    frame["iteration"] = frame["iteration"].astype("int64")
    return frame


_PRETRAIN_KEYS = ("phase", "iteration", "train_loss", "val_auc")


@dataclass(frozen=True)
class _FitData:
    """The training tensors of one fit, and the validation set's labels and groups."""

    X_t: torch.Tensor
    y_t: torch.Tensor
    s_t: torch.Tensor
    X_v: torch.Tensor
    y_va: NDArray[Any]
    s_va: NDArray[Any]
    col_action: torch.Tensor


def _shifted(report: Callable[[float], None], done: int) -> Callable[[int], None]:
    """Report ``done`` plus a pre-training pair's own iteration count."""
    return lambda iteration: report(done + iteration)


class _DADILoop(RunLoop):
    """One :meth:`DADI.fit` as a :class:`~fairacq._loop.RunLoop`.

    ``start`` splits the data, builds the networks and pre-trains them (its rows are the
    pre-training evaluations; a resumed run skips it and replays them); each step is one joint
    iteration. The trace cannot hold the networks, so they travel in the checkpoint folder
    (``checkpoint.pt`` + ``checkpoint.json``, written and read by ``write_state`` /
    ``read_state``). The five random streams are the root seed's children 0-4 (validation
    split, initial weights, classifier and adversary pre-training, joint phase), the same as
    ``spawn_seeds(random_state, 5)``.
    """

    checkpoint_after_start = True

    def __init__(
        self, model: DADI, dataset: Any, validation: Any | None, pretrained: DADI | None
    ) -> None:
        self.model = model
        self.dataset = dataset
        self.validation = validation
        self.pretrained = pretrained
        self.pre_history: list[dict[str, Any]] = []

    def start(self, root: np.random.SeedSequence) -> list[dict[str, Any]]:
        m = self.model
        seeds = child_seeds(root, 5)
        train, validation = self._split(seeds[0])
        self.validation_X = validation.X
        data = self._prepare(train, validation)
        init_gen = torch.Generator().manual_seed(_int_seed(seeds[1]))
        agent, adversary = m._networks(m.actions_, m.n_groups_, init_gen)
        self.params = m._json_params()
        self.pretrain_cost = 2 * int(m.n_pretrain_iter)
        joint_gen = torch.Generator().manual_seed(_int_seed(seeds[4]))
        if self.resuming:
            pre_history = []  # the checkpoint holds the pre-trained networks; rows replayed
        elif self.pretrained is not None:
            m._check_pretrained(self.pretrained, self.fingerprint, self.params)
            agent.load_state_dict(self.pretrained.agent_.state_dict())
            adversary.load_state_dict(self.pretrained.adversary_.state_dict())
            pre_history = [dict(row) for row in self.pretrained.pretrain_history_]
        else:
            pre_history = self._pretrain(agent, adversary, data, seeds[2:4])
        self.trainer = JointTrainer(
            agent, adversary, data.X_t, data.y_t, data.s_t, data.col_action, m.group_weights_,
            self._joint_config(), joint_gen,
        )  # fmt: skip
        self.pre_history = pre_history
        return [{"cost": self._pretrain_cost(row), **row} for row in pre_history]

    def _split(self, seed: np.random.SeedSequence) -> tuple[Any, Any]:
        """Return the training and validation sets (a random hold-out if none was given)."""
        dataset, validation = self.dataset, self.validation
        if validation is not None:
            if list(validation.feature_names) != list(dataset.feature_names):
                raise InvalidDataError(
                    "DADI.fit: the validation set's columns differ from the training set's. "
                    "Split both from one dataset."
                )
            return dataset, validation
        n = len(dataset)
        n_val = max(1, round(self.model.validation_fraction * n))
        if n - n_val < 2:
            raise InvalidDataError(
                f"DADI.fit: {n} rows are too few to hold out a validation set. Pass more "
                "rows or a validation dataset."
            )
        perm = np.random.default_rng(seed).permutation(n)
        return dataset.subset(perm[n_val:]), dataset.subset(perm[:n_val])

    def _prepare(self, train: Any, validation: Any) -> _FitData:
        """Check the sets; fit the model's columns, groups, scaling and the data fingerprint."""
        m, dataset, where = self.model, self.dataset, "DADI.fit"
        X_tr = train.X.to_numpy(dtype=np.float64)
        X_va = validation.X.to_numpy(dtype=np.float64)
        check_no_nan(where, "validation X", X_va)
        s_tr = check_groups(where, train.s, name="sensitive groups of the training rows")
        y_tr, y_va, s_va = train.y, validation.y, validation.s
        for name, t in (("label", y_va), ("sensitive group", s_va)):
            if len(np.unique(t)) < 2:
                raise InvalidDataError(
                    f"{where}: the validation rows hold a single {name} value, so no AUC can be "
                    "measured. Use a larger or stratified validation set."
                )
        actions = ActionSpace.from_dataset(dataset)
        m.columns_ = list(actions.columns)
        m.actions_ = actions
        m.feature_groups_ = {
            n: list(actions.action_columns(i)) for i, n in enumerate(actions.names)
        }
        m.group_names_ = tuple(dataset.group_names)
        m.n_groups_ = int(dataset.n_groups)
        m.scale_mean_, m.scale_std_ = _scaling(X_tr)
        m.group_weights_ = group_weights(s_tr, m.n_groups_)
        self.fingerprint = _fingerprint(m.columns_, X_tr, y_tr, s_tr, X_va, y_va, s_va)
        return _FitData(
            X_t=m._scaled_tensor(X_tr),
            y_t=torch.tensor(y_tr),
            s_t=torch.tensor(s_tr),
            X_v=m._scaled_tensor(X_va),
            y_va=y_va,
            s_va=s_va,
            col_action=torch.tensor(actions.column_action),
        )

    def _pretrain(
        self,
        agent: AgentNetwork,
        adversary: AdversaryNetwork,
        data: _FitData,
        seeds: Sequence[np.random.SeedSequence],
    ) -> list[dict[str, Any]]:
        """Pre-train the classifier, then the adversary; return their evaluation rows."""
        m = self.model
        history: list[dict[str, Any]] = []
        report = self.start_progress
        for (net, logits, loss, target, target_val, name), seed, done in zip(
            (
                (agent, agent.logit, agent.loss, data.y_t, data.y_va, "classifier"),
                (adversary, adversary.forward, adversary.loss, data.s_t, data.s_va, "adversary"),
            ),
            seeds,
            (0, m.n_pretrain_iter),  # iterations before this pair's (progress only)
            strict=True,
        ):
            result = pretrain(
                net,
                logits,
                loss,
                data.X_t,
                target,
                data.X_v,
                torch.tensor(target_val),
                data.col_action,
                n_iter=m.n_pretrain_iter,
                batch_size=m.batch_size,
                learning_rate=float(m.learning_rate),
                generator=torch.Generator().manual_seed(_int_seed(seed)),
                name=name,
                on_iteration=None if report is None else _shifted(report, done),
            )
            history += result.history
        return history

    def _joint_config(self) -> JointConfig:
        return self.model._joint_config()

    def _pretrain_cost(self, row: Mapping[str, Any]) -> float:
        """Training iterations done at a pre-training row (the classifier's come first)."""
        offset = self.pretrain_cost // 2 if row["phase"] == "pretrain-adversary" else 0
        return float(offset + int(row["iteration"]))

    def replay(self, row: Mapping[str, Any]) -> None:
        if str(row["phase"]).startswith("pretrain"):
            self.pre_history.append({k: _native(row[k]) for k in _PRETRAIN_KEYS})
        else:
            self.last_iteration = int(row["iteration"])

    def read_state(self, folder: Path) -> None:
        ckpt = load_checkpoint(folder)
        if ckpt is None:
            raise CorruptFileError(
                f"DADI.fit: the checkpoint folder {folder} lacks {CHECKPOINT_META}; it was "
                "written by another strategy, or torn. Resume from the folder DADI wrote."
            )
        tensors, meta = ckpt
        self.model._check_checkpoint(meta, self.fingerprint, self.params, folder)
        recorded = getattr(self, "last_iteration", 0)
        if int(meta["iteration"]) != recorded:
            raise CorruptFileError(
                f"DADI.fit: {folder} holds networks of joint iteration {meta['iteration']} but "
                f"a trace ending at iteration {recorded}: the files do not belong together. "
                "Resume from a folder that CheckpointCallback wrote whole."
            )
        self.trainer.load_state_dict(tensors, [])

    def stop_reason(self) -> str | None:
        return "n_train_iter" if self.trainer.iteration >= self.model.n_train_iter else None

    def step(self, index: int) -> dict[str, Any]:
        row = self.trainer.train_iteration()
        return {"cost": float(self.pretrain_cost + self.trainer.iteration), **row}

    def resume_state(self) -> dict[str, Any]:
        return {"iteration": self.trainer.iteration}

    def write_state(self, folder: Path) -> None:
        m = self.model
        meta = {
            "format": _FORMAT + ".checkpoint",
            "version": __version__,
            "iteration": self.trainer.iteration,
            "params": self.params,
            "columns": m.columns_,
            "feature_groups": m.feature_groups_,
            "fingerprint": self.fingerprint,
        }
        save_checkpoint(folder, self.trainer.state_dict(), meta)


class _JointCheckpoint(CheckpointCallback):
    """The checkpoints of ``DADI(checkpoint_dir=...)``.

    Written after pre-training, every ``every`` joint iterations and after the last one:
    the same folders as :class:`~fairacq.CheckpointCallback`.
    """

    def __init__(self, path: str | os.PathLike[str], every: int, n_train_iter: int) -> None:
        super().__init__(path, every=every)
        self.n_train_iter = n_train_iter

    def due(self, recorder: TraceRecorder) -> bool:
        last = recorder.last()
        if recorder.checkpoint_requested:
            return True
        if last.get("phase") != "joint":
            return False
        iteration = int(last["iteration"])
        return iteration % self.every == 0 or iteration == self.n_train_iter


def _native(value: Any) -> Any:
    """Return a plain Python value for a pre-training history entry (NaN stays a float)."""
    return value.item() if isinstance(value, np.generic) else value
