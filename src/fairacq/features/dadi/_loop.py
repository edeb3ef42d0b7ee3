"""DADI's training run: pre-training then joint Q-learning, as one :class:`~fairacq._loop.RunLoop`.

:class:`DADILoop` is what :meth:`DADI.fit <fairacq.features.DADI.fit>` hands to
:func:`~fairacq._loop.run_loop`: its start splits and scales the data and pre-trains the
classifier and the adversary (or copies a shared pre-training); each step is one joint
iteration; the networks travel in the checkpoint folder of
:class:`~fairacq.CheckpointCallback` (``checkpoint.pt`` + ``checkpoint.json``). The checks
that a checkpoint or a shared pre-training belongs to this fit live here too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from numpy.typing import NDArray

from fairacq._artefact import to_jsonable
from fairacq._loop import RunLoop
from fairacq._random import child_seeds
from fairacq._validation import check_groups, check_no_nan
from fairacq._version import __version__
from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError
from fairacq.features.dadi._actions import ActionSpace
from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork
from fairacq.features.dadi._persistence import FORMAT
from fairacq.features.dadi._pretrain import pretrain
from fairacq.features.dadi._qlearning import (
    CHECKPOINT_META,
    JointConfig,
    JointTrainer,
    load_checkpoint,
    save_checkpoint,
)
from fairacq.features.dadi._rewards import group_weights

if TYPE_CHECKING:
    from fairacq.features.dadi._params import DADIParams

__all__ = ["DADILoop"]

# Parameters a resumed run may change: how long to train.
_RESUMABLE = {"n_train_iter"}
#: Parameters a shared pre-training (``fit(pretrained=...)``) must agree on.
_PRETRAIN_PARAMS = (
    "n_pretrain_iter",
    "batch_size",
    "learning_rate",
    "validation_fraction",
    "set_elements",
    "random_state",
)
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


class DADILoop(RunLoop):
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
        self,
        model: DADIParams,
        dataset: Any,
        validation: Any | None,
        pretrained: DADIParams | None,
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
            check_pretrained(m, self.pretrained, self.fingerprint, self.params)
            agent.load_state_dict(self.pretrained.agent_.state_dict())
            adversary.load_state_dict(self.pretrained.adversary_.state_dict())
            pre_history = pretrain_rows(self.pretrained)
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
            self.pre_history.append({k: to_jsonable(row[k]) for k in _PRETRAIN_KEYS})
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
        check_checkpoint(self.model, meta, self.fingerprint, self.params, folder)
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
            "format": FORMAT + ".checkpoint",
            "version": __version__,
            "iteration": self.trainer.iteration,
            "params": self.params,
            "columns": m.columns_,
            "feature_groups": m.feature_groups_,
            "fingerprint": self.fingerprint,
        }
        save_checkpoint(folder, self.trainer.state_dict(), meta)


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


def check_pretrained(
    model: DADIParams, pretrained: DADIParams, fingerprint: str, params: Mapping[str, Any]
) -> None:
    """Refuse a shared pre-training (``fit(pretrained=...)``) of other data or parameters."""
    where = "DADI.fit: pretrained"
    if not isinstance(pretrained, type(model)) or not hasattr(pretrained, "fingerprint_"):
        raise InvalidParameterError(
            f"{where} must be a DADI fitted in this session with n_train_iter=0, got "
            f"{type(pretrained).__name__}. Fit DADI(n_train_iter=0, ...) on the same data."
        )
    if pretrained.n_iter_ != 0:
        raise InvalidParameterError(
            f"{where} was trained jointly for {pretrained.n_iter_} iterations; only a "
            "model fitted with n_train_iter=0 holds the pre-trained networks alone."
        )
    if pretrained.columns_ != model.columns_ or pretrained.fingerprint_ != fingerprint:
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


def check_checkpoint(
    model: DADIParams,
    meta: Mapping[str, Any],
    fingerprint: str,
    params: Mapping[str, Any],
    folder: Path,
) -> None:
    """Refuse a checkpoint written for other columns, rows or parameters."""
    where = f"DADI.fit: checkpoint in {folder}"
    try:
        columns, saved_params = list(meta["columns"]), dict(meta["params"])
        saved_fp = meta["fingerprint"]
        _ = int(meta["iteration"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptFileError(
            f"{where} is malformed (missing {exc}). Delete the directory to start afresh."
        ) from exc
    if columns != model.columns_:
        raise InvalidDataError(
            f"{where} was written for another feature set ({len(columns)} columns, e.g. "
            f"{columns[:3]}; this data has {len(model.columns_)}, e.g. "
            f"{model.columns_[:3]}). Resume from another folder or with the same data."
        )
    if saved_fp != fingerprint:
        raise InvalidDataError(
            f"{where} was written for other training or validation rows. Use another "
            "folder, or the same data and random_state."
        )
    # A parameter added after the checkpoint was written had its default then.
    saved_params = {**type(model)().get_params(deep=False), **saved_params}
    for key, value in params.items():
        if key not in _RESUMABLE and saved_params.get(key) != value:
            raise InvalidParameterError(
                f"{where} was written with {key}={saved_params.get(key)!r}, not {value!r}. "
                "Use the checkpoint's parameters or another folder."
            )


def pretrain_rows(model: DADIParams) -> list[dict[str, Any]]:
    """Return the pre-training rows of a fitted model's trace (phase, iteration, loss, AUC)."""
    frame = model.trace_.to_frame()
    rows = frame[frame["phase"].astype(str).str.startswith("pretrain")]
    return [{k: to_jsonable(row[k]) for k in _PRETRAIN_KEYS} for _, row in rows.iterrows()]
