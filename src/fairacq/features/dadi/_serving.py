"""DADI's serving side: reveal features with the trained greedy policy and predict.

:class:`DADIServing` holds every method a fitted :class:`~fairacq.features.DADI` answers
with (``acquire``, ``transform``, ``predict_proba``...); the estimator inherits them. The
policy is run in batches of ``_CHUNK`` rows: each row reveals the feature group of highest
Q-value among those not yet revealed, until STOP is the best action.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import MAX_ABS_VALUE
from fairacq.exceptions import InvalidDataError, NotFittedError
from fairacq.features.dadi._actions import ActionSpace
from fairacq.features.dadi._env import DADIEnv
from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork, logits_to_group_proba
from fairacq.features.dadi._rewards import terminal_reward

__all__ = ["Acquisition", "DADIServing"]

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


class DADIServing:
    """The methods of a fitted DADI: greedy acquisition, masks, probabilities, rewards.

    A mixin of :class:`~fairacq.features.DADI`: it reads the fitted attributes that
    ``fit`` or ``load`` set and never trains.
    """

    columns_: list[str]
    actions_: ActionSpace
    n_groups_: int
    scale_mean_: NDArray[np.float64]
    scale_std_: NDArray[np.float64]
    group_weights_: NDArray[np.float64]
    agent_: AgentNetwork
    adversary_: AdversaryNetwork
    gamma: float
    reward: Literal["gnl1", "ce"]

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
