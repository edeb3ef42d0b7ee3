"""The DADI estimator: ``fit``, ``save`` and ``load``; its other jobs live beside it.

Implements DADI (Bakker et al.): a deep Q-learning agent decides, for each
individual, which feature group to reveal next and when to stop, rewarded at the end by
eq. (2), the classifier's loss traded against an adversary's loss with ``gamma``. Training
follows Appendix B: pre-training of the label classifier and the adversary on randomly
incomplete feature sets (:mod:`._pretrain`), then joint n-step double Q-learning with 64
parallel agents (:mod:`._qlearning`). Numeric (non-0/1) columns are standardised with the
training statistics (§4 "Datasets"), one-hot columns are kept as they are.

The estimator's other jobs have their own modules: its parameters (:mod:`._params`), the
greedy policy's answers (:mod:`._serving`, inherited), the model folder (:mod:`._persistence`)
and the training run (:mod:`._loop`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairacq._callbacks import Callback
from fairacq._loop import run_loop
from fairacq._trace import Trace
from fairacq._validation import check_no_nan
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError
from fairacq.features.dadi._diagnostics import exploration_warning, one_class_warning
from fairacq.features.dadi._loop import DADILoop
from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork
from fairacq.features.dadi._params import DADIParams
from fairacq.features.dadi._persistence import load_model, save_model

__all__ = ["DADI"]


class DADI(DADIParams):
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
        iterations (both pre-trainings, then the joint ones). Saved with the model
        (``trace.parquet`` + ``trace.json``) and read back by :meth:`load` (a model saved by an
        older version, without one, loads without ``trace_``).
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

    # ------------------------------------------------------------------------------------
    # fitting
    # ------------------------------------------------------------------------------------
    def fit(
        self,
        dataset: FairDataset,
        *,
        validation: FairDataset | None = None,
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
            same data and parameters (only ``n_train_iter`` may differ); training goes on to
            ``n_train_iter``.
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
        loop = DADILoop(self, dataset, validation, pretrained)
        result = run_loop(
            loop,
            method="dadi",
            config=self._json_params(),
            random_state=self.random_state,
            continue_from=continue_from,
            callbacks=callbacks,
        )
        agent, adversary = loop.trainer.agent, loop.trainer.adversary
        agent.eval()
        adversary.eval()
        self.agent_: AgentNetwork = agent
        self.adversary_: AdversaryNetwork = adversary
        self.n_iter_ = loop.trainer.iteration
        self.fingerprint_ = loop.fingerprint
        self.trace_: Trace = result.trace
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

    def save(
        self, directory: str | os.PathLike[str], *, extra_files: Mapping[str, Any] | None = None
    ) -> None:
        """Write ``agent.pt``, ``adversary.pt`` (state dicts), ``config.json`` and the trace.

        The torch files hold tensors only (loadable with ``weights_only=True``); the JSON
        holds the parameters, the columns, the feature groups, the scaling, the group names,
        the fit's ``warnings_`` and the fairacq version; ``trace.parquet`` + ``trace.json``
        are :attr:`trace_` (``Trace.load(directory / "trace")`` reads it back). The folder is
        built aside and swapped in whole, with a ``manifest.json`` of every file's sha256, so
        a kill never leaves half a model and :meth:`load` refuses a file edited since.

        Parameters
        ----------
        directory : path-like
            The model folder: new, empty, or holding a model saved earlier (replaced whole; a
            folder holding other files is refused).
        extra_files : mapping of str to JSON value, or None, default=None
            Further JSON files to keep with the model (file name -> content), e.g. the
            encoder of a raw table. Their checksums join the manifest in ``config.json``
            (:attr:`saved_files_` after :meth:`load`), so a reader can refuse an edited one.
        """
        save_model(self, directory, extra_files)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> DADI:
        """Load a model written by :meth:`save` (with its :attr:`trace_` when saved).

        Parameters
        ----------
        directory : path-like
            The folder given to :meth:`save`.

        Returns
        -------
        DADI
            The fitted model.

        Raises
        ------
        CorruptFileError
            If a file is missing, unreadable, or does not match the saved configuration.
        """
        return load_model(cls, directory)
